"""A stored forest's output attributed to its input columns: the mean of its trees' attributions.

A forest predicts the mean of its trees' outputs, so its attributions are the
mean of theirs (:mod:`mddf.trees.attribution`: exact TreeSHAP, or the fast
path contributions), and its base value, from which they add up to its output,
the mean of the trees' expected outputs. Both kinds of stored forest are
explained: the node words of binned trees (:class:`~mddf.forests.PackedForest`)
decoded one tree at a time, and scikit-learn's compacted trees
(:class:`~mddf.forests.CompactForest`), whose float thresholds become codes (a
value's code counts the forest's thresholds of its feature below it, so that
``x <= threshold`` is ``code <= the threshold's rank``). Both need the share of
each split's training weight that went left, which forests fitted before it
was stored lack: they raise a ``ValueError`` that says so.
"""

from __future__ import annotations

import numpy as np

from ..trees.attribution import (
    TreeNodes,
    decode_tree,
    packed_path_contributions,
    path_contributions,
    split_values,
    tree_shap,
)
from ..trees.packing import decode_shares
from ..trees.predictor import NO_MISSING

_NO_CATEGORY_BITS = np.zeros((0, 4), dtype=np.uint64)


def _check_shares(forest):
    shares = forest.left_shares
    if shares is None:
        raise ValueError(
            f"this {type(forest).__name__} was fitted before mddf stored the training weight of its tree nodes, "
            "which the attributions need: fit the model again to explain it"
        )
    return decode_shares(shares)


def _attribute(trees, n_trees, codes, missing_codes, category_bits, n_features, width, fast, shares=False):
    """``(base, values)``: the mean over ``trees`` (an iterable of :data:`TreeNodes`) of their attributions of each
    row of ``codes``, ``(n, n_features, width)``, and of their expected outputs ``(width,)``.

    With ``shares`` (class shares: each leaf's row sums to 1, up to the rounding of float32 shares) the exact
    attributions of one column, the class of the largest expected share (whose pure leaves are the most), are
    those of the others negated, plus those of the leaves' rounding: the attributions of a constant are 0, and the
    subtrees whose leaves are 0 in every other column cost nothing.
    """
    n = len(codes)
    values = np.zeros((n, n_features, width))
    base = np.zeros(width)
    scale = 1.0 / n_trees
    rows = np.arange(n, dtype=np.int64)
    from_others = shares and width > 1 and not fast
    drop = None
    for nodes in trees:
        base += scale * nodes.value[0]  # the tree's expected output, its root's value
        if fast:
            path_contributions(nodes, codes, rows, missing_codes, category_bits, scale, values)
            continue
        if from_others:
            drop = int(np.argmax(nodes.value[0])) if drop is None else drop  # the first tree's choice, for all
            value = nodes.value.copy()
            value[:, drop] = nodes.value.sum(axis=1) - 1.0  # 0 but for the rounding of a leaf's float32 shares
            nodes = nodes._replace(value=value)
        tree_shap(nodes, codes, rows, missing_codes, category_bits, scale, values)  # all rows, in blocks
    if drop is not None:
        values[:, :, drop] -= values.sum(axis=2) - values[:, :, drop]
    return base, values


def packed_forest_attributions(forest, codes, has_missing=True, fast=False):
    """``(base, values)`` of a :class:`~mddf.forests.PackedForest` for rows already binned with its ``binner``.

    ``base`` ``(width,)`` is the trees' mean expected output (``width``: the classes, or a regression forest's
    ``n_outputs``); ``values`` ``(n, n_features, width)`` the mean of the trees' attributions, exact TreeSHAP (or,
    with ``fast``, path contributions); ``base + values.sum(axis=1)`` is the forest's output for each row.
    ``has_missing=False`` promises that the rows hold no missing value.
    """
    shares = _check_shares(forest)
    width = forest._width  # a class vector, a multi-output regression's K means, or one mean
    packed = forest.packed
    missing = np.asarray(forest.binner.missing_bins_, dtype=np.int64) if has_missing else NO_MISSING
    codes = np.ascontiguousarray(codes)
    n_features, classes = forest.n_features, forest.n_classes is not None
    if fast:  # every tree in one compiled call: a tree's decoding costs no more than its walks
        values = np.zeros((len(codes), n_features, width))
        rows = np.arange(len(codes), dtype=np.int64)
        args = (codes, rows, missing, packed.category_bits, 1.0 / forest.n_trees, values)
        return packed_path_contributions(packed, shares, width, *args), values
    trees = (decode_tree(packed, t, shares, width) for t in range(forest.n_trees))
    return _attribute(trees, forest.n_trees, codes, missing, packed.category_bits, n_features, width, fast, classes)


def compact_forest_attributions(forest, X, fast=False):
    """``(base, values)`` of a :class:`~mddf.forests.CompactForest` for float rows ``X`` (NaN: missing), as
    :func:`packed_forest_attributions` gives them."""
    shares = _check_shares(forest)
    X = np.asarray(X, dtype=np.float32)
    feature = np.asarray(forest.feature, dtype=np.int32)
    internal = feature >= 0
    # each feature's distinct thresholds, and every threshold's rank among them
    ranks = np.zeros(len(feature), dtype=np.int32)
    codes = np.empty(X.shape, dtype=np.int32)
    missing = np.empty(X.shape[1], dtype=np.int64)
    for f in range(X.shape[1]):
        at = np.flatnonzero(internal & (feature == f))
        thresholds = np.unique(forest.threshold[at])
        ranks[at] = np.searchsorted(thresholds, forest.threshold[at])
        codes[:, f] = np.searchsorted(thresholds, X[:, f], side="left")  # thresholds below the value
        missing[f] = len(thresholds) + 1
        codes[np.isnan(X[:, f]), f] = missing[f]
    missing_left = np.unpackbits(forest.missing_left_bits, bitorder="little")[: len(feature)]
    trees = (_compact_tree(forest, t, ranks, missing_left, shares) for t in range(forest.n_trees))
    n_features, width = forest.n_features, forest.n_classes
    return _attribute(trees, forest.n_trees, codes, missing, _NO_CATEGORY_BITS, n_features, width, fast, True)


def _compact_tree(forest, t, ranks, missing_left, shares):
    """Tree ``t`` of a :class:`~mddf.forests.CompactForest` as a :data:`TreeNodes` on threshold codes."""
    lo, hi = int(forest.offsets[t]), int(forest.offsets[t + 1])
    feature = np.asarray(forest.feature[lo:hi], dtype=np.int32)
    right = np.asarray(forest.right[lo:hi], dtype=np.int32)
    leaf = feature < 0
    value = np.zeros((hi - lo, forest.n_classes))
    code = right[leaf]
    rows = np.flatnonzero(leaf)
    pure = code >= 0
    value[rows[pure], code[pure]] = 1.0
    value[rows[~pure]] = forest.impure_values[-code[~pure] - 1]
    share = np.asarray(shares[lo:hi], dtype=np.float64)
    right = np.where(leaf, 0, right).astype(np.int32)
    split_values(feature, right, share, value)
    return TreeNodes(
        feature,
        right,
        ranks[lo:hi],
        np.asarray(missing_left[lo:hi], dtype=np.uint8),
        np.full(hi - lo, -1, dtype=np.int32),
        share,
        value,
    )
