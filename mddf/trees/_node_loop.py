"""The node loop of the tree grower, compiled once per split criterion.

:func:`mddf.trees.grower.grow_tree` allocates a tree's arrays and scratch
space; the loop here grows the tree in them from a stack of pending nodes
(see :mod:`mddf.trees.grower` for the order and the split rules). Each
criterion module compiles it with its own functions (``grow_nodes =
node_loop(<the module>)``), so that the loop calls them directly and numba's
on-disk cache keys it on the module, not on a compiled function.
"""

from __future__ import annotations

import numpy as np

from ._kernel import kernel
from .splitting import CATEGORY_WORDS, CONSTANT, randint, random_subset, random_threshold

#: Split rules: the best split of each candidate feature, the best of them kept (random forests); a
#: completely random split of the first non-constant feature drawn (completely-random forests); a random
#: split of each candidate feature, the best of them kept (extremely-randomised trees).
BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD = 0, 1, 2

_UNDECIDED = 2  # missing_left of a node whose left child has not been popped yet
_NO_BITS = np.zeros(0, dtype=np.uint64)


def node_loop(criterion):
    """The node loop of :func:`mddf.trees.grower.grow_tree`, compiled for ``criterion``, whose functions it calls.

    It grows a tree node by node in arrays its caller allocated (:func:`mddf.trees.grower.grow_tree`'s
    skeleton) and allocates nothing, so it is compiled without reference counting
    (:mod:`mddf.trees._kernel`), and the criterion's split searches are inlined into it: a node's
    search of a feature costs neither the counting of the dozen arrays it reads nor a call that
    passes them. Each criterion module compiles its own (``criterion.grow_nodes``).
    """

    @kernel
    def _grow_nodes(
        Xb, n_bins, missing_bin, categorical, settings, state, samples, node_y, node_w, centre,
        feature, split_bin, right, missing_left, importance, leaf_values, category, category_bits,
        stack_start, stack_end, stack_depth, stack_parent, stack_stats, stack_constant, constant,
        features, stats, left_stats, right_stats, buf, present, bits, best_present, best_bits,
    ):  # fmt: skip
        """Grow the tree from the root on the stack; return its nodes, impure leaves, category splits and depth."""
        d = Xb.shape[1]
        max_depth, max_features, split_rule = settings.max_depth, settings.max_features, settings.split_rule
        n_stats = len(stats)
        n_words = len(constant)
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
                    if score > best:
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
            stack_start[top] = i
            stack_end[top] = end
            stack_depth[top] = depth + 1
            stack_parent[top] = node
            for c in range(n_stats):
                stack_stats[top, c] = right_stats[c]
            for k in range(n_words):
                stack_constant[top, k] = constant[k]
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
        return n_nodes, n_leaf_rows, n_category_splits, tree_depth

    return _grow_nodes
