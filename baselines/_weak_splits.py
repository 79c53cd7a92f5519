"""Best split of every leaf of a weak learner, compiled with numba (Cortes, Mohri and Syed 2014, Section 4).

:meth:`mddf.baselines._weak.SplitSearch.split_errors` computes the weighted error of every split
of every leaf as dense ``(leaf, bin)`` arrays. The tree growers only need each leaf's best split,
and on data with many distinct values (ocr17: 61,095 bins) most ``(leaf, bin)`` cells of a deep
level hold no sample of the leaf. :func:`best_splits` reads each leaf's best split off one pass
over the feature's entries sorted by value code, so a level costs O(entries + features x leaves)
instead of O(leaves x bins):

* the entries (samples whose value is not their feature's most frequent one, the "mode bin") are
  sorted once per fit by (feature, code, sample); a first pass over a feature's entries gives each
  leaf's weight outside the mode bin, hence in it, and in the missing bin;
* a second pass accumulates each leaf's left weights in code order and evaluates the threshold at
  a code of the leaf as soon as the leaf's next code (or the mode bin) is reached.

The result equals ``argmin`` over the dense errors exactly (same integer arithmetic, same order):
a bin holding no weight of the leaf has the error of the leaf's previous bin of the feature, so the
lowest bin reaching the minimum is a code the leaf holds, or the feature's first bin (where, with
missing rows sent left, the split is "missing vs present"); codes are visited feature-major in
increasing order with a strict ``<``.
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


@njit(cache=True, nogil=True, inline="always")
def _threshold_error(l_neg, l_pos, t_neg, t_pos, m_neg, m_pos, has_missing_bin):
    """(error, missing side) of ``x <= code`` given the leaf's weights left of it (scalars only:
    numba then inlines it without reference counting)."""
    err = _split_error(l_neg, l_pos, t_neg, t_pos)
    side = -1
    if has_missing_bin:
        err_left = _split_error(l_neg + m_neg, l_pos + m_pos, t_neg, t_pos)
        if err_left < err:
            err, side = err_left, 1
        elif m_neg + m_pos > 0:
            side = 0
    return err, side


@njit(cache=True, nogil=True)
def best_splits(
    rows,
    codes,
    column_start,
    offsets,
    mode_bin,
    missing_bin,
    is_pos,
    wq,
    leaf_of,
    n_leaves,
    best_bin,
    best_err,
    best_side,
):
    """Best split (lowest weighted error) of every leaf.

    Parameters
    ----------
    rows, codes : int ndarrays of shape (n_entries,)
        The (sample, global bin) entries outside the mode bins, sorted by (feature, code, sample).
    column_start : int ndarray of shape (n_used + 1,)
        Where each usable feature's entries start in ``rows``/``codes``.
    offsets : int ndarray of shape (n_used + 1,)
        Each usable feature's first global bin.
    mode_bin, missing_bin : int ndarrays of shape (n_used,)
        Each feature's most frequent bin, and its missing bin (-1 without NaN).
    is_pos : int ndarray of shape (n_samples,)
        1 for the positive class, 0 for the negative one.
    wq : int64 ndarray of shape (n_samples,)
        Quantised weights.
    leaf_of : int ndarray of shape (n_samples,)
        Leaf of every sample, ``0 .. n_leaves - 1``, or -1 for samples left out.
    n_leaves : int
    best_bin, best_err, best_side : ndarrays of shape (n_leaves,), written
        The best split's global bin (0 when there is none), its error (``NO_SPLIT`` when no split
        leaves both children non-empty), and the side of the leaf's missing rows (1: left,
        0: right, -1: the leaf has no missing row of that feature, or the feature no NaN).
    """
    # weights by (class, leaf) in flat arrays, cell class * n_leaves + leaf: no branch on the class
    tot = np.zeros(2 * n_leaves, dtype=np.int64)
    for row in range(len(leaf_of)):
        leaf = leaf_of[row]
        if leaf >= 0:
            tot[is_pos[row] * n_leaves + leaf] += wq[row]
    t_neg, t_pos = tot[:n_leaves], tot[n_leaves:]
    # per leaf, for the current feature: weight left of the current code, outside the mode bin,
    # in the missing bin (by class), and the last code added to the left
    lw = np.zeros(2 * n_leaves, dtype=np.int64)
    ow = np.zeros(2 * n_leaves, dtype=np.int64)
    mw = np.zeros(2 * n_leaves, dtype=np.int64)
    l_neg, l_pos = lw[:n_leaves], lw[n_leaves:]
    o_neg, o_pos = ow[:n_leaves], ow[n_leaves:]
    m_neg, m_pos = mw[:n_leaves], mw[n_leaves:]
    last = np.empty(n_leaves, dtype=np.int64)
    for leaf in range(n_leaves):
        best_bin[leaf], best_err[leaf], best_side[leaf] = 0, NO_SPLIT, -1
    for col in range(len(mode_bin)):
        lo, hi = column_start[col], column_start[col + 1]
        mode, missing, first = mode_bin[col], missing_bin[col], offsets[col]
        has_missing_bin = missing >= 0
        for leaf in range(n_leaves):
            l_neg[leaf] = 0
            l_pos[leaf] = 0
            o_neg[leaf] = 0
            o_pos[leaf] = 0
            last[leaf] = -1
        # pass 1: each leaf's weight outside the mode bin, and in the missing bin
        for e in range(lo, hi):
            row = rows[e]
            leaf = leaf_of[row]
            if leaf >= 0:
                ow[is_pos[row] * n_leaves + leaf] += wq[row]
        if has_missing_bin:
            for leaf in range(n_leaves):
                m_neg[leaf] = 0
                m_pos[leaf] = 0
            if mode == missing:
                for leaf in range(n_leaves):
                    m_neg[leaf] = t_neg[leaf] - o_neg[leaf]
                    m_pos[leaf] = t_pos[leaf] - o_pos[leaf]
            else:
                e = hi - 1
                while e >= lo and codes[e] == missing:
                    row = rows[e]
                    leaf = leaf_of[row]
                    if leaf >= 0:
                        mw[is_pos[row] * n_leaves + leaf] += wq[row]
                    e -= 1
        # pass 2: left weights in code order; the mode bin joins where its code falls. With a missing
        # bin, a leaf holding nothing at the feature's first bin also gets the split "missing rows
        # left, the others right" there (the lowest bin where the dense errors have it).
        split_at = lo + np.searchsorted(codes[lo:hi], mode)  # the entries below the mode bin come first
        for part in range(2):
            if part == 1:
                for leaf in range(n_leaves):
                    w_neg = t_neg[leaf] - o_neg[leaf]
                    w_pos = t_pos[leaf] - o_pos[leaf]
                    if w_neg + w_pos == 0:
                        continue
                    prev = last[leaf]
                    if prev >= 0 or (has_missing_bin and mode != first):
                        at = prev if prev >= 0 else first
                        err, side = _threshold_error(
                            l_neg[leaf], l_pos[leaf], t_neg[leaf], t_pos[leaf], m_neg[leaf], m_pos[leaf],
                            has_missing_bin and at != missing,
                        )  # fmt: skip
                        if err < best_err[leaf]:
                            best_err[leaf], best_bin[leaf], best_side[leaf] = err, at, side
                    l_neg[leaf] += w_neg
                    l_pos[leaf] += w_pos
                    last[leaf] = mode
            for e in range(lo if part == 0 else split_at, split_at if part == 0 else hi):
                row = rows[e]
                leaf = leaf_of[row]
                if leaf < 0:
                    continue
                code = codes[e]
                prev = last[leaf]
                if prev != code and (prev >= 0 or (has_missing_bin and code != first)):
                    at = prev if prev >= 0 else first
                    err, side = _threshold_error(
                        l_neg[leaf], l_pos[leaf], t_neg[leaf], t_pos[leaf], m_neg[leaf], m_pos[leaf],
                        has_missing_bin and at != missing,
                    )  # fmt: skip
                    if err < best_err[leaf]:
                        best_err[leaf], best_bin[leaf], best_side[leaf] = err, at, side
                lw[is_pos[row] * n_leaves + leaf] += wq[row]
                last[leaf] = code
        # a leaf's last code sends every row left: never a split
