"""Growing one classification tree on binned features, compiled with numba.

Trees grow depth first from a stack of pending nodes: each node draws its
candidate features, takes the split that :mod:`mddf.trees.splitting` finds on
them, and partitions its rows in place. The tree is returned as flat node
arrays, routed by :func:`mddf.trees.predictor.add_tree_proba` and stored by
:class:`mddf.trees.BinnedForest`, with the side of each node's missing values
and the tree's weighted Gini impurity decrease per feature (its impurity-based
feature importance), both gathered while the tree grows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# numba's on-disk cache of grow_tree holds the split search compiled in and the value of MAX_BINS,
# and is invalidated only by changes to this file: after editing splitting.py or binning.py,
# delete mddf/trees/__pycache__.
from .binning import MAX_BINS
from .splitting import best_split_bin, randint, random_split_bin, rng_state, split_score

_UNDECIDED = 2  # missing_left of a node whose left child has not been popped yet


@njit(cache=True, nogil=True)
def _partition(Xb, samples, node_y, node_w, start, end, f, split_b, missing_code, left_counts, right_counts):
    """Partition rows ``start:end`` of a node split on feature ``f`` at bin ``split_b``.

    Rows with bin ``<= split_b``, and rows coded ``missing_code`` (the feature's missing bin when
    missing values go left, -1 otherwise), come first; each side's class weights are added to
    ``left_counts`` / ``right_counts``. Returns the first row of the right child.
    """
    i = start
    j = end - 1
    while i <= j:
        s = samples[i]
        c = node_y[i]
        code = Xb[s, f]
        if code <= split_b or code == missing_code:
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
    return i


@njit(cache=True, nogil=True)
def grow_tree(Xb, y, w, n_bins, missing_bin, n_classes, max_depth, max_features, random_split, seed):
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
        Number of bins of each feature (codes are ``0 .. n_bins[j] - 1``), the
        missing bin included.
    missing_bin : ndarray of int64 (d,) or None
        Code of the missing values (NaN) of each feature, its last one
        (``n_bins[j] - 1``), or -1 when the feature has none
        (:mod:`mddf.trees.binning`); None when no feature has any, which
        compiles the tree builder without the missing-value code.
    max_depth : int
        Depth limit (-1: none).
    max_features : int
        Candidate features per node for best and extremely-randomised splits: features are drawn without
        replacement until ``max_features`` non-constant ones have been evaluated
        (or none is left), as scikit-learn's splitter does.
    random_split : int or bool
        The split rule (:mod:`mddf.trees.splitting`). 0 (False): the best Gini
        split over ``max_features`` candidate features (random forest). 1
        (True): completely random, one random non-constant feature and a random
        bin boundary inside the node's range (``max_features`` is ignored). 2:
        extremely randomised, one random bin boundary on each of
        ``max_features`` candidate features, the best of them by Gini
        (ExtraTrees); candidates are drawn as for the best split.
    seed : int

    Returns
    -------
    feature : int32 (n_nodes,)   split feature, -1 for a leaf
    split_bin : uint8 (n_nodes,) rows with ``bin <= split_bin`` go left, to the next node
    right : int32 (n_nodes,)     right child of an internal node; for a leaf, its class
                                 if the leaf is pure, else ``-(k + 1)`` for row k of ``impure_values``
    impure_values : float32 (n_impure_leaves, n_classes) class distribution of the impure leaves
    depth : int                  depth of the tree
    missing_left : uint8 (n_nodes,) 1 when the missing values of the split feature go left: the side
                                 chosen by the split (:mod:`mddf.trees.splitting`) when the node held
                                 missing values of it, else the child of larger weight (ties: right,
                                 as scikit-learn's trees); 0 for a leaf
    importance : float64 (d,)    per feature, the weighted Gini impurity decrease of the splits on it,
                                 ``w_node G_node - w_left G_left - w_right G_right`` summed over the
                                 nodes and divided by the root's weight (scikit-learn's
                                 ``tree_.compute_feature_importances(normalize=False)``)

    A node becomes a leaf when it holds fewer than 2 rows, is pure, has reached
    ``max_depth`` or has no non-constant feature (scikit-learn's defaults:
    ``min_samples_split=2``, ``min_samples_leaf=1``).
    """
    n, d = Xb.shape
    state = rng_state(seed)
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
    root_weight = 0.0
    for c in range(n_classes):
        root_weight += root_counts[c]
    if root_weight <= 0.0:
        root_weight = 1.0
    capacity = max(2 * m - 1, 1)
    feature = np.full(capacity, -1, dtype=np.int32)
    split_bin = np.zeros(capacity, dtype=np.uint8)
    right = np.zeros(capacity, dtype=np.int32)
    missing_left = np.zeros(capacity, dtype=np.uint8)
    importance = np.zeros(d)
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
    # scratch buffers of the split search (best_split_bin)
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
    missing = np.zeros(n_classes)
    stack_start[0] = 0
    stack_end[0] = m
    stack_depth[0] = 0
    stack_parent[0] = -1
    stack_counts[0] = root_counts
    top = 1
    n_nodes = 0
    n_impure = 0
    tree_depth = 0
    split_weight = 0.0  # weight of the last node split
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
        sumsq = 0.0
        n_present = 0
        for c in range(n_classes):
            counts[c] = stack_counts[top, c]
            node_weight += counts[c]
            sumsq += counts[c] * counts[c]
            if counts[c] > 0.0:
                n_present += 1
        # Gini importance: the weighted impurity w G = w - sum_c w_c^2 / w, so a split's decrease
        # w G - w_l G_l - w_r G_r is the children's sum_c w_c^2 / w less the node's; each node adds
        # its term to its parent's split feature and, if it splits, subtracts it from its own
        gini_term = node_weight if n_present == 1 else sumsq / node_weight  # pure: sum_c w_c^2 / w = w
        if parent >= 0:
            importance[feature[parent]] += gini_term
        elif depth > 0:  # a left child, the node after its parent
            importance[feature[node - 1]] += gini_term
            # the parent, split just before, sends NaN to its heavier child unless it saw some
            if missing_bin is None:
                missing_left[node - 1] = node_weight > split_weight - node_weight  # ties go right
            elif missing_left[node - 1] == _UNDECIDED:
                missing_left[node - 1] = node_weight > split_weight - node_weight
        split_f = -1
        split_b = 0
        split_side = -1
        if end - start >= 2 and n_present > 1 and (max_depth < 0 or depth < max_depth):
            # draw features without replacement (partial Fisher-Yates over `features`); this
            # loop stays inline rather than in a per-node split-search function, whose call
            # with every buffer would cost more than a completely-random node's own work
            best = -1.0
            n_evaluated = 0
            for j in range(d):
                r = j + randint(state, d - j)
                f = features[r]
                features[r] = features[j]
                features[j] = f
                if random_split == 1:
                    b = random_split_bin(Xb, samples, start, end, f, missing_bin, state)
                    if b >= 0:
                        split_f = f
                        split_b = b & 255
                        split_side = (b >> 8) - 1
                        break
                elif random_split == 2:
                    b = random_split_bin(Xb, samples, start, end, f, missing_bin, state)
                    if b < 0:
                        continue
                    side = (b >> 8) - 1
                    missing_code = -1
                    if missing_bin is not None and side == 1:
                        missing_code = missing_bin[f]
                    score = split_score(
                        Xb,
                        node_y,
                        node_w,
                        samples,
                        start,
                        end,
                        f,
                        b & 255,
                        missing_code,
                        n_classes,
                        counts,
                        node_weight,
                        left,
                    )
                    if score > best:
                        best = score
                        split_f = f
                        split_b = b & 255
                        split_side = side
                    n_evaluated += 1
                    if n_evaluated >= max_features:
                        break
                else:
                    score, b, side = best_split_bin(
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
                        missing_bin,
                        missing,
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
        importance[split_f] -= gini_term
        # partition the node's rows (bin <= split_b first, and the missing ones when they go
        # left), counting each side's class weights
        for c in range(n_classes):
            left_counts[c] = 0.0
            right_counts[c] = 0.0
        # (the missing bin is the feature's last code: bin <= split_b sends missing rows right;
        # missing rows going left are matched by their code, -1 matching none)
        missing_code = -1
        if missing_bin is not None and split_side == 1:
            missing_code = missing_bin[split_f]
        i = _partition(
            Xb, samples, node_y, node_w, start, end, split_f, split_b, missing_code, left_counts, right_counts
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
        missing_left[:n_nodes].copy(),
        np.maximum(importance, 0.0) / root_weight,  # each split's decrease is >= 0, up to rounding
    )
