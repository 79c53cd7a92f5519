"""One grown tree packed into node words (:mod:`mddf.trees.nodes`), alone as :func:`route_trees` reads it.

:func:`pack_grown_tree` packs a :data:`~mddf.trees.grower.GrownTree` into words
of a given width (64-bit when the 32-bit words' fields do not fit it), and
:func:`single_tree` gathers one packed tree into a
:data:`~mddf.trees.predictor.PackedTrees`; the forests
(:class:`mddf.forests.ForestBuilder`) join packed trees into one.
"""

from __future__ import annotations

import numpy as np

from .nodes import pack_tree, word_layout, write_class_words
from .predictor import PackedTrees, leaf_tables

_NO_SHARES = np.zeros(0)


def pack_grown_tree(tree, dtype, feature_bits, n_features, n_classes):
    """``(words, n_words, side_offset, side_category, shares)`` of a tree: its ``n_words`` words followed by the
    class words, and the share of each word's training weight that went left (:func:`encode_shares`' two bytes, one
    per word of the tree, 0 for a leaf; None when the tree has no ``left_share``).

    The words are 64-bit when ``dtype``'s do not fit the tree.
    """
    words = np.empty(len(tree.feature) + n_classes, dtype=dtype)
    left_share = _NO_SHARES if tree.left_share is None else tree.left_share
    shares = np.zeros(len(left_share), dtype=np.float32)
    n_words, side_offset, side_category, fits = pack_tree(
        tree.feature,
        tree.split_bin,
        tree.right,
        tree.missing_left,
        tree.category,
        feature_bits,
        n_classes,
        words,
        left_share,
        shares,
    )
    if not fits:
        return pack_grown_tree(tree, word_layout(n_features, wide=True)[0], feature_bits, n_features, n_classes)
    write_class_words(words, n_words, n_classes)
    shares = None if tree.left_share is None else encode_shares(shares[:n_words])
    return words[: n_words + n_classes].copy(), n_words, side_offset, side_category, shares


def encode_shares(shares):
    """The splits' left shares of training weight kept in two bytes each (float16): the smaller side's share, negative
    when it is the right one, so that both sides keep float16's relative precision (about 5e-4) and no side of a split
    of two non-empty children rounds to nothing; 0 for a leaf. :func:`decode_shares` reads them back."""
    shares = np.asarray(shares, dtype=np.float64)
    return np.where(shares <= 0.5, shares, shares - 1.0).astype(np.float16)


def decode_shares(stored):
    """The left shares (float64) of :func:`encode_shares`' two-byte values."""
    stored = np.asarray(stored, dtype=np.float64)
    return np.where(stored < 0, 1.0 + stored, stored)


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
