"""Split search on binned features, one candidate feature of a node at a time, compiled with numba.

Nothing is ever sorted by comparison, and a candidate threshold costs O(1)
instead of O(n_classes):

- a node's class counts per bin are a histogram (one pass over its rows) on
  large nodes, and a counting sort on small ones;
- the Gini criterion is updated incrementally (the sum of squared class
  weights changes by one term when a row crosses the threshold).

Two split rules, matching the block's two forest kinds:

- best split (``random_split=False``): the random forest's rule, the best Gini
  split over ``max_features`` randomly chosen features that are not constant in
  the node (scikit-learn's ``DecisionTreeClassifier(max_features=...)``);
- random split (``random_split=True``): the completely-random tree of Zhou and
  Feng, one randomly chosen non-constant feature and a threshold drawn uniformly
  among its bin boundaries inside the node. scikit-learn's
  ``ExtraTreeClassifier(max_features=1)`` draws the threshold uniformly in value
  instead; drawing it among the bins (equal-frequency quantiles of the layer's
  training rows) is drawing it uniformly in rank, which does not depend on the
  scale of a feature.

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
):
    """Best Gini threshold of feature ``f`` on the node's rows ``samples[start:end]``.

    Returns (score, threshold bin). The score, to be maximised, is
    ``sum_children (sum_c w_c^2) / w_child``, which orders splits as the
    weighted Gini impurity of the children does (lower impurity, higher
    score); it is -1 when the feature is constant in the node. ``node_y`` and
    ``node_w`` are the class and weight of ``samples[i]`` at position i, so that
    only the feature value is read out of order. ``bin_count`` is zero on entry
    and on exit.
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
        return best, best_bin
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
        return -1.0, 0
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
    return best, best_bin


@njit(cache=True, nogil=True)
def random_split_bin(Xb, samples, start, end, f, state):
    """Completely-random threshold of feature ``f`` on the node's rows ``samples[start:end]``.

    Returns a bin drawn uniformly among the bin boundaries inside the node's
    range of the feature (rows with ``bin <= it`` go left), or -1 when the
    feature is constant in the node (then nothing is drawn). ``state`` is the
    random generator's state (:func:`rng_state`), advanced in place.
    """
    lo = 255
    hi = 0
    for i in range(start, end):
        b = Xb[samples[i], f]
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    if lo < hi:
        return lo + randint(state, hi - lo)
    return -1
