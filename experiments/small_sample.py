"""The small-sample study (the mdDF paper's Figure 6): test accuracy versus training fraction.

``mddf small-sample`` and ``python scripts/small_sample.py`` parse their arguments (:mod:`.cli`)
and call :func:`run`.

Trains random forest, XGBoost, gcForest and mdDF on stratified fractions of the training rows
(every class keeps at least one row; the test rows are unchanged), repeated over seeds, and plots
the mean test accuracy with standard-deviation error bars. Each (fraction, method, seed) is one
run of the benchmark runner (a fresh worker process, or a task on a Dask cluster with
``--scheduler``; resumable ``results.jsonl`` in ``--out``), so random forest and XGBoost get
400 x k trees with k = the layers of mdDF on the same fraction and seed.

Writes ``small_sample_<dataset>.png/.pdf/.csv`` in ``--out``, each with the command that
regenerates it, the commit, the machine, the date and, with ``--data``, the file's sha256 (the
CSV's are ``#`` comment lines: read it with ``pandas.read_csv(path, comment="#")``).
"""

from __future__ import annotations

import sys

import numpy as np

from .cluster import run_from_args
from .executor import EXIT_NOTHING_TO_RUN, EXIT_OK, EXIT_RUN_FAILED, plan, unfinished
from .figures import plt, save_figure
from .methods import default_registry, unavailable_reason
from .outlock import hold
from .provenance import provenance
from .store import ResultStore
from .studies import NothingToRun, UsageError, logger, resolve_dataset
from .suites import protocol_of
from .tables import write_rows
from .user_data import provenance_line

DEFAULT_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
QUICK_FRACTIONS = (0.05, 0.2, 1.0)
DEFAULT_METHODS = ("RF", "XGBoost", "gcForest", "mdDF")


def summarize(records, dataset, methods, fractions, profile):
    """Rows ``{method, fraction, n_train, mean, std, n, accuracies}`` per method and fraction."""
    rows = []
    latest = {r["key"]: r for r in records if "key" in r}
    for method in methods:
        for fraction in fractions:
            recs = [
                r
                for r in latest.values()
                if r.get("dataset") == dataset
                and r.get("method") == method
                and r.get("fraction") == fraction
                and r.get("profile") == profile
                and r.get("status") == "ok"
            ]
            if not recs:
                continue
            acc = np.array([100 * r["accuracy"] for r in recs])
            rows.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "fraction": fraction,
                    "n_train": int(np.mean([r["n_train"] for r in recs])),
                    "n_train_classes_min": int(min(r["n_train_classes"] for r in recs)),
                    "n_classes": recs[0]["n_classes"],
                    "mean_accuracy": float(acc.mean()),
                    "std_accuracy": float(acc.std(ddof=1)) if len(acc) > 1 else 0.0,
                    "n_seeds": len(acc),
                    "seeds": ";".join(str(r["seed"]) for r in sorted(recs, key=lambda r: r["seed"])),
                }
            )
    return rows


def plot(rows, dataset, methods):
    """Mean test accuracy (± std over the seeds) against the training fraction, one line per method."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    markers = dict(zip(methods, "osD^v<>p*h"))
    # Methods are drawn slightly apart (about 4% along the log axis) so their error bars do not
    # hide each other; the CSV has the exact fractions.
    dodge = dict(zip(methods, 10 ** np.linspace(-0.02, 0.02, len(methods)) if len(methods) > 1 else [1.0]))
    for method in methods:
        mine = sorted((r for r in rows if r["method"] == method), key=lambda r: r["fraction"])
        if not mine:
            continue
        ax.errorbar(
            [100 * r["fraction"] * dodge[method] for r in mine],
            [r["mean_accuracy"] for r in mine],
            yerr=[r["std_accuracy"] for r in mine],
            marker=markers.get(method, "o"),
            ms=4,
            capsize=3,
            label=method,
        )
    ax.set_xscale("log")
    fractions = sorted({r["fraction"] for r in rows})
    ax.set_xticks([100 * f for f in fractions])
    ax.set_xticklabels([f"{100 * f:g}" for f in fractions])
    ax.minorticks_off()
    ax.set_xlabel("training fraction (%)")
    ax.set_ylabel("test accuracy (%)")
    n_seeds = max((r["n_seeds"] for r in rows), default=0)
    ax.set_title(f"Small training sets on {dataset} (mean ± std over {n_seeds} seed(s))")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def run(args, registry=None, *, command: str) -> int:
    """Run the study the parsed arguments describe (see ``mddf small-sample --help``).

    Parameters
    ----------
    args : argparse.Namespace
        From :func:`mddf.experiments.cli.small_sample_parser`.
    registry : Registry, optional
    command : str
        The command line recorded in the lock and in the files' provenance.

    Returns
    -------
    int
        The exit status (``EXIT_*`` of :mod:`.executor`).
    """
    log = logger(args)
    registry = registry or default_registry()
    profile = "quick" if args.quick else "paper"
    fractions = args.fractions or list(QUICK_FRACTIONS if args.quick else DEFAULT_FRACTIONS)
    try:
        asked = [registry.get(name) for name in args.methods.split(",") if name.strip()]
    except ValueError as exc:
        raise UsageError(str(exc)) from None  # unknown method name
    try:
        ds = resolve_dataset(args, log)
    except NothingToRun as exc:  # the dataset asked for is missing: the message says which file
        print(f"nothing to run: {exc}", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    user_file = args.user_data is not None
    if protocol_of(ds.name) != "split" or not (ds.has_test_split or user_file):
        raise UsageError(f"{ds.name} has no train/test split; the study needs one")

    specs = []
    for spec in asked:
        reason = unavailable_reason(spec)
        if reason:
            print(f"left out: {reason}", file=sys.stderr)
        else:
            specs.append(spec)
    if not specs:
        print("nothing to run: no requested method is available", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    specs = [s for s in registry if s in specs]  # registry order: mdDF before RF/XGBoost

    with hold(args.out, command):
        store = ResultStore(args.out / "results.jsonl")
        tasks = plan(
            [ds.name],
            specs,
            range(args.seeds),
            n_classes={ds.name: ds.n_classes},
            profile=profile,
            fractions=fractions,
        )
        code = run_from_args(tasks, store, args, registry)
        if code != EXIT_OK:
            return code

        methods = [s.name for s in specs]
        rows = summarize(store.records(), ds.name, methods, fractions, profile)
        stem = f"small_sample_{ds.name}"
        prov = provenance(command=command, data=provenance_line(ds))
        written = save_figure(plot(rows, ds.name, methods), args.out, stem, prov)
        written.append(write_rows(rows, args.out / f"{stem}.csv", prov))
    for r in rows:
        log(
            f"{r['method']:<9} {100 * r['fraction']:>5g}% ({r['n_train']:>5} rows): "
            f"{r['mean_accuracy']:.2f} ± {r['std_accuracy']:.2f}"
        )
    for path in written:
        print(path)
    not_ok = unfinished(tasks, store)
    print(f"summary: {len(tasks) - len(not_ok)} of {len(tasks)} runs ok", file=sys.stderr)
    for rec in not_ok:
        why = rec.get("error") if rec.get("status") != "skipped" else f"skipped: {rec.get('message', '')}"
        print(f"failed: {rec['key']}: {why}", file=sys.stderr)
    return EXIT_RUN_FAILED if not_ok else EXIT_OK
