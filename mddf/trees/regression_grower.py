"""Growing one regression tree on binned features, compiled with numba.

The regression counterpart of :func:`mddf.trees.grower.grow_tree`: the same
depth-first growth from a stack of pending nodes, the same candidate-feature
draws, random generator and missing-value handling, with the squared-error
criterion of :mod:`mddf.trees.regression_splitting` instead of Gini. A leaf
stores the weighted mean of its rows' targets. The tree is returned as flat
node arrays, routed by :func:`mddf.trees.regression_predictor.add_tree_values`
and stored by :class:`mddf.trees.BinnedRegressionForest`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# numba's on-disk cache of grow_regression_tree holds the split search compiled in and the value of
# MAX_BINS, and is invalidated only by changes to this file: after editing regression_splitting.py,
# splitting.py or binning.py, delete mddf/trees/__pycache__.
from .binning import MAX_BINS
from .regression_splitting import best_split_mse, threshold_score_mse
from .splitting import randint, random_split_bin, rng_state

_UNDECIDED = 2  # missing_left of a node whose left child has not been popped yet
_EPSILON = np.finfo(np.float64).eps  # a node whose weighted variance is at most this is a leaf (scikit-learn's rule)


@njit(cache=True, nogil=True)
def _partition_regression(Xb, samples, node_y, node_w, start, end, f, split_b, missing_code, left_sums, right_sums):
    """Partition rows ``start:end`` of a node split on feature ``f`` at bin ``split_b``.

    Rows with bin ``<= split_b``, and rows coded ``missing_code`` (the feature's missing bin when
    missing values go left, -1 otherwise), come first. ``left_sums`` / ``right_sums`` receive each
    side's weight, weighted target sum and weighted sum of squared targets. Returns the first row of
    the right child.
    """
    for c in range(3):
        left_sums[c] = 0.0
        right_sums[c] = 0.0
    i = start
    j = end - 1
    while i <= j:
        s = samples[i]
        code = Xb[s, f]
        h = node_w[i]
        v = node_y[i]
        if code <= split_b or code == missing_code:
            left_sums[0] += h
            left_sums[1] += h * v
            left_sums[2] += h * v * v
            i += 1
        else:
            right_sums[0] += h
            right_sums[1] += h * v
            right_sums[2] += h * v * v
            samples[i] = samples[j]
            samples[j] = s
            node_y[i] = node_y[j]
            node_y[j] = v
            node_w[i] = node_w[j]
            node_w[j] = h
            j -= 1
    return i


@njit(cache=True, nogil=True)
def grow_regression_tree(Xb, y, w, missing_bin, max_depth, max_features, random_split, seed):
    """Grow one regression tree on binned features.

    Parameters
    ----------
    Xb : ndarray of uint8 (n, d), C-contiguous
        Bin codes of the layer input.
    y : ndarray of float64 (n,)
        Targets.
    w : ndarray of float64 (n,)
        Row weights; rows of weight 0 are not in the tree's training set
        (bootstrap counts times the sample weights).
    missing_bin : ndarray of int64 (d,) or None
        Code of the missing values (NaN) of each feature, its last one, or -1
        when the feature has none (:mod:`mddf.trees.binning`); None when no
        feature has any, which compiles the tree builder without the
        missing-value code.
    max_depth : int
        Depth limit (-1: none).
    max_features : int
        Candidate features per node: features are drawn without replacement
        until ``max_features`` non-constant ones have been evaluated (or none is
        left), as scikit-learn's splitter does.
    random_split : bool
        False: the best squared-error threshold of each candidate
        (``DecisionTreeRegressor``). True: one random threshold per candidate,
        drawn uniformly among the bin boundaries inside the node
        (:func:`mddf.trees.splitting.random_split_bin`), the best-scoring
        candidate kept (``ExtraTreeRegressor``); with ``max_features=1`` that
        is the completely-random tree (one random non-constant feature, a random
        threshold), and nothing is scored.
    seed : int

    Returns
    -------
    feature : int32 (n_nodes,)    split feature, -1 for a leaf
    split_bin : uint8 (n_nodes,)  rows with ``bin <= split_bin`` go left, to the next node
    right : int32 (n_nodes,)      right child of an internal node; for a leaf, its row of ``values``
    values : float64 (n_leaves,)  each leaf's weighted mean target ``S / W``
    depth : int                   depth of the tree
    missing_left : uint8 (n_nodes,) 1 when the missing values of the split feature go left: the side
                                  chosen by the split when the node held missing values of it, else the
                                  child of larger weight (ties: right, as scikit-learn's trees); 0 for a leaf
    importance : float64 (d,)     per feature, the weighted impurity (variance) decrease of the splits on
                                  it, ``w_node var_node - w_left var_left - w_right var_right`` summed over
                                  the nodes and divided by the root's weight (scikit-learn's
                                  ``tree_.compute_feature_importances(normalize=False)``)

    A node becomes a leaf when it holds fewer than 2 rows, its weighted
    variance is at most the float64 machine epsilon (scikit-learn's test), it
    has reached ``max_depth`` or it has no non-constant feature
    (scikit-learn's defaults: ``min_samples_split=2``, ``min_samples_leaf=1``).
    """
    n, d = Xb.shape
    state = rng_state(seed)
    m = 0
    for i in range(n):
        if w[i] > 0.0:
            m += 1
    samples = np.empty(m, dtype=np.int64)
    node_y = np.empty(m)  # target and weight of samples[i], permuted along with it
    node_w = np.empty(m)
    root = np.zeros(3)  # weight, weighted target sum, weighted sum of squares
    k = 0
    for i in range(n):
        if w[i] > 0.0:
            samples[k] = i
            node_y[k] = y[i]
            node_w[k] = w[i]
            root[0] += w[i]
            root[1] += w[i] * y[i]
            root[2] += w[i] * y[i] * y[i]
            k += 1
    root_weight = root[0] if root[0] > 0.0 else 1.0
    # the importance terms are taken about the root mean: a split's decrease does not depend on the
    # origin of the targets, and centring keeps it from cancelling against large sums
    centre = root[1] / root_weight
    capacity = max(2 * m - 1, 1)
    feature = np.full(capacity, -1, dtype=np.int32)
    split_bin = np.zeros(capacity, dtype=np.uint8)
    right = np.zeros(capacity, dtype=np.int32)
    missing_left = np.zeros(capacity, dtype=np.uint8)
    importance = np.zeros(d)
    values = np.empty(max(m, 1))
    # Depth-first: a node's left child is the next node, its right child follows the left
    # subtree. The stack holds the pending nodes with their sums, which the parent's
    # partition pass has already computed.
    stack_size = m + 2
    stack_start = np.empty(stack_size, dtype=np.int64)
    stack_end = np.empty(stack_size, dtype=np.int64)
    stack_depth = np.empty(stack_size, dtype=np.int64)
    stack_parent = np.empty(stack_size, dtype=np.int64)
    stack_sums = np.empty((stack_size, 3))
    features = np.arange(d)
    # scratch buffers of the split search
    bin_sum = np.zeros(MAX_BINS)
    bin_weight = np.zeros(MAX_BINS)
    bin_count = np.zeros(MAX_BINS, dtype=np.int64)
    out_bin = np.empty(MAX_BINS, dtype=np.int64)
    out_sum = np.empty(MAX_BINS)
    out_weight = np.empty(MAX_BINS)
    out_count = np.empty(MAX_BINS, dtype=np.int64)
    left_sums = np.zeros(3)
    right_sums = np.zeros(3)
    stack_start[0] = 0
    stack_end[0] = m
    stack_depth[0] = 0
    stack_parent[0] = -1
    stack_sums[0] = root
    top = 1
    n_nodes = 0
    n_leaves = 0
    tree_depth = 0
    split_weight = 0.0  # weight of the last node split
    while top > 0:
        top -= 1
        start = stack_start[top]
        end = stack_end[top]
        depth = stack_depth[top]
        parent = stack_parent[top]
        node_weight = stack_sums[top, 0]
        node_sum = stack_sums[top, 1]
        node_sq = stack_sums[top, 2]
        node = n_nodes
        n_nodes += 1
        if parent >= 0:
            right[parent] = node
        if depth > tree_depth:
            tree_depth = depth
        # importance: w var = sum w y^2 - S^2 / W, so a split's decrease is the children's
        # S^2 / W less the node's (the sums of squares cancel); each node adds its term to its
        # parent's split feature and, if it splits, subtracts it from its own
        centred = node_sum - centre * node_weight
        term = centred * centred / node_weight if node_weight > 0.0 else 0.0
        if parent >= 0:
            importance[feature[parent]] += term
        elif depth > 0:  # a left child, the node after its parent
            importance[feature[node - 1]] += term
            # the parent, split just before, sends NaN to its heavier child unless it saw some
            if missing_bin is None:
                missing_left[node - 1] = node_weight > split_weight - node_weight  # ties go right
            elif missing_left[node - 1] == _UNDECIDED:
                missing_left[node - 1] = node_weight > split_weight - node_weight
        split_f = -1
        split_b = 0
        split_side = -1
        mean = node_sum / node_weight if node_weight > 0.0 else 0.0
        impurity = node_sq / node_weight - mean * mean if node_weight > 0.0 else 0.0
        if end - start >= 2 and impurity > _EPSILON and (max_depth < 0 or depth < max_depth):
            best = -1.0
            n_evaluated = 0
            for j in range(d):
                # draw features without replacement (partial Fisher-Yates over `features`)
                r = j + randint(state, d - j)
                f = features[r]
                features[r] = features[j]
                features[j] = f
                if random_split:
                    b = random_split_bin(Xb, samples, start, end, f, missing_bin, state)
                    if b < 0:
                        continue
                    side = (b >> 8) - 1
                    b = b & 255
                    if max_features == 1:  # completely random: the first non-constant feature
                        split_f = f
                        split_b = b
                        split_side = side
                        break
                    missing_code = -1
                    if missing_bin is not None and side == 1:
                        missing_code = missing_bin[f]
                    score = threshold_score_mse(
                        Xb, node_y, node_w, samples, start, end, f, b, missing_code, node_sum, node_weight
                    )
                else:
                    score, b, side = best_split_mse(
                        Xb,
                        node_y,
                        node_w,
                        samples,
                        start,
                        end,
                        f,
                        node_sum,
                        node_weight,
                        bin_sum,
                        bin_weight,
                        bin_count,
                        out_bin,
                        out_sum,
                        out_weight,
                        out_count,
                        missing_bin,
                    )
                    if score < 0.0:
                        continue
                if score > best:
                    best = score
                    split_f = f
                    split_b = b
                    split_side = side
                n_evaluated += 1
                if n_evaluated >= max_features:
                    break
        if split_f < 0:
            values[n_leaves] = mean
            right[node] = n_leaves
            n_leaves += 1
            continue
        feature[node] = split_f
        split_bin[node] = split_b
        importance[split_f] -= term
        # (the missing bin is the feature's last code: bin <= split_b sends missing rows right;
        # missing rows going left are matched by their code, -1 matching none)
        missing_code = -1
        if missing_bin is not None and split_side == 1:
            missing_code = missing_bin[split_f]
        i = _partition_regression(
            Xb, samples, node_y, node_w, start, end, split_f, split_b, missing_code, left_sums, right_sums
        )
        # without missing rows here, NaN will go to the heavier child: decided when the left
        # child, always the next node popped, has summed its weight
        if missing_bin is not None:
            missing_left[node] = split_side if split_side >= 0 else _UNDECIDED
        split_weight = node_weight
        stack_start[top] = i
        stack_end[top] = end
        stack_depth[top] = depth + 1
        stack_parent[top] = node
        stack_sums[top] = right_sums
        top += 1
        stack_start[top] = start
        stack_end[top] = i
        stack_depth[top] = depth + 1
        stack_parent[top] = -1  # the left child is node + 1 by construction
        stack_sums[top] = left_sums
        top += 1
    return (
        feature[:n_nodes].copy(),
        split_bin[:n_nodes].copy(),
        right[:n_nodes].copy(),
        values[:n_leaves].copy(),
        tree_depth,
        missing_left[:n_nodes].copy(),
        np.maximum(importance, 0.0) / root_weight,  # each split's decrease is >= 0, up to rounding
    )
