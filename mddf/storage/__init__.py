"""Fitted models kept on disk: saved models (:func:`save`, :func:`load`) and the bounded-memory mode of the
cascades (``model_dir``).

Modules: :mod:`.files` (the format: marker, header, hashes, :class:`ModelFileError`), :mod:`.records` (writing
a model and the record that loads it back), :mod:`.stores` (the stores a block keeps its models in: on disk or in
memory), :mod:`.temporary` (the ``model_dir="auto"`` folders and their clean-up), :mod:`.sealed` (a fitted
estimator as one block of bytes checked whole by its digest before any of it is rebuilt, XGBoost's boosters as model
bytes: what an estimator's pickle carries) and :mod:`.saved` (those bytes as a file: :func:`save`, :func:`load`);
:mod:`.layouts`: what objects of earlier versions lack when they are read back (:func:`filled_in`).

A block's fitted models (each forest's fold models, or its out-of-bag forest, and the fold models of
the other members) are written to a folder as soon as each is fitted and has given its class vectors,
by the worker that fitted it, and the block keeps a small :class:`StoredModel` in its place. The
handle holds what the cascade reads without predicting (the number of trees, the impurity
importances, the size in bytes, the layer's bin edges) and loads the model when a prediction needs
it, one model per worker at a time, releasing it afterwards.

Files. A folder ``model_dir`` holds a marker file :data:`MARKER` (which says that mddf owns the
entries below), one subfolder per layer, ``layer-001``, ``layer-002``, ... (and, for a grid search,
one subfolder per candidate, ``candidate-000``, ..., each laid out the same way). A layer folder
holds one file per fitted model, ``m<member>-fold<i>.bin`` or ``m<member>-oob.bin``: a header of
:data:`HEADER_BYTES` bytes (a magic string, the format version and the identifier of the fit that
wrote it), then either the model's arrays, each at an offset aligned to 64 bytes, which are
memory-mapped when loaded (the forests; their layout is kept by the handle), or the model's pickle
(the other members). The handle checks the fit identifier, so a model never loads a file that a
later fit wrote in its place.

Integrity (format :data:`FORMAT`). The writer hashes each file (SHA-256) as it writes it, and the
handle, which the estimator's pickle holds, keeps the hash and the size. Every load checks the
header and the size; the first load of a file in a process (and the first after the file changed)
checks its hash and, for a forest, that its tree arrays can be routed (``check_arrays``); a
pickled member's file is hashed at every load, before it is unpickled. A file that fails raises
:class:`ModelFileError` naming it. Loading a member still unpickles it, so a folder must be as
trusted as a pickle.
"""

from .files import FORMAT, HEADER_BYTES, MARKER, OWNED_ENTRY, InvalidStoredArrays, ModelFileError, read_marker
from .layouts import EARLIER_LAYOUTS, filled_in
from .records import ModelWriter, StoredRecord
from .saved import load, save
from .sealed import saved_by, unpickling_checked_bytes
from .stores import MemoryStore, ModelStore, StoredModel, open_store
from .temporary import (
    remove_stale_temporary_folders,
    remove_temporary_folders,
    temporary_folders_removed_on_sigterm,
)

__all__ = [
    "EARLIER_LAYOUTS",
    "FORMAT",
    "HEADER_BYTES",
    "MARKER",
    "OWNED_ENTRY",
    "MemoryStore",
    "InvalidStoredArrays",
    "ModelFileError",
    "ModelStore",
    "ModelWriter",
    "StoredModel",
    "StoredRecord",
    "open_store",
    "filled_in",
    "load",
    "read_marker",
    "remove_stale_temporary_folders",
    "remove_temporary_folders",
    "save",
    "saved_by",
    "temporary_folders_removed_on_sigterm",
    "unpickling_checked_bytes",
]
