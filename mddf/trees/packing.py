"""One grown tree packed into node words (:mod:`mddf.trees.nodes`), alone as :func:`route_trees` reads it.

:func:`pack_grown_tree` packs a :data:`~mddf.trees.grower.GrownTree` into words
of a given width (64-bit when the 32-bit words' fields do not fit it), and
:func:`single_tree` gathers one packed tree into a
:data:`~mddf.trees.predictor.PackedTrees`; the forests
(:class:`mddf.forests.ForestBuilder`) join packed trees into one.
"""

from __future__ import annotations

import numpy as np

from .nodes import class_bits, pack_tree, word_layout, write_class_words
from .predictor import PackedTrees, leaf_tables


def packed_tree(tree, n_features, n_classes):
    """One grown tree (:data:`mddf.trees.grower.GrownTree`) packed alone, as :func:`route_trees` reads it.

    ``n_classes`` is None for a regression tree.
    """
    dtype, feature_bits = word_layout(n_features)
    packed = pack_grown_tree(tree, dtype, feature_bits, n_features, n_classes or 0)
    return single_tree(*packed, tree.category_bits, tree.leaf_values, feature_bits, class_bits(n_classes))


def pack_grown_tree(tree, dtype, feature_bits, n_features, n_classes):
    """``(words, n_words, side_offset, side_category)`` of a tree: its ``n_words`` words followed by the class words.

    The words are 64-bit when ``dtype``'s do not fit the tree.
    """
    words = np.empty(len(tree.feature) + n_classes, dtype=dtype)
    n_words, side_offset, side_category, fits = pack_tree(
        tree.feature, tree.split_bin, tree.right, tree.missing_left, tree.category, feature_bits, n_classes, words
    )
    if not fits:
        return pack_grown_tree(tree, word_layout(n_features, wide=True)[0], feature_bits, n_features, n_classes)
    write_class_words(words, n_words, n_classes)
    return words[: n_words + n_classes].copy(), n_words, side_offset, side_category


def single_tree(words, n_words, side_offset, side_category, category_bits, table, feature_bits, c_bits):
    """The :data:`~mddf.trees.predictor.PackedTrees` of one packed tree (:func:`pack_grown_tree`) and its tables."""
    return PackedTrees(
        words,
        np.array([0, n_words], dtype=np.int64),
        np.array([0, len(side_offset)], dtype=np.int64),
        side_offset,
        side_category,
        category_bits,
        *leaf_tables(table),
        feature_bits,
        c_bits,
    )
