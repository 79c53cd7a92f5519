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

Every subcommand that takes a dataset also takes the user's own table: ``--data PATH --target
COLUMN [--test PATH]`` (:mod:`.user_data`). This module holds the argument parsing and the exit
statuses; the work is done by :mod:`.benchmark`, :mod:`.small_sample`, :mod:`.feature_export`,
:mod:`.layer_figures`, :mod:`.tsne_figure` and :mod:`.dataset_listing`.

Exit status (as the scripts' ``--help`` say): 0 done; 1 a run failed (or an unexpected error);
2 a usage error, an unusable ``--data`` file, an ``--out`` folder held by another runner, or
nothing to run; 130 Ctrl-C; 143 SIGTERM. Errors about the input are one line,
``mddf: error: <what is wrong>``, without a traceback.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .cluster import add_scheduler_argument, check_scheduler_args, exit_status_epilog
from .executor import EXIT_INTERRUPTED, EXIT_NOTHING_TO_RUN, EXIT_OK, EXIT_TERMINATED, Terminated
from .methods import PROFILES
from .outlock import FolderLocked
from .studies import FALLBACK_DATASET, PAPER_DEFAULT_DATASET, QUICK_DATASET, NothingToRun, UsageError
from .suites import SUITES
from .user_data import UserDataError

PROG = "mddf"
EXIT_BAD_INPUT = 2  # argparse's status for a usage error; also a bad --data file or a held --out


def version() -> str:
    """The installed package's version: ``mddf.__version__`` when defined, else the distribution's metadata."""
    try:
        import mddf

        found = getattr(mddf, "__version__", None)
    except ImportError:
        found = None
    if found:
        return str(found)
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("mddf")
    except PackageNotFoundError:
        return "unknown (not installed)"


# ----------------------------------------------------------------------------- argument types


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


def fractions(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or any(not 0 < v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"fractions must be in (0, 1], got {text!r}")
    return sorted(set(values))


def _simple_epilog(done: str) -> str:
    return (
        "exit status:\n"
        f"  0    {done}\n"
        "  1    an unexpected error (with its traceback)\n"
        "  2    usage error, an unusable --data file, or the dataset is not available (its files are\n"
        "       missing and --download was not given)\n"
        "  130  interrupted by Ctrl-C (SIGINT)"
    )


def _help_text(module) -> str:
    """A module's docstring for ``--help``, without its paragraph for developers (the one naming this module)."""
    paragraphs = (module.__doc__ or "").strip().split("\n\n")
    return "\n\n".join(p for p in paragraphs if ":mod:`.cli`" not in p) + "\n"


def _new_parser(prog: str, description: str, epilog: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog=prog, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )


# ----------------------------------------------------------------------------- parsers


def add_user_data_arguments(parser: argparse.ArgumentParser) -> None:
    """``--data PATH --target COLUMN [--test PATH]``: the user's own table (:mod:`.user_data`)."""
    group = parser.add_argument_group("your own data (instead of a built-in dataset)")
    group.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="PATH",
        help="a CSV file (or Parquet, with pyarrow installed) with one row per sample; text columns are "
        "categories, empty cells missing values",
    )
    group.add_argument("--target", default=None, metavar="COLUMN", help="the label column of --data")
    group.add_argument(
        "--test",
        type=Path,
        default=None,
        metavar="PATH",
        help="a test file with the same columns (default: a stratified 70/30 split of --data drawn with each seed)",
    )


def add_dataset_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dataset NAME``, ``--download``, ``--data-home`` and the ``--data`` options."""
    parser.add_argument(
        "--dataset",
        default=None,
        help=f"dataset name (default: {PAPER_DEFAULT_DATASET} as in the paper when its files are present, "
        f"else {FALLBACK_DATASET}; with --quick: {QUICK_DATASET})",
    )
    parser.add_argument("--download", action="store_true", help="let the loader download missing files")
    parser.add_argument("--data-home", type=Path, default=None, help="folder with the benchmark files (MDDF_DATA)")
    add_user_data_arguments(parser)


def add_mddf_arguments(parser: argparse.ArgumentParser, max_layers: int = 10) -> None:
    """The mdDF options of the single-fit subcommands (export-features, plot-layers, plot-tsne)."""
    parser.add_argument("--seed", type=int, default=0, help="random_state of mdDF (and of sampling)")
    parser.add_argument("--n-estimators", type=int, default=100, help="trees per forest (paper: 100)")
    parser.add_argument("--max-layers", type=int, default=max_layers, help="layers grown at most")
    parser.add_argument(
        "--n-tolerant-layers",
        type=int,
        default=None,
        help="stop after this many layers without improvement (default: the estimator's)",
    )
    parser.add_argument("--n-jobs", type=int, default=-1, help="threads (-1: all cores)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"tiny configuration for a smoke test ({QUICK_DATASET}, 10 trees, 3 layers)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress output")


BENCHMARK_DESCRIPTION = """Benchmark runner: the mdDF paper's Table 2 (and 3) and the DeepBoost paper's Tables 1-3,
or every method on a table of your own (--data PATH --target COLUMN).

Runs every available method on a suite of datasets, appends one JSON line per finished
(dataset, method, seed[, fold]) run to <out>/results.jsonl and writes Table 2-style table.md /
table.csv (plus ablation.md / ablation.csv with --ablation) with the published numbers alongside,
and with --peers peers.md / peers.csv: today's peers (LightGBM, HGB, ExtraTrees) next to mdDF, RF
and XGBoost on the same splits and seeds. Every table file starts with the command that
regenerates it, the commit, the machine, the date and, with --data, the file's sha256 (CSV: '#'
comment lines, read with pandas.read_csv(path, comment="#")). Rerunning with the same --out
resumes: finished runs are skipped, failed ones retried; a second runner on the same --out stops.

Random forest and XGBoost use 400 x k trees, k = the number of layers mdDF kept on the same dataset
and seed (mdDF runs first). Each run executes in a fresh worker process; its peak memory is that
process's peak resident set size. With --scheduler each run is a task on a Dask cluster instead
(needs the 'dask' extra); results still stream into the same results.jsonl.
"""

BENCHMARK_EXAMPLES = """
examples:
  mddf benchmark                                      # bundled datasets, a few minutes
  mddf benchmark --data my.csv --target y --methods mdDF,RF --seeds 2   # your own CSV
  mddf benchmark --suite mddf --seeds 3 --download    # Table 2 on the paper's 8 datasets
  mddf benchmark --suite mddf --ablation              # ... and Table 3
  mddf benchmark --suite mddf --peers                 # ... and today's peers (peers.md)
  mddf benchmark --suite deepboost                    # DeepBoost datasets, 10-fold protocol
  mddf benchmark --datasets yeast,letter --methods mdDF,RF
  mddf benchmark --suite mddf --scheduler tcp://HOST:8786   # on a Dask cluster
  (python scripts/run_uci.py takes the same options)
"""


def benchmark_parser(prog: str = f"{PROG} benchmark") -> argparse.ArgumentParser:

    parser = _new_parser(
        prog,
        BENCHMARK_DESCRIPTION + BENCHMARK_EXAMPLES,
        exit_status_epilog(
            failed="a run failed or a dataset file could not be loaded (corrupt, wrong checksum)",
            nothing_to_run="no requested method is available, every dataset was skipped (its files are "
            "missing and --download was not given) or none of the methods applies to the datasets; "
            "also an unusable --data file, and an --out folder another runner holds",
        ),
    )
    parser.add_argument(
        "--suite",
        choices=sorted(SUITES),
        default=None,
        help="dataset suite (default: 'default', scikit-learn's bundled datasets)",
    )
    parser.add_argument(
        "--datasets", type=csv_list, default=None, help="comma-separated dataset names (default: the suite's)"
    )
    add_user_data_arguments(parser)
    parser.add_argument(
        "--methods",
        type=csv_list,
        default=None,
        help="comma-separated method names (default: every available default method; see --list)",
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
        default=[0],
        help="number of seeds (3 = seeds 0,1,2) or a comma list; mean and std are reported",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default: results/<suite>, or results/<file name> with --data); rerun with it to "
        "resume; one runner at a time",
    )
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="threads per estimator (-1: all cores; default -1, or 1 with --scheduler: one run per Dask worker thread)",
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
        help="'process': each run in a fresh worker process (default); 'inline': in this process",
    )
    add_scheduler_argument(parser)
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="paper",
        help="'paper': the papers' configurations; 'quick': tiny models for smoke tests",
    )
    parser.add_argument("--quick", action="store_const", const="quick", dest="profile", help="same as --profile quick")
    parser.add_argument("--data-home", type=Path, default=None, help="folder with the benchmark files (sets MDDF_DATA)")
    parser.add_argument(
        "--download",
        action="store_true",
        help="let the loaders download missing dataset files (default: report them as skipped)",
    )
    parser.add_argument("--list", action="store_true", help="list suites and methods (with availability) and exit")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no per-run lines")
    return parser


def small_sample_parser(prog: str = f"{PROG} small-sample") -> argparse.ArgumentParser:
    from . import small_sample

    parser = _new_parser(
        prog,
        _help_text(small_sample)
        + "\nThe paper uses UCI HAR (the default when its files are present, else satimage).\n\n"
        "examples:\n  mddf small-sample --quick\n  mddf small-sample --data my.csv --target y --methods mdDF,RF "
        "--fractions 0.1,0.5,1 --seeds 2\n  (python scripts/small_sample.py takes the same options)\n",
        exit_status_epilog(
            failed="a run failed (the figure shows the runs that finished)",
            nothing_to_run="no requested method is available, or the dataset is not (its files are missing "
            "and --download was not given); also an unusable --data file, and an --out folder another "
            "runner holds",
        ),
    )
    add_dataset_arguments(parser)
    parser.add_argument(
        "--fractions",
        type=fractions,
        default=None,
        help="comma-separated training fractions (default: 0.01,0.02,0.05,0.1,0.2,0.5,1; with --quick 0.05,0.2,1)",
    )
    parser.add_argument(
        "--methods", default=",".join(small_sample.DEFAULT_METHODS), help="comma-separated method names"
    )
    parser.add_argument("--seeds", type=int, default=3, help="repetitions (seeds 0..N-1)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("results/small_sample"),
        help="output folder (results.jsonl there makes reruns resume; one runner at a time)",
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


def export_features_parser(prog: str = f"{PROG} export-features") -> argparse.ArgumentParser:
    from . import feature_export

    parser = _new_parser(prog, _help_text(feature_export), _simple_epilog("the features were written"))
    add_dataset_arguments(parser)
    add_mddf_arguments(parser)
    parser.add_argument("--include-raw", action="store_true", help="also store X_train and X_test")
    parser.add_argument(
        "--out", type=Path, default=None, help="output .npz (default: results/features/<dataset>_mddf_features.npz)"
    )
    return parser


def plot_layers_parser(prog: str = f"{PROG} plot-layers") -> argparse.ArgumentParser:
    from . import layer_figures

    parser = _new_parser(prog, _help_text(layer_figures), _simple_epilog("the figures were written"))
    add_dataset_arguments(parser)
    add_mddf_arguments(parser)
    parser.add_argument(
        "--margin-layers",
        default=None,
        help="layers whose margin distribution is drawn, e.g. '1,2,last' (default: 4 spread out)",
    )
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="output folder")
    return parser


def plot_tsne_parser(prog: str = f"{PROG} plot-tsne") -> argparse.ArgumentParser:
    from . import tsne_figure

    parser = _new_parser(prog, _help_text(tsne_figure), _simple_epilog("the figures were written"))
    add_dataset_arguments(parser)
    add_mddf_arguments(parser)
    parser.add_argument("--layers", default=None, help="layers to embed, e.g. '1,2,4,last' (default: 4 spread out)")
    parser.add_argument(
        "--max-points", type=int, default=1500, help="stratified sample of rows embedded per split (t-SNE is quadratic)"
    )
    parser.add_argument("--perplexity", type=float, default=30.0)
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="output folder")
    return parser


def datasets_parser(prog: str = f"{PROG} datasets") -> argparse.ArgumentParser:
    from mddf.datasets import GROUPS

    from . import dataset_listing

    parser = _new_parser(prog, _help_text(dataset_listing), "exit status:\n  0    listed\n  2    usage error")
    parser.add_argument("--group", choices=GROUPS, default=None, help="only this group of datasets")
    parser.add_argument("--data-home", type=Path, default=None, help="folder with the benchmark files (MDDF_DATA)")
    return parser


# ----------------------------------------------------------------------------- running a subcommand


def _run_benchmark(args, registry, command):
    from . import benchmark

    return benchmark.run(args, registry, command=command)


def _run_small_sample(args, registry, command):
    from . import small_sample

    return small_sample.run(args, registry, command=command)


def _run_export(args, registry, command):
    from . import feature_export

    return feature_export.run(args, command=command)


def _run_layers(args, registry, command):
    from . import layer_figures

    return layer_figures.run(args, command=command)


def _run_tsne(args, registry, command):
    from . import tsne_figure

    return tsne_figure.run(args, command=command)


def _run_datasets(args, registry, command):
    import os

    from .dataset_listing import print_datasets

    if args.data_home is not None:
        os.environ["MDDF_DATA"] = str(args.data_home.resolve())
    print_datasets(args.group)
    return EXIT_OK


@dataclass(frozen=True)
class Command:
    """A subcommand: its parser, what runs it, the script that wraps it and a one-line summary."""

    parser: Callable[..., argparse.ArgumentParser]
    run: Callable[..., int]
    script: str | None
    summary: str
    schedules: bool = False  # takes --scheduler (checked before running)


COMMANDS = {
    "benchmark": Command(
        benchmark_parser,
        _run_benchmark,
        "run_uci.py",
        "run methods on built-in datasets or your --data file; tables like the papers'",
        schedules=True,
    ),
    "small-sample": Command(
        small_sample_parser,
        _run_small_sample,
        "small_sample.py",
        "test accuracy against the training fraction (the mdDF paper's Figure 6)",
        schedules=True,
    ),
    "export-features": Command(
        export_features_parser, _run_export, "export_features.py", "fit mdDF and save its per-layer features (.npz)"
    ),
    "plot-layers": Command(
        plot_layers_parser, _run_layers, "plot_layers.py", "accuracy and margins over mdDF's layers (Figures 8, 9)"
    ),
    "plot-tsne": Command(plot_tsne_parser, _run_tsne, "plot_tsne.py", "t-SNE of mdDF's layer features (Figure 7)"),
    "datasets": Command(datasets_parser, _run_datasets, None, "the built-in datasets and whether their files are here"),
}


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def run_command(name: str, argv=None, *, registry=None, prog: str | None = None, command: list | None = None) -> int:
    """Parse ``argv`` for subcommand ``name`` and run it; returns the exit status.

    Usage errors raise ``SystemExit(2)`` (argparse's message and usage); ``--help`` raises
    ``SystemExit(0)``. A bad ``--data`` file and a held ``--out`` print one line,
    ``<prog>: error: ...``, and return 2.

    Parameters
    ----------
    name : str
        A key of :data:`COMMANDS`.
    argv : list of str, optional
        The subcommand's arguments (default: ``sys.argv[1:]``).
    registry : Registry, optional
        Methods of the runners (tests add doubles).
    prog : str, optional
        Program name in messages (default ``mddf <name>``; a script passes its file name).
    command : list of str, optional
        The command line recorded in provenance, before ``argv`` (default ``["mddf", name]``).
    """
    spec = COMMANDS[name]
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = spec.parser(prog or f"{PROG} {name}")
    args = parser.parse_args(argv)
    if spec.schedules:
        check_scheduler_args(parser, args)
    line = shlex.join([str(a) for a in (command or [PROG, name]) + argv])
    who = (prog or PROG).split()[0]
    try:
        return spec.run(args, registry, line)
    except UsageError as exc:
        parser.error(str(exc))
    except (UserDataError, FolderLocked) as exc:
        print(f"{who}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except NothingToRun as exc:
        print(f"nothing to run: {exc}", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    except Terminated:
        print("terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    raise AssertionError("unreachable")  # parser.error exits


def run_script(name: str, argv=None, registry=None, *, script=None) -> int:
    """Subcommand ``name`` as its script in ``scripts/`` runs it; returns the exit status.

    :func:`run_command` with the script's file name in messages (``run_uci.py: error: ...``) and
    ``python scripts/<script> ...`` as the command line recorded in provenance.

    Parameters
    ----------
    name : str
        A key of :data:`COMMANDS` that has a script.
    argv : list of str, optional
        The script's arguments (default: ``sys.argv[1:]``).
    registry : Registry, optional
        Methods of the runners (tests add doubles).
    script : str or Path, optional
        The script's path (default: ``scripts/<COMMANDS[name].script>`` of the checkout).
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


def build_parser() -> argparse.ArgumentParser:
    """``mddf``'s top-level parser: ``--version`` and one entry per subcommand (``mddf --help``)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Margin-distribution deep forest: benchmarks, studies, features and figures from the "
        "command line. `mddf <subcommand> --help` describes each subcommand.",
        epilog="exit status: 0 done, 1 a run failed, 2 usage error / unusable --data file / --out held by "
        "another runner / nothing to run, 130 Ctrl-C, 143 SIGTERM",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="<subcommand>")
    for name, spec in COMMANDS.items():
        also = f" (also scripts/{spec.script})" if spec.script else ""
        sub.add_parser(name, help=spec.summary + also, add_help=False)
    return parser


def main(argv=None, registry=None) -> int:
    """``mddf [--version] <subcommand> [options]``; returns the exit status (the console script's)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        if not argv or argv[0] not in COMMANDS:
            args = parser.parse_args(argv)  # --help, --version, or an unknown subcommand: exits
            if args.command is None:
                parser.print_usage(sys.stderr)
                print(f"{PROG}: error: a subcommand is required ({', '.join(COMMANDS)})", file=sys.stderr)
                return EXIT_BAD_INPUT
        return run_command(argv[0], argv[1:], registry=registry)
    except SystemExit as exc:  # argparse (--help, --version, usage errors)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED
