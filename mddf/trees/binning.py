"""Quantisation of float features into at most 256 ordered bins (uint8 codes).

Bins are cut between the sorted distinct values of a feature (at midpoints, as
scikit-learn's thresholds are) when it has at most ``max_bins`` of them, and at
equal-frequency quantiles otherwise. ``bin(x) <= b`` exactly when
``x <= edges[b]``, so a split on bins is a split on float thresholds; fitted
trees keep their bins (:class:`mddf.forests.BinnedForest`) and new rows are
binned with the same edges.

Missing values (NaN) get a bin of their own, one past the feature's real bins:
``missing_bins_[j] = len(edges_[j]) + 1`` (scikit-learn's
``HistGradientBoostingClassifier`` keeps bin 255 for them, after at most 255
real bins; here the index follows each feature's own bins). A feature with NaN
among the fitted rows is cut into at most ``max_bins - 1`` real bins, so its
missing bin still fits a uint8 code; a feature without NaN keeps up to
``max_bins`` real bins, cut exactly as if missing values were not supported.
Such a feature's missing bin can then be 256: :meth:`FeatureBinner.transform`
returns uint16 codes when a NaN meets a full feature (new rows only; the fitted
rows always bin to uint8).

New rows are binned by a compiled kernel, :func:`bin_codes`: each feature's
edges padded with +inf to a table of 256 (``MAX_BINS``) float32 values, and a
branch-free binary search of eight steps per value, whose comparisons are the
same as :func:`numpy.searchsorted`'s (``side="left"``), so the codes are too.
"""

from __future__ import annotations

import numpy as np

from .._runtime.compile_cache import njit
from .._runtime.dispatch import entry_point, zeros

# compiled into the growers (grower.py) and the criteria; numba's on-disk cache of them is stamped with the
# digest of every source of mddf's compiled code, this file included (mddf/_compile_cache.py), so a change
# here makes numba compile them afresh on their next call.
MAX_BINS = 256


@entry_point(
    "bin_codes",
    lambda: [
        (*zeros((np.float32, 2), (np.float32, 2), (np.int64, 1), (codes, 2)), 0) for codes in (np.uint8, np.uint16)
    ],
)
@njit(cache=True, nogil=True)
def bin_codes(X, table, missing_bins, out, largest):
    """Write into ``out`` the bin of every value of ``X``: the number of entries of its feature's row of ``table``
    strictly below it, or ``missing_bins[j]`` for NaN. Return whether a NaN's code exceeded ``largest``, the
    largest code ``out`` holds (its entry is then wrong: bin again into a wider ``out``).

    Parameters
    ----------
    X : ndarray of float32 (n, d)
    table : ndarray of float32 (d, 256)
        Each feature's edges, in increasing order, padded with +inf (at most 255 edges, so the last entry is
        always padding and no value counts past it).
    missing_bins : ndarray of int64 (d,)
    out : ndarray of uint8 or uint16 (n, d)
    largest : int
    """
    n, d = X.shape
    overflow = False
    for i in range(n):
        for j in range(d):
            x = X[i, j]
            if x != x:
                overflow |= missing_bins[j] > largest
                out[i, j] = missing_bins[j]
                continue
            # b counts the entries below x: table[j, b + s - 1] < x means at least b + s of them (s = 128 .. 1);
            # each step adds a comparison's 0 or 1, without a branch for the processor to mispredict
            b = 128 * (table[j, 127] < x)
            b += 64 * (table[j, b + 63] < x)
            b += 32 * (table[j, b + 31] < x)
            b += 16 * (table[j, b + 15] < x)
            b += 8 * (table[j, b + 7] < x)
            b += 4 * (table[j, b + 3] < x)
            b += 2 * (table[j, b + 1] < x)
            b += table[j, b] < x
            out[i, j] = b
    return overflow


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
    has_missing_ : ndarray of bool (n_features,)
        Whether the feature held NaN among the fitted rows.
    exact_ : ndarray of bool (n_features,)
        Whether each distinct value of the feature among the fitted rows has a
        bin of its own (then the bins are the values, e.g. the categories of a
        categorical column).
    missing_bins_ : ndarray of int64 (n_features,)
        Code of NaN in each feature, ``len(edges_[j]) + 1``: one past its real bins.
    """

    def __init__(self, max_bins=MAX_BINS):
        if not 2 <= max_bins <= MAX_BINS:
            raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {max_bins}")
        self.max_bins = max_bins

    def fit(self, X):
        X = np.asarray(X, dtype=np.float32)
        self.has_missing_ = np.isnan(X).any(axis=0)
        columns = [self._column_edges(X[:, j], self.has_missing_[j]) for j in range(X.shape[1])]
        self.edges_ = [edges for edges, _ in columns]
        self.exact_ = np.array([exact for _, exact in columns], dtype=bool)
        self.missing_bins_ = np.array([len(e) + 1 for e in self.edges_], dtype=np.int64)
        return self

    def _column_edges(self, column, has_missing=False):
        max_bins = self.max_bins
        if has_missing:  # keep a code for the missing bin
            column = column[~np.isnan(column)]
            max_bins -= 1
            if len(column) == 0:
                return np.empty(0, dtype=np.float32), True
        values = np.unique(column)
        if len(values) <= max_bins:
            lower, upper = values[:-1], values[1:]
            mid = ((lower.astype(np.float64) + upper) / 2).astype(np.float32)
            # a float32 midpoint of two adjacent floats may round up onto the upper value,
            # which would put that value in the lower bin
            return np.where(mid < upper, mid, lower).astype(np.float32), True
        cuts = np.quantile(column, np.linspace(0, 1, max_bins + 1)[1:-1], method="inverted_cdf")
        cuts = np.unique(cuts.astype(np.float32))
        return cuts[cuts < values[-1]], False  # a cut at the maximum would leave its upper bin empty

    def joined(self, other):
        """The binner of this binner's columns followed by ``other``'s (both fitted): the same edges, column by column.

        Binning ``[X, Z]`` with ``a.joined(b)``, where ``a`` was fitted on ``X``
        and ``b`` on ``Z``, gives the codes ``a.fit([X, Z])`` would give: every
        column's edges depend on that column alone.
        """
        joined = FeatureBinner(self.max_bins)
        joined.edges_ = self.edges_ + other.edges_
        joined.has_missing_ = np.concatenate([self.has_missing_, other.has_missing_])
        joined.exact_ = np.concatenate([self.exact_, other.exact_])
        joined.missing_bins_ = np.concatenate([self.missing_bins_, other.missing_bins_])
        return joined

    def columns(self, start, stop=None):
        """The binner of the columns ``start`` to ``stop - 1`` (None: to the last), with the same edges."""
        part = FeatureBinner(self.max_bins)
        part.edges_ = self.edges_[start:stop]
        part.has_missing_ = self.has_missing_[start:stop]
        part.exact_ = self.exact_[start:stop]
        part.missing_bins_ = self.missing_bins_[start:stop]
        return part

    def transform(self, X):
        """Bin codes (C-contiguous, same shape as ``X``); NaN gets ``missing_bins_[j]``.

        The codes are uint8, unless a NaN falls in a feature with 256 real bins
        (then uint16).
        """
        X = np.ascontiguousarray(X, dtype=np.float32)
        if X.ndim != 2 or X.shape[1] != len(self.edges_):
            raise ValueError(f"X has shape {X.shape}; the binner was fitted on {len(self.edges_)} features")
        table, missing_bins = self._edge_table(), np.asarray(self.missing_bins_, dtype=np.int64)
        out = np.empty(X.shape, dtype=np.uint8)
        if bin_codes(X, table, missing_bins, out, np.iinfo(np.uint8).max):  # a NaN in a feature of 256 bins
            out = np.empty(X.shape, dtype=np.uint16)
            bin_codes(X, table, missing_bins, out, np.iinfo(np.uint16).max)
        return out

    def _edge_table(self):
        """The edges as one ``(n_features, 256)`` float32 table, each row padded with +inf (:func:`bin_codes`)."""
        table = np.full((len(self.edges_), MAX_BINS), np.inf, dtype=np.float32)
        for j, edges in enumerate(self.edges_):
            if len(edges) >= MAX_BINS:
                raise ValueError(f"feature {j} has {len(edges)} bin edges; at most {MAX_BINS - 1} are possible")
            table[j, : len(edges)] = edges
        return table

    def fit_transform(self, X):
        return self.fit(X).transform(X)
