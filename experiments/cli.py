"""The command line: ``mddf <subcommand>`` and the scripts in ``scripts/`` (:data:`COMMANDS`), each subcommand's module
imported when it runs. An error about the input is one line; standard output carries only results."""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import exit_status, options
from .cluster import check_scheduler_args
from .executor import discard_early_workers, start_workers_early
from .exit_status import EXIT_INTERRUPTED, EXIT_NOTHING_TO_RUN, EXIT_TERMINATED, EXIT_USAGE, Terminated, sigterm_raises
from .outfolder import FolderLocked, FolderUnwritable
from .provenance import one_line

PROG = "mddf"


def version() -> str:
    """The installed package's version (``mddf.__version__``)."""
    import mddf

    return mddf.__version__


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, its options, the module that runs it, the script that wraps it, a one-line summary."""

    name: str
    options: Callable[[argparse.ArgumentParser], None]  #: adds its options to a parser (:mod:`.options`)
    module: str  #: the module whose ``run`` runs it, imported when it runs
    script: str | None
    summary: str
    schedules: bool = False  #: runs many runs: takes --scheduler (checked before running) and a registry
    description: str | None = None  #: its ``--help``'s description (default: its module's docstring)
    out: str = "folder"  #: what its ``--out`` names: a folder, or a file (``".npz file"``)

    def parser(self, prog: str | None = None) -> argparse.ArgumentParser:
        """Its parser, ``prog`` naming it in messages (default ``mddf <name>``)."""
        description = self.description or options.help_text(self.module)
        parser = argparse.ArgumentParser(prog=prog or f"{PROG} {self.name}", description=description,
                                         epilog=exit_status.epilog(self.name),
                                         formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        self.options(parser)
        return parser

    def run(self, args, *, registry=None, command: str) -> int:
        """Run it: its module's ``run`` with the parsed ``args`` (and, for a runner, the ``registry`` of methods)."""
        run = importlib.import_module(f"{__package__}.{self.module}").run
        return run(args, registry, command=command) if self.schedules else run(args, command=command)


# fmt: off
COMMANDS = {command.name: command for command in (
    Command("benchmark", options.benchmark_options, "benchmark", "run_uci.py", "compare methods on your --data file "
            "(practitioner protocol) or the papers' datasets (their protocol)", schedules=True,
            description=options.BENCHMARK_DESCRIPTION),
    Command("small-sample", options.small_sample_options, "small_sample", "small_sample.py",
            "score against the training fraction (the mdDF paper's Figure 6)", schedules=True),
    Command("export-features", options.export_features_options, "feature_export", "export_features.py",
            "fit mdDF and save its per-layer features (.npz)", out="path of the .npz file to write"),
    Command("explain", options.explain_options, "explain", None,
            "fit mdDF and attribute its predictions to the columns (.csv and a figure)"),
    Command("plot-layers", options.plot_layers_options, "layer_figures", "plot_layers.py",
            "accuracy and margins over mdDF's layers (Figures 8, 9)"),
    Command("plot-tsne", options.plot_tsne_options, "tsne_figure", "plot_tsne.py",
            "t-SNE of mdDF's layer features (Figure 7)"),
    Command("datasets", options.datasets_options, "dataset_listing", None,
            "the built-in datasets and whether their files are here"),
)}
# fmt: on


def _run(name: str, parser, args, argv: list, *, registry, prog: str | None, command: list | None) -> int:
    """The exit status of subcommand ``name`` on ``parser``'s ``args`` (an error about the input: one line and 2)."""
    from mddf.datasets.user_data import UserDataError

    from .studies import NothingToRun, OptionError, UsageError, check_options

    if COMMANDS[name].schedules:
        check_scheduler_args(parser, args)
    line = shlex.join([str(a) for a in (command or [PROG, name]) + argv])
    who = (prog or PROG).split()[0]
    if getattr(args, "data_home", None) is not None:  # --data-home: where every loader of the subcommand looks
        os.environ["MDDF_DATA"] = str(Path(args.data_home).resolve())
    try:
        with sigterm_raises():  # every subcommand: unwound, its files written whole or not at all
            check_options(args, COMMANDS[name].out)
            if COMMANDS[name].schedules and args.scheduler is None and args.isolation == "process":
                start_workers_early(args.workers)  # they start while the command reads its data
            return COMMANDS[name].run(args, registry=registry, command=line)
    except UsageError as exc:
        parser.error(str(exc))
    except (UserDataError, FolderLocked, FolderUnwritable, OptionError) as exc:
        print(f"{who}: error: {one_line(exc) or type(exc).__name__}", file=sys.stderr)
        return EXIT_USAGE
    except NothingToRun as exc:
        print(f"nothing to run: {exc}", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    except Terminated:
        print("terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    finally:
        discard_early_workers()
    raise AssertionError("unreachable")  # parser.error exits


def run_command(name: str, argv=None, *, registry=None, prog: str | None = None, command: list | None = None) -> int:
    """Subcommand ``name``'s exit status on ``argv`` (``prog`` in messages, ``command`` before it in provenance)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = COMMANDS[name].parser(prog)
    args = parser.parse_args(argv)
    return _run(name, parser, args, argv, registry=registry, prog=prog, command=command)


def run_script(name: str, argv=None, registry=None, *, script=None) -> int:
    """:func:`run_command` as subcommand ``name``'s script in ``scripts/`` runs it (its name in messages)."""
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


def _parser() -> argparse.ArgumentParser:
    """``mddf``'s parser: ``--version`` and a bare entry per subcommand (no subcommand's options built)."""
    parser = argparse.ArgumentParser(prog=PROG, description="Margin-distribution deep forest: benchmarks, studies, "
                                     "features and figures from the command line. `mddf <subcommand> --help` "
                                     "describes each subcommand.", epilog=exit_status.summary())  # fmt: skip
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="<subcommand>")
    for name, spec in COMMANDS.items():  # its line: the summary, and the script that runs it too
        also = f" (also scripts/{spec.script})" if spec.script else ""
        sub.add_parser(name, help=spec.summary + also, add_help=False)
    return parser


def console_main():
    """The ``mddf`` console script: :func:`main`, whose status ends the process."""
    sys.exit(main())


def main(argv=None, registry=None) -> int:
    """``mddf [--version] <subcommand> [options]``; returns the exit status (the console script's)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        # Nothing before the subcommand takes a value: a subcommand given is the first argument, and gets its options
        if argv and argv[0] in COMMANDS:
            return run_command(argv[0], argv[1:], registry=registry)
        parser = _parser()
        parser.parse_args(argv)  # --help, --version, or an unknown subcommand: exits
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: a subcommand is required ({', '.join(COMMANDS)})", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # argparse (--help, --version, usage errors)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED
