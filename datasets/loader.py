"""Load a registered dataset: fetch and verify its files, build (or reuse cached) arrays, wrap a Dataset."""

from __future__ import annotations

import time

import numpy as np

from . import cache
from .base import Dataset
from .builders import Arrays
from .errors import MissingFileError
from .fetch import _log, fetch_file, resolve_cache_dir
from .registry import DatasetSpec


def validate_options(spec: DatasetSpec, options: dict) -> dict:
    """Options with defaults filled in; TypeError for unknown names, ValueError for bad values."""
    unknown = sorted(set(options) - set(spec.options))
    if unknown:
        accepted = ", ".join(f"{k} (default {o.default!r}: {o.doc})" for k, o in spec.options.items())
        raise TypeError(
            f"load_dataset({spec.name!r}) got unexpected option(s) {', '.join(unknown)}; "
            + (f"accepted: {accepted}" if accepted else "this dataset accepts no options")
        )
    return {k: o.validate(spec.name, k, options.get(k, o.default)) for k, o in spec.options.items()}


def fetch_all(spec: DatasetSpec, options: dict, *, data_home, cache_dir, download, verbose) -> dict:
    """Every file the options need, verified; one MissingFileError naming all missing files."""
    local, missing = {}, []
    for role, rf in spec.needed_files(options).items():
        try:
            local[role] = fetch_file(
                rf, data_home=data_home, cache_dir=cache_dir, download=download, verbose=verbose, hint=spec.missing_hint
            )
        except MissingFileError as exc:
            missing.append(exc)
    if len(missing) == 1:
        raise missing[0]
    if missing:
        raise MissingFileError(
            f"dataset {spec.name!r} needs {len(missing)} missing files:\n\n" + "\n\n".join(str(e) for e in missing)
        )
    return local


def _encode(arrays: Arrays) -> tuple:
    """Label codes 0..s-1 over the sorted labels of both parts; X as float32 (uint8 images kept)."""
    y_all = arrays.y_train if arrays.y_test is None else np.concatenate([arrays.y_train, arrays.y_test])
    classes = np.unique(y_all)

    def x(a):
        if a is None:
            return None
        a = np.asarray(a)
        return np.ascontiguousarray(a if a.dtype == np.uint8 else a.astype(np.float32, copy=False))

    def codes(y):
        return None if y is None else np.searchsorted(classes, y).astype(np.int64)

    n_features = np.asarray(arrays.X_train).shape[1]
    mask = arrays.categorical_mask
    stored = {
        "X_train": x(arrays.X_train),
        "y_train": codes(arrays.y_train),
        "X_test": x(arrays.X_test),
        "y_test": codes(arrays.y_test),
        "classes": classes,
        "categorical_mask": np.zeros(n_features, dtype=bool) if mask is None else np.asarray(mask, bool),
        "feature_names": np.array([str(f) for f in arrays.feature_names]),
    }
    meta = {"extra": arrays.extra, "split": arrays.split, "notes": arrays.notes}
    return stored, meta


def load_registered(
    spec: DatasetSpec, *, data_home=None, download=True, cache_dir=None, verbose=1, options=None
) -> Dataset:
    """Load ``spec`` with the given options; see :func:`mddf.datasets.load_dataset`."""
    options = validate_options(spec, dict(options or {}))
    local = fetch_all(spec, options, data_home=data_home, cache_dir=cache_dir, download=download, verbose=verbose)
    key = cache.cache_key(spec.name, spec.version, {f.label: f.sha256 for f in local.values()}, options)
    path = cache.entry_path(resolve_cache_dir(cache_dir), spec.name, key)
    stored = cache.load(path)
    if stored is None:
        start = time.perf_counter()
        _log(verbose, f"parsing {spec.name} (first load; the arrays are cached for the next one)")
        stored, meta = _encode(spec.build(local, **options))
        cache.save(path, stored, meta)
        stored["meta"] = meta
        _log(verbose, f"parsed {spec.name} in {time.perf_counter() - start:.1f} s")
    meta = stored["meta"]

    def x(name):
        a = stored.get(name)
        return None if a is None else a.astype(np.float32, copy=False)

    extra = dict(meta["extra"])
    extra["options"] = options
    extra["files"] = {
        f.label: {"path": str(f.path), "sha256": f.sha256, "verified": f.verified} for f in local.values()
    }
    description = spec.description + (" " + meta["notes"] if meta["notes"] else "")
    return Dataset(
        name=spec.name,
        X_train=x("X_train"),
        y_train=stored["y_train"],
        X_test=x("X_test"),
        y_test=stored.get("y_test"),
        feature_names=stored["feature_names"].tolist(),
        classes=stored["classes"],
        categorical_mask=stored["categorical_mask"],
        source_url=spec.source_url,
        citation=spec.citation,
        split=meta["split"] or spec.split,
        description=description,
        extra=extra,
    )
