"""The append-only JSON-lines file of one record per finished run (:class:`ResultStore`; records made by
:func:`new_record`), the last record of a run winning."""

from __future__ import annotations

import contextlib
import json
import math
import os
import warnings
from pathlib import Path

import numpy as np

from .provenance import record_stamp


def run_key(dataset: str, method: str, seed: int, fold=None, fraction=1.0, profile="paper", protocol="paper") -> str:
    """The identity of one run (``|protocol=practitioner`` at the end of a practitioner's run)."""
    key = f"{dataset}|{method}|seed={seed}|fold={fold}|fraction={fraction:g}|profile={profile}"
    return key if protocol == "paper" else f"{key}|protocol={protocol}"


#: The binding's fields (:meth:`~.binding.Binding.fields`), None in a record bound to nothing.
BINDING_FIELDS = ("data_sha256", "test_sha256", "settings_sha256")


def new_record(key, dataset, method, seed=None, fold=None, *, status, error=None, binding=None, stamped=True,
               **fields) -> dict:  # fmt: skip
    """A result record of every runner and study: ``key``, ``dataset``, ``method``, ``seed``, ``fold``, ``status``,
    ``error``, the ``binding``'s hashes, ``fields`` and, when ``stamped``, :func:`~.provenance.record_stamp`."""
    hashes = binding.fields() if binding is not None else dict.fromkeys(BINDING_FIELDS)
    record = {"key": key, "dataset": dataset, "method": method, "seed": seed, "fold": fold}
    record.update(status=status, error=error, **hashes, **fields)
    return {**record, **record_stamp()} if stamped else record


def _clean(obj):
    """``obj`` as strict JSON: numpy's values as Python's, NaN and inf as None, sets as lists, the unknown by repr."""
    if isinstance(obj, (np.generic, np.ndarray)):
        obj = obj.tolist()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [_clean(v) for v in obj]
    return obj if obj is None or isinstance(obj, (bool, int, float, str)) else repr(obj)


class ResultStore:
    """Results of many runs in one JSON-lines file, ``path`` (created with its folder on the first append)."""

    def __init__(self, path):
        self.path = Path(path)

    def holds_records(self) -> bool:
        """Whether the file is missing, empty or starts with a record (a JSON object with a ``key``)."""
        if not self.path.exists():
            return True
        with self.path.open("rb") as fh:
            first = fh.readline()
        try:
            record = json.loads(first) if first else {"key": None}
        except ValueError:  # not JSON, not UTF-8
            return False
        return isinstance(record, dict) and "key" in record

    def records(self) -> list[dict]:
        """Every record in file order; a line that is not one is skipped with a ``UserWarning`` naming it."""
        if not self.path.exists():
            return []
        out = []
        with self.path.open("rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                try:
                    line = raw.decode("utf-8").strip()
                except UnicodeDecodeError as exc:
                    self._skip(lineno, f"a line that is not UTF-8 ({exc.reason} at byte {exc.start})")
                    continue
                if not line:
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    self._skip(lineno, "an incomplete record (interrupted write?)")
                    continue
                if not isinstance(record, dict):
                    self._skip(lineno, f"a line that is JSON but not a record (a JSON object): {line[:40]}")
                    continue
                out.append(record)
        return out

    def _skip(self, lineno, what):
        warnings.warn(f"{self.path}:{lineno}: ignoring {what}", stacklevel=3)

    def latest(self) -> dict[str, dict]:
        """The last record of every run key."""
        return {rec["key"]: rec for rec in self.records() if "key" in rec}

    def append(self, record: dict) -> None:
        """Write one record as a line forced to disk (after :meth:`repair`), whole or not at all: a failed write is cut
        back, its ``OSError`` naming the file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(_clean(record), allow_nan=False) + "\n").encode("utf-8")
        self.repair()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            size = os.fstat(fd).st_size
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
                    os.fsync(fd)
                raise OSError(exc.errno, exc.strerror, str(self.path)) from exc
        finally:
            os.close(fd)

    def repair(self) -> int:
        """Cut an incomplete last record (no final newline) with a ``UserWarning``; return the bytes removed."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return 0
        with self.path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) == b"\n":
                return 0
        data = self.path.read_bytes()  # only when the last record is cut short, which is rare
        keep = data.rfind(b"\n") + 1
        with self.path.open("rb+") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        cut = f"{len(data) - keep} bytes, cut by an interrupted or failed write"
        warnings.warn(
            f"{self.path}: removed an incomplete last record ({cut}); its run counts as not done", stacklevel=2
        )
        return len(data) - keep
