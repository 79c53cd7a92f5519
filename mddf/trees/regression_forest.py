"""Compact storage and prediction of forests grown by :func:`mddf.trees.regression_grower.grow_regression_tree`.

The layout of :class:`mddf.trees.BinnedForest`: per node a feature (int16, -1
for a leaf), the split bin (uint8) and the right child, as a tree-local uint16
index when every tree has fewer than 65,536 nodes (int32 otherwise), which for
a leaf is the tree-local row of its value; the side of the missing values
(NaN) of each node is one bit, packed eight nodes to a byte. A leaf's value is
a float64. New rows are binned once with the layer's bin edges, then routed
by compiled code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .forest import StoredTrees, bin_rows

_NO_MISSING = np.zeros(0, dtype=np.int64)


@njit(cache=True, nogil=True)
def _forest_values(
    feature, split_bin, right, missing_left_bits, offsets, values, value_offsets, codes, missing_bin, out
):
    has_missing = len(missing_bin) > 0
    for t in range(len(offsets) - 1):
        base = offsets[t]
        value_base = value_offsets[t]
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
            out[r] += values[value_base + right[node]]


class BinnedRegressionForest(StoredTrees):
    """A forest of binned regression trees in compact form, predicting the mean of its trees.

    Parameters
    ----------
    binner : FeatureBinner
        The bin edges the trees were grown on (shared by every forest of a layer).
    features, split_bins, rights, values, depths, missing_lefts, importances : lists, one entry per tree
        The outputs of :func:`mddf.trees.regression_grower.grow_regression_tree`.

    Attributes
    ----------
    importances : ndarray of float64 (n_features,)
        Sum over the trees of their weighted variance decrease per feature
        (each divided by its root's weight).
    """

    _stored_arrays = (
        "feature",
        "split_bin",
        "right",
        "offsets",
        "value_offsets",
        "values",
        "depths",
        "missing_left_bits",
    )

    def __init__(self, binner, features, split_bins, rights, values, depths, missing_lefts, importances):
        if not features:
            raise ValueError("a BinnedRegressionForest needs at least one tree")
        self.binner = binner
        self.n_features = len(binner.edges_)
        sizes = np.array([len(f) for f in features], dtype=np.int64)
        n_values = np.array([len(v) for v in values], dtype=np.int64)
        small = sizes.max() <= np.iinfo(np.uint16).max
        self.feature = np.concatenate(features).astype(
            np.int16 if self.n_features < np.iinfo(np.int16).max else np.int32
        )
        self.split_bin = np.concatenate(split_bins).astype(np.uint8, copy=False)
        self.right = np.concatenate(rights).astype(np.uint16 if small else np.int32)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.value_offsets = np.concatenate([[0], np.cumsum(n_values)]).astype(np.int64)
        self.values = np.concatenate(values).astype(np.float64, copy=False)
        self.depths = np.asarray(depths, dtype=np.int32)
        self.missing_left_bits = np.packbits(np.concatenate(missing_lefts).astype(bool), bitorder="little")
        self.importances = np.sum(importances, axis=0)

    def predict_binned(self, codes, has_missing=True):
        """Mean of the trees' predictions for rows already binned with ``self.binner``.

        ``has_missing=False`` promises that ``codes`` holds no missing value (no
        NaN in the rows binned), which skips the check for them.
        """
        out = np.zeros(codes.shape[0])
        _forest_values(
            self.feature,
            self.split_bin,
            self.right,
            self.missing_left_bits,
            self.offsets,
            self.values,
            self.value_offsets,
            np.ascontiguousarray(codes),
            self.binner.missing_bins_ if has_missing else _NO_MISSING,
            out,
        )
        out /= self.n_trees
        return out

    def predict(self, X):
        """Mean of the trees' predictions.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), float
            NaN marks a missing value.

        Returns
        -------
        ndarray of float64, shape (n_samples,)
        """
        codes, has_missing = bin_rows(self.binner, X)
        return self.predict_binned(codes, has_missing=has_missing)
