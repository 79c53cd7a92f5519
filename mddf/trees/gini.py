"""The Gini criterion of classification trees on binned features, compiled with numba.

A node's statistics are its class weights ``w_c`` (row weights summed per
class). Splitting it into children L and R lowers its weighted Gini impurity
``w G = w - sum_c w_c^2 / w`` by ``sum_c L_c^2 / W_L + sum_c R_c^2 / W_R -
sum_c w_c^2 / w``; the last term is the node's own, so a split is scored by the
proxy ``sum_c L_c^2 / W_L + sum_c R_c^2 / W_R`` (higher is better), as
scikit-learn's criterion is (``proxy_impurity_improvement``).

Split searches on one feature of a node:

- :func:`best_threshold`, the best threshold of a numeric feature (random
  forests; scikit-learn's ``DecisionTreeClassifier``): a class histogram over
  the bins, of which only the bins the node's rows fill are scanned, in bin
  order. A large node finds them by a pass over the histogram; a node of fewer
  rows than the histogram has cells by a bitset of the bins it fills, so that
  its cost follows its rows (with more than :data:`SPARSE_HISTOGRAM_CLASSES`
  classes, whose scan of a bin costs more, its rows are sorted by bin and
  scanned row by row). Missing values (NaN) sit in their feature's last bin
  (:mod:`mddf.trees.binning`); when the node has some, every threshold is
  scored with them on either side, and so is the split of the real rows from
  the missing ones: the side the missing values go to is learned, as in
  scikit-learn's trees and HistGradientBoosting.
- :func:`best_subset`, the best subset of the categories of a categorical
  feature: the categories present in the node (the missing code is one when the
  node has missing rows) are sorted by their share of one class and every
  prefix of that order is scored (Fisher's ordering). For two classes the share
  of the second class gives the optimal partition (Breiman et al., CART,
  Theorem 4.5); for more classes each class present is tried in turn
  (one-vs-rest orderings) and the best partition over them is kept.
- ``split_score``, the score of one given threshold or subset (the random
  splits of the extremely-randomised rule).

``partition`` moves a node's rows into its two children and counts their
class weights; it, ``add_rows`` and ``split_score`` are the loops of
:mod:`mddf.trees.loops` compiled with this module's per-row functions
(:func:`add_row`, :func:`left_start`, :func:`left_row`, :func:`left_score`).
The remaining functions are what :func:`mddf.trees.grower.grow_tree` asks of
the criterion for a node (its weight, whether it can be split, its importance
term and its leaf).
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

#: The labels it grows on: class indices (:mod:`mddf.trees.criterion`).
LABEL_KINDS = "iu"
LABEL_NDIM = 1

_INSERTION_SORT_ROWS = 24

#: Scratch space of the split searches, allocated once per tree (:func:`new_buffers`).
GiniBuffers = namedtuple(
    "GiniBuffers",
    [
        "hist",  # (MAX_BINS, n_classes) class weights per bin; zero outside the searches
        "bin_weight",  # (MAX_BINS,) weight per bin
        "bin_count",  # (MAX_BINS,) rows per bin; zero outside the searches
        "node_bin",  # (m,) the node's bins of the feature, in row order
        "sorted_bin",  # (m,) the node's rows sorted by bin: bins, classes and weights
        "sorted_class",
        "sorted_weight",
        "left",  # (n_classes,) class weights of the left child
        "missing",  # (n_classes,) class weights of the missing rows
        "codes",  # (MAX_BINS,) the categories present in the node, or the bins present in a small node
        "key",  # (MAX_BINS,) their sort key
        "order",  # (MAX_BINS,) positions of codes in sort order
        "best_order",  # (MAX_BINS,) the order of the best subset so far
        "bins_present",  # (CATEGORY_WORDS,) bitset of the bins present in a small node
    ],
)

#: Most classes for which a small node's threshold search takes a class histogram over the bins present
#: (:func:`_best_threshold_sparse`) rather than a sort of its rows by bin.
SPARSE_HISTOGRAM_CLASSES = 32

# the lowest set bit of a 64-bit word: its product with this de Bruijn sequence, shifted right by 58,
# indexes _DE_BRUIJN_BIT (Leiserson, Prokop and Randall, "Using de Bruijn sequences to index a 1 in a
# computer word", 1998)
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DE_BRUIJN_BIT = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DE_BRUIJN_BIT[((int(_DE_BRUIJN) << _i) & 0xFFFFFFFFFFFFFFFF) >> 58] = _i
del _i


@njit(cache=True, nogil=True, internal=True)
def new_buffers(n_classes, m):
    """The split searches' scratch space for a tree of ``m`` training rows."""
    size = max(m, 1)
    return GiniBuffers(
        np.zeros((MAX_BINS, n_classes)),
        np.zeros(MAX_BINS),
        np.zeros(MAX_BINS, dtype=np.int64),
        np.empty(size, dtype=np.uint8),
        np.empty(size, dtype=np.uint8),
        np.empty(size, dtype=np.uint32),
        np.empty(size),
        np.zeros(n_classes),
        np.zeros(n_classes),
        np.zeros(MAX_BINS, dtype=np.int64),
        np.zeros(MAX_BINS),
        np.zeros(MAX_BINS, dtype=np.int64),
        np.zeros(MAX_BINS, dtype=np.int64),
        np.zeros(CATEGORY_WORDS, dtype=np.uint64),
    )


# ------------------------------------------------------------------------------------- node
@njit(cache=True, nogil=True, internal=True)
def new_labels(m, n_classes=0):
    """The class indices of a tree's ``m`` rows, unsigned (indexing with them needs no negative-index fix)."""
    return np.empty(m, dtype=np.uint32)


@njit(cache=True, nogil=True, inline="always")
def swap_labels(node_y, i, j):
    """Exchange the class indices of rows i and j (a node's partition)."""
    label = node_y[i]
    node_y[i] = node_y[j]
    node_y[j] = label


@njit(cache=True, nogil=True, internal=True)
def n_statistics(n_classes):
    """Length of a node's statistics."""
    return n_classes


@njit(cache=True, nogil=True, inline="always")
def add_row(counts, label, weight):
    """Add a row of class ``label`` and weight ``weight`` to the class weights ``counts``."""
    counts[label] += weight


@njit(cache=True, nogil=True, internal=True)
def new_leaf_values(n_rows, n_classes):
    """The class distributions of a tree's impure leaves (float32, one row per leaf)."""
    return np.empty((n_rows, n_classes), dtype=np.float32)


@njit(cache=True, nogil=True, internal=True)
def importance_centre(root, root_weight):
    """0: the Gini importance terms need no origin."""
    return 0.0


@njit(cache=True, nogil=True, inline="always")
def total_weight(counts):
    """The weight of a node: its class weights summed in class order."""
    weight = 0.0
    for c in range(len(counts)):
        weight += counts[c]
    return weight


@njit(cache=True, nogil=True, inline="always")
def node_summary(counts, centre):
    """``(weight, splittable, importance_term)`` of a node of class weights ``counts``.

    A node can be split unless it is pure. The importance term is ``sum_c w_c^2
    / w``: a split's impurity decrease is its children's terms less its own.
    (``centre`` is not used: it is the squared-error criterion's.)
    """
    node_weight = 0.0
    sumsq = 0.0
    n_present = 0
    for c in range(len(counts)):
        node_weight += counts[c]
        sumsq += counts[c] * counts[c]
        if counts[c] > 0.0:
            n_present += 1
    term = node_weight if n_present == 1 else sumsq / node_weight  # pure: sum_c w_c^2 / w = w
    return node_weight, n_present > 1, term


@njit(cache=True, nogil=True, inline="always")
def write_leaf(counts, node_weight, leaf_values, n_rows):
    """The leaf's entry of ``right`` and the new row count of ``leaf_values``.

    A pure leaf is its class (``>= 0``); an impure one writes its class
    distribution to row ``n_rows`` of ``leaf_values`` and is ``-(n_rows + 1)``.
    """
    n_present = 0
    pure = 0
    for c in range(len(counts)):
        if counts[c] > 0.0:
            n_present += 1
            pure = c
    if n_present == 1:
        return pure, n_rows
    for c in range(len(counts)):
        leaf_values[n_rows, c] = counts[c] / node_weight
    return -(n_rows + 1), n_rows + 1


@njit(cache=True, nogil=True, inline="always")
def node_value(counts):
    """The value a monotone constraint orders (two classes only): the share of the second class (the positive
    one) in class weights ``counts``; 0 for a node of no weight."""
    weight = counts[0] + counts[1]
    return counts[1] / weight if weight > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def write_bounded_leaf(counts, node_weight, leaf_values, n_rows, lower, upper):
    """:func:`write_leaf` of a tree with monotone constraints (two classes): the positive class's share ``v``
    clipped into ``[lower, upper]``, written as ``(1 - v, v)``; a pure leaf left unclipped stays its class."""
    value = node_value(counts)
    bounded = min(max(value, lower), upper)
    if bounded == value and (counts[0] <= 0.0 or counts[1] <= 0.0):
        return (1 if counts[1] > 0.0 else 0), n_rows
    # both columns from the one clipped share: the first column falls wherever the second rises
    leaf_values[n_rows, 0] = 1.0 - bounded
    leaf_values[n_rows, 1] = bounded
    return -(n_rows + 1), n_rows + 1


# ------------------------------------------------------------------------------- thresholds
@njit(cache=True, nogil=True, inline="always")
def _class_histogram(buf, Xb, node_y, node_w, samples, start, end, f, missing_bins, present):
    """Add the node's rows to the class histogram ``buf.hist`` of feature ``f``'s bins; count them per bin in
    ``buf.bin_count`` only when ``missing_bins`` is given (the missing bin needs them), and mark their bins in
    the bitset ``present`` unless it is None.

    One read-modify-write of the histogram a row (a bin's weight is its class weights summed in class order,
    after); unsigned positions, as the grower's rows and classes, need no negative-index fix per row. Whether
    ``missing_bins`` and ``present`` are None is known when numba compiles, so a call does only what it asks.
    """
    hist, bin_count = buf.hist, buf.bin_count
    for i in range(np.uint64(start), np.uint64(end)):
        b = Xb[samples[i], f]
        hist[b, node_y[i]] += node_w[i]
        if missing_bins is not None:
            bin_count[b] += 1
        if present is not None:
            present[b >> 6] |= np.uint64(1) << np.uint64(b & 63)


@inline_kernel
def best_threshold(buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, node_counts, node_weight, missing_bins):
    """Best Gini threshold of feature ``f`` on the node's rows ``samples[start:end]``, as a :data:`Candidate`.

    The score is -1, and the side :data:`~mddf.trees.splitting.CONSTANT`,
    when the feature is constant in the node. ``node_y`` and
    ``node_w`` are the class and weight of ``samples[i]`` at position i, so that
    only the feature value is read out of order. ``missing_bins[f]`` is the
    code of NaN in feature ``f`` (-1 when the feature has no missing value;
    ``missing_bins`` is None when no feature has any). ``buf`` is the scratch
    space (:data:`GiniBuffers`); its ``hist`` and ``bin_count`` are zero on entry and on exit.
    """
    hist = buf.hist
    n_classes = len(node_counts)
    n_node = end - start
    if n_bins_f * n_classes <= n_node:
        # large node: class histogram over the bins, then one scan over the bins it fills
        _class_histogram(buf, Xb, node_y, node_w, samples, start, end, f, missing_bins, None)
        bins = buf.codes  # the non-empty bins, in increasing order
        n_present = np.int64(0)  # not the literal 0: a call typed with it would compile a variant of its own
        for b in range(n_bins_f):
            t = 0.0
            for c in range(n_classes):
                t += hist[b, c]
            if t > 0.0:
                bins[n_present] = b
                n_present += 1
        return _scan_bins_present(buf, n_present, n_node, n_bins_f, f, node_counts, node_weight, missing_bins)
    if n_classes <= SPARSE_HISTOGRAM_CLASSES:
        return _best_threshold_sparse(
            buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, node_counts, node_weight, missing_bins
        )
    return _best_threshold_sorted(
        buf, Xb, node_y, node_w, samples, start, end, f, node_counts, node_weight, missing_bins
    )


@kernel
def _best_threshold_sorted(buf, Xb, node_y, node_w, samples, start, end, f, node_counts, node_weight, missing_bins):
    """:func:`best_threshold` on a small node of many classes: its rows sorted by bin, then one scan over them.

    Kept out of line: its call costs little beside the sort, and the searches
    inlined into the grower's node loop stay small enough to compile quickly.
    """
    left, bin_count = buf.left, buf.bin_count
    n_node = end - start
    sumsq_left, sumsq_right, w_left, best, best_bin = _scan_start(left, node_counts)
    # sort its rows by bin into contiguous buffers, then one scan over the rows
    node_bin, sorted_bin = buf.node_bin, buf.sorted_bin
    sorted_class, sorted_weight = buf.sorted_class, buf.sorted_weight
    lo = 255
    hi = np.int64(0)
    for i in range(start, end):
        b = Xb[samples[i], f]
        node_bin[i - start] = b
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    if lo == hi:
        return Candidate(-1.0, 0, CONSTANT)
    if n_node <= _INSERTION_SORT_ROWS:
        # a few rows: insertion sort, cheaper than touching every bin of the range
        for i in range(n_node):
            insert_sorted(i, sorted_bin, sorted_class, sorted_weight, node_bin[i], node_y[start + i], node_w[start + i])
    else:
        # counting sort (bin_count is all zero outside calls)
        for i in range(n_node):
            bin_count[node_bin[i]] += 1
        pos = 0
        for b in range(lo, hi + 1):
            k = bin_count[b]
            bin_count[b] = pos
            pos += k
        for i in range(n_node):
            b = node_bin[i]
            k = bin_count[b]
            sorted_bin[k] = b
            sorted_class[k] = node_y[start + i]
            sorted_weight[k] = node_w[start + i]
            bin_count[b] = k + 1
        for b in range(lo, hi + 1):
            bin_count[b] = 0
    if missing_bins is not None:
        if hi == missing_bins[f]:  # the node has missing rows (the missing bin is the feature's last code)
            return _scan_sorted_missing(buf, n_node, hi, node_counts, node_weight)
    side = -1
    for k in range(n_node - 1):
        h = sorted_weight[k]
        sumsq_left, sumsq_right = _move_left(h, sorted_class[k], left, node_counts, sumsq_left, sumsq_right)
        w_left += h
        if sorted_bin[k + 1] == sorted_bin[k]:
            continue
        # (a right child of no weight: rounding, when the remaining rows weigh next to nothing)
        best, best_bin, side = scored(
            best, best_bin, side, sorted_bin[k], -1, sumsq_left, w_left, sumsq_right, node_weight
        )
    return Candidate(best, best_bin, side)


@njit(cache=True, nogil=True, inline="always")
def _scan_start(left, node_counts):
    """The state of a scan before its first threshold: the left child empty (``left`` zeroed), the right
    child the whole node; returns ``(sumsq_left, sumsq_right, w_left, best, best_bin)``."""
    sumsq_right = 0.0
    for c in range(len(node_counts)):
        left[c] = 0.0
        sumsq_right += node_counts[c] * node_counts[c]
    return 0.0, sumsq_right, 0.0, -1.0, 0


@njit(cache=True, nogil=True, inline="always")
def _moved_left(h, lc, total, sumsq_left, sumsq_right):
    """The children's sums of squared class weights after weight ``h`` of a class moves from the right child to
    the left, whose weight of that class was ``lc`` (the node's is ``total``): ``(L + h)^2 = L^2 + h (2 L + h)``
    and ``(R - h)^2 = R^2 - h (2 R - h)`` with ``R = total - L``."""
    return sumsq_left + h * (2.0 * lc + h), sumsq_right - h * (2.0 * (total - lc) - h)


@njit(cache=True, nogil=True, inline="always")
def _move_left(h, c, left, node_counts, sumsq_left, sumsq_right):
    """Move weight ``h`` of class ``c`` to the left child, of class weights ``left``: adds it to ``left[c]`` and
    returns the children's sums of squared class weights after the move (:func:`_moved_left`)."""
    lc = left[c]
    left[c] = lc + h
    return _moved_left(h, lc, node_counts[c], sumsq_left, sumsq_right)


@inline_kernel
def _best_threshold_sparse(
    buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, node_counts, node_weight, missing_bins
):
    """:func:`best_threshold` on a node of fewer rows than its histogram has cells.

    The rows are summed into the class histogram as in a large node, but the
    bins present are marked in a bitset and only they are scanned, in bin
    order, and cleared: the cost follows the node's rows and distinct bins,
    not the feature's bins. The candidates, their order and (for integer row
    weights, whose sums are exact) their scores are those of a sort of the
    rows by bin, so the same trees grow.
    """
    present, bins = buf.bins_present, buf.codes
    n_node = end - start
    for k in range(CATEGORY_WORDS):
        present[k] = 0
    _class_histogram(buf, Xb, node_y, node_w, samples, start, end, f, missing_bins, present)
    # the bins present, in increasing order
    n_present = np.int64(0)
    for k in range(CATEGORY_WORDS):
        word = present[k]
        while word:
            low = word & (~word + np.uint64(1))
            bins[n_present] = (k << 6) + _DE_BRUIJN_BIT[(low * _DE_BRUIJN) >> np.uint64(58)]
            n_present += 1
            word ^= low
    return _scan_bins_present(buf, n_present, n_node, n_bins_f, f, node_counts, node_weight, missing_bins)


@inline_kernel
def _scan_bins_present(buf, n_present, n_node, n_bins_f, f, node_counts, node_weight, missing_bins):
    """:func:`best_threshold`'s scan of the ``n_present`` bins its rows fill, ``buf.codes[:n_present]`` in
    increasing order, from the class histogram (and the rows per bin when ``missing_bins`` is given).

    One bin: the feature is constant in the node. A node with missing rows (its last bin the feature's
    missing code) is scanned with them on either side (:func:`_scan_histogram_missing`). Otherwise each
    threshold between two bins is scored, the bin's class weights moved to the left child in class order.
    Leaves the histogram and the row counts zero.
    """
    hist, bin_weight, bin_count, left, bins = buf.hist, buf.bin_weight, buf.bin_count, buf.left, buf.codes
    n_classes = len(node_counts)
    if n_present == 1:
        b = bins[0]
        for c in range(n_classes):
            hist[b, c] = 0.0
        bin_count[b] = 0
        return Candidate(-1.0, 0, CONSTANT)
    if missing_bins is not None:
        missing_bin = missing_bins[f]
        if bins[n_present - 1] == missing_bin:  # the node has missing rows (the feature's last code)
            for j in range(n_present):
                b = bins[j]
                t = 0.0
                for c in range(n_classes):
                    t += hist[b, c]
                bin_weight[b] = t
            candidate = _scan_histogram_missing(buf, n_node, n_bins_f, missing_bin, node_counts, node_weight)
            for j in range(n_present):
                b = bins[j]
                for c in range(n_classes):
                    hist[b, c] = 0.0
            return candidate
        for j in range(n_present):
            bin_count[bins[j]] = 0
    sumsq_left, sumsq_right, w_left, best, best_bin = _scan_start(left, node_counts)
    side = -1
    for j in range(n_present - 1):
        b = bins[j]
        t = 0.0
        for c in range(n_classes):
            h = hist[b, c]
            t += h
            if h != 0.0:
                sumsq_left, sumsq_right = _move_left(h, c, left, node_counts, sumsq_left, sumsq_right)
                hist[b, c] = 0.0
        w_left += t
        best, best_bin, side = scored(best, best_bin, side, b, -1, sumsq_left, w_left, sumsq_right, node_weight)
    b = bins[n_present - 1]
    for c in range(n_classes):
        hist[b, c] = 0.0
    return Candidate(best, best_bin, side)


@njit(cache=True, nogil=True, inline="always")
def _missing_start(left, node_counts, missing):
    """The state of a scan with missing rows before its first threshold: ``left`` zeroed, and the children's sums
    of squared class weights with the missing rows (class weights ``missing``) right and with them left,
    ``(sumsq_left, sumsq_right, sumsq_left_m, sumsq_right_m)``."""
    sumsq_right = 0.0
    sumsq_left_m = 0.0  # the same sums with the missing rows moved to the left child
    sumsq_right_m = 0.0
    for c in range(len(node_counts)):
        left[c] = 0.0
        sumsq_right += node_counts[c] * node_counts[c]
        m = missing[c]
        sumsq_left_m += m * m
        sumsq_right_m += (node_counts[c] - m) * (node_counts[c] - m)
    return 0.0, sumsq_right, sumsq_left_m, sumsq_right_m


@njit(cache=True, nogil=True, inline="always")
def _moved_left_twin(h, c, left, missing, node_counts, sums):
    """:func:`_moved_left` of weight ``h`` of class ``c`` for both placements of the missing rows (the sums of
    :func:`_missing_start`); adds ``h`` to ``left[c]``."""
    sumsq_left, sumsq_right, sumsq_left_m, sumsq_right_m = sums
    sumsq_left_m, sumsq_right_m = _moved_left(h, left[c] + missing[c], node_counts[c], sumsq_left_m, sumsq_right_m)
    sumsq_left, sumsq_right = _move_left(h, c, left, node_counts, sumsq_left, sumsq_right)
    return sumsq_left, sumsq_right, sumsq_left_m, sumsq_right_m


@kernel
def _scan_histogram_missing(buf, n_node, n_bins_f, missing_bin, node_counts, node_weight):
    """:func:`best_threshold` on a class histogram whose missing bin is not empty.

    Each threshold between real bins is scored with the missing rows right and
    with them left; the threshold after the last non-empty real bin separates
    the real rows from the missing ones. Resets ``bin_count``.
    """
    hist, bin_weight, bin_count, left, missing = buf.hist, buf.bin_weight, buf.bin_count, buf.left, buf.missing
    n_classes = len(node_counts)
    n_missing = bin_count[missing_bin]
    w_missing = bin_weight[missing_bin]
    for c in range(n_classes):
        missing[c] = hist[missing_bin, c]
    sums = _missing_start(left, node_counts, missing)
    w_left = 0.0
    best = -1.0
    best_bin = 0
    side = 0
    n_left = 0
    for b in range(missing_bin):
        if bin_count[b] == 0:
            continue
        n_left += bin_count[b]
        for c in range(n_classes):
            h = hist[b, c]
            if h != 0.0:
                sums = _moved_left_twin(h, c, left, missing, node_counts, sums)
        w_left += bin_weight[b]
        last = n_left == n_node - n_missing  # every real row is left: the split real | missing is the last
        best, best_bin, side = scored_twins(best, best_bin, side, b, last, w_left, w_missing, sums, node_weight)
        if last:
            break
    for b in range(n_bins_f):
        bin_count[b] = 0
    return Candidate(best, best_bin, side)


@kernel
def _scan_sorted_missing(buf, n_node, missing_bin, node_counts, node_weight):
    """:func:`best_threshold` on rows sorted by bin, the missing ones (last code) at the end.

    As :func:`_scan_histogram_missing`, one row at a time.
    """
    sorted_bin, sorted_class, sorted_weight = buf.sorted_bin, buf.sorted_class, buf.sorted_weight
    left, missing = buf.left, buf.missing
    n_classes = len(node_counts)
    n_real = n_node
    while sorted_bin[n_real - 1] == missing_bin:
        n_real -= 1
    w_missing = 0.0
    for c in range(n_classes):
        missing[c] = 0.0
    for k in range(n_real, n_node):
        missing[sorted_class[k]] += sorted_weight[k]
        w_missing += sorted_weight[k]
    sums = _missing_start(left, node_counts, missing)
    w_left = 0.0
    best = -1.0
    best_bin = 0
    side = 0
    for k in range(n_real):
        h = sorted_weight[k]
        sums = _moved_left_twin(h, sorted_class[k], left, missing, node_counts, sums)
        w_left += h
        if sorted_bin[k + 1] == sorted_bin[k]:
            continue
        last = k + 1 == n_real  # the split real | missing has no missing-left twin
        best, best_bin, side = scored_twins(
            best, best_bin, side, sorted_bin[k], last, w_left, w_missing, sums, node_weight
        )
        if last:
            break
    return Candidate(best, best_bin, side)


@njit(cache=True, nogil=True, inline="always")
def left_start(left):
    """The left child of a given split before its first row (:func:`split_score`): no class weight in ``left``
    (scratch space of ``n_classes`` floats) and a weight of 0, the state :func:`left_row` carries."""
    for c in range(len(left)):
        left[c] = 0.0
    return 0.0


@njit(cache=True, nogil=True, inline="always")
def left_row(left, w_left, label, weight):
    """Add a row of class ``label`` and weight ``weight`` to the left child: its class weights ``left`` and its
    weight ``w_left``, returned."""
    left[label] += weight
    return w_left + weight


@njit(cache=True, nogil=True, inline="always")
def left_score(left, w_left, node_counts, node_weight):
    """The score of a split whose left child has class weights ``left`` and weight ``w_left`` (as
    :func:`best_threshold` scores); -1 when a child has no weight."""
    return _children_score(left, w_left, node_counts, node_weight)


@kernel
def _children_score(left, w_left, node_counts, node_weight):
    """``sum_c L_c^2 / W_L + sum_c R_c^2 / W_R`` for left class weights ``left``; -1 when a child has no weight."""
    w_right = node_weight - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -1.0
    sumsq_left = 0.0
    sumsq_right = 0.0
    for c in range(len(node_counts)):
        lc = left[c]
        rc = node_counts[c] - lc
        sumsq_left += lc * lc
        sumsq_right += rc * rc
    return sumsq_left / w_left + sumsq_right / w_right


@njit(cache=True, nogil=True, inline="always")
def stats_score(left, counts):
    """The score of a split whose left child has class weights ``left`` in a node of class weights ``counts`` (as
    :func:`best_threshold` scores); -1 when a child has no weight."""
    w_left = 0.0
    for c in range(len(counts)):
        w_left += left[c]
    return _children_score(left, w_left, counts, total_weight(counts))


# ---------------------------------------------------------------------------------- subsets
@kernel
def _category_histogram(buf, Xb, node_y, node_w, samples, start, end, f, present):
    """Class weights per code of feature ``f`` in the node; the codes present go to ``buf.codes``.

    Returns their number. Sets the bits of the present codes in ``present``; leaves
    ``bin_count`` non-zero on the present codes (:func:`_clear_counts` resets it).
    """
    hist, bin_weight, bin_count, codes = buf.hist, buf.bin_weight, buf.bin_count, buf.codes
    for k in range(CATEGORY_WORDS):
        present[k] = 0
    m = 0
    for i in range(start, end):
        b = Xb[samples[i], f]
        if bin_count[b] == 0:
            codes[m] = b
            m += 1
            bin_weight[b] = 0.0
            present[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        bin_count[b] += 1
        hist[b, node_y[i]] += node_w[i]
        bin_weight[b] += node_w[i]
    return m


@kernel
def _clear_counts(buf, m):
    """Zero the row counts and class histogram rows of the ``m`` codes in ``buf.codes``."""
    hist = buf.hist
    for j in range(m):
        b = buf.codes[j]
        buf.bin_count[b] = 0
        for c in range(hist.shape[1]):
            hist[b, c] = 0.0


@kernel
def best_subset(
    buf, Xb, node_y, node_w, samples, start, end, f, node_counts, node_weight, max_splits, min_count, present, bits
):
    """Best Gini subset of the categories of feature ``f`` in the node's rows ``samples[start:end]``.

    Categories of fewer than ``min_count`` rows in the node are left out of
    the order and go right. The others are sorted by their share of a class
    (for two classes the second, for more each class present in the node in
    turn) and every prefix of the order that leaves at most ``max_splits``
    categories on one side is scored. Writes the codes present in the node to
    ``present``, the best subset (the left child's codes) to ``bits``
    (:data:`~mddf.trees.splitting.CATEGORY_WORDS` words each) and returns its
    score: -1 when there are fewer than two categories to split.
    """
    hist, bin_weight, bin_count, codes = buf.hist, buf.bin_weight, buf.bin_count, buf.codes
    key, order, best_order, left = buf.key, buf.order, buf.best_order, buf.left
    n_classes = len(node_counts)
    m_all = _category_histogram(buf, Xb, node_y, node_w, samples, start, end, f, present)
    # the categories that are ordered, compacted to the front of codes
    m = np.int64(0)
    for j in range(m_all):
        b = codes[j]
        if bin_count[b] >= min_count:
            codes[j] = codes[m]
            codes[m] = b
            m += 1
    best = -1.0
    best_k = -1
    if m >= 2:
        sumsq_node = 0.0
        for c in range(n_classes):
            sumsq_node += node_counts[c] * node_counts[c]
        first_class = 1 if n_classes == 2 else 0
        last_class = n_classes if n_classes > 2 else 2
        for ref in range(first_class, last_class):
            if node_counts[ref] <= 0.0:
                continue
            for j in range(m):
                b = codes[j]
                key[j] = hist[b, ref] / bin_weight[b] if bin_weight[b] > 0.0 else 0.0
            sort_by_key(key, order, m)
            for c in range(n_classes):
                left[c] = 0.0
            sumsq_left = 0.0
            sumsq_right = sumsq_node
            w_left = 0.0
            improved = False
            for k in range(m - 1):
                b = codes[order[k]]
                for c in range(n_classes):
                    h = hist[b, c]
                    if h != 0.0:
                        sumsq_left, sumsq_right = _move_left(h, c, left, node_counts, sumsq_left, sumsq_right)
                w_left += bin_weight[b]
                if k + 1 > max_splits and m - k - 1 > max_splits:
                    continue
                w_right = node_weight - w_left
                if w_left <= 0.0 or w_right <= 0.0:
                    continue
                score = sumsq_left / w_left + sumsq_right / w_right
                if score > best:
                    best = score
                    best_k = k
                    improved = True
            if improved:
                for j in range(m):
                    best_order[j] = order[j]
    for k in range(CATEGORY_WORDS):
        bits[k] = 0
    for j in range(best_k + 1):
        b = codes[best_order[j]]
        bits[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    _clear_counts(buf, m_all)
    return best


#: The loops over a node's rows, compiled with this module's per-row functions (:mod:`mddf.trees.loops`).
add_rows, partition, split_score, left_statistics = row_loops(sys.modules[__name__])
#: The monotone constraints' checks, compiled with this module's ``node_value`` (:mod:`mddf.trees.monotone`).
bounded_value, in_order, child_bounds = monotone_checks(sys.modules[__name__])
new_table, best_ordered_threshold = ordered_search(sys.modules[__name__])
