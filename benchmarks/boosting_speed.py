"""Our AdaBoost with stumps against ``sklearn.ensemble.AdaBoostClassifier`` with stumps: fit seconds.

The same number of rounds (``--n-iter``, 100), on each dataset's training rows; each unit times ``--repeats`` fits
of one of the two (the median of their wall-clock and CPU seconds) and gives its training error. The two run in
turn, the order rotated from round to round (``--rounds``). ``python -m benchmarks.boosting --speed`` runs it.

Examples
--------
python -m benchmarks.boosting --speed
python -m benchmarks.boosting_speed --datasets breastcancer,german --repeats 5
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.boosting_tables import LARGE_DATASETS, dataset_label, load_average
from benchmarks.data import load
from benchmarks.harness import Data, Dataset, Study, TrainTest, not_run
from mddf.experiments.tables import markdown_table

DATASETS = ("breastcancer", "ionosphere", "german", "diabetes", "ocr17", "ocr49")
QUICK_DATASET = "breast_cancer"


def ours(ctx):
    from mddf.baselines import AdaBoostClassifier

    return AdaBoostClassifier(n_iter=ctx.options.n_iter, max_depth=1)


def sklearn(ctx):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    return AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1), n_estimators=ctx.options.n_iter)


def training_rows(name: str) -> Dataset:
    def rows(ctx):
        ds = load(name, download=ctx.options.download, **({"mnist_split": "test"} if name in LARGE_DATASETS else {}))
        return Data(ds.X_train, ds.y_train)

    return Dataset(name, rows)


def fit(ctx, X, y, *rest) -> dict:
    """The median wall-clock and CPU seconds of ``--repeats`` fits (CPU time is robust to a shared machine)."""
    wall, cpu = [], []
    for _ in range(ctx.options.repeats):
        model = ctx.build()
        start, cpu_start = time.perf_counter(), time.process_time()
        model.fit(X, y)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    seconds = {"fit_s": statistics.median(wall), "cpu_s": statistics.median(cpu)}
    return {**seconds, "train_error": 1 - model.score(X, y), "n_samples": X.shape[0], "n_features": X.shape[1]}


def speed_rows(results) -> list:
    """One row per dataset: the two fits' medians (of the rounds) and their ratios."""
    rows = []
    for dataset in results.datasets:
        mine = {m: results.of(dataset, m) for m in ("ours", "sklearn")}
        if not all(mine.values()):
            continue
        med = {
            m: {k: statistics.median(r[k] for r in rs) for k in ("fit_s", "cpu_s", "train_error")}
            for m, rs in mine.items()
        }
        rows.append({
            "dataset": dataset_label(dataset), "n_samples": mine["ours"][0]["n_samples"],
            "n_features": mine["ours"][0]["n_features"], "rounds": results.options.n_iter,
            "ours_seconds": med["ours"]["fit_s"], "sklearn_seconds": med["sklearn"]["fit_s"],
            "ratio": med["ours"]["fit_s"] / med["sklearn"]["fit_s"], "ours_cpu_seconds": med["ours"]["cpu_s"],
            "sklearn_cpu_seconds": med["sklearn"]["cpu_s"], "cpu_ratio": med["ours"]["cpu_s"] / med["sklearn"]["cpu_s"],
            "ours_train_error": med["ours"]["train_error"], "sklearn_train_error": med["sklearn"]["train_error"],
        })  # fmt: skip
    return rows


def speed_markdown(results) -> str:
    args = results.options
    out = [
        "# AdaBoost with stumps: ours vs sklearn.ensemble.AdaBoostClassifier",
        "",
        f"Fit seconds, median of {args.repeats} fits each (then of the {args.rounds} round(s)), {args.n_iter} rounds, "
        "on each dataset's training rows (sklearn uses SAMME with DecisionTreeClassifier(max_depth=1)). Load "
        f"average: {load_average()}.",
        "",
    ]
    header = ["dataset", "rows", "features", "ours s", "sklearn s", "ours / sklearn", "ours cpu s", "sklearn cpu s"]
    header += ["cpu ratio", "ours train err", "sklearn train err"]
    cells = [
        [r["dataset"], r["n_samples"], r["n_features"], f"{r['ours_seconds']:.3f}", f"{r['sklearn_seconds']:.3f}"]
        + [f"{r['ratio']:.2f}", f"{r['ours_cpu_seconds']:.3f}", f"{r['sklearn_cpu_seconds']:.3f}"]
        + [f"{r['cpu_ratio']:.2f}", f"{r['ours_train_error']:.4f}", f"{r['sklearn_train_error']:.4f}"]
        for r in speed_rows(results)
    ]
    return "\n".join([*out, *markdown_table(header, cells)]) + "\n" + not_run(results)


def options(parser) -> None:
    parser.add_argument("--speed", action="store_true", help="this study (python -m benchmarks.boosting --speed)")
    parser.add_argument("--n-iter", type=int, default=100, help="boosting rounds (default 100)")
    parser.add_argument("--repeats", type=int, default=3, help="fits per timing (median)")
    parser.add_argument("--download", action="store_true", help="allow downloading missing dataset files")


STUDY = Study(
    "boosting_speed",
    __doc__,
    datasets=[training_rows(name) for name in (*DATASETS, QUICK_DATASET)],
    methods={"ours": ours, "sklearn": sklearn},
    protocol=TrainTest(),
    default_datasets=DATASETS,
    quick={"datasets": [QUICK_DATASET]},
    options=options,
    settings=lambda args: {"n_iter": args.n_iter, "repeats": args.repeats},
    fit=fit,
    table=speed_markdown,
    rows=speed_rows,
    report="speed",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
