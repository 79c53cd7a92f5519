"""The options of the ``mddf`` subcommands: argument types, the groups they share, and each one's own."""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
from pathlib import Path

from .cluster import add_scheduler_argument
from .defaults import (
    DEFAULT_FOLDS,
    FALLBACK_DATASET,
    PAPER_DEFAULT_DATASET,
    PROTOCOLS,
    QUICK_DATASET,
    SMALL_SAMPLE_PAPER_METHODS,
    SUITES,
    USER_DATA_TASKS,
)
from .methods import PROFILES, default_registry
from .metrics import METRICS


def parse_seeds(text: str) -> list[int]:
    """``"3"`` -> seeds 0, 1, 2; ``"0,5,7"`` -> exactly those seeds."""
    try:
        if "," in text:
            return [int(s) for s in text.split(",") if s.strip()]
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds takes a count (3) or a list (0,5,7), got {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"--seeds count must be at least 1, got {count}")
    return list(range(count))


def csv_list(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def n_jobs(text: str) -> int:
    """``--n-jobs``: threads, or a negative number counted from all cores (checked: :func:`~.studies.check_options`)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--n-jobs takes a whole number, got {text!r}") from None


def fold_option(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"--folds takes a whole number of at least 2, got {text!r}")
    return value


def _table_file_option(name: str):
    """The type of ``--sep`` or ``--decimal``: :mod:`mddf.datasets.table_files`'s check ``name``."""

    def check(text: str) -> str:
        from mddf.datasets import table_files

        try:
            return getattr(table_files, name)(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return check


def layer_list(text: str) -> str:
    """``--layers``, ``--margin-layers``: comma-separated 1-based layer numbers and ``last``, returned as given."""
    parts = [part.strip().lower() for part in text.split(",")]
    for part in parts:
        if part != "last" and not (part.isdigit() and int(part) >= 1):
            raise argparse.ArgumentTypeError(
                f"{part!r} is not a layer: give layer numbers (1, 2, ...) or 'last', separated by commas, "
                "e.g. '1,2,last'"
            )
    return text


def fractions(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or any(not 0 < v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"fractions must be in (0, 1], got {text!r}")
    return sorted(set(values))


def help_text(name: str) -> str:
    """The docstring of this package's module ``name`` as ``--help`` shows it, read from its source, not imported."""
    source = Path(importlib.util.find_spec(f"{__package__}.{name}").origin).read_text(encoding="utf-8")
    return plain_text((ast.get_docstring(ast.parse(source)) or "").strip()) + "\n"


# a reST role (``:name:`target```, ``:name:`~a.b```, ``:name:`text <target>```)
_ROLE = re.compile(r":[a-z]+:`(?P<tilde>~?)\.?(?P<target>[^`<]*?)\s*(?:<[^`>]*>)?`")


def plain_text(text: str) -> str:
    """reST as a terminal shows it: roles and ````literals```` as `names` (the top-level help's quotes)."""
    shown = _ROLE.sub(lambda m: f"`{m['target'].rsplit('.', 1)[-1] if m['tilde'] else m['target']}`", text)
    return shown.replace("``", "`")


def add_user_data_arguments(parser: argparse.ArgumentParser, *, regression: bool = True) -> None:
    """``--data PATH --target COLUMN [--test PATH]``: the user's own table (:mod:`mddf.datasets.user_data`)."""
    group = parser.add_argument_group("your own data (instead of a built-in dataset)")
    group.add_argument("--data", type=Path, metavar="PATH", help="a CSV file (any separator, possibly compressed: "
                       ".gz, .bz2, .xz, .zip) or Parquet file (with pyarrow installed) with one row per sample; text "
                       "columns are categories, empty cells missing values")  # fmt: skip
    group.add_argument("--target", metavar="COLUMN", help="the column to predict")
    group.add_argument("--test", type=Path, metavar="PATH", help="a test file with the same columns (default: the "
                       "protocol's cross-validation or 70/30 split of --data)")  # fmt: skip
    group.add_argument("--sep", metavar="CHAR", help="the separator of a CSV file: one character, or 'tab' (default: "
                       "sniffed among , ; tab |)", type=_table_file_option("separator_option"))  # fmt: skip
    group.add_argument("--decimal", type=_table_file_option("decimal_option"), metavar="CHAR",
                       help="the decimal mark of a CSV file's numbers: '.' (default) or ',' (a European file: 3,14 "
                       "with --sep ';', which is then sniffed)")  # fmt: skip
    group.add_argument("--drop", type=csv_list, metavar="COLS", help="comma-separated columns to leave out, e.g. an ID")
    group.add_argument("--na-values", type=lambda text: [v.strip() for v in text.split(",")], metavar="VALUES",
                       help="comma-separated cell values read as missing, besides empty cells and NA, NaN, null, ... "
                       "(e.g. '?,-')")  # fmt: skip
    tasks = USER_DATA_TASKS if regression else tuple(t for t in USER_DATA_TASKS if t != "regression")
    group.add_argument("--task", choices=tasks, default="auto", help="'auto' (default): text labels and few distinct "
                       "integers are classes, non-integer numbers a regression target; an integer target with many "
                       "distinct values stops and asks for --task" if regression else "'auto' (default) or "
                       "'classification' to take integer targets with many distinct values as classes")  # fmt: skip


def add_files_arguments(parser: argparse.ArgumentParser) -> None:
    """``--data-home`` and ``--download``: where the built-in datasets' files are, and whether to fetch them."""
    parser.add_argument("--data-home", type=Path, help="folder with the benchmark files (sets MDDF_DATA)")
    parser.add_argument("--download", action="store_true", help="download missing files (default: report them missing)")


def add_dataset_arguments(parser: argparse.ArgumentParser, *, regression: bool = True) -> None:
    """``--dataset NAME``, ``--download``, ``--data-home`` and the ``--data`` options."""
    parser.add_argument("--dataset", help=f"dataset name (default: {PAPER_DEFAULT_DATASET} as in the paper when its "
                        f"files are present, else {FALLBACK_DATASET}; with --quick: {QUICK_DATASET})")  # fmt: skip
    add_files_arguments(parser)
    add_user_data_arguments(parser, regression=regression)


def add_mddf_arguments(parser: argparse.ArgumentParser, *, regression: bool = True) -> None:
    """The options of the single-fit subcommands: the dataset's (:func:`add_dataset_arguments`) and mdDF's."""
    add_dataset_arguments(parser, regression=regression)
    model = parser.add_argument_group("the model", "the benchmark's mdDF row: what `mddf benchmark` fits as mdDF "
                                      "under its practitioner protocol,\nMDDFClassifier with its defaults and the "
                                      "categorical columns declared (CascadeForestRegressor for a\nregression target), "
                                      "with these options on top")  # fmt: skip
    model.add_argument("--seed", type=int, default=0, help="random_state of mdDF (and of sampling)")
    for option, what in (
        ("--n-estimators", "trees per forest (default: the estimator's, 100)"),
        ("--max-layers", "layers grown at most (default: the estimator's, 20)"),
        ("--n-tolerant-layers", "stop after this many layers without improvement (default: the estimator's)"),
    ):
        model.add_argument(option, type=int, help=what)
    parser.add_argument("--n-jobs", type=n_jobs, default=-1, help="threads (-1: all cores)")
    parser.add_argument("--quick", action="store_true", help=f"smoke test: {QUICK_DATASET}, 10 trees, 3 layers")
    parser.add_argument("--quiet", action="store_true", help="no progress output")


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """``--force``: a file in ``--out`` that the subcommand did not write is replaced (:mod:`.outfolder`)."""
    parser.add_argument("--force", action="store_true", help="replace the files in --out that it did not write or "
                        "that were changed since (default: they are moved to <out>/old/<UTC time>/)")  # fmt: skip


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """How the runners execute: ``--n-jobs``, ``--workers``, ``--isolation``, ``--scheduler``, ``--quiet``."""
    parser.add_argument("--n-jobs", type=n_jobs, help="threads per estimator, their OpenMP pools counted (-1: all "
                        "cores; default: the cores over --workers, or 1 with --scheduler: one run per Dask worker "
                        "thread)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, help="runs executed at the same time (default 1, which "
                        "keeps timings comparable; with --scheduler the cluster's worker threads decide)")  # fmt: skip
    parser.add_argument("--isolation", choices=("process", "inline"), default="process", help="'process': each run "
                        "in a worker process, reused from run to run (default); 'inline': in this process")  # fmt: skip
    add_scheduler_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no per-run lines")


_PRACTITIONER_METHODS = ", ".join(
    spec.name + (f" ({spec.extra} extra)" if spec.extra else "")
    for spec in default_registry().select(protocol="practitioner")
)
BENCHMARK_DESCRIPTION = f"""Benchmark runner: every method on a table of your own (--data PATH --target COLUMN), or on
the papers' datasets with their protocol (the mdDF paper's Table 2 and 3, the DeepBoost paper's Tables 1-3).

Two protocols, named in each table's header:
  practitioner (the default with --data): mdDF, a baseline (the majority class, or the mean), early-stopped
    boosting and a 400-tree random forest, by repeated k-fold cross-validation (5 folds, stratified, x 2
    seeds; fewer folds for a small class). Its methods:
    {_PRACTITIONER_METHODS}.
    table.md gives each method's mean ± standard error on every metric (classification: accuracy,
    balanced accuracy, ROC AUC, log-loss; regression: R², RMSE), its paired difference to the best method
    on --metric, and marks a winner only where that difference exceeds 2 standard errors for
    every other method; figure.png draws it. A continuous target (or --task regression) is a regression.
    --target a,b: several targets, numbers a multi-output regression (R² averaged over the targets, and
    each target's), yes/no columns a multi-label classification (subset accuracy, Hamming loss, micro and
    macro F1); the same runs, table and figure, the boosting methods one model per target.
  paper (the default for the suites): the papers' methods and budgets (random forest and XGBoost with
    400 x k trees, k = the layers mdDF kept) on each dataset's train/test split (the DeepBoost
    datasets: that paper's 10 folds); table.md is laid out like the paper's Table 2, with the
    published numbers alongside (ablation.md with --ablation, peers.md with --peers).

Every run appends one JSON line to <out>/results.jsonl, bound to the sha256 of the data and of the
options that change its result: a rerun with the same --out resumes the runs of the same data and
settings and moves the others aside (to <out>/old/). The default --out of --data is
results/<file stem>-<first 8 digits of its sha256>. Every table file starts with its provenance
(command, commit, machine, date). One runner per --out. Each run executes in a worker process, reused
from run to run, or with --scheduler as a task on a Dask cluster. Details: docs/user_guide/command_line.md.

examples:
  mddf benchmark                                      # bundled datasets, papers' protocol, a few minutes
  mddf benchmark --data my.csv --target y             # your own CSV, practitioner protocol
  mddf benchmark --data my.csv --target y --metric balanced_accuracy --folds 10 --seeds 3
  mddf benchmark --data prices.csv --target price --drop id   # a regression target: R² and RMSE
  mddf benchmark --data prices.csv --target price,rent        # several targets at once
  mddf benchmark --suite mddf --seeds 3 --download    # Table 2 on the paper's 8 datasets
  mddf benchmark --suite mddf --ablation              # ... and Table 3
  mddf benchmark --suite mddf --peers                 # ... and today's peers (peers.md)
  mddf benchmark --suite deepboost                    # DeepBoost datasets, 10-fold protocol
  mddf benchmark --datasets yeast,letter --methods mdDF,RF
  mddf benchmark --suite mddf --scheduler tcp://HOST:8786   # on a Dask cluster
  (python scripts/run_uci.py takes the same options)
"""


def benchmark_options(parser: argparse.ArgumentParser) -> None:
    """``mddf benchmark``'s options."""
    parser.add_argument("--suite", choices=sorted(SUITES), help="dataset suite (default: 'default', scikit-learn's "
                        "bundled datasets)")  # fmt: skip
    parser.add_argument("--datasets", type=csv_list, help="comma-separated dataset names (default: the suite's)")
    add_user_data_arguments(parser)
    add_protocol_arguments(parser)
    parser.add_argument("--methods", type=csv_list, help="comma-separated method names (default: the protocol's "
                        "methods; see --list); the practitioner protocol always adds Baseline")  # fmt: skip
    parser.add_argument("--ablation", action="store_true", help="add the mdDF structures of the paper's Table 3 "
                        "(mdDF_SF, mdDF_ST, mdDF_NP)")  # fmt: skip
    parser.add_argument("--monotone", metavar="COL:SIGN,...", help="with --data: fit mdDF with monotone constraints, "
                        "e.g. 'income:+1,debt:-1' (its prediction never falls as income grows or rises as debt "
                        "grows; a regression or two-class target); the others unconstrained")  # fmt: skip
    parser.add_argument("--monotone-class", metavar="LABEL", help="with --monotone and two classes: the class whose "
                        "probability the constraints are for (default: the second of the sorted labels, the one the "
                        "estimators' monotonic_cst constrains); said on stderr and in the table")  # fmt: skip
    parser.add_argument("--peers", action="store_true", help="add today's peers (LightGBM, HGB, ExtraTrees; no "
                        "published numbers) and write them with mdDF, RF and XGBoost in peers.md / "
                        "peers.csv")  # fmt: skip
    parser.add_argument("--seeds", type=parse_seeds, help="number of seeds (3 = seeds 0,1,2) or a comma list: the "
                        "repetitions of the cross-validation (practitioner protocol, default 2) or of each split "
                        "(papers' protocol, default 1)")  # fmt: skip
    parser.add_argument("--out", type=Path, help="output folder (default: results/<suite>, "
                        "results/<suite>-practitioner, or with --data results/<file stem>-<sha256 prefix>, -paper "
                        "appended under --protocol paper, -targets with --target a,b); rerun with it to resume; one "
                        "runner at a time")  # fmt: skip
    add_force_argument(parser)
    add_run_arguments(parser)
    parser.add_argument("--profile", choices=PROFILES, default="paper", help="'paper': the papers' configurations; "
                        "'quick': tiny models for smoke tests")  # fmt: skip
    parser.add_argument("--quick", action="store_const", const="quick", dest="profile", help="same as --profile quick")
    add_files_arguments(parser)
    parser.add_argument("--list", action="store_true", help="list suites and methods (with availability) and exit")


def add_protocol_arguments(parser: argparse.ArgumentParser, *, folds: bool = True) -> None:
    """``--protocol``, ``--metric`` (and ``--folds``): how the runners evaluate (``folds``: the benchmark's)."""
    parser.add_argument("--protocol", choices=PROTOCOLS, help=(
        "'practitioner': a baseline, early-stopped boosting and a random forest against mdDF, cross-validated, with "
        "standard errors (default with --data); 'paper': the papers' methods, budgets and splits (default for built-in "
        "datasets)" if folds else "'practitioner': the benchmark's practitioner methods (a baseline, early-stopped "
        "boosting, a random forest and mdDF; default with --data); 'paper': the paper's RF, XGBoost, gcForest and mdDF "
        "(default for built-in datasets); both on the same fractions of each seed's split"))  # fmt: skip
    if folds:
        parser.add_argument("--folds", type=fold_option, default=DEFAULT_FOLDS, help=f"folds of the practitioner "
                            f"protocol's cross-validation (default {DEFAULT_FOLDS}; fewer when a class has fewer "
                            "rows)")  # fmt: skip
    parser.add_argument("--metric", choices=list(METRICS), help=f"the metric {'that ranks' if folds else 'drawn'} "
                        "(default: accuracy, but roc_auc when the smallest class holds under 40%% of an even share of "
                        "the rows, under 20%% for two classes; r2 for a regression or several numeric targets, "
                        "subset_accuracy for several yes/no targets)" + ("; every metric is reported" if folds else
                        ""))  # fmt: skip


def small_sample_options(parser: argparse.ArgumentParser) -> None:
    """``mddf small-sample``'s options."""
    add_dataset_arguments(parser)
    add_protocol_arguments(parser, folds=False)
    parser.add_argument("--fractions", type=fractions, help="comma-separated training fractions (default: "
                        "0.01,0.02,0.05,0.1,0.2,0.5,1; with --quick 0.05,0.2,1)")  # fmt: skip
    parser.add_argument("--methods", type=csv_list, help="comma-separated method names (default: the protocol's: "
                        f"{','.join(SMALL_SAMPLE_PAPER_METHODS)} for the papers', the benchmark's for the "
                        "practitioner's)")  # fmt: skip
    parser.add_argument("--seeds", type=parse_seeds, default="3", help="number of seeds (3 = seeds 0,1,2, the "
                        "default) or a comma list")  # fmt: skip
    parser.add_argument("--out", type=Path, help="output folder (default: results/small_sample, or with --data "
                        "results/<file stem>-<sha256 prefix>/small_sample); results.jsonl there makes reruns resume; "
                        "one runner at a time")  # fmt: skip
    add_force_argument(parser)
    add_run_arguments(parser)
    parser.add_argument("--quick", action="store_true", help="smoke test: digits, tiny models ('quick' profile), "
                        "fractions 0.05,0.2,1")  # fmt: skip


def export_features_options(parser: argparse.ArgumentParser) -> None:
    """``mddf export-features``'s options."""
    add_mddf_arguments(parser)
    parser.add_argument("--include-raw", action="store_true", help="also store X_train and X_test")
    parser.add_argument("--out", type=Path, default=None, help="output .npz (default: "
                        "results/features/<dataset>_mddf_features.npz; with --data <file stem>-<sha256 prefix> for "
                        "<dataset>); a file there that it did not write is refused unless --force")  # fmt: skip
    parser.add_argument("--force", action="store_true", help="replace an --out file it did not write or that changed")


def explain_options(parser: argparse.ArgumentParser) -> None:
    """``mddf explain``'s options."""
    add_mddf_arguments(parser)
    parser.add_argument("--rows", type=int, default=200, help="held-out rows explained (default: 200)")
    parser.add_argument("--fast", action="store_true", help="path contributions instead of exact TreeSHAP")
    parser.add_argument("--out", type=Path, help="output folder (default: results/explain/<dataset or file>)")
    add_force_argument(parser)


def plot_layers_options(parser: argparse.ArgumentParser) -> None:
    """``mddf plot-layers``'s options."""
    add_mddf_arguments(parser, regression=False)
    parser.add_argument("--margin-layers", type=layer_list, default=None, help="layers whose margin distribution is "
                        "drawn, e.g. '1,2,last' (default: 4 spread out)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="output folder")
    add_force_argument(parser)


def plot_tsne_options(parser: argparse.ArgumentParser) -> None:
    """``mddf plot-tsne``'s options."""
    add_mddf_arguments(parser, regression=False)
    parser.add_argument("--layers", type=layer_list, default=None, help="layers to embed, e.g. '1,2,4,last' "
                        "(default: 4 spread out)")  # fmt: skip
    parser.add_argument("--max-points", type=int, default=1500, help="stratified sample of rows embedded per split "
                        "(t-SNE is quadratic)")  # fmt: skip
    parser.add_argument("--perplexity", type=float, default=30.0)
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="output folder")
    add_force_argument(parser)


def datasets_options(parser: argparse.ArgumentParser) -> None:
    """``mddf datasets``'s options."""
    from mddf.datasets import GROUPS

    parser.add_argument("--group", choices=GROUPS, default=None, help="only this group of datasets")
    parser.add_argument("--data-home", type=Path, default=None, help="folder with the benchmark files (MDDF_DATA)")
