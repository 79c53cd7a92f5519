"""The base of every stored forest: its trees as flat arrays, which are checked before they are trusted.

A fitted forest keeps its trees as a few flat arrays: every tree's nodes
concatenated, ``offsets[t]`` the first node of tree ``t`` (one entry more than
the trees), ``depths`` one entry per tree, a leaf table whose rows the leaves
predict (class shares, or a regression tree's mean), and the arrays of its
node layout. The arrays named in ``_stored_arrays`` are the forest: the model
files of ``model_dir`` write them one by one and map them back to memory
(:mod:`mddf.storage`), and :attr:`StoredForest.nbytes` counts them; every
other attribute is a scalar or a small object, kept as it is.

Arrays read from a pickle or a file could make the compiled traversal read
out of bounds or never reach a leaf. :meth:`StoredForest.check_arrays` runs
when a forest is unpickled and when a model file is first loaded: the offsets,
the per-tree arrays and the leaf table are checked here, the node layout and
each node by the subclass (:meth:`StoredForest._check_layout`, and
:meth:`StoredForest._first_bad_node`, numpy passes that report a problem of
:data:`mddf.trees.nodes.NODE_PROBLEMS`). The two stored forests are
:class:`mddf.forests.binned.PackedForest` (node words of binned trees) and
:class:`mddf.forests.compact.CompactForest` (scikit-learn's trees, compacted).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod

import numpy as np

from ..storage import InvalidStoredArrays, ModelFileError, filled_in, unpickling_checked_bytes
from ..trees.nodes import NODE_PROBLEMS

#: Rows of a leaf table checked at a time by :meth:`StoredForest.check_arrays` (bounds its temporaries' memory).
CHECK_CHUNK = 1 << 20


class StoredForest(ABC):
    """A fitted forest as flat arrays: what the two tasks' and the two tree methods' forests share.

    A subclass names its arrays (``_stored_arrays``), its node array (``_node_array``, whose
    entries ``offsets`` spans), its leaf table (``_leaf_table``) and its columns
    (``n_classes``, None for one column of means), and checks its node layout.

    Attributes
    ----------
    offsets : ndarray of int64 (n_trees + 1,)
        First entry of each tree in the node array, then the number of entries.
    depths : ndarray of int32 (n_trees,)
    importances : ndarray of float64 (n_features,)
        Sum over the trees of their weighted impurity decrease per feature
        (each divided by its root's weight).
    n_classes : int or None
        Columns of the output; None for a regression forest (one column, the mean).
    """

    #: The arrays that hold the forest.
    _stored_arrays = ()
    #: The array whose entries ``offsets`` spans, tree by tree.
    _node_array = None
    #: The leaf table: one row per distinct leaf output, ``n_classes`` (or 1) columns.
    _leaf_table = None
    n_classes = None

    def __getstate__(self):
        """The attributes, and for a finished forest the SHA-256 of its arrays, checked when it is unpickled on its
        own (a saved model's forests are checked with the whole payload's digest first: it is not taken again)."""
        state = self.__dict__.copy()
        if "offsets" in state:
            state["_arrays_sha256"] = self.arrays_sha256()
        return state

    def __setstate__(self, state):
        expected = state.pop("_arrays_sha256", None)  # pickles of earlier versions carry none
        self.__dict__.update(filled_in("stored forest", state))  # what a forest of an earlier version lacks
        if "offsets" in state:  # a finished forest
            if expected is not None and not unpickling_checked_bytes() and self.arrays_sha256() != expected:
                raise ModelFileError(
                    f"the pickle of a {type(self).__name__}",
                    "its trees' arrays do not match the SHA-256 taken when it was pickled: the pickle is damaged",
                )
            try:
                self.check_arrays()
            except ValueError as exc:
                raise InvalidStoredArrays(f"a {type(self).__name__}'s arrays: {exc}") from exc

    def arrays_sha256(self):
        """SHA-256 of the stored arrays: each one's name, dtype, shape and bytes."""
        digest = hashlib.sha256()
        for name in self._present_arrays():
            array = np.ascontiguousarray(getattr(self, name))
            digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
            digest.update(array.reshape(-1).view(np.uint8) if array.size else b"")
        return digest.hexdigest()

    @property
    def n_trees(self):
        return len(self.depths)

    @property
    def nbytes(self):
        """Memory held by the stored arrays, in bytes (bin edges shared by a layer's forests not included)."""
        return sum(getattr(self, name).nbytes for name in self._present_arrays())

    def _present_arrays(self):
        """The names of ``_stored_arrays`` this forest holds: a forest of an earlier version holds None for the later
        ones (``left_shares``: :mod:`mddf.storage.layouts`), and its pickle's digest was taken without them."""
        return [name for name in self._stored_arrays if getattr(self, name) is not None]

    @property
    def _width(self):
        return self.n_classes or 1

    def _n_nodes(self):
        """Entries of the node array that the trees hold."""
        return len(getattr(self, self._node_array))

    def check_arrays(self):
        """Raise ``ValueError`` unless the arrays hold trees that route every row forward to a valid leaf.

        Checks that the tree offsets span the node array, that every per-tree array has an entry
        per tree, that the arrays of the node layout fit each other (the subclass's check) and
        that the leaf table is finite (and, for class shares, non-negative); then, node by node
        (numpy passes of the subclass), that routing only moves forward inside its tree and
        ends at a leaf whose output exists. Nothing is written: valid arrays predict as before.
        """
        offsets = np.asarray(self.offsets)
        n_nodes = self._n_nodes()
        if offsets.ndim != 1 or len(offsets) < 2 or offsets[0] != 0 or offsets[-1] != n_nodes:
            raise ValueError(f"the tree offsets do not span the {n_nodes} entries of {self._node_array} from 0")
        sizes = np.diff(offsets)
        if (sizes < 1).any():
            raise ValueError(f"tree {int(np.argmax(sizes < 1))} has no node (the tree offsets do not increase)")
        if len(self.depths) != len(sizes) or (np.asarray(self.depths) < 0).any():
            raise ValueError(f"depths holds {len(self.depths)} entries for {len(sizes)} trees, or a negative one")
        self._check_layout(offsets)
        self._check_leaf_table()
        problem, node = self._first_bad_node(offsets)
        if problem:
            tree = int(np.searchsorted(offsets, node, side="right")) - 1
            raise ValueError(f"{NODE_PROBLEMS[problem]} (node {node - int(offsets[tree])} of tree {tree})")

    def _check_leaf_table(self):
        """Raise ``ValueError`` unless the leaf table has the output's columns and holds finite values
        (non-negative class shares)."""
        name = self._leaf_table
        values = getattr(self, name)
        if values.ndim != 2 or values.shape[1] != self._width:
            raise ValueError(f"the leaf table {name} has shape {values.shape}, not (n, {self._width})")
        for start in range(0, len(values), CHECK_CHUNK):
            chunk = values[start : start + CHECK_CHUNK]
            if not np.isfinite(chunk).all() or (self.n_classes and (chunk < 0).any()):
                raise ValueError(f"the leaf table {name} holds a non-finite value, or a negative class share")

    @abstractmethod
    def _check_layout(self, offsets):
        """Raise ``ValueError`` unless the node layout's arrays fit the ``offsets`` and each other."""

    @abstractmethod
    def _first_bad_node(self, offsets):
        """``(problem, node)``: the first node that could misroute a row (a key of
        :data:`mddf.trees.nodes.NODE_PROBLEMS`, and its index in the node array), or ``(0, -1)``."""
