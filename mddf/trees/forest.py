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


class BinnedForest:
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

    def __init__(
        self, binner, n_classes, features, split_bins, rights, impure_values, depths, missing_lefts, importances
    ):
        if not features:
            raise ValueError("a BinnedForest needs at least one tree")
        self.binner = binner
        self.n_classes = int(n_classes)
        self.n_features = len(binner.edges_)
        sizes = np.array([len(f) for f in features], dtype=np.int64)
        n_impure = np.array([len(v) for v in impure_values], dtype=np.int64)
        feature = np.concatenate(features)
        right = np.concatenate(rights)
        leaf = feature < 0
        impure = leaf & (right < 0)
        feature = feature.astype(np.int16 if self.n_features < np.iinfo(np.int16).max else np.int32)
        feature[impure] = _IMPURE_LEAF
        right = right.copy()
        right[impure] = -right[impure] - 1  # tree-local row of the leaf's distribution
        small = sizes.max() <= np.iinfo(np.uint16).max and self.n_classes <= np.iinfo(np.uint16).max
        self.feature = feature
        self.split_bin = np.concatenate(split_bins).astype(np.uint8, copy=False)
        self.right = right.astype(np.uint16 if small else np.int32)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.impure_offsets = np.concatenate([[0], np.cumsum(n_impure)]).astype(np.int64)
        self.impure_values = np.concatenate(impure_values).astype(np.float32, copy=False)
        self.depths = np.asarray(depths, dtype=np.int32)
        self.missing_left_bits = np.packbits(np.concatenate(missing_lefts).astype(bool), bitorder="little")
        self.importances = np.sum(importances, axis=0)

    @property
    def n_trees(self):
        return len(self.depths)

    @property
    def node_count(self):
        return int(self.offsets[-1])

    @property
    def nbytes(self):
        """Memory held by the stored arrays, in bytes (the shared bin edges not included)."""
        return sum(
            a.nbytes
            for a in (
                self.feature,
                self.split_bin,
                self.right,
                self.offsets,
                self.impure_offsets,
                self.impure_values,
                self.depths,
                self.missing_left_bits,
            )
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
        X = np.asarray(X, dtype=np.float32)
        return self.predict_proba_binned(self.binner.transform(X), has_missing=bool(np.isnan(X).any()))
