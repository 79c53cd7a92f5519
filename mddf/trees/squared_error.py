"""The squared-error criterion of regression trees on binned features, compiled with numba.

The criterion is scikit-learn's ``DecisionTreeRegressor(criterion="squared_error")``.
A node's statistics are ``(W, S, Q)``: its weight, weighted target sum and
weighted sum of squared targets. Its impurity is its weighted variance, and
splitting it into children L and R decreases ``w_node * var_node`` by

    S_L^2 / W_L + S_R^2 / W_R - S_node^2 / W_node.

The last term is the node's own, so a split is scored by the proxy
``S_L^2 / W_L + S_R^2 / W_R`` (higher is better), as scikit-learn's criterion
does (``proxy_impurity_improvement``). A threshold costs O(1): a feature's rows
are first summed per bin (weight, weighted target sum and row count), on a
histogram for larger nodes and by an insertion sort for a few rows, then the
bins are scanned in order.

Split searches on one feature of a node, as in :mod:`mddf.trees.gini`:
:func:`best_threshold` (with the missing rows, when the node has some, tried on
either side), :func:`best_subset` (the categories sorted by their mean target,
every prefix scored: the optimal partition for the squared error, Fisher 1958)
and ``split_score`` (a given threshold or subset). ``partition``, ``add_rows``
and ``split_score`` are the loops of :mod:`mddf.trees.loops` compiled with
this module's per-row functions (:func:`add_row`, :func:`left_start`,
:func:`left_row`, :func:`left_score`); they and the node functions are what
:func:`mddf.trees.grower.grow_tree` asks of the criterion.
"""

from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np

from .._runtime.compile_cache import njit
from ._kernel import inline_kernel, kernel
from .binning import MAX_BINS
from .loops import insert_sorted, row_loops, scored, scored_twins, sort_by_key
from .monotone import monotone_checks, ordered_search
from .splitting import CATEGORY_WORDS, CONSTANT, Candidate

# the growers (grower.py) hold this module's functions compiled in; numba's on-disk cache of them is stamped
# with the digest of every source of mddf's compiled code, this file included (mddf/_compile_cache.py), so an
# edit here makes numba compile them afresh on their next call.

#: The labels it grows on: real targets (:mod:`mddf.trees.criterion`).
LABEL_KINDS = "f"
LABEL_NDIM = 1

_INSERTION_SORT_ROWS = 24
#: A node whose weighted variance is at most this is a leaf (scikit-learn's rule), on targets scaled by
#: :func:`target_exponent` so that the rule does not depend on their unit.
_EPSILON = np.finfo(np.float64).eps

#: Scratch space of the split searches, allocated once per tree (:func:`new_buffers`).
SquaredErrorBuffers = namedtuple(
    "SquaredErrorBuffers",
    [
        "bin_sum",  # (MAX_BINS,) histogram: weighted target sum, weight and rows per bin; zero outside calls
        "bin_weight",
        "bin_count",
        "out_bin",  # (MAX_BINS,) the node's non-empty bins in order, with their sums, weights and rows
        "out_sum",
        "out_weight",
        "out_count",
        "key",  # (MAX_BINS,) sort key of the categories present
        "order",  # (MAX_BINS,) positions of the non-empty bins in sort order
        "left",  # not used (the Gini criterion's scratch space of a split's score)
    ],
)


@njit(cache=True, nogil=True, internal=True)
def new_buffers(n_statistics, m):
    """The split searches' scratch space (its size does not depend on the tree's ``m`` rows)."""
    return SquaredErrorBuffers(
        np.zeros(MAX_BINS),
        np.zeros(MAX_BINS),
        np.zeros(MAX_BINS, dtype=np.int64),
        np.empty(MAX_BINS, dtype=np.int64),
        np.empty(MAX_BINS),
        np.empty(MAX_BINS),
        np.empty(MAX_BINS, dtype=np.int64),
        np.empty(MAX_BINS),
        np.empty(MAX_BINS, dtype=np.int64),
        np.zeros(1),
    )


def target_exponent(y, w):
    """The power of two ``e`` by which :func:`mddf.trees.grow_tree` divides the targets: 0 unless they are small.

    A node is a leaf once its weighted variance is at most the float64 machine
    epsilon (about 2.2e-16), scikit-learn's absolute threshold, which would make
    every tree of targets below about 1e-8 a single leaf. Targets whose largest
    magnitude ``M`` over the rows of positive weight is below 1/2 are therefore
    grown as ``y / 2**e``, with ``e`` such that ``M / 2**e`` lies in [1/2, 1), and
    the tree's leaf values and importances scaled back (by ``2**e`` and
    ``2**(2 e)``): a power of two changes no bit of the sums, the scores or the
    splits, so the threshold applies as ``epsilon * 4**e``, relative to the
    targets' scale, and a tree of ``y * 2**k`` is that of ``y`` with its values
    times ``2**k``. Targets of larger magnitude are grown as they are (``e = 0``).

    Parameters
    ----------
    y : ndarray of float64 (n,)
    w : ndarray of float64 (n,)
        Row weights; rows of weight 0 do not count.

    Returns
    -------
    int
    """
    weighted = y[w > 0.0]
    if weighted.size == 0:
        return 0
    largest = max(-float(weighted.min()), float(weighted.max()))
    if not 0.0 < largest < 0.5:  # zero (a constant tree), not finite, or large enough
        return 0
    return int(np.frexp(largest)[1])


# ------------------------------------------------------------------------------------- node
@njit(cache=True, nogil=True, internal=True)
def new_labels(m, n_classes=0):
    """The targets of a tree's ``m`` rows."""
    return np.empty(m)


@njit(cache=True, nogil=True, inline="always")
def swap_labels(node_y, i, j):
    """Exchange the targets of rows i and j (a node's partition)."""
    label = node_y[i]
    node_y[i] = node_y[j]
    node_y[j] = label


@njit(cache=True, nogil=True, internal=True)
def n_statistics(n_classes):
    """Length of a node's statistics."""
    return 3


@njit(cache=True, nogil=True, inline="always")
def add_row(sums, label, weight):
    """Add a row of target ``label`` and weight ``weight`` to the sums ``(W, S, Q)``."""
    sums[0] += weight
    sums[1] += weight * label
    sums[2] += weight * label * label


@njit(cache=True, nogil=True, internal=True)
def new_leaf_values(n_rows, n_classes):
    """The means of a tree's leaves (float64, one row per leaf, one column)."""
    return np.empty((n_rows, 1))


@njit(cache=True, nogil=True, internal=True)
def importance_centre(root, root_weight):
    """The root's weighted mean target, about which the importance terms are taken (:func:`node_summary`)."""
    return root[1] / root_weight


@njit(cache=True, nogil=True, inline="always")
def total_weight(sums):
    """The weight ``W`` of a node."""
    return sums[0]


@njit(cache=True, nogil=True, inline="always")
def node_summary(sums, centre):
    """``(weight, splittable, importance_term)`` of a node of sums ``(W, S, Q)``.

    A node can be split while its weighted variance exceeds the float64
    machine epsilon. The importance term is ``(S - centre W)^2 / W``, taken
    about the root's mean ``centre``: ``w var = Q - S^2 / W``, so a split's
    decrease is its children's terms less its own (the sums of squares cancel),
    and centring keeps the terms from cancelling against large sums.
    """
    node_weight = sums[0]
    node_sum = sums[1]
    centred = node_sum - centre * node_weight
    term = centred * centred / node_weight if node_weight > 0.0 else 0.0
    mean = node_sum / node_weight if node_weight > 0.0 else 0.0
    impurity = sums[2] / node_weight - mean * mean if node_weight > 0.0 else 0.0
    return node_weight, impurity > _EPSILON, term


@njit(cache=True, nogil=True, inline="always")
def write_leaf(sums, node_weight, leaf_values, n_rows):
    """Write the leaf's weighted mean target ``S / W`` to row ``n_rows`` of ``leaf_values``.

    Returns the leaf's entry of ``right``, ``-(n_rows + 1)``, and the new row count.
    """
    leaf_values[n_rows, 0] = sums[1] / node_weight if node_weight > 0.0 else 0.0
    return -(n_rows + 1), n_rows + 1


@njit(cache=True, nogil=True, inline="always")
def node_value(sums):
    """The value a monotone constraint orders: the weighted mean target ``S / W`` (0 for no weight)."""
    return sums[1] / sums[0] if sums[0] > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def write_bounded_leaf(sums, node_weight, leaf_values, n_rows, lower, upper):
    """:func:`write_leaf` of a tree with monotone constraints: the mean target clipped into ``[lower, upper]``."""
    leaf_values[n_rows, 0] = min(max(node_value(sums), lower), upper)
    return -(n_rows + 1), n_rows + 1


# ------------------------------------------------------------------------------- thresholds
@kernel
def _bin_sums(buf, Xb, node_y, node_w, samples, start, end, f):
    """Sum the node's rows of feature ``f`` per bin; returns the number ``k`` of non-empty bins.

    ``out_*[:k]`` receive, in increasing bin order, each non-empty bin's code,
    weighted target sum, weight and row count. ``bin_sum``, ``bin_weight`` and
    ``bin_count`` are zero on entry and on exit.
    """
    bin_sum, bin_weight, bin_count = buf.bin_sum, buf.bin_weight, buf.bin_count
    out_bin, out_sum, out_weight, out_count = buf.out_bin, buf.out_sum, buf.out_weight, buf.out_count
    n_node = end - start
    if n_node <= _INSERTION_SORT_ROWS:
        # a few rows: insertion sort by bin, then merge the rows of equal bins
        for i in range(n_node):
            h = node_w[start + i]
            insert_sorted(i, out_bin, out_sum, out_weight, Xb[samples[start + i], f], h * node_y[start + i], h)
        k = 0
        for i in range(n_node):
            if i > 0 and out_bin[i] == out_bin[k - 1]:
                out_sum[k - 1] += out_sum[i]
                out_weight[k - 1] += out_weight[i]
                out_count[k - 1] += 1
            else:
                out_bin[k] = out_bin[i]
                out_sum[k] = out_sum[i]
                out_weight[k] = out_weight[i]
                out_count[k] = 1
                k += 1
        return k
    # larger node: a histogram over the node's range of bins
    lo = 1 << 16
    hi = -1
    for i in range(start, end):
        b = Xb[samples[i], f]
        h = node_w[i]
        bin_sum[b] += h * node_y[i]
        bin_weight[b] += h
        bin_count[b] += 1
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    k = 0
    for b in range(lo, hi + 1):
        if bin_count[b] > 0:
            out_bin[k] = b
            out_sum[k] = bin_sum[b]
            out_weight[k] = bin_weight[b]
            out_count[k] = bin_count[b]
            k += 1
            bin_sum[b] = 0.0
            bin_weight[b] = 0.0
            bin_count[b] = 0
    return k


@inline_kernel
def best_threshold(buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, node_sums, node_weight, missing_bins):
    """Best squared-error threshold of feature ``f`` on the node's rows ``samples[start:end]``, as a :data:`Candidate`.

    The score ``S_L^2 / W_L + S_R^2 / W_R`` is -1 when the feature is constant
    in the node, and the side then :data:`~mddf.trees.splitting.CONSTANT`.
    ``node_y`` and ``node_w`` are the target and weight of
    ``samples[i]`` at position i; ``node_sums`` the node's ``(W, S, Q)``.
    ``missing_bins[f]`` is the code of NaN in feature ``f`` (-1 when the feature
    has none; ``missing_bins`` is None when no feature has any).
    """
    out_bin, out_sum, out_weight = buf.out_bin, buf.out_sum, buf.out_weight
    node_sum = node_sums[1]
    k = _bin_sums(buf, Xb, node_y, node_w, samples, start, end, f)
    if k < 2:
        return Candidate(-1.0, 0, CONSTANT)
    best = -1.0
    best_bin = 0
    side = -1
    n_real = k
    if missing_bins is not None:
        if out_bin[k - 1] == missing_bins[f]:  # the missing bin is the feature's last code
            n_real = k - 1
    s_left = 0.0
    w_left = 0.0
    if n_real == k:
        for i in range(k - 1):
            s_left += out_sum[i]
            w_left += out_weight[i]
            s_right = node_sum - s_left
            # (a child of no weight: rounding, when rows weigh next to nothing)
            best, best_bin, side = scored(
                best, best_bin, side, out_bin[i], -1, s_left * s_left, w_left, s_right * s_right, node_weight
            )
        return Candidate(best, best_bin, side)
    # missing rows in the node: each threshold between real bins with them right and with them left,
    # and the split of the real rows (left) from the missing ones (right)
    s_missing = out_sum[k - 1]
    w_missing = out_weight[k - 1]
    for i in range(n_real):
        s_left += out_sum[i]
        w_left += out_weight[i]
        s_right = node_sum - s_left
        s_left_m = s_left + s_missing
        s_right_m = node_sum - s_left_m
        sums = (s_left * s_left, s_right * s_right, s_left_m * s_left_m, s_right_m * s_right_m)
        last = i + 1 == n_real  # real | missing has no missing-left twin
        best, best_bin, side = scored_twins(
            best, best_bin, side, out_bin[i], last, w_left, w_missing, sums, node_weight
        )
        if last:
            break
    return Candidate(best, best_bin, side)


@njit(cache=True, nogil=True, inline="always")
def left_start(scratch):
    """The left child of a given split before its first row (``split_score``): its ``(S, W)``, both 0, the state
    :func:`left_row` carries. (``scratch`` is not used: Gini's needs one.)"""
    return 0.0, 0.0


@njit(cache=True, nogil=True, inline="always")
def left_row(scratch, state, label, weight):
    """The left child's ``(S, W)`` after a row of target ``label`` and weight ``weight``."""
    s_left, w_left = state
    return s_left + weight * label, w_left + weight


@njit(cache=True, nogil=True, inline="always")
def left_score(scratch, state, node_sums, node_weight):
    """Score ``S_L^2 / W_L + S_R^2 / W_R`` of a split whose left child has ``(S, W)`` ``state``; -1 when a side
    has no weight."""
    return _children_score(state[0], state[1], node_sums[1], node_weight)


@kernel
def _children_score(s_left, w_left, node_sum, node_weight):
    w_right = node_weight - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -1.0
    s_right = node_sum - s_left
    return s_left * s_left / w_left + s_right * s_right / w_right


@njit(cache=True, nogil=True, inline="always")
def stats_score(left, sums):
    """The score of a split whose left child has sums ``left`` in a node of sums ``sums`` (as :func:`best_threshold`
    scores); -1 when a child has no weight."""
    return _children_score(left[1], left[0], sums[1], sums[0])


# ---------------------------------------------------------------------------------- subsets
@kernel
def best_subset(
    buf, Xb, node_y, node_w, samples, start, end, f, node_sums, node_weight, max_splits, min_count, present, bits
):
    """Best squared-error subset of the categories of feature ``f`` in the node's rows ``samples[start:end]``.

    As :func:`mddf.trees.gini.best_subset`, with the categories sorted by their
    weighted mean target.
    """
    out_bin, out_sum, out_weight, out_count = buf.out_bin, buf.out_sum, buf.out_weight, buf.out_count
    key, order = buf.key, buf.order
    k_all = _bin_sums(buf, Xb, node_y, node_w, samples, start, end, f)
    for k in range(CATEGORY_WORDS):
        present[k] = 0
        bits[k] = 0
    m = np.int64(0)
    for j in range(k_all):
        b = out_bin[j]
        present[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        if out_count[j] >= min_count:  # compact the ordered categories to the front
            out_bin[m], out_sum[m], out_weight[m], out_count[m] = b, out_sum[j], out_weight[j], out_count[j]
            m += 1
    if m < 2:
        return -1.0
    for j in range(m):
        key[j] = out_sum[j] / out_weight[j] if out_weight[j] > 0.0 else 0.0
    sort_by_key(key, order, m)
    node_sum = node_sums[1]
    best = -1.0
    best_k = -1
    s_left = 0.0
    w_left = 0.0
    for k in range(m - 1):
        s_left += out_sum[order[k]]
        w_left += out_weight[order[k]]
        if k + 1 > max_splits and m - k - 1 > max_splits:
            continue
        score = _children_score(s_left, w_left, node_sum, node_weight)
        if score > best:
            best = score
            best_k = k
    for k in range(best_k + 1):
        b = out_bin[order[k]]
        bits[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    return best


#: The loops over a node's rows, compiled with this module's per-row functions (:mod:`mddf.trees.loops`).
add_rows, partition, split_score, left_statistics = row_loops(sys.modules[__name__])
#: The monotone constraints' checks, compiled with this module's ``node_value`` (:mod:`mddf.trees.monotone`).
bounded_value, in_order, child_bounds = monotone_checks(sys.modules[__name__])
new_table, best_ordered_threshold = ordered_search(sys.modules[__name__])
