"""The loops over a node's rows and bins that every split criterion shares, written once, compiled per criterion.

A criterion (:mod:`mddf.trees.criterion`) says what one row adds to a node's
statistics (``add_row``) and to the score of a given split (``left_start``,
``left_row``, ``left_score``); :func:`row_loops` compiles, for the criterion's
module, the loops that walk a node's rows with them: the sum of a tree's rows
(``add_rows``), the partition of a node's rows into its children
(``partition``), the score of a given split (``split_score``) and its left
child's statistics (``left_statistics``, the monotone constraints' check). numba
compiles each loop once per criterion with the criterion's functions inlined,
as :mod:`mddf.trees.grower` compiles its skeleton. The loops close over the
criterion's module, not over its compiled functions: numba's cache keys a
closure by the pickled contents of its cells, and a compiled function pickles
with a name drawn afresh in every process, which no later process would find.

The pieces the criteria's split searches share are here too: which side a
row's code goes to (:func:`goes_left`), the insertion of a row into rows sorted
by bin (:func:`insert_sorted`), the sort of a node's categories by a key
(:func:`sort_by_key`) and the comparison of a threshold's score with the best
so far (:func:`scored`, and :func:`scored_twins` for the two sides of a node's
missing rows).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._runtime.compile_cache import njit
from ._kernel import inline_kernel, kernel

# the growers (grower.py) hold these loops compiled in; numba's on-disk cache of them is stamped with the
# digest of every source of mddf's compiled code, this file included (mddf/_runtime/compile_cache.py).

#: The loops :func:`row_loops` compiles for a criterion, as the contract of :mod:`mddf.trees.criterion` names them.
RowLoops = namedtuple("RowLoops", ["add_rows", "partition", "split_score", "left_statistics"])


@njit(cache=True, nogil=True, inline="always")
def goes_left(code, subset, split_b, missing_code, bits):
    """Whether a row of bin ``code`` goes to the left child: with ``subset``, its code is in the bitset ``bits``;
    else ``code <= split_b``, or it is the missing rows' ``missing_code`` when they go left (-1: none)."""
    if subset:
        return (bits[code >> 6] >> np.uint64(code & 63)) & np.uint64(1) != 0
    return code <= split_b or code == missing_code


@njit(cache=True, nogil=True, inline="always")
def insert_sorted(n, bins, first, second, b, a, h):
    """Insert a row of bin ``b`` and values ``a`` and ``h`` into the ``n`` rows ``bins[:n]`` sorted by bin (and
    ``first``, ``second``), after the rows of its bin: the step of an insertion sort, stable."""
    k = n
    while k > 0 and bins[k - 1] > b:
        bins[k] = bins[k - 1]
        first[k] = first[k - 1]
        second[k] = second[k - 1]
        k -= 1
    bins[k] = b
    first[k] = a
    second[k] = h


@kernel
def sort_by_key(key, order, m):
    """Positions ``0 .. m-1`` in ``order``, sorted by ``key`` (stable: ties keep the codes' first-seen order)."""
    for j in range(m):
        k = j
        v = key[j]
        while k > 0 and key[order[k - 1]] > v:
            order[k] = order[k - 1]
            k -= 1
        order[k] = j


@njit(cache=True, nogil=True, inline="always")
def scored(best, best_bin, side, b, s, a_left, w_left, a_right, node_weight):
    """``(best, best_bin, side)`` after the threshold after bin ``b``, its missing rows on side ``s``.

    The threshold's score is ``a_left / w_left + a_right / w_right`` (``w_right`` is ``node_weight - w_left``);
    it is taken when both children have weight and it beats ``best``, else the best so far is kept.
    """
    w_right = node_weight - w_left
    if w_left > 0.0 and w_right > 0.0:
        score = a_left / w_left + a_right / w_right
        if score > best:
            return score, b, s
    return best, best_bin, side


@njit(cache=True, nogil=True, inline="always")
def scored_twins(best, best_bin, side, b, last, w_left, w_missing, sums, node_weight):
    """:func:`scored` for the threshold after bin ``b`` of a node with missing rows, on either side of it.

    ``sums`` are the children's numerators ``(a_left, a_right)`` with the missing rows (of weight ``w_missing``)
    right, then ``(a_left_m, a_right_m)`` with them left; the second placement is scored unless ``last`` (the
    threshold that splits the real rows from the missing ones, which has no missing-left twin).
    """
    a_left, a_right, a_left_m, a_right_m = sums
    best, best_bin, side = scored(best, best_bin, side, b, 0, a_left, w_left, a_right, node_weight)
    if last:
        return best, best_bin, side
    return scored(best, best_bin, side, b, 1, a_left_m, w_left + w_missing, a_right_m, node_weight)


def row_loops(criterion):
    """The loops of :data:`RowLoops` compiled for the criterion module ``criterion``, with its per-row functions.

    ``criterion`` is the module, whose ``add_row``, ``left_start``, ``left_row`` and ``left_score`` the loops
    call (:mod:`mddf.trees.criterion`); a criterion module calls this as it is imported, for itself.
    """

    @kernel
    def add_rows(node_y, node_w, stats):
        """Add the rows' weighted labels to the node's statistics ``stats``, in row order."""
        for i in range(len(node_y)):
            criterion.add_row(stats, node_y[i], node_w[i])

    # once per node split: inlined into the grower by numba, as the criteria's partition was
    @njit(cache=True, nogil=True, inline="always")
    def partition(Xb, samples, node_y, node_w, start, end, f, split_b, missing_code, bits, left_stats, right_stats):
        """Partition rows ``start:end`` of a node split on feature ``f``; return the first row of the right child.

        The rows that go left (:func:`goes_left`: with an empty ``bits`` a threshold ``split_b`` and the missing
        rows' ``missing_code``, else the category bitset ``bits``) come first, their labels and weights with
        them; each side's statistics are written to ``left_stats`` / ``right_stats``.
        """
        for c in range(len(left_stats)):
            left_stats[c] = 0.0
            right_stats[c] = 0.0
        subset = len(bits) > 0
        i = start
        j = end - 1
        while i <= j:
            s = samples[i]
            label = node_y[i]
            h = node_w[i]
            if goes_left(Xb[s, f], subset, split_b, missing_code, bits):
                criterion.add_row(left_stats, label, h)
                i += 1
            else:
                criterion.add_row(right_stats, label, h)
                samples[i] = samples[j]
                samples[j] = s
                criterion.swap_labels(node_y, i, j)
                node_w[i] = node_w[j]
                node_w[j] = h
                j -= 1
        return i

    @inline_kernel
    def split_score(
        scratch, Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, bits, node_stats, node_weight
    ):
        """The score of one given split of the node's rows ``samples[start:end]`` (the random rules).

        The left child holds the rows that ``partition`` sends left for the same arguments; its rows are summed
        one at a time (``left_row``, from ``left_start``) and scored against the node (``left_score``): -1 when
        a child has no weight. ``scratch`` is the criterion's scratch space of a split's score.
        """
        subset = len(bits) > 0
        state = criterion.left_start(scratch)
        for i in range(start, end):
            if goes_left(Xb[samples[i], f], subset, split_b, missing_code, bits):
                state = criterion.left_row(scratch, state, node_y[i], node_w[i])
        return criterion.left_score(scratch, state, node_stats, node_weight)

    @kernel
    def left_statistics(Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, bits, left_stats):
        """Write to ``left_stats`` the statistics of the rows ``partition`` would send left for the same
        arguments, without moving any row (a split checked against a monotone constraint before it is made)."""
        for c in range(len(left_stats)):
            left_stats[c] = 0.0
        subset = len(bits) > 0
        for i in range(start, end):
            if goes_left(Xb[samples[i], f], subset, split_b, missing_code, bits):
                criterion.add_row(left_stats, node_y[i], node_w[i])

    return RowLoops(add_rows, partition, split_score, left_statistics)
