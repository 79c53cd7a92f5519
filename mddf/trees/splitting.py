"""Split search on binned features, one candidate feature of a node at a time, compiled with numba.

Nothing is ever sorted by comparison, and a candidate threshold costs O(1)
instead of O(n_classes):

- a node's class counts per bin are a histogram (one pass over its rows) on
  large nodes, and a counting sort on small ones;
- the Gini criterion is updated incrementally (the sum of squared class
  weights changes by one term when a row crosses the threshold).

Three split rules, matching the block's forest kinds:

- best split (``random_split=0`` or False): the random forest's rule, the best Gini
  split over ``max_features`` randomly chosen features that are not constant in
  the node (scikit-learn's ``DecisionTreeClassifier(max_features=...)``);
- random split (``random_split=1`` or True): the completely-random tree of Zhou and
  Feng, one randomly chosen non-constant feature and a threshold drawn uniformly
  among its bin boundaries inside the node. scikit-learn's
  ``ExtraTreeClassifier(max_features=1)`` draws the threshold uniformly in value
  instead; drawing it among the bins (equal-frequency quantiles of the layer's
  training rows) is drawing it uniformly in rank, which does not depend on the
  scale of a feature;
- extremely-randomised split (``random_split=2``): the ExtraTrees rule
  (scikit-learn's ``ExtraTreeClassifier(max_features=...)``, DF21's "ERF"): a
  random threshold, drawn as for the random split, on each of ``max_features``
  randomly chosen non-constant features, and the best of these candidates by
  Gini (:func:`split_score`).

Missing values (NaN) sit in a bin of their own, the feature's last code
``missing_bin`` (:mod:`mddf.trees.binning`), so a threshold ``bin <= b`` on the
real bins sends them right. When a node holds missing rows of the feature:

- the best split evaluates every threshold twice, missing rows right and
  missing rows left, and the split of the real rows from the missing ones
  (as scikit-learn's trees, ``HistGradientBoostingClassifier`` and LightGBM
  do); the side of the best one is kept;
- the random split draws its threshold among the real bins as without missing
  values, then the missing rows' side, one more draw, uniformly (as
  scikit-learn's ``ExtraTreeClassifier``); when the real rows share one bin the
  only split is real rows left, missing rows right, and nothing is drawn.

Without missing rows in the node nothing changes, not even the random stream
(the split functions report side -1, and the tree sends a NaN met at
prediction to the heavier child). Without any missing value in the layer input
the callers pass ``missing_bins=None``: numba then compiles these functions
without the missing-value code (it prunes ``missing_bins is None`` branches),
so complete data runs no missing-value code at all.

The random draws (of candidate features and of random thresholds) come from a
small generator (xorshift64*) whose state is a one-element uint64 array made by
:func:`rng_state`. :func:`mddf.trees.grower.grow_tree` draws a node's candidate
features and calls :func:`best_split_bin` or :func:`random_split_bin` on each.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# grow_tree's on-disk numba cache (grower.py) holds this module's functions compiled in and
# does not see changes to this file: delete mddf/trees/__pycache__ after editing it.

_INSERTION_SORT_ROWS = 24
# random_split_bin returns bin + _SIDE * (missing side + 1): the bin alone when the node has no missing row
_SIDE = 256


@njit(cache=True, nogil=True)
def rng_state(seed):
    """State of the split search's random generator for a tree grown with ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x2545F4914F6CDD1D)
    if state[0] == 0:
        state[0] = 1
    return state


@njit(cache=True, nogil=True)
def _next(state):
    # xorshift64*: small, fast, and the same stream on every platform and thread
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@njit(cache=True, nogil=True)
def randint(state, k):
    """A random integer in ``[0, k)``, advancing ``state``."""
    return np.int64(_next(state) % np.uint64(k))


@njit(cache=True, nogil=True)
def best_split_bin(
    Xb,
    node_y,
    node_w,
    samples,
    start,
    end,
    f,
    n_bins_f,
    n_classes,
    node_counts,
    node_weight,
    hist,
    bin_weight,
    bin_count,
    node_bin,
    sorted_bin,
    sorted_class,
    sorted_weight,
    left,
    missing_bins,
    missing,
):
    """Best Gini threshold of feature ``f`` on the node's rows ``samples[start:end]``.

    Returns (score, threshold bin, missing side). The score, to be maximised, is
    ``sum_children (sum_c w_c^2) / w_child``, which orders splits as the
    weighted Gini impurity of the children does (lower impurity, higher
    score); it is -1 when the feature is constant in the node. ``node_y`` and
    ``node_w`` are the class and weight of ``samples[i]`` at position i, so that
    only the feature value is read out of order. ``bin_count`` is zero on entry
    and on exit. ``missing_bins[f]`` is the code of NaN in feature ``f`` (-1 when
    the feature has no missing value; ``missing_bins`` is None when no feature
    has any); the side is 1 when the missing rows go left, 0 when they go right,
    -1 when the node has none. ``missing`` is scratch space of ``n_classes``
    floats.
    """
    n_node = end - start
    sumsq_right = 0.0
    for c in range(n_classes):
        left[c] = 0.0
        sumsq_right += node_counts[c] * node_counts[c]
    sumsq_left = 0.0
    w_left = 0.0
    best = -1.0
    best_bin = 0
    if n_bins_f * n_classes <= n_node:
        # large node: class histogram over the bins, then one scan over the bins
        for b in range(n_bins_f):
            bin_weight[b] = 0.0
            for c in range(n_classes):
                hist[b, c] = 0.0
        for i in range(start, end):
            b = Xb[samples[i], f]
            hist[b, node_y[i]] += node_w[i]
            bin_weight[b] += node_w[i]
            bin_count[b] += 1
        if missing_bins is not None:
            missing_bin = missing_bins[f]
            if missing_bin >= 0 and bin_count[missing_bin] > 0:
                return _scan_histogram_missing(
                    hist,
                    bin_weight,
                    bin_count,
                    n_node,
                    n_bins_f,
                    missing_bin,
                    n_classes,
                    node_counts,
                    node_weight,
                    left,
                )
        n_left = 0
        for b in range(n_bins_f - 1):
            if bin_count[b] == 0:
                continue
            n_left += bin_count[b]
            if n_left == n_node:  # every row is left of b (by rows, not by weights, which round)
                break
            for c in range(n_classes):
                h = hist[b, c]
                if h != 0.0:
                    lc = left[c]
                    sumsq_left += h * (2.0 * lc + h)
                    sumsq_right -= h * (2.0 * (node_counts[c] - lc) - h)
                    left[c] = lc + h
            w_left += bin_weight[b]
            w_right = node_weight - w_left
            if w_right > 0.0:
                score = sumsq_left / w_left + sumsq_right / w_right
                if score > best:
                    best = score
                    best_bin = b
        for b in range(n_bins_f):
            bin_count[b] = 0
        return best, best_bin, -1
    # smaller node: sort its rows by bin into contiguous buffers, then one scan over the rows
    lo = 255
    hi = 0
    for i in range(start, end):
        b = Xb[samples[i], f]
        node_bin[i - start] = b
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    if lo == hi:
        return -1.0, 0, -1
    if n_node <= _INSERTION_SORT_ROWS:
        # a few rows: insertion sort, cheaper than touching every bin of the range
        for i in range(n_node):
            b = node_bin[i]
            c = node_y[start + i]
            h = node_w[start + i]
            k = i
            while k > 0 and sorted_bin[k - 1] > b:
                sorted_bin[k] = sorted_bin[k - 1]
                sorted_class[k] = sorted_class[k - 1]
                sorted_weight[k] = sorted_weight[k - 1]
                k -= 1
            sorted_bin[k] = b
            sorted_class[k] = c
            sorted_weight[k] = h
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
            return _scan_sorted_missing(
                sorted_bin, sorted_class, sorted_weight, n_node, hi, n_classes, node_counts, node_weight, left, missing
            )
    for k in range(n_node - 1):
        c = sorted_class[k]
        h = sorted_weight[k]
        lc = left[c]
        sumsq_left += h * (2.0 * lc + h)
        sumsq_right -= h * (2.0 * (node_counts[c] - lc) - h)
        left[c] = lc + h
        w_left += h
        if sorted_bin[k + 1] == sorted_bin[k]:
            continue
        w_right = node_weight - w_left
        if w_right <= 0.0:  # rounding, when the remaining rows weigh next to nothing
            continue
        score = sumsq_left / w_left + sumsq_right / w_right
        if score > best:
            best = score
            best_bin = sorted_bin[k]
    return best, best_bin, -1


@njit(cache=True, nogil=True)
def _scan_histogram_missing(
    hist, bin_weight, bin_count, n_node, n_bins_f, missing_bin, n_classes, node_counts, node_weight, left
):
    """:func:`best_split_bin` on a class histogram whose missing bin is not empty.

    Each threshold between real bins is scored with the missing rows right and
    with them left; the threshold after the last non-empty real bin separates
    the real rows from the missing ones. Resets ``bin_count``.
    """
    n_missing = bin_count[missing_bin]
    w_missing = bin_weight[missing_bin]
    sumsq_right = 0.0
    sumsq_left_m = 0.0  # the same sums with the missing rows moved to the left child
    sumsq_right_m = 0.0
    for c in range(n_classes):
        left[c] = 0.0
        sumsq_right += node_counts[c] * node_counts[c]
        m = hist[missing_bin, c]
        sumsq_left_m += m * m
        sumsq_right_m += (node_counts[c] - m) * (node_counts[c] - m)
    sumsq_left = 0.0
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
                lc = left[c]
                sumsq_left += h * (2.0 * lc + h)
                sumsq_right -= h * (2.0 * (node_counts[c] - lc) - h)
                lm = lc + hist[missing_bin, c]
                sumsq_left_m += h * (2.0 * lm + h)
                sumsq_right_m -= h * (2.0 * (node_counts[c] - lm) - h)
                left[c] = lc + h
        w_left += bin_weight[b]
        w_right = node_weight - w_left
        if w_right > 0.0:
            score = sumsq_left / w_left + sumsq_right / w_right
            if score > best:
                best = score
                best_bin = b
                side = 0
        if n_left == n_node - n_missing:  # every real row is left: the split real | missing was the last
            break
        w_left_m = w_left + w_missing
        w_right_m = node_weight - w_left_m
        if w_right_m > 0.0:
            score = sumsq_left_m / w_left_m + sumsq_right_m / w_right_m
            if score > best:
                best = score
                best_bin = b
                side = 1
    for b in range(n_bins_f):
        bin_count[b] = 0
    return best, best_bin, side


@njit(cache=True, nogil=True)
def _scan_sorted_missing(
    sorted_bin, sorted_class, sorted_weight, n_node, missing_bin, n_classes, node_counts, node_weight, left, missing
):
    """:func:`best_split_bin` on rows sorted by bin, the missing ones (last code) at the end.

    As :func:`_scan_histogram_missing`, one row at a time.
    """
    n_real = n_node
    while sorted_bin[n_real - 1] == missing_bin:
        n_real -= 1
    w_missing = 0.0
    for c in range(n_classes):
        missing[c] = 0.0
    for k in range(n_real, n_node):
        missing[sorted_class[k]] += sorted_weight[k]
        w_missing += sorted_weight[k]
    sumsq_right = 0.0
    sumsq_left_m = 0.0
    sumsq_right_m = 0.0
    for c in range(n_classes):
        left[c] = 0.0
        sumsq_right += node_counts[c] * node_counts[c]
        m = missing[c]
        sumsq_left_m += m * m
        sumsq_right_m += (node_counts[c] - m) * (node_counts[c] - m)
    sumsq_left = 0.0
    w_left = 0.0
    best = -1.0
    best_bin = 0
    side = 0
    for k in range(n_real):
        c = sorted_class[k]
        h = sorted_weight[k]
        lc = left[c]
        sumsq_left += h * (2.0 * lc + h)
        sumsq_right -= h * (2.0 * (node_counts[c] - lc) - h)
        lm = lc + missing[c]
        sumsq_left_m += h * (2.0 * lm + h)
        sumsq_right_m -= h * (2.0 * (node_counts[c] - lm) - h)
        left[c] = lc + h
        w_left += h
        if sorted_bin[k + 1] == sorted_bin[k]:
            continue
        w_right = node_weight - w_left
        if w_right > 0.0:
            score = sumsq_left / w_left + sumsq_right / w_right
            if score > best:
                best = score
                best_bin = sorted_bin[k]
                side = 0
        if k + 1 == n_real:  # the split real | missing has no missing-left twin
            break
        w_left_m = w_left + w_missing
        w_right_m = node_weight - w_left_m
        if w_right_m > 0.0:
            score = sumsq_left_m / w_left_m + sumsq_right_m / w_right_m
            if score > best:
                best = score
                best_bin = sorted_bin[k]
                side = 1
    return best, best_bin, side


@njit(cache=True, nogil=True)
def random_split_bin(Xb, samples, start, end, f, missing_bins, state):
    """Completely-random threshold of feature ``f`` on the node's rows ``samples[start:end]``.

    Returns -1 when the feature is constant in the node (then nothing is
    drawn), else ``bin + _SIDE * (side + 1)``: ``bin`` is drawn uniformly among
    the bin boundaries inside the node's range of the feature's real values
    (rows with ``bin <= it`` go left), ``side`` is the missing rows' side, -1
    when the node has none (so that the result is the bin alone, as without
    missing values), else drawn after the bin (1: left, 0: right). When the
    real rows share one bin, the split is real rows left, missing rows right,
    and nothing is drawn. ``missing_bins[f]`` is the code of NaN in feature
    ``f`` (-1 when the feature has none; ``missing_bins`` is None when no
    feature has any). ``state`` is the random generator's state
    (:func:`rng_state`), advanced in place. (One integer rather than a pair:
    it is returned in a register, which keeps the completely-random nodes, the
    cheapest and most numerous, fast.)
    """
    lo = 255
    hi = 0
    n_missing = 0
    missing_bin = -1 if missing_bins is None else missing_bins[f]
    if missing_bin < 0:
        for i in range(start, end):
            b = Xb[samples[i], f]
            if b < lo:
                lo = b
            if b > hi:
                hi = b
    else:
        for i in range(start, end):
            b = Xb[samples[i], f]
            if b == missing_bin:
                n_missing += 1
                continue
            if b < lo:
                lo = b
            if b > hi:
                hi = b
    if n_missing == 0:
        if lo < hi:
            return lo + randint(state, hi - lo)
        return -1
    if n_missing == end - start:
        return -1
    if lo < hi:
        b = lo + randint(state, hi - lo)
        return b + _SIDE * (1 + randint(state, 2))
    return hi + _SIDE


@njit(cache=True, nogil=True)
def split_score(
    Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, n_classes, node_counts, node_weight, left
):
    """Gini score of one given split of the node's rows ``samples[start:end]`` (the extremely-randomised rule).

    Rows with ``bin <= split_b`` of feature ``f``, and rows coded
    ``missing_code`` (the feature's missing bin when missing values go left,
    -1 otherwise), form the left child. The score is :func:`best_split_bin`'s,
    ``sum_children (sum_c w_c^2) / w_child``; -1 when a child has no weight.
    ``left`` is scratch space of ``n_classes`` floats.
    """
    for c in range(n_classes):
        left[c] = 0.0
    w_left = 0.0
    for i in range(start, end):
        code = Xb[samples[i], f]
        if code <= split_b or code == missing_code:
            left[node_y[i]] += node_w[i]
            w_left += node_w[i]
    w_right = node_weight - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -1.0
    sumsq_left = 0.0
    sumsq_right = 0.0
    for c in range(n_classes):
        lc = left[c]
        rc = node_counts[c] - lc
        sumsq_left += lc * lc
        sumsq_right += rc * rc
    return sumsq_left / w_left + sumsq_right / w_right
