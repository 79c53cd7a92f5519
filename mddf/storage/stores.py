"""The stores a block keeps its fitted models in: a folder (:class:`ModelStore`, each model a
:class:`StoredModel` loaded for a prediction) or memory (:class:`MemoryStore`), with the same methods."""

from __future__ import annotations

import os
import shutil
import uuid
import weakref

from .files import MARKER, OWNED_ENTRY, ModelFileError, read_marker, write_marker
from .records import ModelWriter
from .temporary import new_temporary_folder, remove_tree


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
        self._finalizer = weakref.finalize(self, remove_tree, path, os.getpid()) if temporary else None

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
            return cls(new_temporary_folder(fit_id), fit_id, temporary=True)
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
        write_marker(path, fit_id)
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

    def check_marker(self):
        """Raise :class:`ModelFileError` naming the folder's :data:`MARKER` when it is missing or names another fit
        (the marker says the folder's files are this fit's); nothing when the whole folder is missing, as after a
        move (loading a model file then raises ``FileNotFoundError``, saying how to relocate the folder)."""
        if not os.path.isdir(self.path):
            return
        marker = os.path.join(self.path, MARKER)
        try:
            fit_id = read_marker(self.path).get("fit_id")
        except FileNotFoundError:
            raise ModelFileError(
                marker,
                "missing: the marker mddf wrote in this model's folder when it was fitted was deleted since, so the "
                "folder's files are not known to be this fit's; refit the model, or point it at an intact copy of "
                "the folder with relocate_model_dir(path)",
            ) from None
        if fit_id != self.fit_id:
            raise ModelFileError(
                marker,
                f"names another fit ({fit_id!r}) than this model's ({self.fit_id!r}): the folder was fitted into "
                "again since; refit the model, load the pickle that goes with the folder's current files, or point "
                "it at an intact copy of its folder with relocate_model_dir(path)",
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
            state["path"] = new_temporary_folder(state["fit_id"])
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

    def check_marker(self):
        """No folder, no marker to check."""

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
