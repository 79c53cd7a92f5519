"""The weak learners' input: every feature reduced once per fit to dense value codes (:class:`BinnedFeatures`).

Missing values (NaN): a feature with NaN at training gets one extra bin after its values, the missing bin.
"""

from __future__ import annotations

import numpy as np


class BinnedFeatures:
    """Each feature's sorted distinct values and every sample's value code, computed once per fit.

    Only features with at least two distinct values can be split, so only those get codes.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32
        Training inputs, finite or NaN (missing).

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_used), int32
        Global bin code of every sample for every usable feature: ``offsets[c] + rank`` where
        ``rank`` is the rank of the sample's value among the feature's distinct values.
    used_features : ndarray of shape (n_used,), int
        Original index of each usable feature (column of ``codes``).
    offsets : ndarray of shape (n_used + 1,)
        First global bin of each usable feature, and the total number of bins.
    n_bins : int
        Total number of (feature, distinct value) bins.
    bin_values, bin_feature, bin_column : ndarray of shape (n_bins,)
        For every bin: its value (float32), original feature, and column in ``codes``.
    mode_bin : ndarray of shape (n_used,)
        Global bin of each feature's most frequent value (lowest on ties).
    entry_rows, entry_codes : ndarray of shape (n_entries,)
        Feature-major list of the (sample, global bin) entries not at their feature's mode bin.
    row_start, row_codes : ndarray of shape (n_samples + 1,) and (n_entries,)
        The same entries grouped by sample (each sample's in column order): sample i's global bins
        are ``row_codes[row_start[i]:row_start[i + 1]]``.
    has_missing : bool
        Whether any usable feature has NaN; then:
    missing_bin : ndarray of shape (n_used,)
        Global bin of each usable feature's missing values (its last bin, value NaN), -1 without NaN.
    missing_bins : ndarray
        The missing bins that exist, in column order.
    split_bins : ndarray
        The value bins of the features with a missing bin (where a split can send NaN left).
    split_missing_index : ndarray of shape (len(split_bins),)
        Index into ``missing_bins`` of the feature of each of ``split_bins``.
    """

    def __init__(self, X):
        X = np.asarray(X, dtype=np.float32)
        n_samples, n_features = X.shape
        self.n_samples, self.n_features = n_samples, n_features
        order = np.argsort(X, axis=0, kind="stable")
        xs = np.take_along_axis(X, order, axis=0)
        is_new = np.ones_like(xs, dtype=bool)
        is_new[1:] = xs[1:] != xs[:-1]
        nan_sorted = np.isnan(xs) if np.isnan(xs[-1:]).any() else None  # NaN sorts last
        if nan_sorted is not None:
            is_new[1:] &= ~(nan_sorted[1:] & nan_sorted[:-1])  # all NaN share one bin
        rank = np.cumsum(is_new, axis=0, dtype=np.int64) - 1
        n_unique = rank[-1] + 1 if n_samples else np.zeros(n_features, dtype=np.int64)
        used = np.flatnonzero(n_unique >= 2)
        sizes = n_unique[used]
        self.used_features = used
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.n_bins = int(self.offsets[-1])
        # Feature-major listing of the distinct values of the usable features.
        self.bin_values = xs.T[used][is_new.T[used]].astype(np.float32)
        self.bin_column = np.repeat(np.arange(len(used)), sizes)
        self.bin_feature = used[self.bin_column]
        codes = np.empty((n_samples, len(used)), dtype=np.int64)
        np.put_along_axis(codes, order[:, used], rank[:, used] + self.offsets[:-1], axis=0)
        dtype = np.int32 if self.n_bins < 2**31 else np.int64
        self.codes = np.ascontiguousarray(codes, dtype=dtype)
        # The most frequent value of each feature ("mode bin", lowest on ties): its histogram
        # entry is obtained by subtraction, so only the other (sample, feature) entries are
        # histogrammed -- a large saving on sparse data such as MNIST pixels.
        counts = np.bincount(codes.ravel(), minlength=self.n_bins)
        if self.n_bins:
            seg_max = np.maximum.reduceat(counts, self.offsets[:-1])
            at_max = np.flatnonzero(counts == seg_max[self.bin_column])
            _, first = np.unique(self.bin_column[at_max], return_index=True)
            self.mode_bin = at_max[first]
        else:
            self.mode_bin = np.zeros(0, dtype=np.int64)
        # The other entries, feature-major (the numpy split search: updates of one feature hit a
        # small, cache-resident block of bins) and grouped by row (the compiled search: a row's
        # leaf and weight are read once for all its entries).
        codes_t = codes.T
        keep = codes_t != self.mode_bin[:, None]
        self.entry_codes = codes_t[keep]
        self.entry_rows = np.broadcast_to(np.arange(n_samples), codes_t.shape)[keep]
        keep_by_row = keep.T
        self.row_codes = codes[keep_by_row].astype(dtype)
        self.row_start = np.concatenate([[0], np.cumsum(keep_by_row.sum(axis=1))]).astype(np.int64)
        self.missing_bin = np.full(len(used), -1, dtype=np.int64)
        if nan_sorted is not None:
            has_nan = nan_sorted[-1, used]
            self.missing_bin[has_nan] = self.offsets[1:][has_nan] - 1
        self.has_missing = bool(np.any(self.missing_bin >= 0))
        self.missing_bins = self.missing_bin[self.missing_bin >= 0]
        index = np.cumsum(self.missing_bin >= 0) - 1
        bin_miss = self.missing_bin[self.bin_column] if self.n_bins else np.zeros(0, dtype=np.int64)
        self.split_bins = np.flatnonzero((bin_miss >= 0) & (np.arange(self.n_bins) != bin_miss))
        self.split_missing_index = index[self.bin_column[self.split_bins]]

    @property
    def n_used(self) -> int:
        return len(self.used_features)
