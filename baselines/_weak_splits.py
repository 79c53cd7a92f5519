"""Best split of every leaf of a weak learner, compiled with numba (Cortes, Mohri and Syed 2014, Section 4).

:meth:`mddf.baselines._split_search.SplitSearch.split_errors` computes the weighted error of every split
of every leaf as dense ``(leaf, bin)`` numpy arrays, in about a dozen passes over them.
The tree growers only need each leaf's best split: :func:`best_splits` computes it with the same
integer arithmetic in one pass over the histogrammed entries and one fused pass over each leaf's
bins (histogram, cumulative sums, both missing sides, running minimum), and leaves its scratch
histogram zeroed for the next call. The entries are read row by row, so the rows of leaves left
out of the search cost one test each and a row's weight and histogram offset are loaded once.

The result equals ``argmin`` over the dense errors exactly: the same error at every bin, bins
visited feature-major in increasing order, a strict ``<``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NO_SPLIT = np.iinfo(np.int64).max


@njit(cache=True, nogil=True, inline="always")
def _split_error(l_neg, l_pos, t_neg, t_pos):
    count = l_neg + l_pos
    if count == 0 or count == t_neg + t_pos:
        return NO_SPLIT
    return min(l_neg, l_pos) + min(t_neg - l_neg, t_pos - l_pos)


@njit(cache=True, nogil=True)
def best_splits(
    row_start,
    row_codes,
    offsets,
    mode_bin,
    missing_bin,
    is_pos,
    wq,
    leaf_of,
    n_leaves,
    hist,
    best_bin,
    best_err,
    best_side,
):
    """Best split (lowest weighted error) of every leaf.

    Parameters
    ----------
    row_start : int ndarray of shape (n_samples + 1,)
        Where each sample's entries start in ``row_codes``, and their number.
    row_codes : int ndarray of shape (n_entries,)
        The global bins of the (sample, feature) entries outside the mode bins
        (:class:`~mddf.baselines._binned_features.BinnedFeatures`), grouped by sample.
    offsets : int ndarray of shape (n_used + 1,)
        Each usable feature's first global bin, and the number of bins.
    mode_bin, missing_bin : int ndarrays of shape (n_used,)
        Each feature's most frequent bin, and its missing bin (-1 without NaN).
    is_pos : int ndarray of shape (n_samples,)
        1 for the positive class, 0 for the negative one.
    wq : int64 ndarray of shape (n_samples,)
        Quantised weights.
    leaf_of : int ndarray of shape (n_samples,)
        Leaf of every sample, ``0 .. n_leaves - 1``, or -1 for samples left out.
    n_leaves : int
    hist : int64 ndarray of at least ``2 * n_leaves * n_bins`` elements, all zero
        Scratch space; all zero again on return.
    best_bin, best_err, best_side : ndarrays of shape (n_leaves,), written
        The best split's global bin (0 when there is none), its error (``NO_SPLIT`` when no split
        leaves both children non-empty), and the side of the leaf's missing rows (1: left,
        0: right, -1: the leaf has no missing row of that feature, or the feature no NaN).
    """
    n_bins = offsets[len(offsets) - 1]
    totals = np.zeros(2 * n_leaves, dtype=np.int64)
    # leaf totals, and the histogram of the entries: cell 2 * (leaf * n_bins + bin) + class
    for row in range(len(leaf_of)):
        leaf = leaf_of[row]
        if leaf >= 0:
            w = wq[row]
            totals[2 * leaf + is_pos[row]] += w
            cell = 2 * leaf * n_bins + is_pos[row]
            for e in range(row_start[row], row_start[row + 1]):
                hist[cell + 2 * row_codes[e]] += w
    for leaf in range(n_leaves):
        t_neg, t_pos = totals[2 * leaf], totals[2 * leaf + 1]
        base = 2 * leaf * n_bins
        b_err, b_bin, b_side = NO_SPLIT, 0, -1
        for col in range(len(mode_bin)):
            lo, hi = offsets[col], offsets[col + 1]
            s_neg, s_pos = 0, 0
            for b in range(lo, hi):
                s_neg += hist[base + 2 * b]
                s_pos += hist[base + 2 * b + 1]
            if s_neg + s_pos == 0:
                # every row of the leaf is at the mode bin (weights are >= 1): no split, nothing to clear
                continue
            mode, missing = mode_bin[col], missing_bin[col]
            # the mode bin holds what the feature's other bins do not
            hist[base + 2 * mode] = t_neg - s_neg
            hist[base + 2 * mode + 1] = t_pos - s_pos
            m_neg, m_pos = 0, 0
            if missing >= 0:
                m_neg, m_pos = hist[base + 2 * missing], hist[base + 2 * missing + 1]
            l_neg, l_pos = 0, 0
            for b in range(lo, hi):
                l_neg += hist[base + 2 * b]
                l_pos += hist[base + 2 * b + 1]
                hist[base + 2 * b] = 0
                hist[base + 2 * b + 1] = 0
                err = _split_error(l_neg, l_pos, t_neg, t_pos)
                side = -1
                if missing >= 0 and b != missing:
                    err_left = _split_error(l_neg + m_neg, l_pos + m_pos, t_neg, t_pos)
                    if err_left < err:
                        err, side = err_left, 1
                    elif m_neg + m_pos > 0:
                        side = 0
                if err < b_err:
                    b_err, b_bin, b_side = err, b, side
        best_bin[leaf], best_err[leaf], best_side[leaf] = b_bin, b_err, b_side
