"""Small-sample robustness (the mdDF paper's Figure 6): test accuracy versus training fraction.

Trains random forest, XGBoost, gcForest and mdDF on stratified fractions of the training split
(``mddf.experiments.protocols.subsample``: every class keeps at least one row; the test split is unchanged),
repeated over seeds, and plots the mean test accuracy with standard-deviation error bars.
Each (fraction, method, seed) is one run of the benchmark runner (``run_one``, fresh worker
process, or a task on a Dask cluster with ``--scheduler``; resumable ``results.jsonl`` in
``--out``), so random forest and XGBoost get 400 x k trees with k = the layers of mdDF on the
same fraction and seed.

The paper uses UCI HAR (the default when its files are present, else satimage).

Writes ``small_sample_<dataset>.png/.pdf/.csv`` in ``--out``, each with the command that regenerates
it, the commit, the machine and the date (``mddf.experiments.provenance``; the CSV's are ``#``
comment lines: read it with ``pandas.read_csv(path, comment="#")``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from mddf.experiments.cluster import add_scheduler_argument, check_scheduler_args, exit_status_epilog, run_from_args
from mddf.experiments.executor import (
    EXIT_INTERRUPTED,
    EXIT_NOTHING_TO_RUN,
    EXIT_OK,
    EXIT_RUN_FAILED,
    plan,
    unfinished,
)
from mddf.experiments.figures import plt, save_figure, write_rows
from mddf.experiments.methods import default_registry, unavailable_reason
from mddf.experiments.provenance import provenance
from mddf.experiments.runner import DatasetUnavailable
from mddf.experiments.store import ResultStore
from mddf.experiments.studies import add_dataset_arguments, logger, resolve_dataset
from mddf.experiments.suites import protocol_of

DEFAULT_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
DEFAULT_METHODS = ("RF", "XGBoost", "gcForest", "mdDF")


def _fractions(text):
    values = [float(x) for x in text.split(",") if x.strip()]
    if not values or any(not 0 < v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"fractions must be in (0, 1], got {text!r}")
    return sorted(set(values))


def build_parser():
    parser = argparse.ArgumentParser(
        prog="small_sample.py",
        description=__doc__,
        epilog=exit_status_epilog(
            failed="a run failed (the figure shows the runs that finished)",
            nothing_to_run="no requested method is available, or the dataset is not (its files are missing "
            "and --download was not given)",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_dataset_arguments(parser)
    parser.add_argument(
        "--fractions",
        type=_fractions,
        default=None,
        help="comma-separated training fractions (default: 0.01,0.02,0.05,0.1,0.2,0.5,1; with --quick 0.05,0.2,1)",
    )
    parser.add_argument("--methods", default=",".join(DEFAULT_METHODS), help="comma-separated method names")
    parser.add_argument("--seeds", type=int, default=3, help="repetitions (seeds 0..N-1)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("results/small_sample"),
        help="output folder (results.jsonl there makes reruns resume)",
    )
    parser.add_argument(
        "--n-jobs", type=int, default=None, help="threads per estimator (default: all cores, or 1 with --scheduler)"
    )
    parser.add_argument("--workers", type=int, default=1, help="runs executed at the same time (local runs)")
    parser.add_argument("--isolation", choices=("process", "inline"), default="process")
    add_scheduler_argument(parser)
    parser.add_argument(
        "--quick", action="store_true", help="smoke test: digits, tiny models ('quick' profile), fractions 0.05,0.2,1"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    return parser


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


def main(argv=None, registry=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    check_scheduler_args(parser, args)
    log = logger(args)
    registry = registry or default_registry()
    profile = "quick" if args.quick else "paper"
    if args.fractions is None:
        args.fractions = [0.05, 0.2, 1.0] if args.quick else list(DEFAULT_FRACTIONS)
    try:
        asked = [registry.get(name) for name in args.methods.split(",") if name.strip()]
    except ValueError as exc:
        parser.error(str(exc))  # unknown method name
    try:
        ds = resolve_dataset(args, log)
    except SystemExit as exc:  # the dataset asked for is missing: resolve_dataset says which file
        if not isinstance(exc.code, str):
            raise
        print(f"nothing to run: {exc.code}", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    except DatasetUnavailable as exc:  # neither the paper's dataset nor its fallback
        print(f"nothing to run: the dataset is not available:\n{exc}", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    if protocol_of(ds.name) != "split" or not ds.has_test_split:
        parser.error(f"{ds.name} has no train/test split; the study needs one")

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

    store = ResultStore(args.out / "results.jsonl")
    tasks = plan(
        [ds.name],
        specs,
        range(args.seeds),
        n_classes={ds.name: ds.n_classes},
        profile=profile,
        fractions=args.fractions,
    )
    code = run_from_args(tasks, store, args, registry)
    if code != EXIT_OK:
        return code

    methods = [s.name for s in specs]
    rows = summarize(store.records(), ds.name, methods, args.fractions, profile)
    stem = f"small_sample_{ds.name}"
    prov = provenance(__file__, sys.argv[1:] if argv is None else argv)
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


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # before or after the runs (during them, main returns EXIT_INTERRUPTED)
        print("interrupted (Ctrl-C)", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
