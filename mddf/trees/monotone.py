"""Monotone constraints of a tree (``monotonic_cst``): the check of a split and the bounds of its children, written
once, compiled per criterion.

A tree grown with a constraint on a feature (1: its output increasing in the feature, -1: decreasing) keeps, for
every node, bounds ``[lower, upper]`` of its leaves' values, as scikit-learn's HistGradientBoosting and its trees do:
the root's are unbounded; a split on an unconstrained feature passes its node's bounds to both children; a split on
a constrained feature is taken only when its children's values, clipped into the node's bounds, are in the
constraint's order (:func:`monotone_checks`' ``in_order``; the best split of such a feature is the best of those in
order, ``best_ordered_threshold``, as in scikit-learn's trees), and the midpoint of those two values becomes the upper
bound of the child that must stay lower and the lower bound of the other (``child_bounds``). Every leaf's value is
clipped into its bounds (the criterion's ``write_bounded_leaf``). So every leaf left of a constrained split is at
most its midpoint and every leaf right of it at least: along the feature, other features fixed, the tree's output
moves only the constraint's way. The value ordered is the criterion's ``node_value``: the mean target (squared
error), the share of the second class (Gini, two classes only).

The functions close over the criterion's module, not over its compiled functions, as :mod:`mddf.trees.loops`' do
(numba's cache keys a closure by its cells' contents).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._runtime.compile_cache import njit
from .binning import MAX_BINS
from .splitting import CONSTANT, Candidate

_NO_BITS = np.zeros(0, dtype=np.uint64)  # a threshold split's (empty) category bitset

#: The functions :func:`monotone_checks` compiles for a criterion.
MonotoneChecks = namedtuple("MonotoneChecks", ["bounded_value", "in_order", "child_bounds"])
#: The functions :func:`ordered_search` compiles for a criterion: the best split of a constrained feature in order.
OrderedSearch = namedtuple("OrderedSearch", ["new_table", "best_ordered_threshold"])


def monotone_checks(criterion):
    """The functions of :data:`MonotoneChecks` compiled for the criterion module ``criterion`` (its ``node_value``
    and ``left_statistics``); a criterion module calls this as it is imported, for itself."""

    @njit(cache=True, nogil=True, inline="always")
    def bounded_value(stats, lower, upper):
        """The ordered value of a node of statistics ``stats`` (``node_value``), clipped into ``[lower, upper]``."""
        return min(max(criterion.node_value(stats), lower), upper)

    @njit(cache=True, nogil=True, inline="always")
    def in_order(sign, Xb, node_y, node_w, samples, start, end, f, b, side, missing_bin, stats, scratch, bounds):
        """Whether the threshold split of feature ``f`` at bin ``b`` (the node's missing rows on ``side``: 1 left,
        else right; ``missing_bin`` the missing codes or None) keeps its children's values, clipped into the node's
        ``bounds`` ``(lower, upper)``, in the order of the constraint ``sign``: left <= right for 1, left >= right
        for -1 (ties pass). ``stats`` are the node's statistics, ``scratch`` room for as many."""
        missing_code = -1
        if missing_bin is not None:
            if side == 1:
                missing_code = missing_bin[f]
        criterion.left_statistics(Xb, node_y, node_w, samples, start, end, f, b, missing_code, _NO_BITS, scratch)
        left = bounded_value(scratch, bounds[0], bounds[1])
        for c in range(len(stats)):
            scratch[c] = stats[c] - scratch[c]  # the right child's
        return (left - bounded_value(scratch, bounds[0], bounds[1])) * sign <= 0.0

    @njit(cache=True, nogil=True, inline="always")
    def child_bounds(sign, left_stats, right_stats, bounds, stack_bounds, top):
        """Write the bounds of a split node's right child (row ``top`` of ``stack_bounds``) and left child (row
        ``top + 1``): the node's ``bounds``; on a feature of constraint ``sign`` 1 the midpoint of the children's
        clipped values bounds the left child above and the right one below, on -1 the reverse (0: no change)."""
        for k in range(2):
            stack_bounds[top, k] = bounds[k]
            stack_bounds[top + 1, k] = bounds[k]
        if sign != 0:
            lower, upper = bounds[0], bounds[1]
            middle = (bounded_value(left_stats, lower, upper) + bounded_value(right_stats, lower, upper)) / 2.0
            if sign > 0:
                stack_bounds[top + 1, 1] = middle
                stack_bounds[top, 0] = middle
            else:
                stack_bounds[top + 1, 0] = middle
                stack_bounds[top, 1] = middle

    return MonotoneChecks(bounded_value, in_order, child_bounds)


def ordered_search(criterion):
    """The functions of :data:`OrderedSearch` compiled for the criterion module ``criterion`` (its ``add_row``,
    ``stats_score`` and ``bounded_value``); a criterion module calls this as it is imported, for itself."""

    @njit(cache=True, nogil=True, internal=True)
    def new_table(n_statistics):
        """The scratch space of ``best_ordered_threshold``: the statistics of each bin, then four rows (zero)."""
        return np.zeros((MAX_BINS + 4, n_statistics))

    @njit(cache=True, nogil=True, inline="always")
    def _tried(sign, b, side, left, stats, table, bounds, best):
        """``(score, bin, side)`` of the threshold after bin ``b`` (missing rows on ``side``) whose left child has the
        statistics ``left``, when both children have weight, it beats ``best`` and its children are in order; else
        ``best``."""
        trial = table[MAX_BINS + 1]
        for c in range(len(stats)):
            trial[c] = stats[c] - left[c]
        score = criterion.stats_score(left, stats)
        if score <= best[0]:
            return best
        lower, upper = bounds[0], bounds[1]
        if (criterion.bounded_value(left, lower, upper) - criterion.bounded_value(trial, lower, upper)) * sign > 0.0:
            return best
        return score, b, side

    @njit(cache=True, nogil=True, internal=True)
    def best_ordered_threshold(sign, Xb, node_y, node_w, samples, start, end, f, missing_bin, stats, bounds, table):
        """The best threshold of feature ``f`` on the node's rows ``samples[start:end]`` among those whose children's
        values, clipped into ``bounds``, are in the order of the constraint ``sign`` (as the criterion's
        ``best_threshold``: each threshold between the bins present, with the node's missing rows on either side,
        and the split of the real rows from the missing ones), as a :data:`~mddf.trees.splitting.Candidate`: score
        -1 without one, and side ``CONSTANT`` when the feature is constant in the node. ``table``: scratch space of
        ``new_table``, zero on entry and on exit."""
        code = -1
        if missing_bin is not None:
            code = missing_bin[f]
        lo, hi, n_missing = 255, -1, 0
        for i in range(start, end):
            b = Xb[samples[i], f]
            criterion.add_row(table[b], node_y[i], node_w[i])
            if b == code:
                n_missing += 1
            else:
                lo, hi = min(lo, b), max(hi, b)
        left, missing = table[MAX_BINS], table[MAX_BINS + 2]
        for c in range(len(stats)):
            left[c] = 0.0
            missing[c] = table[code, c] if n_missing > 0 else 0.0
        best = (-1.0, 0, -1 if n_missing == 0 else 0)
        if hi < 0 or (lo == hi and n_missing == 0):
            best = (-1.0, 0, CONSTANT)
        else:
            for b in range(lo, hi + 1):
                for c in range(len(stats)):
                    left[c] += table[b, c]
                if b == hi and n_missing == 0:
                    break
                best = _tried(sign, b, 0 if n_missing > 0 else -1, left, stats, table, bounds, best)
                if n_missing > 0 and b < hi:  # the same threshold with the missing rows left
                    both = table[MAX_BINS + 3]
                    for c in range(len(stats)):
                        both[c] = left[c] + missing[c]
                    best = _tried(sign, b, 1, both, stats, table, bounds, best)
        for b in range(lo, hi + 1):
            for c in range(len(stats)):
                table[b, c] = 0.0
        if n_missing > 0:
            for c in range(len(stats)):
                table[code, c] = 0.0
        return Candidate(best[0], best[1], best[2])

    return OrderedSearch(new_table, best_ordered_threshold)
