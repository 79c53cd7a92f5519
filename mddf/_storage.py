"""Fitted models kept on disk: the bounded-memory mode of the cascades (``model_dir``).

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

from __future__ import annotations

import hashlib
import json
import mmap
import os
import pickle
import re
import shutil
import signal
import socket
import struct
import tempfile
import threading
import uuid
import warnings
import weakref
from contextlib import contextmanager

import numpy as np

#: Marker file of a folder written by mddf: the entries :data:`OWNED_ENTRY` names in it are mddf's to replace.
MARKER = "MDDF_MODEL_DIR.json"
#: Names of the entries a fit replaces in a folder that holds :data:`MARKER`.
OWNED_ENTRY = re.compile(r"^(layer|candidate)-\d+$")
#: Bytes before a model file's content: magic, format version, fit identifier (hex), padding.
HEADER_BYTES = 64
_MAGIC = b"MDDFMODL"
#: Version of the model files' format (and of the marker); 2 added the content hash kept by the handle.
FORMAT = 3
_ALIGN = 64


class ModelFileError(ValueError):
    """A stored model file that cannot be used: damaged, truncated, of another format or written by another fit.

    Attributes
    ----------
    path : str
        The file.
    """

    def __init__(self, path, problem):
        self.path = path
        super().__init__(f"model file {path}: {problem}")


def _header(fit_id):
    head = _MAGIC + struct.pack("<I", FORMAT) + fit_id.encode("ascii")
    return head + b"\0" * (HEADER_BYTES - len(head))


def _check_header(head, path, fit_id):
    if len(head) < HEADER_BYTES or head[: len(_MAGIC)] != _MAGIC:
        raise ModelFileError(path, f"not a model file written by mddf (it does not begin with {_MAGIC!r})")
    (version,) = struct.unpack("<I", head[len(_MAGIC) : len(_MAGIC) + 4])
    if version != FORMAT:
        raise ModelFileError(path, f"model file format {version}; this version of mddf reads format {FORMAT}")
    written_by = head[len(_MAGIC) + 4 : len(_MAGIC) + 4 + len(fit_id)].decode("ascii", "replace")
    if written_by != fit_id:
        raise ModelFileError(
            path,
            "written by another fit than this model's (its folder was fitted into again since, or the file is "
            "damaged); refit the model, or load the pickle that goes with the folder's current files",
        )


def _missing(path):
    folder = os.path.dirname(os.path.dirname(path))
    return FileNotFoundError(
        f"model file {path} of this fitted model is missing: its model_dir folder {folder} was moved, deleted or "
        "cleaned since the fit. If the folder was moved, point the model at its new place with "
        "relocate_model_dir(new_path); otherwise refit"
    )


#: Path -> (file status, sha256) of the model files whose content this process has checked and not seen change.
_VERIFIED = {}


def _file_status(f):
    """What changes when a file is rewritten or replaced: device, inode, size, modification and change times."""
    st = os.fstat(f.fileno())
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


class _HashingWriter:
    """Writes to a file while hashing (sha256) and counting the bytes written, so the file is never read back."""

    def __init__(self, f):
        self.f = f
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, data):
        self.sha256.update(data)
        self.size += memoryview(data).nbytes
        return self.f.write(data)


#: Name of a temporary folder (``model_dir="auto"``): ``mddf-<pid of the process that owns it>-<random>``.
_TEMPORARY_NAME = re.compile(r"^mddf-(\d+)-")
#: This process's temporary folders that still exist (path -> pid of the process that made them).
_TEMPORARY = {}


def _remove_tree(path, pid):
    """Remove a temporary folder, only in the process that created it (not in a forked child)."""
    if os.getpid() == pid:
        _TEMPORARY.pop(path, None)
        shutil.rmtree(path, ignore_errors=True)


def _new_temporary_folder(fit_id):
    """A new temporary folder named after this process, with a marker naming the process and the host.

    Folders that killed processes left behind are removed first (:func:`remove_stale_temporary_folders`).
    """
    remove_stale_temporary_folders()
    pid = os.getpid()
    path = tempfile.mkdtemp(prefix=f"mddf-{pid}-")
    _write_marker(path, fit_id, temporary={"pid": pid, "host": socket.gethostname()})
    _TEMPORARY[path] = pid
    return path


def _process_runs(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def _is_stale(folder, pid):
    """Whether ``folder`` is a temporary model folder of this host whose process ``pid`` no longer runs."""
    if pid == os.getpid() or _process_runs(pid):
        return False
    try:
        st = os.lstat(folder)
        marker = read_marker(folder)
    except (OSError, ModelFileError):
        return False
    owner = marker.get("temporary")
    return (
        os.path.isdir(folder)
        and not os.path.islink(folder)
        and st.st_uid == os.getuid()
        and isinstance(owner, dict)
        and owner.get("pid") == pid
        and owner.get("host") == socket.gethostname()
    )


def remove_stale_temporary_folders(parent=None):
    """Remove the temporary model folders (``model_dir="auto"``) whose process was killed before it removed them.

    A folder of ``parent`` (default ``tempfile.gettempdir()``) is removed when its name and its marker
    name a process of this host and this user that no longer runs; a ``UserWarning`` lists the
    folders removed. Returns their paths.
    """
    parent = tempfile.gettempdir() if parent is None else parent
    try:
        entries = os.listdir(parent)
    except OSError:
        return []
    removed = []
    for entry in entries:
        match = _TEMPORARY_NAME.match(entry)
        folder = os.path.join(parent, entry)
        if match and _is_stale(folder, int(match.group(1))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        warnings.warn(
            f"removed {len(removed)} temporary model_dir folder(s) left by processes that were killed before they "
            f"could remove them: {', '.join(removed)}",
            UserWarning,
            stacklevel=2,
        )
    return removed


def remove_temporary_folders():
    """Remove every temporary model folder of this process (the models that use them cannot predict afterwards)."""
    for path, pid in list(_TEMPORARY.items()):
        _remove_tree(path, pid)


@contextmanager
def temporary_folders_removed_on_sigterm(model_dir):
    """With ``model_dir="auto"``, within the block a SIGTERM removes this process's temporary folders, then ends it.

    Installed only where SIGTERM has its default action (which would end the process without any
    clean-up) and in the main thread; the process then still ends by the signal, after the folders
    are removed, and the default action is restored on leaving the block. A Python handler of the
    program's own is left alone: it decides whether the process goes on (with its folders) or
    exits, and an exit from Python (``sys.exit``, an exception) removes them as any exit does.
    """
    if (
        not (isinstance(model_dir, str) and model_dir == "auto")
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def on_sigterm(signum, frame):
        remove_temporary_folders()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) is on_sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


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
            raise _missing(path) from exc
        with f:
            _check_header(f.read(HEADER_BYTES), path, self.fit_id)
            status = _file_status(f)
            if status[2] != self.size:
                raise ModelFileError(
                    path, f"{status[2]} bytes where the fit wrote {self.size} (truncated or extended since)"
                )
            if self.layout is None:
                f.seek(0)
                return self._unpickle(path, f.read())
            # ACCESS_COPY: writeable arrays (the same compiled signatures as in memory) that never write the file
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        verified = _VERIFIED.get(path) == (status, self.sha256)
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
            _VERIFIED[path] = (status, self.sha256)
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
        model.__dict__.update(self.attrs)
        model.__dict__.update(arrays)
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
            out = _HashingWriter(f)
            out.write(_header(self.fit_id))
            if not _is_stored_forest(model):
                pickle.dump(model, out, protocol=pickle.HIGHEST_PROTOCOL)
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
        pad = -offset % _ALIGN
        out.write(b"\0" * pad)
        offset += pad
        layout[key] = (offset, value.dtype.str, value.shape)
        if value.size:
            out.write(memoryview(value.reshape(-1)).cast("B"))  # the array's own buffer, not a copy
        offset += value.nbytes
    return layout, attrs


class StoredModel:
    """A fitted model of a block kept on disk, loaded for each prediction.

    Answers what the block reads of its models without predicting (``n_classes``, ``n_trees``,
    ``importances``, ``nbytes``, ``binner``) from memory, and :meth:`predict_proba` by loading the
    model, predicting and letting it go.
    """

    def __init__(self, store, record):
        self.store = store
        self.record = record

    @property
    def path(self):
        """Absolute path of the model's file."""
        return os.path.join(self.store.path, self.record.relpath)

    def load(self, copy=False):
        """The fitted model (memory-mapped arrays; ``copy=True`` reads them into memory)."""
        return self.record.load(self.store.path, copy=copy)

    @property
    def model_class(self):
        return self.record.cls

    @property
    def n_classes(self):
        return self.record.n_classes

    @property
    def binner(self):
        return self.record.attrs.get("binner")

    @property
    def importances(self):
        return self.record.importances

    @property
    def n_trees(self):
        return self.record.n_trees

    @property
    def nbytes(self):
        return self.record.nbytes

    def predict_proba(self, X):
        """The stored model's ``predict_proba(X)`` (loaded for the call)."""
        return self.load().predict_proba(X)

    def __repr__(self):
        return f"StoredModel({self.record.cls.__name__}, {self.path!r})"


class ModelStore:
    """The folder of one fit's models.

    Parameters
    ----------
    path : str
        Absolute path of the folder.
    fit_id : str
        Identifier of the fit (written in every model file and in the marker).
    temporary : bool
        The folder was made for this store (``model_dir="auto"``): it is removed when the store is
        garbage-collected (when no fitted model or block refers to it any more), at the latest when
        the interpreter exits, and pickling the store carries the folder's files, which unpickling
        writes to a new temporary folder of its own.
    """

    def __init__(self, path, fit_id, temporary):
        self.path = path
        self.fit_id = fit_id
        self.temporary = temporary
        self._finalizer = weakref.finalize(self, _remove_tree, path, os.getpid()) if temporary else None

    @classmethod
    def claim(cls, model_dir):
        """A new store for a fit into ``model_dir``: ``"auto"`` (a new temporary folder) or a folder path.

        A folder path is created if it does not exist; an empty path (``""``) is a ``ValueError``
        rather than the current directory. If it holds entries named like
        :data:`OWNED_ENTRY` (``layer-NNN``, ``candidate-NNN``), they are a previous fit's and are
        removed, provided the folder holds :data:`MARKER` (mddf wrote it); without the marker a
        ``ValueError`` is raised and nothing is removed. Other entries are left alone.
        """
        fit_id = uuid.uuid4().hex
        if isinstance(model_dir, str) and model_dir == "auto":
            return cls(_new_temporary_folder(fit_id), fit_id, temporary=True)
        if len(os.fspath(model_dir)) == 0:  # it would be the current directory, almost certainly by mistake
            raise ValueError(
                'model_dir=\'\' is an empty path; give a folder ("." for the current directory), "auto" for a '
                "temporary folder, or None to keep the models in memory"
            )
        path = os.path.abspath(os.fspath(model_dir))
        if os.path.exists(path) and not os.path.isdir(path):
            raise ValueError(f"model_dir={model_dir!r} is a file; give a folder (it is created if it does not exist)")
        os.makedirs(path, exist_ok=True)
        owned = [entry for entry in os.listdir(path) if OWNED_ENTRY.match(entry)]
        if owned and not os.path.exists(os.path.join(path, MARKER)):
            raise ValueError(
                f"model_dir={model_dir!r} holds {sorted(owned)[0]!r} but no {MARKER}, so mddf did not write it; "
                "give a new or empty folder, or one an mddf model was fitted into"
            )
        for entry in owned:
            shutil.rmtree(os.path.join(path, entry))
        _write_marker(path, fit_id)
        return cls(path, fit_id, temporary=False)

    def writer(self, subdir):
        """A :class:`ModelWriter` for the models of ``subdir`` (a layer's folder)."""
        return ModelWriter(self.path, subdir, self.fit_id)

    # The store interface (as :class:`MemoryStore`'s): what a block asks of the store of its models.
    def handle(self, record):
        """What the block keeps of a model the task wrote: a :class:`StoredModel`."""
        return StoredModel(self, record)

    @staticmethod
    def model_class(handle):
        """The class of the stored model."""
        return handle.model_class

    @staticmethod
    def loaded(handle):
        """The model itself, its arrays read into memory."""
        return handle.load(copy=True)

    def remove(self, subdir):
        """Delete ``subdir`` (a discarded layer's files)."""
        shutil.rmtree(os.path.join(self.path, subdir), ignore_errors=True)

    def move(self, subdir, handles, store):
        """Move ``subdir``'s files into ``store``'s folder and point their ``handles`` there."""
        shutil.move(os.path.join(self.path, subdir), os.path.join(store.path, subdir))
        for handle in handles:
            handle.store = store

    def check_claimed(self):
        """Raise if another fit has claimed the folder since this store claimed it (its marker names that fit)."""
        if self.temporary:
            return
        try:
            fit_id = read_marker(self.path).get("fit_id")
        except (OSError, ValueError):
            fit_id = None
        if fit_id != self.fit_id:
            raise RuntimeError(
                f"model_dir={self.path!r} was claimed by another fit while this one ran; its files are not this "
                "model's. Give every model its own folder (or model_dir='auto')"
            )

    def relocate(self, path):
        """Point the store at its folder's new place ``path``, once the folder there is checked to be this fit's."""
        if self.temporary:
            raise ValueError("model_dir='auto': the temporary folder belongs to the model and cannot be relocated")
        path = os.path.abspath(os.fspath(path))
        self.check_relocated(path)
        self.path = path

    def destroy(self):
        """Delete the whole folder (a temporary one, or a grid-search candidate's)."""
        if self._finalizer is not None:
            self._finalizer()
        else:
            shutil.rmtree(self.path, ignore_errors=True)

    def check_relocated(self, path):
        """Raise unless ``path`` holds this fit's files (its marker names this fit)."""
        try:
            fit_id = read_marker(path).get("fit_id")
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"{path} holds no {MARKER}: it is not a model_dir folder written by mddf") from exc
        if fit_id != self.fit_id:
            raise ValueError(
                f"{path} holds the files of another fit than this model's (its {MARKER} names fit {fit_id!r})"
            )

    def __getstate__(self):
        state = {"path": self.path, "fit_id": self.fit_id, "temporary": self.temporary}
        if self.temporary:  # the pickle carries the files: the folder goes away with its model
            files = {}
            for root, _, names in os.walk(self.path):
                for name in names:
                    full = os.path.join(root, name)
                    with open(full, "rb") as f:
                        files[os.path.relpath(full, self.path)] = f.read()
            state["files"] = files
        return state

    def __setstate__(self, state):
        files = state.pop("files", None)
        if state["temporary"]:
            state["path"] = _new_temporary_folder(state["fit_id"])
            for relpath, content in files.items():
                if relpath == MARKER:  # the new folder's own marker names this process
                    continue
                full = os.path.join(state["path"], relpath)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "wb") as f:
                    f.write(content)
        self.__init__(state["path"], state["fit_id"], state["temporary"])

    def __repr__(self):
        kind = "temporary " if self.temporary else ""
        return f"ModelStore({kind}{self.path!r})"


class MemoryStore:
    """The fitted models of a block kept in memory: the store of a model without ``model_dir``.

    It has :class:`ModelStore`'s methods, so that a block and a cascade never ask where their
    models are: a task returns the model itself, which the block keeps and predicts with.
    """

    path = None
    temporary = False

    @staticmethod
    def writer(subdir):
        """None: the models are not written, the block keeps them."""
        return None

    @staticmethod
    def handle(model):
        """What the block keeps of a fitted model: the model."""
        return model

    @staticmethod
    def model_class(model):
        return type(model)

    @staticmethod
    def loaded(model):
        return model

    def remove(self, subdir):
        """Nothing to delete: a discarded layer's models go with the layer."""

    def move(self, subdir, handles, store):
        """Nothing to move: the models are in memory."""

    def destroy(self):
        """Nothing to delete."""

    def check_claimed(self):
        """No folder that another fit could claim."""

    def relocate(self, path):
        raise ValueError("this model keeps its models in memory (model_dir=None): there is no folder to relocate")

    def __repr__(self):
        return "MemoryStore()"


def open_store(model_dir, previous=None):
    """The store of a new fit: in memory for ``model_dir=None``, else :meth:`ModelStore.claim`. ``previous``, the
    store of the estimator's previous fit, is destroyed first when it is an ``"auto"`` folder (it goes with the fit
    that made it)."""
    if previous is not None and previous.temporary:
        previous.destroy()
    return MemoryStore() if model_dir is None else ModelStore.claim(model_dir)


def _write_marker(path, fit_id, temporary=None):
    """Write the folder's :data:`MARKER`; ``temporary``: the owning process of a temporary folder (pid, host)."""
    content = {"written_by": __package__, "format": FORMAT, "fit_id": fit_id}
    if temporary is not None:
        content["temporary"] = temporary
    with open(os.path.join(path, MARKER), "w") as f:
        json.dump(content, f)
        f.write("\n")


def read_marker(folder):
    """The content of ``folder``'s :data:`MARKER` (a dict); :class:`ModelFileError` naming it if it is not valid."""
    path = os.path.join(folder, MARKER)
    with open(path, "rb") as f:
        data = f.read()
    try:
        content = json.loads(data)
    except ValueError as exc:  # UnicodeDecodeError included
        raise ModelFileError(path, f"not valid JSON ({exc})") from exc
    if not isinstance(content, dict):
        raise ModelFileError(path, "not a JSON object")
    return content
