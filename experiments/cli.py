"""The command line: ``mddf <subcommand>``, and the scripts in ``scripts/`` as thin wrappers.

=====================  =============================  ==========================================
subcommand             script                         does
=====================  =============================  ==========================================
``benchmark``          ``scripts/run_uci.py``         every method on datasets, papers' tables
``small-sample``       ``scripts/small_sample.py``    accuracy against training fraction (Fig. 6)
``export-features``    ``scripts/export_features.py`` mdDF's layer features to a ``.npz``
``plot-layers``        ``scripts/plot_layers.py``     accuracy and margins per layer (Figs. 8, 9)
``plot-tsne``          ``scripts/plot_tsne.py``       t-SNE of the layer features (Fig. 7)
``datasets``           --                             the built-in datasets and their files
=====================  =============================  ==========================================

Every subcommand that takes a dataset also takes the user's own table: ``--data PATH --target COLUMN
[--test PATH]`` (:mod:`mddf.datasets.user_data`). This module parses the arguments; each subcommand's parser sets
``func`` (``set_defaults``), the function here that imports the module doing the work when it runs, and
:mod:`.exit_status` holds the exit statuses. Errors about the input are one
line, ``mddf: error: <what is wrong>``; standard output carries only each subcommand's result (tables,
or the paths of the files written), notices, progress and warnings go to standard error.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import exit_status
from .cluster import add_scheduler_argument, check_scheduler_args
from .exit_status import EXIT_INTERRUPTED, EXIT_NOTHING_TO_RUN, EXIT_TERMINATED, EXIT_USAGE, Terminated
from .methods import PROFILES
from .metrics import METRICS
from .outlock import FolderLocked, FolderUnwritable
from .suites import SUITES

# pandas, scikit-learn and numba load with the modules behind the subcommands, which the functions that build a
# subcommand's parser or run it (its ``func``) import, so that `mddf --help` and `mddf --version` answer without them.

PROG = "mddf"
EXIT_BAD_INPUT = EXIT_USAGE


def version() -> str:
    """The installed package's version: ``mddf.__version__`` when defined, else the distribution's metadata."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        import mddf

        return str(getattr(mddf, "__version__", None) or dist_version("mddf"))
    except (ImportError, PackageNotFoundError):
        return "unknown (not installed)"


# argument types


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
    """``--n-jobs``: a number of threads, or a negative number counted from all cores (-1: all); 0 and absurd counts
    are refused before the subcommand runs, in one line (:func:`~.studies.check_n_jobs`)."""
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


def separator(text: str) -> str:
    from mddf.datasets.table_files import separator_option

    try:
        return separator_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def decimal_mark(text: str) -> str:
    from mddf.datasets.table_files import decimal_option

    try:
        return decimal_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def fractions(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or any(not 0 < v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"fractions must be in (0, 1], got {text!r}")
    return sorted(set(values))


def _help_text(name: str) -> str:
    """The docstring of this package's module ``name`` for ``--help``, without its paragraph for developers (the one
    naming this module). Read from its source, not imported, so that a parser loads no estimator library."""
    spec = importlib.util.find_spec(f"{__package__}.{name}")
    source = Path(spec.origin).read_text(encoding="utf-8")
    paragraphs = (ast.get_docstring(ast.parse(source)) or "").strip().split("\n\n")
    return "\n\n".join(p for p in paragraphs if ":mod:`.cli`" not in p) + "\n"


def _new_parser(prog: str, description: str, name: str, subparsers=None) -> argparse.ArgumentParser:
    """Subcommand ``name``'s parser, whose ``func`` runs it: on its own (a script's, ``prog`` naming it in messages),
    or as ``mddf``'s entry for ``name`` when given ``mddf``'s ``subparsers``."""
    options = dict(
        description=description,
        epilog=exit_status.epilog(name),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if subparsers is None:
        parser = argparse.ArgumentParser(prog=prog, **options)
    else:
        parser = subparsers.add_parser(name, prog=prog, help=COMMANDS[name].help, **options)
    parser.set_defaults(func=COMMANDS[name].func)
    return parser


# parsers


def add_user_data_arguments(parser: argparse.ArgumentParser, *, regression: bool = True) -> None:
    """``--data PATH --target COLUMN [--test PATH]``: the user's own table (:mod:`mddf.datasets.user_data`)."""
    from .defaults import USER_DATA_TASKS

    group = parser.add_argument_group("your own data (instead of a built-in dataset)")
    group.add_argument(
        "--data",
        type=Path,
        metavar="PATH",
        help="a CSV file (any separator, possibly compressed: .gz, .bz2, .xz, .zip) or Parquet file (with pyarrow "
        "installed) with one row per sample; text columns are categories, empty cells missing values",
    )
    group.add_argument("--target", metavar="COLUMN", help="the column to predict")
    group.add_argument(
        "--test",
        type=Path,
        metavar="PATH",
        help="a test file with the same columns (default: the protocol's cross-validation or 70/30 split of --data)",
    )
    group.add_argument(
        "--sep",
        type=separator,
        metavar="CHAR",
        help="the separator of a CSV file: one character, or 'tab' (default: sniffed among , ; tab |)",
    )
    group.add_argument(
        "--decimal",
        type=decimal_mark,
        metavar="CHAR",
        help="the decimal mark of a CSV file's numbers: '.' (default) or ',' (a European file: 3,14 with --sep ';', "
        "which is then sniffed)",
    )
    group.add_argument(
        "--drop", type=csv_list, metavar="COLS", help="comma-separated columns to leave out (e.g. an ID)"
    )
    group.add_argument(
        "--na-values",
        type=lambda text: [v.strip() for v in text.split(",")],
        metavar="VALUES",
        help="comma-separated cell values read as missing, besides empty cells and NA, NaN, null, ... (e.g. '?,-')",
    )
    group.add_argument(
        "--task",
        choices=USER_DATA_TASKS if regression else tuple(t for t in USER_DATA_TASKS if t != "regression"),
        default="auto",
        help="'auto' (default): text labels and few distinct integers are classes, non-integer numbers a regression "
        "target; an integer target with many distinct values stops and asks for --task"
        if regression
        else "'auto' (default) or 'classification' to take integer targets with many distinct values as classes",
    )


def add_files_arguments(parser: argparse.ArgumentParser) -> None:
    """``--data-home`` and ``--download``: where the built-in datasets' files are, and whether to fetch them."""
    parser.add_argument("--data-home", type=Path, help="folder with the benchmark files (sets MDDF_DATA)")
    parser.add_argument(
        "--download", action="store_true", help="let the loaders download missing files (default: report them missing)"
    )


def add_dataset_arguments(parser: argparse.ArgumentParser, *, regression: bool = True) -> None:
    """``--dataset NAME``, ``--download``, ``--data-home`` and the ``--data`` options."""
    from .defaults import FALLBACK_DATASET, PAPER_DEFAULT_DATASET, QUICK_DATASET

    parser.add_argument(
        "--dataset",
        help=f"dataset name (default: {PAPER_DEFAULT_DATASET} as in the paper when its files are present, "
        f"else {FALLBACK_DATASET}; with --quick: {QUICK_DATASET})",
    )
    add_files_arguments(parser)
    add_user_data_arguments(parser, regression=regression)


def add_mddf_arguments(parser: argparse.ArgumentParser) -> None:
    """The mdDF options of the single-fit subcommands (export-features, plot-layers, plot-tsne): the model is the
    benchmark's mdDF row (:func:`~.studies.mddf_model`), these options on top."""
    from .defaults import QUICK_DATASET

    parser.add_argument("--seed", type=int, default=0, help="random_state of mdDF (and of sampling)")
    parser.add_argument("--n-estimators", type=int, help="trees per forest (default: the estimator's, 100)")
    parser.add_argument("--max-layers", type=int, help="layers grown at most (default: the estimator's, 20)")
    parser.add_argument(
        "--n-tolerant-layers",
        type=int,
        help="stop after this many layers without improvement (default: the estimator's)",
    )
    parser.add_argument("--n-jobs", type=n_jobs, default=-1, help="threads (-1: all cores)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"tiny configuration for a smoke test ({QUICK_DATASET}, 10 trees, 3 layers)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress output")


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """How the runners execute: ``--n-jobs``, ``--workers``, ``--isolation``, ``--scheduler``, ``--quiet``."""
    parser.add_argument(
        "--n-jobs",
        type=n_jobs,
        help="threads per estimator, their OpenMP pools counted (-1: all cores; default: the cores over --workers, "
        "or 1 with --scheduler: one run per Dask worker thread)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="runs executed at the same time (default 1, which keeps timings comparable; "
        "with --scheduler the cluster's worker threads decide)",
    )
    parser.add_argument(
        "--isolation",
        choices=("process", "inline"),
        default="process",
        help="'process': each run in a worker process, reused from run to run (default); 'inline': in this process",
    )
    add_scheduler_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no per-run lines")


BENCHMARK_DESCRIPTION = """Benchmark runner: every method on a table of your own (--data PATH --target COLUMN), or on
the papers' datasets with their protocol (the mdDF paper's Table 2 and 3, the DeepBoost paper's Tables 1-3).

Two protocols, named in each table's header:
  practitioner (the default with --data): mdDF, a baseline (the majority class, or the mean), early-stopped
    HistGradientBoosting, LightGBM (when installed) and XGBoost, and a 400-tree random forest, by
    repeated k-fold cross-validation (5 folds, stratified, x 2 seeds; fewer folds for a small class).
    table.md gives each method's mean ± standard error on every metric (classification: accuracy,
    balanced accuracy, log-loss; regression: R², RMSE), its paired difference to the best method on
    --metric, and marks a winner only where that difference exceeds 2 standard errors for every
    other method; figure.png draws it. A continuous target (or --task regression) is a regression.
  paper (the default for the suites): the papers' methods and budgets (random forest and XGBoost with
    400 x k trees, k = the layers mdDF kept) on each dataset's train/test split (the DeepBoost
    datasets: that paper's 10 folds); table.md is laid out like the paper's Table 2, with the
    published numbers alongside (ablation.md with --ablation, peers.md with --peers).

Every run appends one JSON line to <out>/results.jsonl, bound to the sha256 of the data and of the
options that change its result: a rerun with the same --out resumes only the runs of the same data and
settings, and moves results of other data or settings aside (to <out>/old/), saying so. The default
--out of --data is results/<file stem>-<first 8 digits of its sha256>. Every table file starts with the
command that regenerates it, the commit, the machine, the date and, with --data, the file's sha256
(CSV: '#' comment lines, read with pandas.read_csv(path, comment="#")). A second runner on the same
--out stops. Each run executes in a worker process (reused from run to run, replaced when it dies);
its peak memory is the process's peak resident set size during the run, and its time is split into
selection, final fit and (left out of both) numba's compilation. With --scheduler each run is a task
on a Dask cluster instead (the 'dask' extra).

examples:
  mddf benchmark                                      # bundled datasets, papers' protocol, a few minutes
  mddf benchmark --data my.csv --target y             # your own CSV, practitioner protocol
  mddf benchmark --data my.csv --target y --metric balanced_accuracy --folds 10 --seeds 3
  mddf benchmark --data prices.csv --target price --drop id   # a regression target: R² and RMSE
  mddf benchmark --suite mddf --seeds 3 --download    # Table 2 on the paper's 8 datasets
  mddf benchmark --suite mddf --ablation              # ... and Table 3
  mddf benchmark --suite mddf --peers                 # ... and today's peers (peers.md)
  mddf benchmark --suite deepboost                    # DeepBoost datasets, 10-fold protocol
  mddf benchmark --datasets yeast,letter --methods mdDF,RF
  mddf benchmark --suite mddf --scheduler tcp://HOST:8786   # on a Dask cluster
  (python scripts/run_uci.py takes the same options)
"""


def benchmark_parser(prog: str = f"{PROG} benchmark", subparsers=None) -> argparse.ArgumentParser:
    parser = _new_parser(prog, BENCHMARK_DESCRIPTION, "benchmark", subparsers)
    parser.add_argument(
        "--suite", choices=sorted(SUITES), help="dataset suite (default: 'default', scikit-learn's bundled datasets)"
    )
    parser.add_argument("--datasets", type=csv_list, help="comma-separated dataset names (default: the suite's)")
    add_user_data_arguments(parser)
    add_protocol_arguments(parser)
    parser.add_argument(
        "--methods",
        type=csv_list,
        help="comma-separated method names (default: the protocol's methods; see --list); the practitioner "
        "protocol always adds Baseline",
    )
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="add the mdDF structures of the paper's Table 3 (mdDF_SF, mdDF_ST, mdDF_NP)",
    )
    parser.add_argument(
        "--peers",
        action="store_true",
        help="add today's peers (LightGBM, HGB, ExtraTrees; no published numbers) and write them with mdDF, "
        "RF and XGBoost in peers.md / peers.csv",
    )
    parser.add_argument(
        "--seeds",
        type=parse_seeds,
        help="number of seeds (3 = seeds 0,1,2) or a comma list: the repetitions of the cross-validation "
        "(practitioner protocol, default 2) or of each split (papers' protocol, default 1)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="output folder (default: results/<suite>, results/<suite>-practitioner, or with --data "
        "results/<file stem>-<sha256 prefix>, -paper appended under --protocol paper); rerun with it to resume; "
        "one runner at a time",
    )
    add_run_arguments(parser)
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="paper",
        help="'paper': the papers' configurations; 'quick': tiny models for smoke tests",
    )
    parser.add_argument("--quick", action="store_const", const="quick", dest="profile", help="same as --profile quick")
    add_files_arguments(parser)
    parser.add_argument("--list", action="store_true", help="list suites and methods (with availability) and exit")
    return parser


def add_protocol_arguments(parser: argparse.ArgumentParser, *, folds: bool = True) -> None:
    """``--protocol``, ``--metric`` (and ``--folds``): how the runners evaluate (``folds``: the benchmark's)."""
    from .defaults import DEFAULT_FOLDS, PROTOCOLS  # the names only: see the module

    parser.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        help=(
            "'practitioner': a baseline, early-stopped boosting and a random forest against mdDF, "
            "cross-validated, with standard errors (default with --data); 'paper': the papers' methods, "
            "budgets and splits (default for built-in datasets)"
            if folds
            else "'practitioner': the benchmark's practitioner methods (a baseline, early-stopped boosting, a "
            "random forest and mdDF; default with --data); 'paper': the paper's RF, XGBoost, gcForest and mdDF "
            "(default for built-in datasets); both on the same fractions of each seed's split"
        ),
    )
    if folds:
        parser.add_argument(
            "--folds",
            type=fold_option,
            default=DEFAULT_FOLDS,
            help=f"folds of the practitioner protocol's cross-validation (default {DEFAULT_FOLDS}; fewer when a "
            "class has fewer rows)",
        )
    parser.add_argument(
        "--metric",
        choices=list(METRICS),
        help=(
            "the metric that ranks (default: accuracy, but balanced_accuracy when the smallest class holds under 40%% "
            "of an even share of the rows, under 20%% for two classes; r2 for a regression); every metric is reported"
            if folds
            else "the metric drawn (default: accuracy, or r2 for a regression)"
        ),
    )


def small_sample_parser(prog: str = f"{PROG} small-sample", subparsers=None) -> argparse.ArgumentParser:
    from .defaults import SMALL_SAMPLE_PAPER_METHODS

    parser = _new_parser(
        prog,
        _help_text("small_sample")
        + "\nThe paper uses UCI HAR (the default when its files are present, else satimage).\n\n"
        "examples:\n  mddf small-sample --quick\n  mddf small-sample --data my.csv --target y --methods mdDF,RF-400 "
        "--fractions 0.1,0.5,1 --seeds 2\n  (python scripts/small_sample.py takes the same options)\n",
        "small-sample",
        subparsers,
    )
    add_dataset_arguments(parser)
    add_protocol_arguments(parser, folds=False)
    parser.add_argument(
        "--fractions",
        type=fractions,
        help="comma-separated training fractions (default: 0.01,0.02,0.05,0.1,0.2,0.5,1; with --quick 0.05,0.2,1)",
    )
    parser.add_argument(
        "--methods",
        help="comma-separated method names (default: the protocol's: "
        f"{','.join(SMALL_SAMPLE_PAPER_METHODS)} for the papers', the benchmark's for the practitioner's)",
    )
    parser.add_argument("--seeds", type=int, default=3, help="repetitions (seeds 0..N-1)")
    parser.add_argument(
        "--out",
        type=Path,
        help="output folder (default: results/small_sample, or with --data results/<file stem>-<sha256 "
        "prefix>/small_sample); results.jsonl there makes reruns resume; one runner at a time",
    )
    add_run_arguments(parser)
    parser.add_argument(
        "--quick", action="store_true", help="smoke test: digits, tiny models ('quick' profile), fractions 0.05,0.2,1"
    )
    return parser


def export_features_parser(prog: str = f"{PROG} export-features", subparsers=None) -> argparse.ArgumentParser:
    parser = _new_parser(prog, _help_text("feature_export"), "export-features", subparsers)
    add_dataset_arguments(parser)
    add_mddf_arguments(parser)
    parser.add_argument("--include-raw", action="store_true", help="also store X_train and X_test")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output .npz (default: results/features/<dataset>_mddf_features.npz; with --data "
        "<file stem>-<sha256 prefix> for <dataset>)",
    )
    return parser


def plot_layers_parser(prog: str = f"{PROG} plot-layers", subparsers=None) -> argparse.ArgumentParser:
    parser = _new_parser(prog, _help_text("layer_figures"), "plot-layers", subparsers)
    add_dataset_arguments(parser, regression=False)
    add_mddf_arguments(parser)
    parser.add_argument(
        "--margin-layers",
        default=None,
        help="layers whose margin distribution is drawn, e.g. '1,2,last' (default: 4 spread out)",
    )
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="output folder")
    return parser


def plot_tsne_parser(prog: str = f"{PROG} plot-tsne", subparsers=None) -> argparse.ArgumentParser:
    parser = _new_parser(prog, _help_text("tsne_figure"), "plot-tsne", subparsers)
    add_dataset_arguments(parser, regression=False)
    add_mddf_arguments(parser)
    parser.add_argument("--layers", default=None, help="layers to embed, e.g. '1,2,4,last' (default: 4 spread out)")
    parser.add_argument(
        "--max-points", type=int, default=1500, help="stratified sample of rows embedded per split (t-SNE is quadratic)"
    )
    parser.add_argument("--perplexity", type=float, default=30.0)
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="output folder")
    return parser


def datasets_parser(prog: str = f"{PROG} datasets", subparsers=None) -> argparse.ArgumentParser:
    from mddf.datasets import GROUPS

    parser = _new_parser(prog, _help_text("dataset_listing"), "datasets", subparsers)
    parser.add_argument("--group", choices=GROUPS, default=None, help="only this group of datasets")
    parser.add_argument("--data-home", type=Path, default=None, help="folder with the benchmark files (MDDF_DATA)")
    return parser


# running a subcommand: each parser's ``func``, which imports the module doing the work when it runs


def run_benchmark(args, *, registry=None, command: str) -> int:
    """``mddf benchmark``: :func:`.benchmark.run`."""
    from .benchmark import run

    return run(args, registry, command=command)


def run_small_sample(args, *, registry=None, command: str) -> int:
    """``mddf small-sample``: :func:`.small_sample.run`."""
    from .small_sample import run

    return run(args, registry, command=command)


def run_export_features(args, *, registry=None, command: str) -> int:
    """``mddf export-features``: :func:`.feature_export.run` (one fit: no registry)."""
    from .feature_export import run

    return run(args, command=command)


def run_plot_layers(args, *, registry=None, command: str) -> int:
    """``mddf plot-layers``: :func:`.layer_figures.run` (one fit: no registry)."""
    from .layer_figures import run

    return run(args, command=command)


def run_plot_tsne(args, *, registry=None, command: str) -> int:
    """``mddf plot-tsne``: :func:`.tsne_figure.run` (one fit: no registry)."""
    from .tsne_figure import run

    return run(args, command=command)


def run_datasets(args, *, registry=None, command: str) -> int:
    """``mddf datasets``: :func:`.dataset_listing.run`."""
    from .dataset_listing import run

    return run(args, command=command)


@dataclass(frozen=True)
class Command:
    """A subcommand: the function building its parser, the one running it (the parser's ``func``), the script that
    wraps it, a one-line summary."""

    parser: Callable[..., argparse.ArgumentParser]
    func: Callable[..., int]  # func(args, registry=..., command=...) -> exit status
    script: str | None
    summary: str
    schedules: bool = False  # runs many runs: takes --scheduler (checked before running) and a registry

    @property
    def help(self) -> str:
        """Its line in ``mddf --help``."""
        return self.summary + (f" (also scripts/{self.script})" if self.script else "")


# fmt: off
COMMANDS = {
    "benchmark": Command(benchmark_parser, run_benchmark, "run_uci.py", "compare methods on your --data file "
                         "(practitioner protocol) or the papers' datasets (their protocol)", schedules=True),
    "small-sample": Command(small_sample_parser, run_small_sample, "small_sample.py",
                            "score against the training fraction (the mdDF paper's Figure 6)", schedules=True),
    "export-features": Command(export_features_parser, run_export_features, "export_features.py",
                               "fit mdDF and save its per-layer features (.npz)"),
    "plot-layers": Command(plot_layers_parser, run_plot_layers, "plot_layers.py",
                           "accuracy and margins over mdDF's layers (Figures 8, 9)"),
    "plot-tsne": Command(plot_tsne_parser, run_plot_tsne, "plot_tsne.py", "t-SNE of mdDF's layer features (Figure 7)"),
    "datasets": Command(datasets_parser, run_datasets, None, "the built-in datasets and whether their files are here"),
}
# fmt: on


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _run(name: str, parser, args, argv: list, *, registry, prog: str | None, command: list | None) -> int:
    """Run the parsed ``args`` of subcommand ``name`` (``parser``'s) with their ``func``; returns the exit status.

    The errors about the input become one line and exit status 2 (see :func:`run_command`).
    """
    from mddf.datasets.user_data import UserDataError

    from .studies import NothingToRun, OptionError, OutputError, UsageError, check_n_jobs

    if COMMANDS[name].schedules:
        check_scheduler_args(parser, args)
    line = shlex.join([str(a) for a in (command or [PROG, name]) + argv])
    who = (prog or PROG).split()[0]
    try:
        check_n_jobs(getattr(args, "n_jobs", None))
        return args.func(args, registry=registry, command=line)
    except UsageError as exc:
        parser.error(str(exc))
    except (UserDataError, FolderLocked, FolderUnwritable, OutputError, OptionError) as exc:
        print(f"{who}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except NothingToRun as exc:
        print(f"nothing to run: {exc}", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    except Terminated:
        print("terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    raise AssertionError("unreachable")  # parser.error exits


def run_command(name: str, argv=None, *, registry=None, prog: str | None = None, command: list | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``) for subcommand ``name`` and run it; returns the exit status.

    Usage errors raise ``SystemExit(2)`` (argparse's message and usage), ``--help`` ``SystemExit(0)``; a
    bad ``--data`` file or a held ``--out`` prints one line, ``<prog>: error: ...``, and returns 2.
    ``registry`` holds the runners' methods (tests add doubles), ``prog`` names the program in messages
    (default ``mddf <name>``), and ``command`` is the command line recorded in provenance before ``argv``
    (default ``["mddf", name]``).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = COMMANDS[name].parser(prog or f"{PROG} {name}")
    args = parser.parse_args(argv)
    return _run(name, parser, args, argv, registry=registry, prog=prog, command=command)


def run_script(name: str, argv=None, registry=None, *, script=None) -> int:
    """Subcommand ``name`` as its script in ``scripts/`` runs it; returns the exit status.

    :func:`run_command` with the script's file name in messages (``run_uci.py: error: ...``) and
    ``python scripts/<script> ...`` as the command line recorded in provenance; ``script`` defaults to
    ``scripts/<COMMANDS[name].script>`` of the checkout.
    """
    from .provenance import command_line, script_path

    script = script or script_path(COMMANDS[name].script)
    argv = list(sys.argv[1:] if argv is None else argv)
    shown = shlex.split(command_line(script, []))
    return run_command(name, argv, registry=registry, prog=Path(script).name, command=shown)


def script_entry(name: str, script) -> int:
    """The ``if __name__ == "__main__"`` of a wrapper script (its ``__file__``): :func:`run_script`, Ctrl-C as 130."""
    try:
        return run_script(name, script=script)
    except KeyboardInterrupt:  # before or after the runs (during them, the runners return EXIT_INTERRUPTED)
        print("interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED


def _parsers(full: str | None = None) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser | None]:
    """``mddf``'s parser and subcommand ``full``'s parser within it (see :func:`build_parser`)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Margin-distribution deep forest: benchmarks, studies, features and figures from the "
        "command line. `mddf <subcommand> --help` describes each subcommand.",
        epilog=exit_status.summary(),
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="<subcommand>")
    chosen = None
    for name, spec in COMMANDS.items():
        if name == full:
            chosen = spec.parser(f"{PROG} {name}", subparsers=sub)
        else:  # a bare entry: its line in `mddf --help`, and its func
            sub.add_parser(name, help=spec.help, add_help=False).set_defaults(func=spec.func)
    return parser, chosen


def build_parser(full: str | None = None) -> argparse.ArgumentParser:
    """``mddf``'s top-level parser: ``--version`` and one entry per subcommand (``mddf --help``), each setting ``func``.

    Subcommand ``full``, if given, has its options (building them loads its modules); the others are bare entries,
    so that ``mddf --help`` and ``mddf --version`` load none of them.
    """
    return _parsers(full)[0]


def console_main():
    """The ``mddf`` console script: :func:`main`, whose status ends the process."""
    sys.exit(main())


def main(argv=None, registry=None) -> int:
    """``mddf [--version] <subcommand> [options]``; returns the exit status (the console script's)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        # Nothing before the subcommand takes a value, so a subcommand given is the first argument; only it gets
        # its options.
        name = argv[0] if argv and argv[0] in COMMANDS else None
        if name is None:
            args = build_parser().parse_args(argv)  # --help, --version, or an unknown subcommand: exits
            if args.command is None:
                build_parser().print_usage(sys.stderr)
                print(f"{PROG}: error: a subcommand is required ({', '.join(COMMANDS)})", file=sys.stderr)
                return EXIT_BAD_INPUT
            return main(argv[argv.index(args.command) :], registry)  # argparse found it later (after '--')
        parser, subparser = _parsers(name)
        args, extras = parser.parse_known_args(argv)
        if extras:  # the subcommand's error and usage, as when its parser parses on its own (scripts/)
            subparser.error(f"unrecognized arguments: {' '.join(extras)}")
        return _run(name, subparser, args, argv[1:], registry=registry, prog=None, command=None)
    except SystemExit as exc:  # argparse (--help, --version, usage errors)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED
