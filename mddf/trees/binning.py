"""Quantisation of float features into at most 256 ordered bins (uint8 codes).

Bins are cut between the sorted distinct values of a feature (at midpoints, as
scikit-learn's thresholds are) when it has at most ``max_bins`` of them, and at
equal-frequency quantiles otherwise. ``bin(x) <= b`` exactly when
``x <= edges[b]``, so a split on bins is a split on float thresholds; fitted
trees keep their bins (:class:`mddf.trees.BinnedForest`) and new rows are
binned with the same edges.
"""

from __future__ import annotations

import numpy as np

# compiled into grow_tree's on-disk numba cache (grower.py), which does not see changes to
# this file: delete mddf/trees/__pycache__ after changing it.
MAX_BINS = 256


class FeatureBinner:
    """Quantise the columns of a float32 matrix into at most ``max_bins`` ordered bins.

    Parameters
    ----------
    max_bins : int, default=256
        At most 256 (bins are stored as uint8).

    Attributes
    ----------
    edges_ : list of ndarray of float32
        Upper edge of every bin but the last, per feature: ``bin(x)`` is the
        number of edges strictly below ``x``, so ``bin(x) <= b`` exactly when
        ``x <= edges_[j][b]``.
    """

    def __init__(self, max_bins=MAX_BINS):
        if not 2 <= max_bins <= MAX_BINS:
            raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {max_bins}")
        self.max_bins = max_bins

    def fit(self, X):
        X = np.asarray(X, dtype=np.float32)
        self.edges_ = [self._column_edges(X[:, j]) for j in range(X.shape[1])]
        return self

    def _column_edges(self, column):
        values = np.unique(column)
        if len(values) <= self.max_bins:
            lower, upper = values[:-1], values[1:]
            mid = ((lower.astype(np.float64) + upper) / 2).astype(np.float32)
            # a float32 midpoint of two adjacent floats may round up onto the upper value,
            # which would put that value in the lower bin
            return np.where(mid < upper, mid, lower).astype(np.float32)
        cuts = np.quantile(column, np.linspace(0, 1, self.max_bins + 1)[1:-1], method="inverted_cdf")
        cuts = np.unique(cuts.astype(np.float32))
        return cuts[cuts < values[-1]]  # a cut at the maximum would leave its upper bin empty

    def transform(self, X):
        """Bin codes (uint8, C-contiguous, same shape as ``X``)."""
        X = np.asarray(X, dtype=np.float32)
        out = np.empty(X.shape, dtype=np.uint8)
        for j, edges in enumerate(self.edges_):
            out[:, j] = np.searchsorted(edges, X[:, j], side="left")
        return out

    def fit_transform(self, X):
        return self.fit(X).transform(X)
