"""Benchmark DeepBoost and its special cases against the DeepBoost paper (Cortes, Mohri and Syed 2014).

Modes
-----
default   The paper's protocol (10 folds: test fold i, validate on fold i+1, train on the rest;
          100 rounds; parameters chosen on validation error) on its datasets, for Tables 1-3:
          AdaBoost, AdaBoost-L1 and DeepBoost with the exponential loss, LogReg, LogReg-L1 and
          DeepBoost with the logistic loss, next to the paper's numbers and the seconds each took.
          One unit per dataset and algorithm of the tables asked for (``--tables``; the methods ``T2 AdaBoost``,
          ...); ``--seeds`` (or ``--partition-seed``) assign the rows to the folds. --selection cv chooses the
          parameters by k-fold cross-validation on the 9 non-test folds instead (--cv-folds k, default 5, or
          'outer': the 9 folds themselves), refits the choice on those folds and tests it on fold i;
          --selection both runs the two, sharing their fits, and adds tables with their errors side by side.
--speed   Fit time of our AdaBoost with stumps against sklearn.ensemble.AdaBoostClassifier with
          stumps (:mod:`benchmarks.boosting_speed`).
--adult   DeepBoost (depth-4 trees, 100 rounds, logistic loss) on UCI Adult against scikit-learn's AdaBoost
          (:mod:`benchmarks.boosting_adult`).

Output: ``tables.md`` and ``tables.csv`` in --out, and every setting's validation and test error in every run
(``tables_all_settings.csv``). Each finished unit is a record of ``results.jsonl`` at once, and a unit keeps its
finished fits in its checkpoint file, so that rerunning the same command resumes an interrupted sweep, even
within a unit; ``--report-only`` (or ``--report``) runs nothing and lists what is missing.

Data: ``mddf.datasets.load_dataset`` (set MDDF_DATA to the folder of the original files). ocr17 and
ocr49 are built from MNIST's 10000 *test* images (``mnist_split="test"``), the only MNIST images
available here: they are neither the paper's ocr17/ocr49 (Reyzin and Schapire 2006) nor its
ocr17-mnist/ocr49-mnist (all of MNIST), so both paper rows are shown.

Examples
--------
python -m benchmarks.boosting                       # the DeepBoost paper's Tables 2-3, its 10-fold protocol
python -m benchmarks.boosting --tables 1 --datasets breastcancer   # Table 1 (boosted stumps)
python -m benchmarks.boosting --adult               # depth-4 trees, 100 rounds, logistic loss, on adult
python -m benchmarks.boosting --speed               # AdaBoost with stumps against scikit-learn's
python -m benchmarks.boosting --quick
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import boosting_adult, boosting_speed
from benchmarks.boosting_tables import LARGE_DATASETS, dataset_label, paper, tables_markdown
from benchmarks.data import load
from benchmarks.deepboost_protocol import DEFAULT_CV_FOLDS, SELECTIONS, TABLE_ALGORITHMS, paper_grid, run_protocols
from benchmarks.harness import Data, Dataset, Study, TrainTest, main_by_flag, say

DEEPBOOST_DATASETS = ("breastcancer", "ionosphere", "german", "diabetes", "ocr17", "ocr49")
QUICK_DATASET = "breast_cancer"
#: Grids by name: "paper" is the paper's; the others shrink the penalty and depth ranges.
GRIDS = {
    "paper": {},
    "medium": {
        "penalties": (1e-3, 1e-5, 1e-7),
        "stump_betas": (2.0**-6, 2.0**-4, 2.0**-2, 1.0),
        "stump_lambdas": (0.0001, 0.01, 0.1),
    },
    "small": {
        "depths": (1, 2, 3),
        "penalties": (1e-3, 1e-6),
        "stump_betas": (2.0**-6, 2.0**-2),
        "stump_lambdas": (0.0001, 0.05),
    },
    "tiny": {"depths": (2,), "penalties": (1e-3,), "stump_betas": (2.0**-4,), "stump_lambdas": (0.01,)},
}
#: The loader's options per dataset: ocr17 and ocr49 from MNIST's test images (see above).
LOADER_OPTIONS = {name: {"mnist_split": "test"} for name in LARGE_DATASETS}


def method_name(table: int, algorithm: str) -> str:
    """The study's name of ``algorithm`` of the paper's Table ``table``: ``"T2 AdaBoost"``."""
    return f"T{table} {algorithm}"


def table_and_algorithm(method: str) -> tuple:
    """``(table, algorithm)`` of a :func:`method_name`."""
    table, algorithm = method.split(" ", 1)
    return int(table[1:]), algorithm


def deepboost_dataset(name: str) -> Dataset:
    def rows(ctx):
        ds = load(name, download=ctx.options.download, **LOADER_OPTIONS.get(name, {}))
        return Data(ds.X, ds.y)

    return Dataset(name, rows)


def tables_option(text: str) -> list:
    """``--tables``: comma-separated tables of the paper (1, 2, 3)."""
    try:
        tables = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        tables = []
    if not tables or any(t not in TABLE_ALGORITHMS for t in tables):
        raise argparse.ArgumentTypeError(f"--tables must list 1, 2 or 3, got {text!r}")
    return tables


def cv_folds_option(text):
    """``--cv-folds``: a number >= 2, or ``outer``."""
    if text == "outer":
        return text
    try:
        k = int(text)
    except ValueError:
        k = 0
    if k < 2:
        raise argparse.ArgumentTypeError(f"--cv-folds takes a number >= 2 or 'outer', got {text!r}")
    return k


def options(parser) -> None:
    parser.add_argument(
        "--tables", type=tables_option, default=[2, 3], help="tables of the paper (1, 2, 3; default 2,3)"
    )
    parser.add_argument("--grid", default="paper", choices=sorted(GRIDS), help="parameter grid (default: the paper's)")
    parser.add_argument("--large-grid", choices=sorted(GRIDS), help="grid for the large ocr datasets (default: --grid)")
    parser.add_argument("--n-iter", type=int, default=100, help="boosting rounds (paper: 100)")
    parser.add_argument("--folds", type=int, default=10, help="folds of the protocol (paper: 10)")
    parser.add_argument(
        "--partition-seed", type=int, help="the seed assigning the rows to the folds (the same as --seeds SEED)"
    )
    parser.add_argument(
        "--selection",
        choices=(*SELECTIONS, "both"),
        default="validation",
        help="how each run chooses its parameters: 'validation' (the paper's: fold i+1), 'cv' (k-fold "
        "cross-validation on the 9 non-test folds, then a refit on them), or 'both', side by side",
    )
    parser.add_argument(
        "--cv-folds",
        type=cv_folds_option,
        default=DEFAULT_CV_FOLDS,
        help=f"k of --selection cv (default {DEFAULT_CV_FOLDS}), or 'outer': the 9 non-test folds themselves",
    )
    parser.add_argument("--download", action="store_true", help="allow downloading missing dataset files")
    parser.add_argument("--report", dest="report_only", action="store_true", help="the same as --report-only")
    parser.add_argument("--speed", action="store_true", help="time our AdaBoost with stumps against sklearn's")
    parser.add_argument("--adult", action="store_true", help="DeepBoost on adult against scikit-learn's AdaBoost")


def check(args, parser) -> None:
    """``--quick``: breast_cancer, the tiny grid, 10 rounds; ``--partition-seed``: the seed of the folds."""
    if args.quick:
        args.grid, args.n_iter = "tiny", 10
    if args.partition_seed is not None:
        args.seed_list = [args.partition_seed]
    args.selections = list(SELECTIONS) if args.selection == "both" else [args.selection]


def settings(args) -> dict:
    """What changes a unit's result beside its dataset and algorithm."""
    chosen = dict(grid=args.grid, large_grid=args.large_grid, n_iter=args.n_iter, folds=args.folds)
    return {**chosen, "selections": args.selections, "cv_folds": args.cv_folds if "cv" in args.selections else None}


def grid_name(args, dataset: str) -> str:
    return args.large_grid if dataset in LARGE_DATASETS and args.large_grid else args.grid


def fit(ctx, X, y, *rest) -> dict:
    """The paper's protocol for the unit's algorithm, every selection asked for at once (their fits shared), its
    finished fits kept in the unit's checkpoints."""
    table, algorithm = table_and_algorithm(ctx.method)
    args, name = ctx.options, ctx.dataset.name
    grid = paper_grid(table, algorithm, **GRIDS[grid_name(args, name)])
    start = time.perf_counter()
    results = run_protocols(
        X, y, grid, selections=args.selections, n_folds=args.folds, random_state=ctx.seed,
        n_iter_grid=(args.n_iter,), cv_folds=args.cv_folds, n_jobs=ctx.n_jobs, fit_store=ctx.checkpoints,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    rows, details = [], []
    for selection, res in results.items():
        row = protocol_row(name, table, algorithm, selection, grid_name(args, name), len(grid), res, seconds)
        row["shared_with"] = ",".join(sel for sel in results if sel != selection)
        rows.append(row)
        details += setting_details(row, res)
        say(args, f"table {table} {row['dataset']} {algorithm} {selection}: err {row['error']:.4f} ({row['std']:.4f})")
    return {"rows": rows, "details": details}


def protocol_row(name, table, algorithm, selection, grid, n_settings, res, seconds):
    """The summary row of one protocol result, beside the paper's numbers."""
    s = res.summary()
    published = paper(table, name, algorithm) or (None,) * 4
    published_mnist = paper(table, f"{name}-mnist", algorithm) or (None,)
    return {
        "table": table,
        "dataset": dataset_label(name),
        "algorithm": algorithm,
        "selection": selection,
        "grid": grid,
        "settings": n_settings,
        "error": s["error"],
        "std": s["std"],
        "avg_tree_size": s["avg_tree_questions"] if table == 1 else s["avg_tree_size"],
        "avg_n_trees": s["avg_n_trees"],
        "seconds": seconds,
        "fits": res.n_fits,
        "fits_read_back": res.n_fits_read_back,
        "seconds_per_fit": res.fit_seconds / res.n_fits,
        "paper_error": published[0],
        "paper_std": published[1],
        "paper_tree_size": published[2],
        "paper_n_trees": published[3],
        "paper_mnist_error": published_mnist[0],
        "selected": json.dumps(res.params),
        **selection_diagnostics(res),
    }


def setting_details(row, res):
    """Every setting's validation and test error in every run of one protocol result."""
    kept = {key: row[key] for key in ("table", "dataset", "algorithm", "selection")}
    return [
        {
            **kept,
            "run": run,
            **{k: v for k, v in setting.items() if k not in ("params", "val_splits")},
            "val_splits": json.dumps(setting["val_splits"]),
            "params": json.dumps(setting["params"]),
        }
        for run, settings in enumerate(res.settings)
        for setting in settings
    ]


def selection_diagnostics(res):
    """How much the choice among settings matters (diagnostics, not the protocol's result).

    ``error_ties_averaged``: the test error expected if ties in validation error were broken at
    random (mean test error of all settings tied at the lowest validation error, averaged over
    runs). ``oracle_error``: the lowest mean test error of any single setting over the runs --
    chosen on the test folds, so optimistic; it shows what the grid contains.
    """
    tied = []
    for settings in res.settings:
        best = min(s["val"] for s in settings)
        tied.append(np.mean([s["test"] for s in settings if s["val"] == best]))
    per_setting = np.mean([[s["test"] for s in settings] for settings in res.settings], axis=0)
    return {"error_ties_averaged": float(np.mean(tied)), "oracle_error": float(per_setting.min())}


def page(results) -> str:
    """``tables.md``: :func:`~benchmarks.boosting_tables.tables_markdown` of the records, the missing units listed."""
    not_run = []
    for unit in results.pending:
        table, algorithm = table_and_algorithm(unit.method)
        not_run += [(table, dataset_label(unit.dataset), algorithm, sel) for sel in results.options.selections]
    return tables_markdown([row for r in results.records for row in r["rows"]], results.options, not_run)


STUDY = Study(
    "boosting",
    __doc__,
    datasets=[deepboost_dataset(name) for name in (*DEEPBOOST_DATASETS, QUICK_DATASET)],
    methods=lambda args: {method_name(t, a): None for t in args.tables for a in TABLE_ALGORITHMS[t]},
    protocol=TrainTest(),
    default_datasets=DEEPBOOST_DATASETS,
    quick={"datasets": [QUICK_DATASET]},
    options=options,
    check=check,
    settings=settings,
    fit=fit,
    table=page,
    rows=lambda results: {
        "tables": [row for r in results.records for row in r["rows"]],
        "tables_all_settings": [d for r in results.records for d in r["details"]],
    },
    report="tables",
)
main = main_by_flag("--speed", boosting_speed.STUDY, main_by_flag("--adult", boosting_adult.STUDY, STUDY.main))

if __name__ == "__main__":
    sys.exit(main())
