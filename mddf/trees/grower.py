"""Growing one tree on binned features, compiled with numba: one skeleton for classification and regression.

Trees grow depth first from a stack of pending nodes: each node draws its
candidate features, takes the split the rule asks for on them (the
criterion's best split, or a random one: :mod:`mddf.trees.splitting`), and
partitions its rows in place. The split criterion is a module of compiled
functions that keeps the contract of :mod:`mddf.trees.criterion`, named in its
registry: Gini for class labels (:mod:`mddf.trees.gini`) and the squared error
for real targets (:mod:`mddf.trees.squared_error`). Each is compiled into the
skeleton by :func:`_grower`, which calls its functions directly (the
split searches are compiled without reference counting, and those called for
every candidate feature of a node are inlined by LLVM, :mod:`mddf.trees._kernel`).
The tree is returned as flat node arrays (:data:`GrownTree`), which
:mod:`mddf.trees.nodes` packs for prediction, with the side of each node's
missing values and the tree's impurity decrease per feature (its
impurity-based feature importance), both gathered while the tree grows.

A categorical feature (``categorical[f]``) is split into two sets of
categories instead of at a threshold: its best split is the criterion's best
subset, its random split a random subset of the categories in the node. The
categories of the left child are a bitset; the missing code and the
categories that the node did not see (when its rows had no missing value of
the feature, and for categories absent from the node) go to the heavier child,
as the missing values of a numeric split that saw none do.

A feature that the best-split search finds constant in a node is constant in
every node below it: the grower passes the set of such features down the
stack, and a node skips a drawn feature of its set as the search would have
(no split, and nothing drawn from the random stream), so the trees are the
ones a full search grows, without sorting a node's rows for a feature that
cannot split them. (The random rules find a constant feature in one pass over
the node's rows, and keep no set.)
"""

from __future__ import annotations

from collections import namedtuple
from functools import partial

import numpy as np

from .._runtime.compile_cache import njit
from .._runtime.dispatch import EntryPoint, zeros
from .criterion import CRITERIA, check_labels, criterion_for
from .splitting import CATEGORY_WORDS, CONSTANT, randint, random_subset, random_threshold, rng_state
from .squared_error import target_exponent

# numba's on-disk cache of the growers holds every function they call compiled in (splitting.py,
# the criteria's modules, binning.py); it is stamped with the digest of all those sources, and of every
# other source of mddf's compiled code (mddf/_compile_cache.py), so an edit of any of them makes numba
# compile the growers afresh on their next call.

#: Split rules: the best split of each candidate feature, the best of them kept (random forests); a
#: completely random split of the first non-constant feature drawn (completely-random forests); a random
#: split of each candidate feature, the best of them kept (extremely-randomised trees).
BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD = 0, 1, 2

#: How one tree grows: ``max_depth`` (-1: no limit); ``max_features``, candidate features a node evaluates (features
#: are drawn without replacement until that many non-constant ones have been evaluated, or none is left, as
#: scikit-learn's splitter does); ``split_rule`` (:data:`BEST`, :data:`COMPLETELY_RANDOM` or :data:`RANDOM_THRESHOLD`);
#: ``max_category_splits``, the most categories on the smaller side of a best category subset; ``min_category_count``,
#: the fewest rows a category needs in a node to be placed by the best subset (others go right).
TreeSettings = namedtuple(
    "TreeSettings", ["max_depth", "max_features", "split_rule", "max_category_splits", "min_category_count"]
)

#: A grown tree, node by node in depth-first order (a node's left child is the next node):
#: ``feature`` (int32) split feature, -1 for a leaf; ``split_bin`` (uint8) rows with ``bin <= split_bin`` go left;
#: ``right`` (int32) right child of an internal node, and for a leaf its class (a pure classification leaf) or
#: ``-(k + 1)`` for row k of ``leaf_values``; ``leaf_values`` (float32 class shares, or float64 means in one
#: column); ``missing_left`` (uint8) 1 when the missing values of the split feature go left (the side the split
#: chose when the node held missing values of it, else the child of larger weight, ties right as in scikit-learn);
#: ``category`` (int32, empty without categorical features) the row of ``category_bits`` of a category split, -1
#: for a threshold; ``category_bits`` (uint64, ``(n, CATEGORY_WORDS)``) the codes that go left; ``depth``; and
#: ``importance`` (float64 per feature) the weighted impurity decrease of the splits on it, summed over the nodes
#: and divided by the root's weight (scikit-learn's ``compute_feature_importances(normalize=False)``);
#: ``left_share`` (float64) of a split, the share of its training weight that went to its left child (0 for a
#: leaf), from which the attributions of :mod:`mddf.trees.attribution` read the weight reaching every node.
GrownTree = namedtuple(
    "GrownTree",
    [
        "feature",
        "split_bin",
        "right",
        "leaf_values",
        "missing_left",
        "category",
        "category_bits",
        "depth",
        "importance",
        "left_share",
    ],
    defaults=(None,),  # a tree built by hand may leave the shares out (it cannot be explained)
)

_UNDECIDED = 2  # missing_left of a node whose left child has not been popped yet
_NO_BITS = np.zeros(0, dtype=np.uint64)


def _grower(criterion):
    """The skeleton of :func:`grow_tree` compiled for ``criterion`` (:mod:`~mddf.trees.gini` or
    :mod:`~mddf.trees.squared_error`), whose functions it calls directly."""

    @njit(cache=True, nogil=True)
    def _skeleton(Xb, y, w, n_bins, missing_bin, categorical, n_classes, settings, seed, monotone):
        """:func:`grow_tree` with the criterion bound (see there)."""
        n, d = Xb.shape
        max_depth, max_features, split_rule = settings.max_depth, settings.max_features, settings.split_rule
        state = rng_state(seed)
        m = np.int64(0)  # not the literal 0: a call typed with it would compile a variant of its own
        for i in range(n):
            if w[i] > 0.0:
                m += 1
        n_stats = criterion.n_statistics(n_classes)
        # unsigned row indices and class indices: numba corrects negative indices of a signed type, an
        # extra three instructions on every histogram update
        samples = np.empty(m, dtype=np.uint64)
        node_y = criterion.new_labels(m, n_classes)  # label and weight of samples[i], permuted along with it
        node_w = np.empty(m)
        k = 0
        for i in range(n):
            if w[i] > 0.0:
                samples[k] = i
                node_y[k] = y[i]
                node_w[k] = w[i]
                k += 1
        root = np.zeros(n_stats)
        criterion.add_rows(node_y, node_w, root)
        root_weight = criterion.total_weight(root)
        if root_weight <= 0.0:
            root_weight = 1.0
        centre = criterion.importance_centre(root, root_weight)
        capacity = max(2 * m - 1, 1)
        feature = np.full(capacity, -1, dtype=np.int32)
        split_bin = np.zeros(capacity, dtype=np.uint8)
        right = np.zeros(capacity, dtype=np.int32)
        missing_left = np.zeros(capacity, dtype=np.uint8)
        left_share = np.zeros(capacity)
        importance = np.zeros(d)
        leaf_values = criterion.new_leaf_values(max(m, 1), n_classes)
        if categorical is None:
            category = np.empty(0, dtype=np.int32)
            category_bits = np.empty((0, CATEGORY_WORDS), dtype=np.uint64)
        else:
            category = np.full(capacity, -1, dtype=np.int32)
            category_bits = np.zeros((max(m, 1), CATEGORY_WORDS), dtype=np.uint64)
        # Depth-first: a node's left child is the next node, its right child follows the
        # left subtree. The stack holds the pending nodes (at most depth + 2) with their
        # statistics, which the parent's partition pass has already summed.
        stack_size = m + 2
        stack_start = np.empty(stack_size, dtype=np.int64)
        stack_end = np.empty(stack_size, dtype=np.int64)
        stack_depth = np.empty(stack_size, dtype=np.int64)
        stack_parent = np.empty(stack_size, dtype=np.int64)
        stack_stats = np.empty((stack_size, n_stats))
        # the features found constant in a pending node's ancestors, as a bitset: constant in the node too
        # (kept for the best-split rule, whose search of a constant feature costs a sort of the node's rows)
        n_words = ((d + 63) >> 6) if split_rule == BEST else 0
        stack_constant = np.empty((stack_size, n_words), dtype=np.uint64)
        constant = np.zeros(n_words, dtype=np.uint64)
        features = np.arange(d)
        stats = np.zeros(n_stats)
        left_stats = np.zeros(n_stats)
        right_stats = np.zeros(n_stats)
        buf = criterion.new_buffers(n_stats, m)
        present = np.zeros(CATEGORY_WORDS, dtype=np.uint64)  # a category split: the codes in the node,
        bits = np.zeros(CATEGORY_WORDS, dtype=np.uint64)  # the codes that go left,
        best_present = np.zeros(CATEGORY_WORDS, dtype=np.uint64)  # and the same for the best split so far
        best_bits = np.zeros(CATEGORY_WORDS, dtype=np.uint64)
        stack_start[0] = 0
        stack_end[0] = m
        stack_depth[0] = 0
        stack_parent[0] = -1
        for c in range(n_stats):  # element by element, here and below: an array assignment would compile
            stack_stats[0, c] = root[c]  # numba's shape-mismatch error message into every variant
        for k in range(n_words):
            stack_constant[0, k] = constant[k]
        if monotone is not None:  # the bounds of the pending nodes' values (``monotone``: compiled in only with it)
            stack_bounds = np.empty((stack_size, 2))
            stack_bounds[0, 0] = -np.inf
            stack_bounds[0, 1] = np.inf
            bounds = np.empty(2)
            scratch = np.zeros(n_stats)
            table = criterion.new_table(n_stats)
        top = 1
        n_nodes = 0
        n_leaf_rows = 0
        n_category_splits = 0
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
            for c in range(n_stats):
                stats[c] = stack_stats[top, c]
            for k in range(n_words):
                constant[k] = stack_constant[top, k]
            if monotone is not None:
                bounds[0] = stack_bounds[top, 0]
                bounds[1] = stack_bounds[top, 1]
            # each node adds its importance term to its parent's split feature and, if it splits,
            # subtracts it from its own: a split's decrease is its children's terms less its own
            node_weight, splittable, term = criterion.node_summary(stats, centre)
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
            split_subset = False
            if end - start >= 2 and splittable and (max_depth < 0 or depth < max_depth):
                # draw features without replacement (partial Fisher-Yates over `features`)
                best = -1.0
                n_evaluated = 0
                for j in range(d):
                    r = j + randint(state, d - j)
                    f = features[r]
                    features[r] = features[j]
                    features[j] = f
                    bit = np.uint64(1) << np.uint64(f & 63)
                    if n_words and constant[f >> 6] & bit:  # its search would find it constant again: no split
                        continue
                    subset = False
                    if categorical is not None:
                        subset = categorical[f] != 0
                    if split_rule == BEST:
                        if subset:
                            score = criterion.best_subset(
                                buf,
                                Xb,
                                node_y,
                                node_w,
                                samples,
                                start,
                                end,
                                f,
                                stats,
                                node_weight,
                                settings.max_category_splits,
                                settings.min_category_count,
                                present,
                                bits,
                            )
                            b = 0
                            side = -1
                        else:
                            # (written out twice: the grower without constraints compiles no ordered search)
                            if monotone is not None:  # a constrained feature: its best split in order
                                if monotone[f] != 0:
                                    candidate = criterion.best_ordered_threshold(
                                        monotone[f], Xb, node_y, node_w, samples, start, end, f, missing_bin, stats,
                                        bounds, table,
                                    )  # fmt: skip
                                else:
                                    candidate = criterion.best_threshold(
                                        buf, Xb, node_y, node_w, samples, start, end, f, n_bins[f], stats,
                                        node_weight, missing_bin,
                                    )  # fmt: skip
                            else:
                                candidate = criterion.best_threshold(
                                    buf,
                                    Xb,
                                    node_y,
                                    node_w,
                                    samples,
                                    start,
                                    end,
                                    f,
                                    n_bins[f],
                                    stats,
                                    node_weight,
                                    missing_bin,
                                )
                            score, b, side = candidate.score, candidate.bin, candidate.side
                        if score < 0.0:
                            if side == CONSTANT:
                                constant[f >> 6] |= bit
                            continue
                    else:
                        if subset:
                            if not random_subset(Xb, samples, start, end, f, state, present, bits):
                                continue
                            b = 0
                            side = -1
                        else:
                            threshold = random_threshold(Xb, samples, start, end, f, missing_bin, state)
                            if threshold.bin < 0:
                                continue
                            b, side = threshold.bin, threshold.side
                        if split_rule == COMPLETELY_RANDOM:  # the first non-constant feature drawn
                            if monotone is not None:  # (in its constraint's order)
                                if monotone[f] != 0:
                                    if not criterion.in_order(
                                        monotone[f], Xb, node_y, node_w, samples, start, end, f, b, side, missing_bin,
                                        stats, scratch, bounds,
                                    ):  # fmt: skip
                                        continue
                            split_f, split_b, split_side, split_subset = f, b, side, subset
                            if subset:
                                for k in range(CATEGORY_WORDS):
                                    best_present[k] = present[k]
                                    best_bits[k] = bits[k]
                            break
                        missing_code = -1
                        if missing_bin is not None and side == 1:
                            missing_code = missing_bin[f]
                        score = criterion.split_score(
                            buf.left,
                            Xb,
                            node_y,
                            node_w,
                            samples,
                            start,
                            end,
                            f,
                            b,
                            missing_code,
                            bits if subset else _NO_BITS,
                            stats,
                            node_weight,
                        )
                    taken = score > best
                    if monotone is not None:  # a split out of its constraint's order is not taken
                        if taken and monotone[f] != 0:
                            taken = criterion.in_order(
                                monotone[f], Xb, node_y, node_w, samples, start, end, f, b, side, missing_bin, stats,
                                scratch, bounds,
                            )  # fmt: skip
                    if taken:
                        best = score
                        split_f, split_b, split_side, split_subset = f, b, side, subset
                        if subset:
                            for k in range(CATEGORY_WORDS):
                                best_present[k] = present[k]
                                best_bits[k] = bits[k]
                    n_evaluated += 1
                    if n_evaluated >= max_features:
                        break
            if split_f < 0:
                if monotone is not None:
                    right[node], n_leaf_rows = criterion.write_bounded_leaf(
                        stats, node_weight, leaf_values, n_leaf_rows, bounds[0], bounds[1]
                    )
                else:
                    right[node], n_leaf_rows = criterion.write_leaf(stats, node_weight, leaf_values, n_leaf_rows)
                continue
            feature[node] = split_f
            split_bin[node] = split_b
            importance[split_f] -= term
            if split_subset:
                i = criterion.partition(
                    Xb, samples, node_y, node_w, start, end, split_f, -1, -1, best_bits, left_stats, right_stats
                )
                # the codes the node did not see (the missing one among them, unless the node had missing
                # rows) go to the heavier child
                w_left = criterion.total_weight(left_stats)
                default_left = w_left > node_weight - w_left
                for k in range(CATEGORY_WORDS):
                    if default_left:
                        best_bits[k] |= ~best_present[k]
                    category_bits[n_category_splits, k] = best_bits[k]
                category[node] = n_category_splits
                n_category_splits += 1
                missing_left[node] = default_left
            else:
                # (the missing bin is the feature's last code: bin <= split_b sends missing rows right;
                # missing rows going left are matched by their code, -1 matching none)
                missing_code = -1
                if missing_bin is not None and split_side == 1:
                    missing_code = missing_bin[split_f]
                i = criterion.partition(
                    Xb, samples, node_y, node_w, start, end, split_f, split_b, missing_code, _NO_BITS, left_stats,
                    right_stats,
                )  # fmt: skip
                # without missing rows here, NaN will go to the heavier child: decided when the left
                # child, always the next node popped, has summed its weight
                if missing_bin is not None:
                    missing_left[node] = split_side if split_side >= 0 else _UNDECIDED
            split_weight = node_weight
            w_left = criterion.total_weight(left_stats)
            left_share[node] = w_left / (w_left + criterion.total_weight(right_stats))
            stack_start[top] = i
            stack_end[top] = end
            stack_depth[top] = depth + 1
            stack_parent[top] = node
            for c in range(n_stats):
                stack_stats[top, c] = right_stats[c]
            for k in range(n_words):
                stack_constant[top, k] = constant[k]
            if monotone is not None:  # the children's bounds: the node's, split at the midpoint of their values
                criterion.child_bounds(monotone[split_f], left_stats, right_stats, bounds, stack_bounds, top)
            top += 1
            stack_start[top] = start
            stack_end[top] = i
            stack_depth[top] = depth + 1
            stack_parent[top] = -1  # the left child is node + 1 by construction
            for c in range(n_stats):
                stack_stats[top, c] = left_stats[c]
            for k in range(n_words):
                stack_constant[top, k] = constant[k]
            top += 1
        return GrownTree(
            feature[:n_nodes].copy(),
            split_bin[:n_nodes].copy(),
            right[:n_nodes].copy(),
            leaf_values[:n_leaf_rows].copy(),
            missing_left[:n_nodes].copy(),
            category[:n_nodes].copy() if categorical is not None else category,
            category_bits[:n_category_splits].copy(),
            tree_depth,
            np.maximum(importance, 0.0) / root_weight,  # each split's decrease is >= 0, up to rounding
            left_share[:n_nodes].copy(),
        )

    return _skeleton


def _grower_variants(label_dtype, label_ndim=1):
    """The arguments of a grower built ahead of time (:mod:`mddf._ahead_of_time`): without and with missing
    values, without and with categorical features."""
    settings = TreeSettings(0, 0, 0, 0, 0)
    return [
        (*zeros((np.uint8, 2), (label_dtype, label_ndim), (np.float64, 1), (np.int64, 1)), missing, categorical, 0)
        + (settings, 0, None)
        for missing in (None, *zeros((np.int64, 1)))
        for categorical in (None, *zeros((np.uint8, 1)))
    ]


#: The compiled growers, one per registered criterion (:data:`mddf.trees.criterion.CRITERIA`), by its name.
GROWERS = {
    name: EntryPoint(
        f"grow_{name}",
        _grower(module),
        partial(_grower_variants, np.int64 if "i" in module.LABEL_KINDS else np.float64, module.LABEL_NDIM),
    )
    for name, module in CRITERIA.items()
}
#: The growers of the Gini criterion (class labels) and of the squared error (targets).
GROW_GINI = GROWERS["gini"]
GROW_SQUARED_ERROR = GROWERS["squared_error"]


def _checked_monotone(monotone, criterion, Xb, categorical, n_classes):
    """``monotone`` of :func:`grow_tree` as a C-contiguous int8 array, checked; None when no feature is constrained."""
    if monotone is None:
        return None
    cst = np.ascontiguousarray(monotone, dtype=np.int8)
    if cst.shape != (Xb.shape[1],) or not np.isin(cst, (-1, 0, 1)).all():
        raise ValueError(f"monotone must hold -1, 0 or 1 for each of the {Xb.shape[1]} features, got {monotone!r}")
    if not cst.any():
        return None
    if criterion == "squared_error_multi":
        raise ValueError("monotone constraints of a tree of several targets are not supported")
    if criterion == "gini" and n_classes != 2:
        raise ValueError(f"monotone constraints of a classification tree need two classes, not {n_classes}")
    if categorical is not None and (np.asarray(categorical, dtype=bool) & (cst != 0)).any():
        raise ValueError("monotone constraints on a categorical feature: categories have no order")
    return cst


def grow_tree(Xb, y, w, n_bins, missing_bin, categorical, n_classes, settings, seed, criterion=None, monotone=None):
    """Grow one tree on binned features with the split ``criterion``: Gini for class labels, squared error for targets.

    Parameters
    ----------
    Xb : ndarray of uint8 (n, d), C-contiguous
        Bin codes of the layer input.
    y : ndarray of int64 or float64 (n,), or float64 (n, K)
        Class indices ``0 .. n_classes - 1`` (Gini), or targets (squared error), or K targets a row (the
        squared error summed over them, :mod:`mddf.trees.squared_error_multi`; leaves hold K means).
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
    categorical : ndarray of uint8 (d,) or None
        1 for a feature split into category subsets (its codes are categories,
        at most 256 of them, the missing code included); None when no feature
        is, which compiles the tree builder without the category code.
    n_classes : int
        Classes of ``y``; K for a 2-D ``y`` (not used for one target).
    settings : TreeSettings
    seed : int
    criterion : str or None, default=None
        A name of :data:`mddf.trees.criterion.CRITERIA` (``"gini"`` or
        ``"squared_error"``); a ``ValueError`` if it does not grow on labels of
        ``y``'s dtype. None: the first registered criterion that does
        (:func:`mddf.trees.criterion.criterion_for`).
    monotone : array-like of int (d,) or None, default=None
        A monotone constraint per feature (1: the tree's output increasing in it, -1: decreasing, 0: none;
        :mod:`mddf.trees.monotone`): the mean target, or with Gini and two classes the second class's share.
        A ``ValueError`` for a constrained categorical feature or Gini of other than two classes. None, or all
        0: unconstrained (the same tree as without).

    Returns
    -------
    GrownTree

    A node becomes a leaf when it holds fewer than 2 rows, cannot be split by
    its criterion (a pure node; a node whose weighted variance is at most the
    float64 machine epsilon, on targets scaled by a power of two when they are
    small, :func:`mddf.trees.squared_error.target_exponent`), has reached
    ``max_depth`` or has no non-constant feature (scikit-learn's defaults:
    ``min_samples_split=2``, ``min_samples_leaf=1``).
    """
    if criterion is None:
        criterion = criterion_for(y)
    else:
        check_labels(criterion, y)
    grow = GROWERS[criterion]
    cst = _checked_monotone(monotone, criterion, Xb, categorical, n_classes)
    exponent = target_exponent(y, w) if criterion.startswith("squared_error") else 0
    if exponent == 0:
        return grow(Xb, y, w, n_bins, missing_bin, categorical, n_classes, settings, seed, cst)
    tree = grow(Xb, np.ldexp(y, -exponent), w, n_bins, missing_bin, categorical, n_classes, settings, seed, cst)
    return tree._replace(
        leaf_values=np.ldexp(tree.leaf_values, exponent), importance=np.ldexp(tree.importance, 2 * exponent)
    )
