"""The squared error summed over several targets: the criterion of multi-output regression trees, compiled with numba.

The criterion of scikit-learn's ``DecisionTreeRegressor`` fitted on a 2-D ``y`` (n, K). A node's statistics are
``(W, S_1 .. S_K, Q_1 .. Q_K)``: its weight, and per output the weighted target sum and weighted sum of squared
targets; a row's label is its K targets (a row of ``node_y``, ``(m, K)``). Its impurity is the mean over the outputs
of their weighted variances (scikit-learn's), and a split is scored by the proxy

    sum_k (S_Lk^2 / W_L + S_Rk^2 / W_R),

the decrease of the summed squared error up to the node's own term (higher is better); a leaf holds the vector of
its outputs' weighted means. With K = 1 every score, split and leaf is that of :mod:`mddf.trees.squared_error`, which
the one-output trees keep using (this module serves 2-D targets only).

The split searches are those of :mod:`mddf.trees.squared_error` with a vector per bin: :func:`best_threshold` (the
node's missing rows tried on either side of each threshold), :func:`best_subset` (a categorical column's categories
sorted by the sum of their mean targets, then every prefix scored: the optimal partition for one output, Fisher 1958,
an ordering heuristic for several) and ``split_score`` (a given split). The bins are summed on a histogram over the
node's range of bins. ``add_rows``, ``partition`` and ``split_score`` are the loops of :mod:`mddf.trees.loops`
compiled with this module's per-row functions.
"""

from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np

from .._runtime.compile_cache import njit
from ._kernel import inline_kernel, kernel
from .binning import MAX_BINS
from .loops import row_loops, scored, scored_twins, sort_by_key
from .monotone import monotone_checks, ordered_search
from .splitting import CATEGORY_WORDS, CONSTANT, Candidate

# the growers (grower.py) hold this module's functions compiled in; numba's on-disk cache of them is stamped
# with the digest of every source of mddf's compiled code, this file included.

#: The labels it grows on: real targets, one row of K per sample (:mod:`mddf.trees.criterion`).
LABEL_KINDS = "f"
LABEL_NDIM = 2

#: A node whose mean weighted variance is at most this is a leaf (scikit-learn's rule, as in the one-output module).
_EPSILON = np.finfo(np.float64).eps

#: Scratch space of the split searches, allocated once per tree (:func:`new_buffers`).
MultiBuffers = namedtuple(
    "MultiBuffers",
    [
        "bin_sum",  # (MAX_BINS, K) histogram: weighted target sums, weight and rows per bin; zero outside calls
        "bin_weight",
        "bin_count",
        "out_bin",  # (MAX_BINS,) the node's non-empty bins in order, with their sums (MAX_BINS, K), weights, rows
        "out_sum",
        "out_weight",
        "out_count",
        "key",  # (MAX_BINS,) sort key of the categories present
        "order",  # (MAX_BINS,) positions of the non-empty bins in sort order
        "left",  # (K,) the left child's target sums of a given split (split_score's scratch space)
        "running",  # (K,) the left child's target sums while a search scans the bins
    ],
)


@njit(cache=True, nogil=True, internal=True)
def new_buffers(n_statistics, m):
    """The split searches' scratch space for statistics of ``n_statistics = 1 + 2 K`` entries."""
    k = (n_statistics - 1) // 2
    return MultiBuffers(
        np.zeros((MAX_BINS, k)),
        np.zeros(MAX_BINS),
        np.zeros(MAX_BINS, dtype=np.int64),
        np.empty(MAX_BINS, dtype=np.int64),
        np.empty((MAX_BINS, k)),
        np.empty(MAX_BINS),
        np.empty(MAX_BINS, dtype=np.int64),
        np.empty(MAX_BINS),
        np.empty(MAX_BINS, dtype=np.int64),
        np.zeros(k),
        np.zeros(k),
    )


# ------------------------------------------------------------------------------------- node
@njit(cache=True, nogil=True, internal=True)
def new_labels(m, n_classes=0):
    """The targets of a tree's ``m`` rows, ``(m, K)`` with ``K = n_classes`` (the grower passes the outputs there)."""
    return np.empty((m, n_classes))


@njit(cache=True, nogil=True, internal=True)
def n_statistics(n_classes):
    """Length of a node's statistics, ``1 + 2 K`` for ``K = n_classes`` outputs."""
    return 1 + 2 * n_classes


@njit(cache=True, nogil=True, inline="always")
def add_row(sums, label, weight):
    """Add a row of targets ``label`` ``(K,)`` and weight ``weight`` to the sums ``(W, S, Q)``."""
    k = label.shape[0]
    sums[0] += weight
    for c in range(k):
        sums[1 + c] += weight * label[c]
        sums[1 + k + c] += weight * label[c] * label[c]


@njit(cache=True, nogil=True, inline="always")
def swap_labels(node_y, i, j):
    """Exchange the targets of rows i and j (a node's partition)."""
    for c in range(node_y.shape[1]):
        t = node_y[i, c]
        node_y[i, c] = node_y[j, c]
        node_y[j, c] = t


@njit(cache=True, nogil=True, internal=True)
def new_leaf_values(n_rows, n_classes):
    """The mean vectors of a tree's leaves (float64, one row per leaf, ``K = n_classes`` columns)."""
    return np.empty((n_rows, n_classes))


@njit(cache=True, nogil=True, internal=True)
def importance_centre(root, root_weight):
    """The root's weighted mean targets ``(K,)``, about which the importance terms are taken."""
    k = (len(root) - 1) // 2
    return root[1 : 1 + k] / root_weight


@njit(cache=True, nogil=True, inline="always")
def total_weight(sums):
    """The weight ``W`` of a node."""
    return sums[0]


@njit(cache=True, nogil=True, inline="always")
def node_summary(sums, centre):
    """``(weight, splittable, importance_term)`` of a node: splittable while the mean of its outputs' weighted
    variances exceeds the float64 epsilon; the term is ``(1/K) sum_k (S_k - centre_k W)^2 / W`` (the impurity is the
    outputs' mean variance, as scikit-learn's)."""
    k = (len(sums) - 1) // 2
    node_weight = sums[0]
    term = 0.0
    impurity = 0.0
    if node_weight > 0.0:
        for c in range(k):
            centred = sums[1 + c] - centre[c] * node_weight
            term += centred * centred / node_weight
            mean = sums[1 + c] / node_weight
            impurity += sums[1 + k + c] / node_weight - mean * mean
    return node_weight, impurity / k > _EPSILON, term / k


@njit(cache=True, nogil=True, inline="always")
def write_leaf(sums, node_weight, leaf_values, n_rows):
    """Write the leaf's weighted mean targets ``S_k / W`` to row ``n_rows`` of ``leaf_values``; returns the leaf's
    entry of ``right``, ``-(n_rows + 1)``, and the new row count."""
    for c in range(leaf_values.shape[1]):
        leaf_values[n_rows, c] = sums[1 + c] / node_weight if node_weight > 0.0 else 0.0
    return -(n_rows + 1), n_rows + 1


@njit(cache=True, nogil=True, inline="always")
def node_value(sums):
    """The value a monotone constraint would order: the first target's weighted mean (0 for no weight). The
    trees of several targets take no constraint (:func:`mddf.trees.grow_tree` refuses one)."""
    return sums[1] / sums[0] if sums[0] > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def write_bounded_leaf(sums, node_weight, leaf_values, n_rows, lower, upper):
    """:func:`write_leaf` with every target's mean clipped into ``[lower, upper]`` (the contract's; not used, as
    :func:`node_value` says)."""
    for c in range(leaf_values.shape[1]):
        mean = sums[1 + c] / node_weight if node_weight > 0.0 else 0.0
        leaf_values[n_rows, c] = min(max(mean, lower), upper)
    return -(n_rows + 1), n_rows + 1


@njit(cache=True, nogil=True, inline="always")
def stats_score(left, sums):
    """The score of a split whose left child has sums ``left`` in a node of sums ``sums``; -1 when a side has no
    weight."""
    k = (len(sums) - 1) // 2
    return _children_score(left[1 : 1 + k], left[0], sums, sums[0])


# ------------------------------------------------------------------------------- thresholds
@kernel
def _bin_sums(buf, Xb, node_y, node_w, samples, start, end, f):
    """Sum the node's rows of feature ``f`` per bin; returns the number ``k`` of non-empty bins, whose codes, target
    sums, weights and rows ``out_*[:k]`` receive in increasing bin order (the histogram is zero on exit)."""
    bin_sum, bin_weight, bin_count = buf.bin_sum, buf.bin_weight, buf.bin_count
    out_bin, out_sum, out_weight, out_count = buf.out_bin, buf.out_sum, buf.out_weight, buf.out_count
    n_out = node_y.shape[1]
    lo = 1 << 16
    hi = -1
    for i in range(start, end):
        b = Xb[samples[i], f]
        h = node_w[i]
        for c in range(n_out):
            bin_sum[b, c] += h * node_y[i, c]
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
            for c in range(n_out):
                out_sum[k, c] = bin_sum[b, c]
                bin_sum[b, c] = 0.0
            out_weight[k] = bin_weight[b]
            out_count[k] = bin_count[b]
            k += 1
            bin_weight[b] = 0.0
            bin_count[b] = 0
    return k


@njit(cache=True, nogil=True, inline="always")
def _squares(running, node_sums, extra, sign):
    """``(sum_k a_k^2, sum_k (S_k - a_k)^2)`` for ``a = running + sign * extra`` (``extra`` a row of sums)."""
    left = 0.0
    right = 0.0
    for c in range(len(running)):
        a = running[c] + sign * extra[c]
        r = node_sums[1 + c] - a
        left += a * a
        right += r * r
    return left, right


@inline_kernel
def best_threshold(buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, node_sums, node_weight, missing_bins):
    """Best threshold of feature ``f`` on the node's rows, as a :data:`Candidate` (see
    :func:`mddf.trees.squared_error.best_threshold`; the score summed over the outputs)."""
    out_bin, out_sum, out_weight, running = buf.out_bin, buf.out_sum, buf.out_weight, buf.running
    k = _bin_sums(buf, Xb, node_y, node_w, samples, start, end, f)
    if k < 2:
        return Candidate(-1.0, 0, CONSTANT)
    for c in range(len(running)):
        running[c] = 0.0
    best = -1.0
    best_bin = 0
    side = -1
    n_real = k
    if missing_bins is not None:
        if out_bin[k - 1] == missing_bins[f]:
            n_real = k - 1
    w_left = 0.0
    if n_real == k:
        for i in range(k - 1):
            for c in range(len(running)):
                running[c] += out_sum[i, c]
            w_left += out_weight[i]
            a_left, a_right = _squares(running, node_sums, out_sum[i], 0.0)
            best, best_bin, side = scored(best, best_bin, side, out_bin[i], -1, a_left, w_left, a_right, node_weight)
        return Candidate(best, best_bin, side)
    w_missing = out_weight[k - 1]
    for i in range(n_real):
        for c in range(len(running)):
            running[c] += out_sum[i, c]
        w_left += out_weight[i]
        a_left, a_right = _squares(running, node_sums, out_sum[k - 1], 0.0)
        a_left_m, a_right_m = _squares(running, node_sums, out_sum[k - 1], 1.0)
        last = i + 1 == n_real
        sums = (a_left, a_right, a_left_m, a_right_m)
        b = out_bin[i]
        best, best_bin, side = scored_twins(best, best_bin, side, b, last, w_left, w_missing, sums, node_weight)
        if last:
            break
    return Candidate(best, best_bin, side)


@njit(cache=True, nogil=True, inline="always")
def left_start(scratch):
    """The left child of a given split before its first row: its target sums (``scratch``, zeroed) and weight 0."""
    for c in range(len(scratch)):
        scratch[c] = 0.0
    return 0.0


@njit(cache=True, nogil=True, inline="always")
def left_row(scratch, state, label, weight):
    """Add a row of targets ``label`` and weight ``weight`` to the left child; returns its weight."""
    for c in range(len(scratch)):
        scratch[c] += weight * label[c]
    return state + weight


@njit(cache=True, nogil=True, inline="always")
def left_score(scratch, state, node_sums, node_weight):
    """Score of a split whose left child has target sums ``scratch`` and weight ``state``; -1 when a side has none."""
    return _children_score(scratch, state, node_sums, node_weight)


@njit(cache=True, nogil=True, inline="always")
def _children_score(s_left, w_left, node_sums, node_weight):
    w_right = node_weight - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -1.0
    a_left = 0.0
    a_right = 0.0
    for c in range(len(s_left)):
        r = node_sums[1 + c] - s_left[c]
        a_left += s_left[c] * s_left[c]
        a_right += r * r
    return a_left / w_left + a_right / w_right


# ---------------------------------------------------------------------------------- subsets
@kernel
def best_subset(
    buf, Xb, node_y, node_w, samples, start, end, f, node_sums, node_weight, max_splits, min_count, present, bits
):
    """Best subset of the categories of feature ``f`` in the node's rows (as :func:`mddf.trees.gini.best_subset`),
    the categories sorted by the sum over the outputs of their weighted mean targets."""
    out_bin, out_sum, out_weight, out_count = buf.out_bin, buf.out_sum, buf.out_weight, buf.out_count
    key, order, running = buf.key, buf.order, buf.running
    n_out = len(running)
    k_all = _bin_sums(buf, Xb, node_y, node_w, samples, start, end, f)
    for k in range(CATEGORY_WORDS):
        present[k] = 0
        bits[k] = 0
    m = np.int64(0)
    for j in range(k_all):
        b = out_bin[j]
        present[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        if out_count[j] >= min_count:  # compact the ordered categories to the front
            out_bin[m], out_weight[m], out_count[m] = b, out_weight[j], out_count[j]
            for c in range(n_out):
                out_sum[m, c] = out_sum[j, c]
            m += 1
    if m < 2:
        return -1.0
    for j in range(m):
        total = 0.0
        for c in range(n_out):
            total += out_sum[j, c]
        key[j] = total / out_weight[j] if out_weight[j] > 0.0 else 0.0
    sort_by_key(key, order, m)
    for c in range(n_out):
        running[c] = 0.0
    best = -1.0
    best_k = -1
    w_left = 0.0
    for k in range(m - 1):
        for c in range(n_out):
            running[c] += out_sum[order[k], c]
        w_left += out_weight[order[k]]
        if k + 1 > max_splits and m - k - 1 > max_splits:
            continue
        score = _children_score(running, w_left, node_sums, node_weight)
        if score > best:
            best = score
            best_k = k
    for k in range(best_k + 1):
        b = out_bin[order[k]]
        bits[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    return best


#: The loops over a node's rows, compiled with this module's per-row functions (:mod:`mddf.trees.loops`).
add_rows, partition, split_score, left_statistics = row_loops(sys.modules[__name__])
#: The monotone constraints' checks and search (:mod:`mddf.trees.monotone`), which its trees do not take.
bounded_value, in_order, child_bounds = monotone_checks(sys.modules[__name__])
new_table, best_ordered_threshold = ordered_search(sys.modules[__name__])
