"""Compact storage and prediction of forests grown by :func:`mddf.trees.grower.grow_tree`.

A deep forest keeps k x 4 forests per layer for prediction, so the bytes per
node decide its memory.
Trees grown on bins can be stored by their bins: per node a feature (int16, a
negative code marks a leaf), the split bin (uint8) and the right child, as a
tree-local uint16 index when every tree has fewer than 65,536 nodes (int32
otherwise); a leaf keeps its class (pure leaves, the vast majority) or the
tree-local row of its class distribution. The side of the missing values
(NaN) of each node is one bit, packed eight nodes to a byte. That is 5 1/8
bytes a node, about half of :class:`mddf.compact_forest.CompactForest`'s
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


class StoredTrees:
    """What the compact forests share (binned or not): every tree's node arrays concatenated,
    ``offsets[t]`` the first node of tree ``t``, ``depths`` one entry per tree, and the arrays
    named in ``_stored_arrays`` holding the forest."""

    _stored_arrays = ()

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
