"""Writing a fitted model to its file (:class:`ModelWriter`) and the record that loads it back, checked
(:class:`StoredRecord`)."""

from __future__ import annotations

import hashlib
import mmap
import os
import pickle

import numpy as np

from .files import (
    ALIGN,
    HEADER_BYTES,
    VERIFIED,
    HashingWriter,
    ModelFileError,
    check_header,
    file_status,
    header,
    missing,
)
from .layouts import filled_in
from .sealed import dumps


class StoredRecord:
    """What a worker returns after writing a model: where and how, and what is read without loading it.

    Small and picklable, without a reference to the store, so that it travels between processes
    (a Dask worker writes the file and sends its record back). It is the file's manifest: the
    estimator's pickle holds it, so the size and hash it checks the file against are as safe as
    that pickle.

    Attributes
    ----------
    relpath : str
        File path relative to the store's folder (``layer-001/m0-fold0.bin``).
    fit_id : str
        Identifier of the fit that wrote the file (checked against the file's header when it is loaded).
    cls : type
        Class of the stored model.
    layout : dict or None
        Array name to ``(offset, dtype, shape)`` in the file; None for a pickled model.
    n_classes : int or None
        Columns of the model's class probabilities; None for a regression forest.
    attrs : dict
        The model's other attributes (for the forests: ``n_classes``, ``n_features`` and, for binned
        forests, the layer's shared ``binner``), restored when it is loaded.
    importances : ndarray or None
        The model's ``importances`` (forests) or ``FoldModel.importances`` (other members).
    n_trees : int or None
        Trees of a forest; None for the other members.
    nbytes : int
        The model's ``nbytes``, as reported in memory.
    size : int
        Bytes of the file, header included.
    sha256 : str
        SHA-256 (hex) of the file's bytes, header included, as they were written.
    """

    def __init__(self, relpath, fit_id, cls, layout, n_classes, attrs, importances, n_trees, nbytes, size, sha256):
        self.relpath = relpath
        self.fit_id = fit_id
        self.cls = cls
        self.layout = layout
        self.n_classes = None if n_classes is None else int(n_classes)
        self.attrs = attrs
        self.importances = importances
        self.n_trees = n_trees
        self.nbytes = nbytes
        self.size = size
        self.sha256 = sha256

    def load(self, folder, copy=False):
        """The model, from ``folder/relpath``: its arrays memory-mapped (copy-on-write) or, with ``copy``, read.

        Raises :class:`ModelFileError` naming the file when it is not this fit's file of this format,
        when its size differs from the one written, and, the first time this process loads the file
        (or after it changed), when its SHA-256 differs from the one written or a forest's arrays do
        not pass ``check_arrays``; a pickled member's file is hashed at every load, before it is unpickled.
        """
        path = os.path.join(folder, self.relpath)
        try:
            f = open(path, "rb")
        except FileNotFoundError as exc:
            raise missing(path) from exc
        with f:
            check_header(f.read(HEADER_BYTES), path, self.fit_id)
            status = file_status(f)
            if status[2] != self.size:
                raise ModelFileError(
                    path, f"{status[2]} bytes where the fit wrote {self.size} (truncated or extended since)"
                )
            if self.layout is None:
                f.seek(0)
                return self._unpickle(path, f.read())
            # ACCESS_COPY: writeable arrays (the same compiled signatures as in memory) that never write the file
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        verified = VERIFIED.get(path) == (status, self.sha256)
        if not verified:
            self._check_hash(path, mapped)
        model = self._forest(path, mapped, copy)
        if not verified:
            try:
                # the forests check their arrays, as when they are unpickled (mddf.forests.PackedForest)
                if hasattr(model, "check_arrays"):
                    model.check_arrays()
            except ValueError as exc:
                raise ModelFileError(path, f"its tree arrays are not valid: {exc}") from exc
            VERIFIED[path] = (status, self.sha256)
        return model

    def _check_hash(self, path, content):
        found = hashlib.sha256(content).hexdigest()
        if found != self.sha256:
            raise ModelFileError(
                path, f"its content changed since the fit wrote it: SHA-256 {found}, expected {self.sha256}"
            )

    def _unpickle(self, path, data):
        """The pickled member in ``data`` (the file's bytes), once they match the hash the fit recorded."""
        self._check_hash(path, data)
        try:
            return pickle.loads(data[HEADER_BYTES:])
        except Exception as exc:  # the bytes are the fit's: what fails is this environment (a class, a module)
            raise ModelFileError(path, f"its pickle cannot be loaded here: {type(exc).__name__}: {exc}") from exc

    def _forest(self, path, mapped, copy):
        """The forest whose arrays ``mapped`` (the file ``path``) holds at the offsets of ``layout``."""
        arrays = {}
        for name, (offset, dtype, shape) in self.layout.items():
            dtype = np.dtype(dtype)
            if int(np.prod(shape)) == 0:
                arrays[name] = np.empty(shape, dtype=dtype)
                continue
            if offset + int(np.prod(shape)) * dtype.itemsize > len(mapped):
                raise ModelFileError(path, f"its {len(mapped)} bytes end before its array {name!r}")
            array = np.ndarray(shape, dtype=dtype, buffer=mapped, offset=offset)
            arrays[name] = array.copy() if copy else array
        model = self.cls.__new__(self.cls)
        model.__dict__.update(filled_in("stored forest", {**self.attrs, **arrays}))  # of an earlier version: .layouts
        return model


class ModelWriter:
    """Writes the models of one layer into ``folder/subdir`` (picklable: sent to the workers that fit them)."""

    def __init__(self, folder, subdir, fit_id):
        self.folder = folder
        self.subdir = subdir
        self.fit_id = fit_id

    def save(self, model, name):
        """Write ``model`` to ``subdir/name.bin`` and return its :class:`StoredRecord`.

        A stored forest (a model that names its arrays in ``_stored_arrays``, and whose other
        attributes are scalars and small objects such as its ``binner``: a
        :class:`mddf.forests.StoredForest`) is written array by array; any other model (a fitted
        member) is pickled. The bytes are hashed as they are written, for the record. The file is
        written under a temporary name and renamed, so that an interrupted write leaves no file of
        the final name.
        """
        relpath = os.path.join(self.subdir, f"{name}.bin")
        path = os.path.join(self.folder, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = path + ".partial"
        with open(partial, "wb") as f:
            out = HashingWriter(f)
            out.write(header(self.fit_id))
            if not _is_stored_forest(model):
                out.write(dumps(model))  # XGBoost's boosters as their model bytes (mddf.storage.sealed)
                layout, attrs, n_trees = None, {}, None
                importances = model.importances
            else:
                layout, attrs = _write_arrays(model, out)
                n_trees = model.n_trees
                importances = model.importances.copy()
        os.replace(partial, path)
        return StoredRecord(
            relpath,
            self.fit_id,
            type(model),
            layout,
            getattr(model, "n_classes", None),
            attrs,
            importances,
            n_trees,
            model.nbytes,
            out.size,
            out.sha256.hexdigest(),
        )


def _is_stored_forest(model):
    """Whether ``model`` is written array by array: it names the arrays that hold it (``_stored_arrays``)."""
    return bool(getattr(type(model), "_stored_arrays", ()))


def _write_arrays(model, out):
    """Write the model's arrays to ``out`` after the header, each at an offset aligned to 64 bytes.

    Returns ``(layout, attrs)``: each array's ``(offset, dtype, shape)``, and the other attributes.
    """
    layout, attrs = {}, {}
    offset = HEADER_BYTES
    for key, value in vars(model).items():
        if not isinstance(value, np.ndarray):
            attrs[key] = value
            continue
        value = np.ascontiguousarray(value)
        pad = -offset % ALIGN
        out.write(b"\0" * pad)
        offset += pad
        layout[key] = (offset, value.dtype.str, value.shape)
        if value.size:
            out.write(memoryview(value.reshape(-1)).cast("B"))  # the array's own buffer, not a copy
        offset += value.nbytes
    return layout, attrs
