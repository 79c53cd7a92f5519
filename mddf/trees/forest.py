"""Compact storage and prediction of forests grown by :func:`mddf.trees.grower.grow_tree`.

A deep forest keeps k x 4 forests per layer for prediction, so the bytes per
node decide its memory.
Trees grown on bins can be stored by their bins: per node a feature (int16, a
negative code marks a leaf), the split bin (uint8) and the right child, as a
tree-local uint16 index when every tree has fewer than 65,536 nodes (int32
otherwise); a leaf keeps its class (pure leaves, the vast majority) or the
tree-local row of its class distribution. The side of the missing values
(NaN) of each node is one bit, packed eight nodes to a byte. That is 5 1/8
bytes a node, about half of :class:`mddf._compact_forest.CompactForest`'s
float-threshold layout. New rows are binned once with the layer's bin edges,
then routed by compiled code; rows without a missing value take a loop that
never reads the bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_NO_MISSING = np.zeros(0, dtype=np.int64)
_PURE_LEAF = -1
_IMPURE_LEAF = -2


@njit(cache=True, nogil=True)
def _forest_proba(
    feature, split_bin, right, missing_left_bits, offsets, impure_values, impure_offsets, codes, missing_bin, out
):
    n_classes = out.shape[1]
    has_missing = len(missing_bin) > 0
    for t in range(len(offsets) - 1):
        base = offsets[t]
        impure_base = impure_offsets[t]
        for r in range(codes.shape[0]):
            node = base
            f = feature[node]
            if has_missing:
                while f >= 0:
                    code = codes[r, f]
                    if code == missing_bin[f]:
                        go_left = (missing_left_bits[node >> 3] >> (node & 7)) & 1 == 1
                    else:
                        go_left = code <= split_bin[node]
                    if go_left:
                        node += 1
                    else:
                        node = base + right[node]
                    f = feature[node]
            else:
                while f >= 0:
                    if codes[r, f] <= split_bin[node]:
                        node += 1
                    else:
                        node = base + right[node]
                    f = feature[node]
            code = right[node]
            if f == _PURE_LEAF:
                out[r, code] += 1.0
            else:
                for c in range(n_classes):
                    out[r, c] += impure_values[impure_base + code, c]


def _concatenate_and_clear(arrays, dtype=None):
    out = np.concatenate(arrays, dtype=dtype)
    arrays.clear()
    return out


class CompactTrees:
    """Grown trees gathered one at a time in the dtypes a :class:`BinnedForest` stores.

    A tree is compacted as it is added (about 6 bytes a node instead of the 10
    of :func:`mddf.trees.grower.grow_tree`'s output), so that a forest being
    grown holds its trees nearly at their stored size; :meth:`BinnedForest.from_trees`
    then concatenates them. The arrays are those :class:`BinnedForest` would
    make from the same trees.

    Parameters
    ----------
    binner : FeatureBinner
    n_classes : int
    """

    def __init__(self, binner, n_classes):
        self.binner = binner
        self.n_classes = int(n_classes)
        self.n_features = len(binner.edges_)
        self._feature_dtype = np.int16 if self.n_features < np.iinfo(np.int16).max else np.int32
        self.features, self.split_bins, self.rights, self.impure_values = [], [], [], []
        self.depths, self.missing_lefts, self.importances = [], [], []

    def add(self, tree):
        """Append one output of :func:`mddf.trees.grower.grow_tree`.

        A leaf's feature becomes -1 (pure: ``right`` holds its class) or -2
        (impure: ``right`` holds the tree-local row of its class distribution);
        ``right`` is 16-bit when the tree has at most 65,535 nodes and there are
        at most 65,535 classes, else 32-bit.
        """
        feature, split_bin, right, impure_values, depth, missing_left, importance = tree
        impure = (feature < 0) & (right < 0)
        compact_feature = feature.astype(self._feature_dtype)
        compact_feature[impure] = _IMPURE_LEAF
        local = right.astype(np.int32)  # a copy
        local[impure] = -local[impure] - 1  # tree-local row of the leaf's distribution
        small = len(feature) <= np.iinfo(np.uint16).max and self.n_classes <= np.iinfo(np.uint16).max
        self.features.append(compact_feature)
        self.split_bins.append(np.asarray(split_bin).astype(np.uint8, copy=False))
        self.rights.append(local.astype(np.uint16) if small else local)
        self.impure_values.append(np.asarray(impure_values).astype(np.float32, copy=False))
        self.depths.append(depth)
        self.missing_lefts.append(np.asarray(missing_left).astype(bool))
        self.importances.append(importance)


def bin_rows(binner, X):
    """Float rows binned with ``binner``'s edges, and whether any value is missing (NaN)."""
    X = np.asarray(X, dtype=np.float32)
    return binner.transform(X), bool(np.isnan(X).any())


#: Rows of a leaf table checked at a time by :meth:`StoredTrees.check_arrays` (bounds its temporaries' memory).
_CHECK_CHUNK = 1 << 20
#: What :meth:`StoredTrees.check_arrays` reports for each problem code of a ``_first_bad_node`` function.
_NODE_PROBLEMS = {
    1: "a split feature is not below n_features",
    2: "a right child is not after its left subtree, inside its tree",
    3: "a split threshold is out of range",
    4: "a leaf's class or class-distribution row is out of range",
}


@njit(cache=True, nogil=True)
def _first_bad_binned_node(feature, split_bin, right, offsets, impure_offsets, missing_bins, n_features, n_classes):
    """``(problem, node)`` of the first node that could misroute a row (a key of ``_NODE_PROBLEMS``), else ``(0, -1)``.

    An internal node needs a feature below ``n_features``, a right child after its left child (the
    next node) and inside its tree, and a split bin at most the feature's missing bin; a pure leaf
    (feature -1) a class below ``n_classes``, an impure one (-2) a row of its tree's distributions.
    The caller has checked that the offsets span the node arrays.
    """
    for t in range(len(offsets) - 1):
        base = offsets[t]
        size = offsets[t + 1] - base
        n_rows = impure_offsets[t + 1] - impure_offsets[t]
        for local in range(size):
            node = base + local
            f = np.int64(feature[node])
            r = np.int64(right[node])
            if f >= 0:
                if f >= n_features:
                    return 1, node
                if r <= local + 1 or r >= size:
                    return 2, node
                if np.int64(split_bin[node]) > missing_bins[f]:
                    return 3, node
            elif (f == _PURE_LEAF and (r < 0 or r >= n_classes)) or (f == _IMPURE_LEAF and (r < 0 or r >= n_rows)):
                return 4, node
            elif f < _IMPURE_LEAF:
                return 4, node
    return 0, -1


class StoredTrees:
    """What the compact forests share (binned or not): every tree's node arrays concatenated,
    ``offsets[t]`` the first node of tree ``t``, ``depths`` one entry per tree, and the arrays
    named in ``_stored_arrays`` holding the forest.

    A subclass that defines ``_first_bad_node`` (compiled: one pass over the nodes, no temporaries)
    gets :meth:`check_arrays`, which runs when it is unpickled (and when :mod:`mddf._storage` loads
    it), so that no damaged or crafted arrays can make the compiled traversal read out of bounds or loop.
    """

    _stored_arrays = ()

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "offsets" in state and hasattr(self, "_first_bad_node"):  # a finished forest
            self.check_arrays()

    def check_arrays(self):
        """Raise ``ValueError`` unless the arrays hold trees that route every row forward to a valid leaf.

        Checks that the tree offsets span the nodes, that every array has an entry per node (or
        tree) and that the leaves' class distributions are finite and non-negative, then, node by
        node, that every split feature is below ``n_features``, that every right child lies after
        its left child (the next node) and inside its tree (so routing only moves forward and ends
        at a leaf), that every split threshold is in range and every leaf's class or distribution
        row exists. Nothing is written: valid arrays predict as before.
        """
        offsets = np.asarray(self.offsets)
        n_nodes = len(self.feature)
        if offsets.ndim != 1 or len(offsets) < 2 or offsets[0] != 0 or offsets[-1] != n_nodes:
            raise ValueError(f"the tree offsets do not span the {n_nodes} nodes from 0")
        sizes = np.diff(offsets)
        if (sizes < 1).any():
            raise ValueError(f"tree {int(np.argmax(sizes < 1))} has no node (the tree offsets do not increase)")
        for name in ("right", "split_bin", "threshold"):
            if name in self.__dict__ and len(self.__dict__[name]) != n_nodes:
                raise ValueError(f"{name} holds {len(self.__dict__[name])} entries for {n_nodes} nodes")
        if len(self.depths) != len(sizes) or (np.asarray(self.depths) < 0).any():
            raise ValueError(f"depths holds {len(self.depths)} entries for {len(sizes)} trees, or a negative one")
        if len(self.missing_left_bits) < (n_nodes + 7) // 8:
            raise ValueError(f"missing_left_bits holds {len(self.missing_left_bits)} bytes for {n_nodes} nodes")
        self._check_leaf_table()
        problem, node = self._first_bad_node()
        if problem:
            tree = int(np.searchsorted(offsets, node, side="right")) - 1
            raise ValueError(f"{_NODE_PROBLEMS[problem]} (node {node - int(offsets[tree])} of tree {tree})")

    def _check_leaf_table(self):
        """Raise ``ValueError`` unless ``impure_values`` holds finite, non-negative class distributions."""
        values = self.impure_values
        if values.ndim != 2 or values.shape[1] != self.n_classes:
            raise ValueError(f"impure_values has shape {values.shape}, not (n, n_classes={self.n_classes})")
        for start in range(0, len(values), _CHECK_CHUNK):
            chunk = values[start : start + _CHECK_CHUNK]
            if not (np.isfinite(chunk).all() and (chunk >= 0).all()):
                raise ValueError("impure_values holds a negative or non-finite class share")

    @property
    def n_trees(self):
        return len(self.depths)

    @property
    def node_count(self):
        return int(self.offsets[-1])

    @property
    def nbytes(self):
        """Memory held by the stored arrays, in bytes (bin edges shared by a layer's forests not included)."""
        return sum(getattr(self, name).nbytes for name in self._stored_arrays)


class BinnedForest(StoredTrees):
    """A forest of binned trees in compact form, predicting class probabilities.

    Parameters
    ----------
    binner : FeatureBinner
        The bin edges the trees were grown on (shared by every forest of a layer).
    n_classes : int
    features, split_bins, rights, impure_values, depths, missing_lefts, importances : lists, one entry per tree
        The outputs of :func:`mddf.trees.grower.grow_tree`.

    Attributes
    ----------
    importances : ndarray of float64 (n_features,)
        Sum over the trees of their weighted Gini impurity decrease per feature
        (each divided by its root's weight).
    """

    _stored_arrays = (
        "feature",
        "split_bin",
        "right",
        "offsets",
        "impure_offsets",
        "impure_values",
        "depths",
        "missing_left_bits",
    )

    def __init__(
        self, binner, n_classes, features, split_bins, rights, impure_values, depths, missing_lefts, importances
    ):
        if not features:
            raise ValueError("a BinnedForest needs at least one tree")
        trees = CompactTrees(binner, n_classes)
        for tree in zip(features, split_bins, rights, impure_values, depths, missing_lefts, importances):
            trees.add(tree)
        self._assemble(trees)

    @classmethod
    def from_trees(cls, trees):
        """The forest of the trees gathered in a :class:`CompactTrees` (which it empties)."""
        if not trees.depths:
            raise ValueError("a BinnedForest needs at least one tree")
        self = cls.__new__(cls)
        self._assemble(trees)
        return self

    def _assemble(self, trees):
        """Concatenate the compacted trees, releasing each list of per-tree arrays once it is concatenated."""
        self.binner = trees.binner
        self.n_classes = trees.n_classes
        self.n_features = trees.n_features
        sizes = np.array([len(f) for f in trees.features], dtype=np.int64)
        n_impure = np.array([len(v) for v in trees.impure_values], dtype=np.int64)
        self.feature = _concatenate_and_clear(trees.features)
        self.split_bin = _concatenate_and_clear(trees.split_bins)
        small = all(r.dtype == np.uint16 for r in trees.rights)  # every tree fits 16-bit child indices
        self.right = _concatenate_and_clear(trees.rights, np.uint16 if small else np.int32)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.impure_offsets = np.concatenate([[0], np.cumsum(n_impure)]).astype(np.int64)
        self.impure_values = _concatenate_and_clear(trees.impure_values)
        self.depths = np.asarray(trees.depths, dtype=np.int32)
        self.missing_left_bits = np.packbits(_concatenate_and_clear(trees.missing_lefts), bitorder="little")
        self.importances = np.sum(trees.importances, axis=0)
        trees.depths.clear()
        trees.importances.clear()

    def _check_leaf_table(self):
        super()._check_leaf_table()
        rows = np.asarray(self.impure_offsets)
        if (
            rows.ndim != 1
            or len(rows) != self.n_trees + 1
            or rows[0] != 0
            or rows[-1] != len(self.impure_values)
            or (np.diff(rows) < 0).any()
        ):
            raise ValueError("impure_offsets do not split the rows of impure_values into one block per tree")
        if len(self.binner.missing_bins_) != self.n_features:
            raise ValueError(f"the binner has {len(self.binner.missing_bins_)} features, not {self.n_features}")

    def _first_bad_node(self):
        return _first_bad_binned_node(
            self.feature,
            self.split_bin,
            self.right,
            self.offsets,
            self.impure_offsets,
            self.binner.missing_bins_,
            self.n_features,
            self.n_classes,
        )

    def predict_proba_binned(self, codes, has_missing=True):
        """Mean of the trees' class distributions for rows already binned with ``self.binner``.

        ``has_missing=False`` promises that ``codes`` holds no missing value (no
        NaN in the rows binned), which skips the check for them.
        """
        out = np.zeros((codes.shape[0], self.n_classes))
        _forest_proba(
            self.feature,
            self.split_bin,
            self.right,
            self.missing_left_bits,
            self.offsets,
            self.impure_values,
            self.impure_offsets,
            np.ascontiguousarray(codes),
            self.binner.missing_bins_ if has_missing else _NO_MISSING,
            out,
        )
        out /= self.n_trees
        return out

    def predict_proba(self, X):
        """Mean of the trees' class distributions.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), float
            NaN marks a missing value.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
        """
        codes, has_missing = bin_rows(self.binner, X)
        return self.predict_proba_binned(codes, has_missing=has_missing)
