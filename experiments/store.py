"""The append-only JSON-lines file of one record per finished run (:class:`ResultStore`; records made by
:func:`new_record`), the last record of a run winning; and what a record is bound to, its data (:func:`dataset_sha256`)
and settings (:func:`run_settings`): a rerun resumes only a record of the same key and hashes (:func:`latest_bound`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .outfolder import move_aside
from .provenance import record_stamp
from .registry import SEVERAL_TARGETS


def run_key(dataset: str, method: str, seed: int, fold=None, fraction=1.0, profile="paper", protocol="paper") -> str:
    """The identity of one run (``|protocol=practitioner`` at the end of a practitioner's run)."""
    key = f"{dataset}|{method}|seed={seed}|fold={fold}|fraction={fraction:g}|profile={profile}"
    return key if protocol == "paper" else f"{key}|protocol={protocol}"


#: The binding's fields (:meth:`Binding.fields`), None in a record bound to nothing.
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
        """Write one record as a line forced to disk (after :meth:`repair`), whole or not at all."""
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


RESULT_VERSION = 1  #: Bumped when the way results are computed changes for every method (splits, metrics).

#: The protocol of the records of the retired several-target runner: records of other settings.
RETIRED_PROTOCOL = "several-targets"

#: Parameters of an estimator that do not change its result (seeds vary per run and are in its key).
_NEUTRAL_PARAMS = ("random_state", "n_jobs", "verbose", "verbosity", "model_dir")


def dataset_sha256(dataset) -> str:
    """The sha256 of a dataset's content: a ``--data`` file's bytes, else its loaded arrays' bytes."""
    user = (dataset.extra or {}).get("user_data")
    if user:
        return user["sha256"]
    digest = hashlib.sha256()
    for array in (dataset.X_train, dataset.y_train, dataset.X_test, dataset.y_test, dataset.categorical_mask):
        _add_content(digest, array)
    digest.update(json.dumps([str(c) for c in dataset.classes]).encode())
    return digest.hexdigest()


def content_sha256(*parts) -> str:
    """The sha256 of ``parts``' content, in order (None, arrays, pandas frames and series with their dtypes)."""
    digest = hashlib.sha256()
    for part in parts:
        _add_content(digest, part)
    return digest.hexdigest()


def _add_content(digest, part) -> None:
    """Feed ``part`` to ``digest`` (see :func:`content_sha256`)."""
    if part is None:
        digest.update(b"none")
        return
    if type(part).__module__.startswith("pandas"):
        import pandas as pd

        frame = part.to_frame() if isinstance(part, pd.Series) else part
        digest.update(repr([(str(c), repr(t)) for c, t in frame.dtypes.items()]).encode())
        part = pd.util.hash_pandas_object(frame, index=True).to_numpy()
    array = np.ascontiguousarray(part)
    digest.update(f"{array.dtype.str}{array.shape}".encode())
    if array.dtype == object:
        import pandas as pd

        array = pd.util.hash_array(array.ravel())
    digest.update(array.tobytes())


def test_sha256(dataset) -> str | None:
    """The sha256 of a dataset's ``--test`` file, else None."""
    return ((dataset.extra or {}).get("user_data") or {}).get("test_sha256")


def _plain(value):
    """``value`` as JSON-safe data: estimators by class and parameters, arrays as lists, the rest by repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if hasattr(value, "get_params"):
        return estimator_settings(value)
    if callable(value):
        return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', repr(value))}"
    return repr(value)


def estimator_settings(estimator) -> dict:
    """``{"class": module.Class, "params": {...}}`` of an estimator, nested estimators included, seeds left out."""
    cls, params = type(estimator), estimator.get_params(deep=False)
    kept = {k: _plain(v) for k, v in sorted(params.items()) if k not in _NEUTRAL_PARAMS}
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": kept}


def method_settings(spec, ctx) -> dict:
    """What defines a method on a dataset: its builder, its candidates and the estimator it builds."""
    settings = {"name": spec.name, "builder": _plain(spec.build)}
    try:
        settings["estimator"] = estimator_settings(spec.build(ctx))
    except Exception as exc:  # a builder that cannot build here fails its runs, which say why
        settings["estimator"] = f"cannot build: {type(exc).__name__}"
    if spec.grid is not None:
        settings["candidates"] = _plain(spec.grid(ctx))
    return settings


def run_settings(*, protocol, task, profile, n_folds=None, validation_fraction=0.2, reading=None, method=None) -> dict:
    """The options that change a run's result, as one JSON-safe dict."""
    from .metrics import ONE_TARGET_METRICS, PROBA_CLIP, metrics_of

    recorded = [m.name for m in metrics_of(task)] if task in SEVERAL_TARGETS else ONE_TARGET_METRICS
    metrics = {"proba_clip": PROBA_CLIP, "recorded": recorded}  # a record without a metric is not resumed
    settings = {"result_version": RESULT_VERSION, "metrics": metrics, "protocol": protocol}
    settings.update(task=task, profile=profile, n_folds=n_folds, validation_fraction=validation_fraction)
    return {**settings, "reading": _plain(reading or {}), "method": method}


def settings_sha256(settings: dict) -> str:
    """The sha256 of ``settings`` written as canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=repr).encode()).hexdigest()


@dataclass(frozen=True)
class Binding:
    """The data and settings one planned run is bound to (stored in its record)."""

    data_sha256: str
    settings_sha256: str
    test_sha256: str | None = None

    def fields(self) -> dict:
        """The record fields that carry the binding."""
        return {name: getattr(self, name) for name in BINDING_FIELDS}


def matches(record: dict, binding: Binding | None) -> bool:
    """Whether ``record`` was obtained on the data and with the settings of ``binding`` (None: not bound)."""
    return binding is None or all(record.get(k) == v for k, v in binding.fields().items())


def latest_bound(records, bindings: dict) -> dict:
    """``{key: its latest record that matches bindings[key]}`` (:func:`matches`): what a rerun resumes."""
    return {r["key"]: r for r in records if r.get("key") in bindings and matches(r, bindings[r["key"]])}


def files_binding(tasks) -> str:
    """The binding of the tables and figures of ``tasks``' records: the sha256 of every run's key and hashes."""
    runs = sorted((t.key, t.binding.fields() if t.binding is not None else None) for t in tasks)
    return hashlib.sha256(json.dumps(runs, sort_keys=True).encode()).hexdigest()


#: The options of a single fit that change none of its files (the data's paths: their content is bound).
_NEUTRAL_OPTIONS = ("out", "force", "quiet", "n_jobs", "data_home", "download", "data", "test", "user_data")


def fit_binding(command: str, dataset, args) -> str:
    """The binding of the files a single fit of ``command`` writes: the sha256 of ``dataset`` and of ``args``."""
    options = {k: _plain(v) for k, v in sorted(vars(args).items()) if k not in _NEUTRAL_OPTIONS}
    bound = {"command": command, "data": dataset_sha256(dataset), "test": test_sha256(dataset), "options": options}
    return settings_sha256(bound)


def _short(sha, test=None) -> str:
    """A data hash's first digits (``none`` without one), and its test file's."""
    return (str(sha)[:12] if sha else "none") + (f" + test {str(test)[:12]}" if test else "")


def set_aside_foreign(store, log) -> Path | None:
    """Move ``store``'s file aside (the folder returned, else None) if it holds no records; ``log`` says so."""
    if store.holds_records():
        return None
    aside = move_aside(store.path.parent, [store.path.name])
    log(f"{store.path} is not a results file of mddf (its first line is not a record); moved it to {aside}/")
    return aside


def set_aside_stale(store, tasks, log, *, alone=False, made=()) -> Path | None:
    """Move ``store``'s file and the files ``made`` of it beside it to ``<folder>/old/<UTC time>/`` (returned, else
    None) if it holds records of ``tasks``' datasets with other data, of their runs with other settings or, with
    ``alone`` (the folder is ``tasks``' table's only), of other datasets; the other records written back, ``log``
    saying what differs."""
    records = store.records()
    if not records:
        return None
    data = {t.dataset: (t.binding.data_sha256, t.binding.test_sha256) for t in tasks if t.binding is not None}
    planned = {t.key: t.binding for t in tasks if t.binding is not None}
    stale, kept = [], []
    for record in records:
        dataset = record.get("dataset")
        if record.get("method") is None or "key" not in record:
            kept.append(record)
            continue
        other_data = (
            (record.get("data_sha256"), record.get("test_sha256")) != data[dataset] if dataset in data else alone
        )
        other_settings = (
            record["key"] in planned and record.get("settings_sha256") != planned[record["key"]].settings_sha256
        ) or record.get("protocol") == RETIRED_PROTOCOL
        (stale if other_data or other_settings else kept).append(record)
    if not stale:
        return None
    moved = [store.path.name] + [name for name in made if (store.path.parent / name).is_file()]
    aside = move_aside(store.path.parent, moved)
    for record in kept:
        store.append(record)
    log(f"{store.path} held {len(stale)} result(s) of other data or settings ({_difference(stale, data, planned)}); "
        f"moved {', '.join(moved)} to {aside}/ and kept the {len(kept)} record(s) that match")  # fmt: skip
    return aside


def _difference(stale, data, planned) -> str:
    """What differs, in words: the data hashes, or the methods whose settings changed."""
    parts = []
    for dataset, (sha, test) in data.items():
        old = {(r.get("data_sha256"), r.get("test_sha256")) for r in stale if r.get("dataset") == dataset}
        old.discard((sha, test))
        if old:
            was = ", ".join(sorted(_short(a, b) for a, b in old))
            parts.append(f"{dataset}: data sha256 {was}, now {_short(sha, test)}")
    others = sorted({str(r.get("dataset")) for r in stale if r.get("dataset") not in data})
    if others:
        parts.append(f"other tables: {', '.join(others)}")
    # a stale record of the data planned is one of other settings
    same_data = [r for r in stale if (r.get("data_sha256"), r.get("test_sha256")) == data.get(r.get("dataset"))]
    methods = sorted({r.get("method") for r in same_data})
    if methods:
        parts.append(f"other settings of {', '.join(map(str, methods))}")
    return "; ".join(parts) or "other data or settings"
