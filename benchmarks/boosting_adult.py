"""DeepBoost (depth-4 trees, 100 rounds, logistic loss) on UCI Adult against scikit-learn's AdaBoost.

``DeepBoostClassifier(n_iter=100, max_depth=4, loss="logistic", lam=--lam, beta=--beta)`` against
``AdaBoostClassifier(DecisionTreeClassifier(max_depth=4), n_estimators=100)``: each fit in a fresh process pinned to
one core (its BLAS and OpenMP pools one thread), its fit and CPU seconds, peak resident memory and test error; the
medians of ``--rounds`` (3) rounds, the two in turn. ``--profile`` prints a cProfile of DeepBoost's first fit.
``python -m benchmarks.boosting --adult`` runs it.

Examples
--------
python -m benchmarks.boosting --adult
python -m benchmarks.boosting_adult --rounds 5 --profile
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from threadpoolctl import threadpool_limits

from benchmarks.boosting_tables import load_average
from benchmarks.data import load
from benchmarks.harness import Data, Dataset, Study, TrainTest, not_run
from mddf.experiments.tables import markdown_table

LABELS = {"DeepBoost": "DeepBoost (ours)", "sklearn": "sklearn AdaBoost, max_depth=4 trees"}


def deepboost(ctx):
    from mddf.baselines import DeepBoostClassifier

    options = ctx.options
    return DeepBoostClassifier(n_iter=100, max_depth=4, loss="logistic", lam=options.lam, beta=options.beta)


def sklearn(ctx):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    return AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=4), n_estimators=100)


def adult(ctx) -> Data:
    ds = load("adult", download=ctx.options.download)
    return Data(ds.X_train, ds.y_train, ds.X_test, ds.y_test)


def fit(ctx, X, y, X_test, y_test) -> dict:
    """One fit on one core, in the fresh process of the unit (profiled when asked, the first round's DeepBoost)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    model = ctx.build()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    profile = ctx.options.profile and ctx.method == "DeepBoost" and ctx.round == 0
    with threadpool_limits(limits=1):
        start, cpu_start = time.perf_counter(), time.process_time()
        if profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.runcall(model.fit, X, y)
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(15)
        else:
            model.fit(X, y)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    record = {"fit_s": seconds, "cpu_s": cpu, "test_error": float(1 - model.score(X_test, y_test))}
    record.update(
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, rss_before_fit_mb=rss_before / 1024
    )
    if ctx.method == "DeepBoost":
        record.update(n_trees=int(model.n_trees_), avg_tree_size=float(model.avg_tree_size_))
    return record


def adult_markdown(results) -> str:
    args = results.options

    def med(method, key):
        return statistics.median(r[key] for r in results.of(method=method))

    out = [
        "# Adult: DeepBoost (depth-4 trees, 100 rounds, logistic loss) vs the C++ reference's figures",
        "",
        f"32561 training rows, 16281 test rows, categorical columns ordinal-encoded ('?' its own category). "
        f"DeepBoostClassifier(n_iter=100, max_depth=4, loss='logistic', lam={args.lam}, beta={args.beta}). "
        f"Each fit in a fresh process pinned to one core (BLAS threads 1); median of the rounds; "
        f"load average at the end: {load_average()}.",
        "",
    ]
    header = ["model", "fit s (median)", "fit s (runs)", "fit CPU s (median)", "peak RSS MB (median)"]
    header += ["RSS before fit MB", "test error"]
    cells = []
    for method in (m for m in ("DeepBoost", "sklearn") if results.of(method=m)):
        runs = ", ".join(f"{r['fit_s']:.2f}" for r in results.of(method=method))
        cells.append(
            [LABELS[method], f"{med(method, 'fit_s'):.2f}", runs, f"{med(method, 'cpu_s'):.2f}"]
            + [f"{med(method, 'peak_rss_mb'):.0f}", f"{med(method, 'rss_before_fit_mb'):.0f}"]
            + [f"{med(method, 'test_error'):.4f}"]
        )
    cells.append(["google/deepboost C++ (figures given in the task)", "~10", "", "", "~1200", "", "0.131-0.132"])
    out += markdown_table(header, cells)
    if results.of(method="DeepBoost") and results.of(method="sklearn"):
        first = results.of(method="DeepBoost")[0]
        out += [
            "",
            f"Ours / sklearn fit time: {med('DeepBoost', 'fit_s') / med('sklearn', 'fit_s'):.2f}. DeepBoost kept "
            f"{first['n_trees']} trees of {first['avg_tree_size']:.1f} nodes on average.",
        ]
    return "\n".join(out) + "\n" + not_run(results)


def options(parser) -> None:
    parser.add_argument("--adult", action="store_true", help="this study (python -m benchmarks.boosting --adult)")
    parser.add_argument("--profile", action="store_true", help="a cProfile of the first DeepBoost fit, on stderr")
    parser.add_argument("--lam", type=float, default=1e-5, help="DeepBoost's lambda")
    parser.add_argument("--beta", type=float, default=1e-5, help="DeepBoost's beta")
    parser.add_argument("--download", action="store_true", help="allow downloading missing dataset files")


STUDY = Study(
    "boosting_adult",
    __doc__,
    datasets=[Dataset("adult", adult)],
    methods={"DeepBoost": deepboost, "sklearn": sklearn},
    protocol=TrainTest(rounds=3),
    quick={"rounds": 1},
    options=options,
    settings=lambda args: {"lam": args.lam, "beta": args.beta},
    fit=fit,
    table=adult_markdown,
    rows=lambda results: results.records,
    report="adult",
    fresh_process=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
