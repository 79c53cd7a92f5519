"""Monotone constraints of a tree (``monotonic_cst``): the check of a split and the bounds of its children, written
once, compiled per criterion.

A tree grown with a constraint on a feature (1: its output increasing in the feature, -1: decreasing) keeps, for
every node, bounds ``[lower, upper]`` of its leaves' values, as scikit-learn's HistGradientBoosting and its trees do:
the root's are unbounded; a split on an unconstrained feature passes its node's bounds to both children; a split on
a constrained feature is taken only when its children's values, clipped into the node's bounds, are in the
constraint's order (:func:`monotone_checks`' ``in_order``), and the midpoint of those two values becomes the upper
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

_NO_BITS = np.zeros(0, dtype=np.uint64)  # a threshold split's (empty) category bitset

#: The functions :func:`monotone_checks` compiles for a criterion.
MonotoneChecks = namedtuple("MonotoneChecks", ["bounded_value", "in_order", "child_bounds"])


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
