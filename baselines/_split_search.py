"""The weak learners' exhaustive split search (:class:`SplitSearch`), in exact integer arithmetic on quantised
weights (:func:`quantize_weights`).

At each level of a tree the (class, leaf, value) histogram of all leaves and all features is built in one pass over
the samples' values, the weighted class totals left of every threshold are running sums along the values, and each
leaf's best split is the running minimum of the weighted errors; only leaves that can still be improved are
histogrammed. The growers use the compiled search of :mod:`mddf.baselines._weak_splits`;
:meth:`SplitSearch.split_errors` computes the same errors for every (leaf, bin) at once with numpy.
"""

from __future__ import annotations

import numpy as np

from ._binned_features import BinnedFeatures
from ._weak_splits import best_splits

#: Weights are quantised to integers summing to about 2**QUANT_BITS before the search, so that
#: every histogram, cumulative sum and error below is exact integer arithmetic: ties are exact
#: (hence deterministic), emptiness of a child is exact, and numpy's integer cumsum is faster
#: than its floating-point one. Sums stay below 2**53, exact in float64 too.
QUANT_BITS = 50


def quantize_weights(w):
    """Integer-valued float64 weights ``max(1, rint(w / sum(w) * 2**QUANT_BITS))``.

    Every sample keeps a weight of at least one unit (2**-50 of the total), so an empty child is
    exactly a child of zero weight.
    """
    w = np.asarray(w, dtype=np.float64)
    return np.maximum(np.rint(w * (2.0**QUANT_BITS / w.sum())), 1.0)


def quantize_copies(w, copies):
    """Quantised weights of rows that stand for ``copies`` (integer-valued) repeated rows.

    ``copies * max(1, rint(w / copies * 2**QUANT_BITS / sum(w)))``: each copy is quantised as a row of its
    own would be, so sums over rows (histograms, errors) equal those of the repeated rows exactly and
    splits whose errors tie for the repeated rows tie here too (up to the rare rounding of a value at
    exactly half a unit).
    """
    w = np.asarray(w, dtype=np.float64)
    return copies * np.maximum(np.rint((w / copies) * (2.0**QUANT_BITS / w.sum())), 1.0)


#: The most copies (sum of the integer sample weights) quantised copy by copy. Each copy gets at least
#: one unit, so beyond 2**QUANT_BITS copies the floor of one unit would outweigh D_t itself (and the
#: integer sums overflow int64 past 2**63); up to 2**30 copies, a copy of average weight still gets about
#: 2**20 units. Above it the copies are quantised as plain weights, which depends only on the ratios
#: of the weights: any scale of the sample weights gives the same search.
MAX_QUANTIZED_COPIES = 2.0**30


def quantize(w, copies):
    if copies is None or copies.sum() > MAX_QUANTIZED_COPIES:
        return quantize_weights(w)
    return quantize_copies(w, copies)


class SplitSearch:
    """Exhaustive split search over all leaves and features of a growing tree (one per fit and class).

    Parameters
    ----------
    binned : BinnedFeatures
    y : ndarray of shape (n_samples,) in {-1, +1}
    """

    _NO_SPLIT = np.iinfo(np.int64).max
    #: Bound on the scratch histogram of :meth:`best_splits` (bytes), reached only with millions
    #: of distinct feature values; a single leaf's histogram is always allowed.
    max_scratch_bytes = 256 * 2**20

    def __init__(self, binned: BinnedFeatures, y):
        self.binned = binned
        self.is_pos = (np.asarray(y) > 0).astype(np.int64)
        self.n_samples = len(self.is_pos)
        # Histogram cell of an entry for a single leaf: class * n_bins + bin.
        self.root_cells = binned.entry_codes + (self.is_pos * binned.n_bins)[binned.entry_rows]
        # Where each feature's bins start: running sums restart there (a feature's bins
        # partition the leaf, so the previous feature's running sum ends at the leaf total).
        self.reset_at = binned.offsets[1:-1]
        # The arrays the compiled search reads, typed for it, and its scratch histogram.
        self._offsets = np.asarray(binned.offsets, dtype=np.int64)
        self._mode_bin = np.asarray(binned.mode_bin, dtype=np.int64)
        self._missing_bin = np.asarray(binned.missing_bin, dtype=np.int64)
        self._scratch = None

    def best_splits(self, wq_int, leaf_of, n_leaves):
        """Each leaf's best split: (bin, error, missing side) as ``argmin`` over :meth:`split_errors`.

        ``wq_int`` are the quantised weights as int64; ``leaf_of`` as in :meth:`split_errors`.
        Compiled (:func:`mddf.baselines._weak_splits.best_splits`). Its scratch histogram holds
        ``2 * n_bins`` int64 per leaf and is kept between calls; when all leaves would need more
        than :attr:`max_scratch_bytes`, the leaves are searched in groups that fit (each group
        one more pass over the entries; the splits are the same).
        """
        leaf_of = np.ascontiguousarray(leaf_of, dtype=np.int64)
        per_leaf = 2 * max(self.binned.n_bins, 1)
        chunk = int(max(1, min(n_leaves, self.max_scratch_bytes // (8 * per_leaf))))
        if self._scratch is None or len(self._scratch) < chunk * per_leaf:
            self._scratch = np.zeros(chunk * per_leaf, dtype=np.int64)
        best_bin = np.empty(n_leaves, dtype=np.int64)
        best_err = np.empty(n_leaves, dtype=np.int64)
        best_side = np.empty(n_leaves, dtype=np.int8)
        for first in range(0, n_leaves, chunk):
            last = min(first + chunk, n_leaves)
            if (first, last) == (0, n_leaves):
                chunk_leaf_of = leaf_of
            else:
                chunk_leaf_of = np.where((leaf_of >= first) & (leaf_of < last), leaf_of - first, -1)
            best_splits(
                self.binned.row_start,
                self.binned.row_codes,
                self._offsets,
                self._mode_bin,
                self._missing_bin,
                self.is_pos,
                wq_int,
                chunk_leaf_of,
                last - first,
                self._scratch,
                best_bin[first:last],
                best_err[first:last],
                best_side[first:last],
            )
        return best_bin, best_err, best_side

    def entry_weights(self, wq):
        """The weights of the histogrammed entries (computed once per round)."""
        return wq[self.binned.entry_rows]

    def leaf_totals(self, wq, leaf_of, n_leaves):
        """Quantised weights of each leaf by class: int64 array (2, n_leaves) = (negative, positive)."""
        idx = self.is_pos * n_leaves + leaf_of
        return np.bincount(idx, weights=wq, minlength=2 * n_leaves).astype(np.int64).reshape(2, n_leaves)

    def split_errors(self, wq, w_entries, leaf_of, n_leaves, return_missing=False):
        """Weighted error (quantised units) of every split of every leaf.

        Parameters
        ----------
        wq : ndarray of shape (n_samples,)
            Quantised weights (:func:`quantize_weights`).
        w_entries : ndarray
            ``entry_weights(wq)``.
        leaf_of : ndarray of shape (n_samples,)
            Leaf of each sample in ``0 .. n_leaves - 1``, or -1 for samples to leave out.
        n_leaves : int

        Returns
        -------
        err : int64 ndarray of shape (n_leaves, n_bins)
            Error of the split ``x[feature] <= bin value`` with both children predicting their
            weighted majority, i.e. min(neg, pos) of the left plus that of the right child;
            ``_NO_SPLIT`` where a child would be empty (including every feature's last bin).
        totals : int64 ndarray of shape (2, n_leaves)
        missing_side : int8 ndarray of shape (n_leaves, n_bins) or None
            Only with ``return_missing``, None when no feature has NaN. For the split at each bin:
            1 if the leaf's missing rows go left (strictly lower error), 0 if they go right (some
            are missing), -1 if none of the leaf's rows is missing for that feature. ``err`` is the
            error with the missing rows on their side.
        """
        b = self.binned
        n_bins = b.n_bins
        cls_leaf = self.is_pos * n_leaves + leaf_of
        left_out = leaf_of < 0
        cls_leaf[left_out] = 2 * n_leaves  # a dump cell block past the end
        totals = np.bincount(cls_leaf, weights=wq, minlength=2 * n_leaves + 1)[: 2 * n_leaves]
        totals = totals.astype(np.int64).reshape(2, n_leaves)
        if n_bins == 0:
            empty = np.empty((n_leaves, 0), dtype=np.int64)
            return (empty, totals, None) if return_missing else (empty, totals)
        if n_leaves == 1 and not left_out.any():
            idx = self.root_cells
        else:
            idx = b.entry_codes + (cls_leaf * n_bins)[b.entry_rows]
        size = 2 * n_leaves * n_bins
        hist = np.bincount(idx, weights=w_entries, minlength=size + n_bins)[:size]
        hist = hist.astype(np.int64).reshape(2, n_leaves, n_bins)
        # Mode bins hold what the other bins of their feature do not.
        seg = np.add.reduceat(hist, b.offsets[:-1], axis=2)
        hist[:, :, b.mode_bin] = totals[:, :, None] - seg
        missing = hist[:, :, b.missing_bins] if b.has_missing else None  # a copy (fancy indexing)
        hist[:, :, self.reset_at] -= totals[:, :, None]
        np.cumsum(hist, axis=2, out=hist)  # now: totals left of (and including) each bin
        neg, pos = hist[0], hist[1]
        if missing is not None:
            # The same splits with the missing rows sent left instead of right.
            sel, mi = b.split_bins, b.split_missing_index
            m_neg, m_pos = missing[0][:, mi], missing[1][:, mi]
            l_neg, l_pos = neg[:, sel] + m_neg, pos[:, sel] + m_pos
            err_left = np.minimum(l_neg, l_pos) + np.minimum(totals[0][:, None] - l_neg, totals[1][:, None] - l_pos)
            l_count = l_neg + l_pos
            err_left[(l_count == 0) | (l_count == (totals[0] + totals[1])[:, None])] = self._NO_SPLIT
            has_missing = (m_neg + m_pos) > 0
        count = neg + pos
        err = np.minimum(neg, pos)
        np.subtract(totals[0][:, None], neg, out=neg)  # now: totals right of each bin
        np.subtract(totals[1][:, None], pos, out=pos)
        err += np.minimum(neg, pos)
        empty = count == 0
        empty |= count == (totals[0] + totals[1])[:, None]
        err[empty] = self._NO_SPLIT
        if not return_missing:
            return err, totals
        if missing is None:
            return err, totals, None
        side = np.full(err.shape, -1, dtype=np.int8)
        go_left = err_left < err[:, sel]
        err[:, sel] = np.where(go_left, err_left, err[:, sel])
        side[:, sel] = np.where(go_left, 1, np.where(has_missing, 0, -1))
        return err, totals, side
