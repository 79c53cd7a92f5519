"""The criterion of a tree, chosen at compile time from its labels: Gini for classes, squared error for targets.

:func:`mddf.trees.grower.grow_tree` is one skeleton for classification and
regression trees. What depends on the criterion it asks of the functions
below, which numba resolves when it compiles the grower for the dtype of the
labels it is given: integer class indices select :mod:`mddf.trees.gini`,
floating-point targets :mod:`mddf.trees.squared_error` (both modules implement
each function; their docstrings say what it does). A node's *statistics* are
the criterion's sums over its rows: the class weights (Gini), or the weight,
weighted target sum and weighted sum of squares (squared error).
"""

from __future__ import annotations

from numba import types
from numba.extending import overload

from . import gini, squared_error

_COMPILED_ONLY = "resolved by numba when it compiles the grower: call it from compiled code"


def _for_labels(labels):
    """The criterion module for labels of numba type ``labels`` (an array or its dtype)."""
    dtype = getattr(labels, "dtype", labels)
    return gini if isinstance(dtype, types.Integer) else squared_error


def n_statistics(y, n_classes):
    """Length of a node's statistics: ``n_classes`` (Gini) or 3 (squared error)."""
    raise NotImplementedError(_COMPILED_ONLY)


def new_leaf_values(y, n_rows, n_classes):
    """The leaf table of a tree: ``n_rows`` rows of ``n_classes`` float32 class shares (Gini) or of 1 float64 mean."""
    raise NotImplementedError(_COMPILED_ONLY)


def importance_centre(y, root, root_weight):
    """The origin of the importance terms: 0 (Gini), the root's mean target (squared error)."""
    raise NotImplementedError(_COMPILED_ONLY)


def new_buffers(y, n_stats, m):
    """Scratch space of the criterion's split searches for a tree of ``m`` rows."""
    raise NotImplementedError(_COMPILED_ONLY)


def add_rows(node_y, node_w, stats):
    """Add the statistics of the rows (labels ``node_y``, weights ``node_w``) to ``stats``, in row order."""
    raise NotImplementedError(_COMPILED_ONLY)


def total_weight(y, stats):
    """The weight of a node of statistics ``stats``."""
    raise NotImplementedError(_COMPILED_ONLY)


def node_summary(y, stats, centre):
    """``(weight, splittable, importance_term)`` of a node."""
    raise NotImplementedError(_COMPILED_ONLY)


def write_leaf(y, stats, node_weight, leaf_values, n_rows):
    """Write a leaf; return its entry of ``right`` and the new row count of ``leaf_values``."""
    raise NotImplementedError(_COMPILED_ONLY)


def partition(Xb, samples, node_y, node_w, start, end, f, split_b, missing_code, bits, left_stats, right_stats):
    """Partition a node's rows between its children, summing their statistics."""
    raise NotImplementedError(_COMPILED_ONLY)


def best_threshold(buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, stats, node_weight, missing_bins):
    """The best threshold of a numeric feature, as a :data:`mddf.trees.splitting.Candidate`."""
    raise NotImplementedError(_COMPILED_ONLY)


def split_score(buf, Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, bits, stats, node_weight):
    """The score of one threshold (empty ``bits``) or category subset ``bits``."""
    raise NotImplementedError(_COMPILED_ONLY)


def best_subset(
    buf, Xb, node_y, node_w, samples, start, end, f, stats, node_weight, max_splits, min_count, present, bits
):
    """The score of the best category subset of a categorical feature, written to ``bits``."""
    raise NotImplementedError(_COMPILED_ONLY)


@overload(n_statistics, jit_options={"cache": True})
def _n_statistics(y, n_classes):
    if _for_labels(y) is gini:
        return lambda y, n_classes: n_classes
    return lambda y, n_classes: 3


@overload(new_leaf_values, jit_options={"cache": True})
def _new_leaf_values(y, n_rows, n_classes):
    criterion = _for_labels(y).new_leaf_values
    return lambda y, n_rows, n_classes: criterion(n_rows, n_classes)


@overload(importance_centre, jit_options={"cache": True})
def _importance_centre(y, root, root_weight):
    criterion = _for_labels(y).importance_centre
    return lambda y, root, root_weight: criterion(root, root_weight)


@overload(new_buffers, jit_options={"cache": True})
def _new_buffers(y, n_stats, m):
    criterion = _for_labels(y).new_buffers
    return lambda y, n_stats, m: criterion(n_stats, m)


@overload(add_rows, jit_options={"cache": True})
def _add_rows(node_y, node_w, stats):
    criterion = _for_labels(node_y).add_rows
    return lambda node_y, node_w, stats: criterion(node_y, node_w, stats)


@overload(total_weight, jit_options={"cache": True})
def _total_weight(y, stats):
    criterion = _for_labels(y).total_weight
    return lambda y, stats: criterion(stats)


@overload(node_summary, jit_options={"cache": True})
def _node_summary(y, stats, centre):
    criterion = _for_labels(y).node_summary
    return lambda y, stats, centre: criterion(stats, centre)


@overload(write_leaf, jit_options={"cache": True})
def _write_leaf(y, stats, node_weight, leaf_values, n_rows):
    criterion = _for_labels(y).write_leaf
    return lambda y, stats, node_weight, leaf_values, n_rows: criterion(stats, node_weight, leaf_values, n_rows)


@overload(partition, jit_options={"cache": True})
def _partition(Xb, samples, node_y, node_w, start, end, f, split_b, missing_code, bits, left_stats, right_stats):
    criterion = _for_labels(node_y).partition

    def impl(Xb, samples, node_y, node_w, start, end, f, split_b, missing_code, bits, left_stats, right_stats):
        return criterion(
            Xb, samples, node_y, node_w, start, end, f, split_b, missing_code, bits, left_stats, right_stats
        )

    return impl


@overload(best_threshold, jit_options={"cache": True})
def _best_threshold(buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, stats, node_weight, missing_bins):
    criterion = _for_labels(node_y).best_threshold

    def impl(buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, stats, node_weight, missing_bins):
        return criterion(buf, Xb, node_y, node_w, samples, start, end, f, n_bins_f, stats, node_weight, missing_bins)

    return impl


@overload(split_score, jit_options={"cache": True})
def _split_score(buf, Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, bits, stats, node_weight):
    criterion = _for_labels(node_y).split_score

    def impl(buf, Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, bits, stats, node_weight):
        return criterion(
            buf, Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, bits, stats, node_weight
        )

    return impl


@overload(best_subset, jit_options={"cache": True})
def _best_subset(
    buf, Xb, node_y, node_w, samples, start, end, f, stats, node_weight, max_splits, min_count, present, bits
):
    criterion = _for_labels(node_y).best_subset

    def impl(buf, Xb, node_y, node_w, samples, start, end, f, stats, node_weight, max_splits, min_count, present, bits):
        return criterion(
            buf, Xb, node_y, node_w, samples, start, end, f, stats, node_weight, max_splits, min_count, present, bits
        )

    return impl
