"""Decision trees grown on binned features, compiled with numba.

The forests of a deep forest spend most of their time in scikit-learn's tree
builder (84% of an mdDF fit in our profile): at every node it copies and sorts
the float values of each candidate feature, and evaluates the Gini index of
every candidate threshold by summing over all classes (O(n_classes) a row,
which on 26-class letter dominates). This module grows the same kinds of trees
on features quantised once per layer to at most 256 ordered bins (as LightGBM,
XGBoost's ``hist`` method and DF21 do):

- a node's class counts per bin are a histogram (one pass over its rows) on
  large nodes, and a counting sort on small ones, so nothing is ever sorted by
  comparison;
- the Gini criterion is updated incrementally (the sum of squared class
  weights changes by one term when a row crosses the threshold), so a
  candidate threshold costs O(1) instead of O(n_classes).

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

Bins are cut between the sorted distinct values of a feature (at midpoints, as
scikit-learn's thresholds are) when it has at most ``max_bins`` of them, and at
equal-frequency quantiles otherwise. ``bin(x) <= b`` exactly when
``x <= edges[b]``, so a split on bins is a split on float thresholds; fitted
trees keep their bins (:class:`mddf.binned_forest.BinnedForest`) and new rows
are binned with the same edges.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_BINS = 256
_INSERTION_SORT_ROWS = 24


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
    """

    def __init__(self, max_bins=MAX_BINS):
        if not 2 <= max_bins <= MAX_BINS:
            raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {max_bins}")
        self.max_bins = max_bins

    def fit(self, X):
        X = np.asarray(X, dtype=np.float32)
        self.edges_ = [self._column_edges(X[:, j]) for j in range(X.shape[1])]
        return self

    def _column_edges(self, column):
        values = np.unique(column)
        if len(values) <= self.max_bins:
            lower, upper = values[:-1], values[1:]
            mid = ((lower.astype(np.float64) + upper) / 2).astype(np.float32)
            # a float32 midpoint of two adjacent floats may round up onto the upper value,
            # which would put that value in the lower bin
            return np.where(mid < upper, mid, lower).astype(np.float32)
        cuts = np.quantile(column, np.linspace(0, 1, self.max_bins + 1)[1:-1], method="inverted_cdf")
        cuts = np.unique(cuts.astype(np.float32))
        return cuts[cuts < values[-1]]  # a cut at the maximum would leave its upper bin empty

    def transform(self, X):
        """Bin codes (uint8, C-contiguous, same shape as ``X``)."""
        X = np.asarray(X, dtype=np.float32)
        out = np.empty(X.shape, dtype=np.uint8)
        for j, edges in enumerate(self.edges_):
            out[:, j] = np.searchsorted(edges, X[:, j], side="left")
        return out

    def fit_transform(self, X):
        return self.fit(X).transform(X)


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
def _randint(state, k):
    return np.int64(_next(state) % np.uint64(k))


@njit(cache=True, nogil=True)
def _best_split_feature(
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
def grow_tree(Xb, y, w, n_bins, n_classes, max_depth, max_features, random_split, seed):
    """Grow one classification tree on binned features.

    Parameters
    ----------
    Xb : ndarray of uint8 (n, d), C-contiguous
        Bin codes of the layer input.
    y : ndarray of int64 (n,)
        Class indices ``0 .. n_classes - 1``.
    w : ndarray of float64 (n,)
        Row weights; rows of weight 0 are not in the tree's training set
        (bootstrap counts times the sample distribution).
    n_bins : ndarray of int64 (d,)
        Number of bins of each feature (codes are ``0 .. n_bins[j] - 1``).
    max_depth : int
        Depth limit (-1: none).
    max_features : int
        Candidate features per node for best splits: features are drawn without
        replacement until ``max_features`` non-constant ones have been evaluated
        (or none is left), as scikit-learn's splitter does.
    random_split : bool
        Completely-random split (one random non-constant feature, a random bin
        boundary inside the node's range) instead of the best Gini split.
    seed : int

    Returns
    -------
    feature : int32 (n_nodes,)   split feature, -1 for a leaf
    split_bin : uint8 (n_nodes,) rows with ``bin <= split_bin`` go left, to the next node
    right : int32 (n_nodes,)     right child of an internal node; for a leaf, its class
                                 if the leaf is pure, else ``-(k + 1)`` for row k of ``impure_values``
    impure_values : float32 (n_impure_leaves, n_classes) class distribution of the impure leaves
    depth : int                  depth of the tree

    A node becomes a leaf when it holds fewer than 2 rows, is pure, has reached
    ``max_depth`` or has no non-constant feature (scikit-learn's defaults:
    ``min_samples_split=2``, ``min_samples_leaf=1``).
    """
    n, d = Xb.shape
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x2545F4914F6CDD1D)
    if state[0] == 0:
        state[0] = 1
    m = 0
    for i in range(n):
        if w[i] > 0.0:
            m += 1
    samples = np.empty(m, dtype=np.int64)
    node_y = np.empty(m, dtype=np.int64)  # class and weight of samples[i], permuted along with it
    node_w = np.empty(m)
    root_counts = np.zeros(n_classes)
    k = 0
    for i in range(n):
        if w[i] > 0.0:
            samples[k] = i
            node_y[k] = y[i]
            node_w[k] = w[i]
            root_counts[y[i]] += w[i]
            k += 1
    capacity = max(2 * m - 1, 1)
    feature = np.full(capacity, -1, dtype=np.int32)
    split_bin = np.zeros(capacity, dtype=np.uint8)
    right = np.zeros(capacity, dtype=np.int32)
    impure_values = np.empty((max(m, 1), n_classes), dtype=np.float32)
    # Depth-first: a node's left child is the next node, its right child follows the
    # left subtree. The stack holds the pending nodes (at most depth + 2) with their
    # class weights, which the parent's partition pass has already counted.
    stack_size = m + 2
    stack_start = np.empty(stack_size, dtype=np.int64)
    stack_end = np.empty(stack_size, dtype=np.int64)
    stack_depth = np.empty(stack_size, dtype=np.int64)
    stack_parent = np.empty(stack_size, dtype=np.int64)
    stack_counts = np.empty((stack_size, n_classes))
    features = np.arange(d)
    counts = np.zeros(n_classes)
    hist = np.zeros((MAX_BINS, n_classes))
    bin_weight = np.zeros(MAX_BINS)
    bin_count = np.zeros(MAX_BINS, dtype=np.int64)
    node_bin = np.empty(max(m, 1), dtype=np.uint8)
    sorted_bin = np.empty(max(m, 1), dtype=np.uint8)
    sorted_class = np.empty(max(m, 1), dtype=np.int64)
    sorted_weight = np.empty(max(m, 1))
    left = np.zeros(n_classes)
    left_counts = np.zeros(n_classes)
    right_counts = np.zeros(n_classes)
    stack_start[0] = 0
    stack_end[0] = m
    stack_depth[0] = 0
    stack_parent[0] = -1
    stack_counts[0] = root_counts
    top = 1
    n_nodes = 0
    n_impure = 0
    tree_depth = 0
    while top > 0:
        top -= 1
        start = stack_start[top]
        end = stack_end[top]
        depth = stack_depth[top]
        parent = stack_parent[top]
        node = n_nodes
        n_nodes += 1
        if parent >= 0:
            right[parent] = node
        if depth > tree_depth:
            tree_depth = depth
        node_weight = 0.0
        n_present = 0
        for c in range(n_classes):
            counts[c] = stack_counts[top, c]
            node_weight += counts[c]
            if counts[c] > 0.0:
                n_present += 1
        split_f = -1
        split_b = 0
        if end - start >= 2 and n_present > 1 and (max_depth < 0 or depth < max_depth):
            # draw features without replacement (partial Fisher-Yates over `features`)
            best = -1.0
            n_evaluated = 0
            for j in range(d):
                r = j + _randint(state, d - j)
                f = features[r]
                features[r] = features[j]
                features[j] = f
                if random_split:
                    lo = 255
                    hi = 0
                    for i in range(start, end):
                        b = Xb[samples[i], f]
                        if b < lo:
                            lo = b
                        if b > hi:
                            hi = b
                    if lo < hi:
                        split_f = f
                        split_b = lo + _randint(state, hi - lo)
                        break
                else:
                    score, b = _best_split_feature(
                        Xb,
                        node_y,
                        node_w,
                        samples,
                        start,
                        end,
                        f,
                        n_bins[f],
                        n_classes,
                        counts,
                        node_weight,
                        hist,
                        bin_weight,
                        bin_count,
                        node_bin,
                        sorted_bin,
                        sorted_class,
                        sorted_weight,
                        left,
                    )
                    if score < 0.0:
                        continue
                    if score > best:
                        best = score
                        split_f = f
                        split_b = b
                    n_evaluated += 1
                    if n_evaluated >= max_features:
                        break
        if split_f < 0:
            if n_present == 1:
                for c in range(n_classes):
                    if counts[c] > 0.0:
                        right[node] = c
            else:
                for c in range(n_classes):
                    impure_values[n_impure, c] = counts[c] / node_weight
                n_impure += 1
                right[node] = -n_impure
            continue
        feature[node] = split_f
        split_bin[node] = split_b
        # partition the node's rows (bin <= split_b first), counting each side's class weights
        for c in range(n_classes):
            left_counts[c] = 0.0
            right_counts[c] = 0.0
        i = start
        j = end - 1
        while i <= j:
            s = samples[i]
            c = node_y[i]
            if Xb[s, split_f] <= split_b:
                left_counts[c] += node_w[i]
                i += 1
            else:
                h = node_w[i]
                right_counts[c] += h
                samples[i] = samples[j]
                samples[j] = s
                node_y[i] = node_y[j]
                node_y[j] = c
                node_w[i] = node_w[j]
                node_w[j] = h
                j -= 1
        stack_start[top] = i
        stack_end[top] = end
        stack_depth[top] = depth + 1
        stack_parent[top] = node
        stack_counts[top] = right_counts
        top += 1
        stack_start[top] = start
        stack_end[top] = i
        stack_depth[top] = depth + 1
        stack_parent[top] = -1  # the left child is node + 1 by construction
        stack_counts[top] = left_counts
        top += 1
    return (
        feature[:n_nodes].copy(),
        split_bin[:n_nodes].copy(),
        right[:n_nodes].copy(),
        impure_values[:n_impure].copy(),
        tree_depth,
    )


@njit(cache=True, nogil=True)
def add_tree_proba(feature, split_bin, right, impure_values, Xb, rows, out):
    """Add the tree's class distribution of each row ``rows[k]`` of ``Xb`` to ``out[k]``."""
    n_classes = out.shape[1]
    for k in range(len(rows)):
        r = rows[k]
        node = 0
        while feature[node] >= 0:
            if Xb[r, feature[node]] <= split_bin[node]:
                node += 1
            else:
                node = right[node]
        code = right[node]
        if code >= 0:
            out[k, code] += 1.0
        else:
            for c in range(n_classes):
                out[k, c] += impure_values[-code - 1, c]
