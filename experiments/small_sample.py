"""The small-sample study (the mdDF paper's Figure 6): the test score against the training fraction.

Trains the ``--protocol``'s methods on fractions of the training rows (stratified by class, every class keeping a row;
the test rows unchanged), repeated over seeds, and draws the mean test score (``--metric``) with standard-deviation
error bars. Each (fraction, method, seed) is one run of the benchmark runner, resumable in ``--out``. A fraction that
leaves a class too few rows for a method is skipped, naming the class. Writes small_sample_<dataset>.png/.pdf/.csv."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mddf.datasets.user_data import UserDataSource, provenance_line

from .cluster import run_from_args
from .cost_estimate import TableSize, announce
from .defaults import SMALL_SAMPLE_PAPER_METHODS, protocol_of
from .exit_status import EXIT_OK, EXIT_RUN_FAILED
from .figures import plt, save_figure
from .methods import default_registry
from .metrics import METRICS
from .outfolder import OutputFiles, hold, probe, writing
from .planning import available, bindings, check_task, describe, ranking_metric, unusable_fractions
from .provenance import provenance
from .runbook import bound_records, plan, report
from .runner import task_of
from .store import ResultStore, files_binding, set_aside_foreign, set_aside_stale
from .studies import NothingToRun, UsageError, check_out, logger, resolve_dataset
from .tables import write_rows

DEFAULT_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
QUICK_FRACTIONS = (0.05, 0.2, 1.0)


_KEYS = ("dataset", "method", "fraction", "profile", "status")


def summarize(records, dataset, methods, fractions, profile, metric="accuracy"):
    """Rows ``{method, fraction, n_train, metric, mean, std, n_seeds, ...}`` per method and fraction."""
    rows = []
    latest = {r["key"]: r for r in records if "key" in r}
    scale = METRICS[metric].scale
    for method in methods:
        for fraction in fractions:
            wanted = (dataset, method, fraction, profile, "ok")
            recs = [r for r in latest.values() if tuple(map(r.get, _KEYS)) == wanted and r.get(metric) is not None]
            if not recs:
                continue
            values = np.array([scale * r[metric] for r in recs])
            row = {"dataset": dataset, "method": method, "fraction": fraction}
            row["n_train"] = int(np.mean([r["n_train"] for r in recs]))
            if recs[0].get("task", "classification") != "regression":
                row["n_train_classes_min"] = int(min(r["n_train_classes"] for r in recs))
                row["min_class_rows"] = int(min(r.get("min_class_rows", 0) for r in recs))
                row["n_classes"] = recs[0]["n_classes"]
            std = float(values.std(ddof=1)) if len(values) > 1 else 0.0
            row.update(metric=metric, mean=float(values.mean()), std=std, n_seeds=len(values))
            row["seeds"] = ";".join(str(r["seed"]) for r in sorted(recs, key=lambda r: r["seed"]))
            adapted = {f"{', '.join(r['adapted'])} ({r.get('adapted_because', '')})" for r in recs if r.get("adapted")}
            row.update(adapted_runs=sum(1 for r in recs if r.get("adapted")), adapted=";".join(sorted(adapted)))
            rows.append(row)
    return rows


def plot(rows, dataset, methods, metric="accuracy"):
    """Mean test score (± std over the seeds) against the training fraction, one line per method."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    markers = dict(zip(methods, "osD^v<>p*h"))
    # the methods drawn slightly apart, so that their error bars do not hide each other (the CSV has the fractions)
    dodge = dict(zip(methods, 10 ** np.linspace(-0.02, 0.02, len(methods)) if len(methods) > 1 else [1.0]))
    for method in methods:
        mine = sorted((r for r in rows if r["method"] == method), key=lambda r: r["fraction"])
        if not mine:
            continue
        x = [100 * r["fraction"] * dodge[method] for r in mine]
        y, err = ([r[key] for r in mine] for key in ("mean", "std"))
        ax.errorbar(x, y, yerr=err, marker=markers.get(method, "o"), ms=4, capsize=3, label=method)
    ax.set_xscale("log")
    fractions = sorted({r["fraction"] for r in rows})
    ax.set_xticks([100 * f for f in fractions], [f"{100 * f:g}" for f in fractions])
    ax.minorticks_off()
    ax.set(xlabel="training fraction (%)", ylabel=f"test {METRICS[metric].shown}")
    n_seeds = max((r["n_seeds"] for r in rows), default=0)
    ax.set_title(f"Small training sets on {dataset} (mean ± std over {n_seeds} seed(s))")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def run(args, registry=None, *, command: str) -> int:
    """The exit status of the study the parsed ``args`` describe, of ``registry``'s methods."""
    log = logger(args)
    registry = registry or default_registry()
    profile = "quick" if args.quick else "paper"
    fractions = args.fractions or list(QUICK_FRACTIONS if args.quick else DEFAULT_FRACTIONS)
    protocol = args.protocol or ("practitioner" if args.data is not None else "paper")
    try:
        default = SMALL_SAMPLE_PAPER_METHODS if protocol == "paper" else None
        asked = registry.select(args.methods or default, protocol=protocol)
    except ValueError as exc:
        raise UsageError(str(exc)) from None  # unknown method name
    ds = resolve_dataset(args, log)  # NothingToRun when its files are missing: the message says which
    user_file = args.user_data is not None
    if protocol_of(ds.name) != "split" or not (ds.has_test_split or user_file):
        raise UsageError(f"{ds.name} has no train/test split; the study needs one")
    task = task_of(ds)
    check_task(protocol, task)
    metric = ranking_metric(ds, args.metric, log)
    out = args.out
    if out is None:
        out = Path("results") / UserDataSource(**ds.extra["user_data"]).slug / "small_sample" if user_file else None
        out = out or Path("results/small_sample")
        check_out(out)

    specs = available(asked, task, asked={s.name for s in asked} if args.methods else ())
    if not specs:
        raise NothingToRun("no requested method is available")
    seeds = args.seeds
    skipped = unusable_fractions(ds, fractions, specs, seeds)
    for (fraction, method), reason in skipped.items():
        print(f"skipped {method} at fraction {fraction:g}: {reason}", file=sys.stderr)
    runnable = [f for f in fractions if any((f, s.name) not in skipped for s in specs)]
    if not runnable:
        raise NothingToRun("every fraction leaves a class too few rows (see above)")

    info = describe(ds)
    with hold(out, command):
        probe(out)  # before any run: a full disk or a read-only folder stops here, in one line
        store = ResultStore(out / "results.jsonl")
        set_aside_foreign(store, lambda text: print(text, file=sys.stderr))
        bound = bindings([info], specs, protocol=protocol, profile=profile, n_folds={})
        planned = dict(profile=profile, fractions=runnable, protocol=protocol, tasks={ds.name: task}, bindings=bound)
        planned["metrics"] = {ds.name: metric}
        tasks = plan([ds.name], specs, seeds, n_classes={ds.name: info.n_classes}, **planned)
        tasks = [t for t in tasks if (t.fraction, t.method) not in skipped]
        stem = f"small_sample_{ds.name}"
        made = [f"{stem}.{kind}" for kind in ("png", "pdf", "csv")]
        with writing(out, f"appending to {store.path.name}", named_only=True):  # the runs' own errors pass
            set_aside_stale(store, tasks, lambda text: print(text, file=sys.stderr), made=made)
            workers = args.workers if args.scheduler is None else None
            announce(tasks, store, {ds.name: TableSize.of(ds, task)}, workers, log)
            code = run_from_args(tasks, store, args, registry)
        if code != EXIT_OK:
            return code

        methods = [s.name for s in specs]
        rows = summarize(bound_records(tasks, store), ds.name, methods, runnable, profile, metric)
        prov = provenance(command=command, data=provenance_line(ds))
        with OutputFiles(out, files_binding(tasks), force=getattr(args, "force", False)).replacing(made, command):
            written = save_figure(plot(rows, ds.name, methods, metric), out, stem, prov)
            written.append(write_rows(rows, out / f"{stem}.csv", prov))
    for r in rows:
        log(
            f"{r['method']:<11} {100 * r['fraction']:>5g}% ({r['n_train']:>5} rows): {r['mean']:.2f} ± {r['std']:.2f}"
            + (f"  (adapted in {r['adapted_runs']} run(s): {r['adapted']})" if r["adapted_runs"] else "")
        )
    for path in written:
        print(path)
    not_ok = report(tasks, store, [f"{len(skipped)} (fraction, method) pair(s) skipped"] if skipped else [])
    return EXIT_RUN_FAILED if not_ok else EXIT_OK
