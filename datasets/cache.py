"""Parsed-array cache: one uncompressed ``.npz`` per (dataset, source files, builder version, options).

The key hashes the sha256 of every source file, so a changed or different
file can never be served from a stale cache, and a hit implies the files
passed verification when the entry was written. Entries are written to a
temporary name and renamed, so a crash never leaves a half-written entry.
Arrays are stored in the dtype the builder produced (uint8 for images: a
quarter of float32's size) and loaded without pickle.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
import warnings
import zipfile
from pathlib import Path

import numpy as np

SUBDIR = "parsed"
FORMAT = 1  # layout of the .npz itself


def cache_key(dataset: str, version: int, file_hashes: dict, options: dict) -> str:
    blob = json.dumps(
        {"dataset": dataset, "version": version, "format": FORMAT, "files": file_hashes, "options": options},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def entry_path(cache_dir: Path, dataset: str, key: str) -> Path:
    return Path(cache_dir) / SUBDIR / f"{dataset}-{key}.npz"


def load(path: Path):
    """The stored dict of arrays, or None if absent or unreadable (it is then rebuilt)."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            out = {k: npz[k] for k in npz.files}
        out["meta"] = json.loads(str(out["meta"]))
        return out
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError):
        return None


def save(path: Path, arrays: dict, meta: dict) -> bool:
    """Store ``arrays`` (None values skipped) and JSON ``meta``; False (with a warning) if not writable."""
    payload = {k: v for k, v in arrays.items() if v is not None}
    payload["meta"] = np.array(json.dumps(meta))
    tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex}.tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(tmp, **payload)
        os.replace(tmp, path)
        return True
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        warnings.warn(
            f"could not cache parsed arrays in {path.parent} ({exc}); the next load parses again",
            RuntimeWarning,
            stacklevel=3,
        )
        return False
