"""Commands that write pages from records other commands wrote (:class:`Pages`): the studies' command line,
provenance and writing, without units to fit."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mddf.experiments.provenance import provenance, script_path
from mddf.experiments.tables import write_markdown, write_rows


class PagesError(ValueError):
    """The command's input cannot be used (a results file that is not there, say): one line, exit status 2."""


@dataclass
class Pages:
    """A command of ``benchmarks/`` that reads records and writes pages: ``python -m benchmarks.<name>``.

    Parameters
    ----------
    name, doc : str
        The module's name in ``benchmarks/`` and the command's description (the module's docstring).
    build : callable
        ``build(args) -> {stem: (markdown or None, rows or None)}``: the pages, each written to ``--out`` as
        ``<stem>.md`` and ``<stem>.csv``, headed by the command's provenance (``args.provenance``); raises
        :class:`PagesError` for an input it cannot use.
    options : callable, optional
        ``options(parser)`` adds the command's own options.
    out : str
        The default of ``--out``.
    script : str, optional
        The front end in ``scripts/`` that the provenance names (default: ``python -m benchmarks.<name>``).
    """

    name: str
    doc: str
    build: Callable
    options: Callable | None = None
    out: str = "results"
    script: str | None = None

    def parser(self) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(
            prog=f"python -m benchmarks.{self.name}",
            description=self.doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument("--out", type=Path, default=Path(self.out), help="output folder (default: %(default)s)")
        parser.add_argument("--quiet", action="store_true", help="no summary on stdout")
        if self.options:
            self.options(parser)
        return parser

    def main(self, argv=None) -> int:
        """Build and write the pages; returns the exit status (2 for an input it cannot use)."""
        argv = list(sys.argv[1:] if argv is None else argv)
        args = self.parser().parse_args(argv)
        if self.script:
            args.provenance = provenance(script_path(self.script), argv)
        else:
            args.provenance = provenance(command=shlex.join(["python", "-m", f"benchmarks.{self.name}", *argv]))
        try:
            pages = self.build(args)
        except PagesError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        args.out.mkdir(parents=True, exist_ok=True)
        for stem, (markdown, rows) in pages.items():
            if markdown is not None:
                write_markdown(markdown, args.out / f"{stem}.md", args.provenance)
            if rows:
                write_rows(rows, args.out / f"{stem}.csv", args.provenance)
        if not args.quiet:
            print(f"wrote {', '.join(stem for stem in pages)} in {args.out}")
        return 0
