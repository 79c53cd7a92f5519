"""The real-data suites' tables: where each suite's folder is, its manifest, and each table read and checked.

Three suites, each a folder: ``"realdata"``, today's twenty tables, read from ``$MDDF_REALDATA``, else from
``../shared/realdata`` relative to the repository root; ``"broad"``, the broad suite's 24 tables, read from
``$MDDF_REALDATA_BROAD``, else from ``../realdata-broad``; and ``"more"``, seven more, read from
``$MDDF_REALDATA_MORE``, else from ``../realdata-more`` (:data:`SUITES`). Every function takes ``suite``, one of
:data:`GROUPS`: one suite (``"realdata"``, the default), ``"all"``, the twenty and the broad suite's 24 (the 44 tables
of the studies made before the third suite; the twenty first), or ``"grown"``, the three suites (:data:`GROUP_SUITES`;
``path`` must then be None, each folder found as above). A table's name is unique over the suites. Each folder
holds one ``<name>.csv.gz`` per table (its target the last column) and ``manifest.json``, a list with one entry per
table: ``name``, ``file``, ``task`` (``"classification"`` or ``"regression"``), ``target``, ``rows``,
``features``, ``n_categorical``, ``n_missing_cells`` and, for a classification table, ``classes`` (the count of
each label), with notes and reference scores.

A table is read with pandas (empty cells are missing values); its text columns become ``category`` columns and its
target is taken out. What is read is checked against the manifest before it is used: the target is the last
column, and the rows, feature columns, categorical columns, missing cells and class counts are those the manifest
gives; any difference raises :class:`RealDataError` naming the file.

:mod:`benchmarks.realdata` gives these names too, with the tables as the harness's datasets and the command that
rebuilds them (:mod:`benchmarks.realdata_sources`, which reads back what it writes with :func:`load_table`).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

#: The environment variable that names the suite's folder.
ENV = "MDDF_REALDATA"
#: The environment variable that names the broad suite's folder.
ENV_BROAD = "MDDF_REALDATA_BROAD"
#: The environment variable that names the folder of the suite ``"more"``.
ENV_MORE = "MDDF_REALDATA_MORE"
ROOT = Path(__file__).resolve().parents[1]
#: Each suite's environment variable and its folder beside the repository when that is unset.
SUITES = {
    "realdata": (ENV, ("shared", "realdata")),
    "broad": (ENV_BROAD, ("realdata-broad",)),
    "more": (ENV_MORE, ("realdata-more",)),
}
#: The groups of suites, read together: ``"all"``, the 44 tables the studies ran on before ``"more"`` (it keeps that
#: meaning, so their pages and commands reproduce), and ``"grown"``, the three suites.
GROUP_SUITES = {"all": ("realdata", "broad"), "grown": ("realdata", "broad", "more")}
#: What ``suite`` may be: one suite, or a group of :data:`GROUP_SUITES`.
GROUPS = (*SUITES, *GROUP_SUITES)
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
    """``{suite name: its folder}`` of a group (:data:`GROUPS`): one suite, or those of a group of
    :data:`GROUP_SUITES` (``path`` None)."""
    if suite not in GROUP_SUITES:
        return {suite: home(path, suite)}
    if path is not None:
        envs = [f"${SUITES[name][0]}" for name in GROUP_SUITES[suite]]
        raise RealDataError(
            f"the suites of {suite!r} are read from {', '.join(envs[:-1])} and {envs[-1]}, not from one path"
        )
    return {name: home(None, name) for name in GROUP_SUITES[suite]}


def manifest(path=None, suite: str = "realdata") -> list:
    """The manifest's entries (of a group's suites in their order, the twenty first), each checked to name its file,
    task, target and the counts the tables are read against."""
    entries = [entry for folder in folders(path, suite).values() for entry in folder_manifest(folder)]
    seen = [entry["name"] for entry in entries]
    twice = sorted({name for name in seen if seen.count(name) > 1})
    if twice:
        raise RealDataError(f"more than one of the suites' manifests names the table {', '.join(twice)}")
    return entries


def folder_manifest(folder: Path) -> list:
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
        entry = next((e for e in folder_manifest(folder) if e["name"] == name), None)
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
    """SHA-256 over the manifest and every table file of a suite: the data its records are bound to (for a group,
    over its suites' digests: ``"all"``'s over the twenty's and the broad suite's, as before ``"more"``)."""
    if suite in GROUP_SUITES:
        return hashlib.sha256("".join(digest(None, name) for name in GROUP_SUITES[suite]).encode()).hexdigest()
    folder = home(path, suite)
    found = hashlib.sha256((folder / "manifest.json").read_bytes())
    for entry in folder_manifest(folder):
        found.update(entry["file"].encode())
        found.update(hashlib.sha256((folder / entry["file"]).read_bytes()).digest())
    return found.hexdigest()
