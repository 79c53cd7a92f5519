"""Saved models: one file per fitted estimator, written whole or not at all and checked whole before it is loaded.

:func:`save` writes the bytes of :func:`.sealed.seal` (header, digest, payload) to a temporary file beside the
target, then renames it over the target, so that an interrupted save leaves the earlier file, or none, never a
part of one. :func:`load` reads the file and checks its mark, format version, size and digest before it unpickles
anything (:func:`.sealed.unseal`). The digest detects a damaged file, not a forged one: loading a model unpickles
it, so load only files from a source you trust, as with any pickle.
"""

from __future__ import annotations

import os
import secrets

from .sealed import MAGIC, seal_parts, unseal


def save(obj, path):
    """Write ``obj`` (a fitted or unfitted estimator of mddf) to the file ``path``, replacing an earlier saved model.

    Raises FileExistsError, before anything is written, when ``path`` is a file that is not a model saved by mddf
    (a table, a pickle, ...): it is not replaced; IsADirectoryError when it is a folder, FileNotFoundError when its
    folder does not exist.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a folder: give the path of the file to save the model to")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot save the model to {path}: its folder {folder} does not exist")
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                raise FileExistsError(
                    f"{path} exists and is not a model saved by mddf: not replaced (remove it, or save elsewhere)"
                )
    parts = seal_parts(obj)
    partial = f"{path}.{os.getpid()}-{secrets.token_hex(4)}.partial"  # beside it: the rename stays on one disk
    try:
        with open(partial, "xb") as f:
            for part in parts:
                f.write(part)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, path)
    except BaseException:
        if os.path.exists(partial):
            os.remove(partial)
        raise


def load(path):
    """The estimator saved in the file ``path`` by its ``save`` method.

    Raises :class:`mddf.ModelFileError` naming the file and what is wrong (not a model saved by mddf, empty,
    truncated, damaged, saved in a newer format) before anything of it is unpickled, and when its intact content
    cannot be loaded here (a class or module missing); FileNotFoundError when there is no such file.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    return unseal(data, path)
