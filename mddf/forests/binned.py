"""Forests of binned trees: gathered as they grow, stored as node words, predicting new rows.

A forest's trees are packed one at a time as they are grown
(:class:`ForestBuilder`), so that a forest being grown holds its trees at about
their stored size, and joined when it is finished into a :class:`BinnedForest`
(class probabilities) or :class:`BinnedRegressionForest` (means): node words of
every tree (:mod:`mddf.trees.nodes`), their side tables, one table of category
bitsets and one leaf table, each of whose distinct rows is kept once
(:class:`PackedForest`, a :class:`~mddf.forests.stored.StoredForest`). New float
rows are binned with the layer's bin edges and routed by
:func:`mddf.trees.route_trees`. The two tasks' forests differ only in their
output: class shares, or the mean of the trees' values.
"""

from __future__ import annotations

import numpy as np

from ..trees.nodes import class_bits, deduplicate_rows, first_bad_node, remap_leaf_rows, word_layout, write_class_words
from ..trees.packing import pack_grown_tree, single_tree
from ..trees.predictor import NO_MISSING, PackedTrees, leaf_tables, route_trees
from ..trees.splitting import CATEGORY_WORDS
from .stored import StoredForest

#: The bits of 0.5 as a float16: a share's bits without the sign are at most these when it is within [-0.5, 0.5].
HALF_FLOAT16 = int(np.float16(0.5).view(np.uint16))


def bin_rows(binner, X):
    """Float rows binned with ``binner``'s edges, and whether any value is missing (NaN)."""
    X = np.asarray(X, dtype=np.float32)
    return binner.transform(X), bool(np.isnan(X).any())


class PackedForest(StoredForest):
    """The trees of a forest of binned trees as node words: what the two tasks' binned forests share.

    Attributes
    ----------
    binner : FeatureBinner
        The bin edges the trees were grown on (shared by every forest of a layer).
    n_features : int
    feature_bits, class_bits : int
        Bits of a node word's feature field (:func:`mddf.trees.nodes.word_layout`) and of a folded class.
    words : ndarray of uint32 or uint64
        Every tree's node words, tree ``t`` from ``offsets[t]``, then one leaf word per class.
    offsets, side_bases : ndarray of int64 (n_trees + 1,)
        First node and first side-table row of each tree.
    side_offset, side_category : ndarray of int64, int32
        The side table: right-child offsets of the extended nodes, and their
        rows of ``category_bits`` (-1 for a threshold).
    category_bits : ndarray of uint64 (n_category_sets, CATEGORY_WORDS)
        The sets of codes that category splits send left, each distinct set once
        (splits with the same set share its row).
    table : ndarray (n_rows, width)
        The leaf table, each distinct row once.
    depths : ndarray of int32 (n_trees,)
    importances : ndarray of float64 (n_features,)
        Sum over the trees of their weighted impurity decrease per feature
        (each divided by its root's weight).
    left_shares : ndarray of float16 (n_words,)
        For the split in each word of the trees, the share of its training weight that went to its left
        child (0 for a leaf), in two bytes (:func:`mddf.trees.packing.encode_shares`): what the attributions
        (:meth:`attributions`) read of the training rows.
        None in forests fitted before it was stored (they cannot be explained).
    """

    _stored_arrays = (
        "words",
        "offsets",
        "side_bases",
        "side_offset",
        "side_category",
        "category_bits",
        "table",
        "depths",
        "left_shares",
    )
    _node_array = "words"
    _leaf_table = "table"

    @property
    def packed(self):
        """The arrays the routing kernel reads (:data:`mddf.trees.predictor.PackedTrees`)."""
        return PackedTrees(
            self.words,
            self.offsets,
            self.side_bases,
            self.side_offset,
            self.side_category,
            self.category_bits,
            *leaf_tables(self.table),
            self.feature_bits,
            self.class_bits,
        )

    @property
    def n_words(self):
        """Words of the trees (their splits and the leaves that are not folded), without the class words."""
        return int(self.offsets[-1])

    def route(self, codes, rows=None, has_missing=True, out=None, first=0, stop=None):
        """Sum over the trees ``first`` to ``stop - 1`` of each row's leaf, for rows already binned with ``binner``.

        ``rows`` (default: all) are the rows of ``codes`` routed; ``has_missing=False``
        promises that they hold no missing value, which skips the check for
        them. Returns (or adds to) ``out``, of shape ``(len(rows), width)``.
        """
        codes = np.ascontiguousarray(codes)
        rows = np.arange(len(codes), dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        if out is None:
            out = np.zeros((len(rows), self._width))
        stop = self.n_trees if stop is None else stop
        missing = self.binner.missing_bins_ if has_missing else NO_MISSING
        route_trees(self.packed, first, stop, codes, rows, missing, out)
        return out

    def attributions(self, codes, has_missing=True, fast=False):
        """``(base, values)``: the forest's output for rows already binned with ``binner``, attributed to its
        features (:func:`mddf.forests.attribution.packed_forest_attributions`)."""
        from .attribution import packed_forest_attributions  # (the tree-kernel study copies this module alone)

        return packed_forest_attributions(self, codes, has_missing, fast)

    def _n_nodes(self):
        return len(self.words) - (self.n_classes or 0)  # the trees' words, then the class words

    def _check_layout(self, offsets):
        """The side table splits into one block per tree, the category sets and the bin edges fit the
        features, and the words' layout is the one of this many features and classes."""
        sides = np.asarray(self.side_bases)
        n_side = len(self.side_offset)
        if sides.shape != offsets.shape or sides[0] != 0 or sides[-1] != n_side or (np.diff(sides) < 0).any():
            raise ValueError(f"the side-table bases do not split its {n_side} rows into one block per tree")
        if len(self.side_category) != n_side:
            raise ValueError(f"side_category holds {len(self.side_category)} entries for {n_side} side-table rows")
        if self.category_bits.ndim != 2 or self.category_bits.shape[1] != CATEGORY_WORDS:
            raise ValueError(f"category_bits has shape {self.category_bits.shape}, not (n, {CATEGORY_WORDS})")
        if len(self.binner.missing_bins_) != self.n_features:
            raise ValueError(f"the binner has {len(self.binner.missing_bins_)} features, not {self.n_features}")
        shares = self.left_shares
        if shares is not None and (shares.dtype != np.float16 or shares.shape != (self.n_words,)):
            raise ValueError(f"left_shares: shape {shares.shape}, dtype {shares.dtype}, not ({self.n_words},) float16")
        if shares is not None and not ((shares.view(np.uint16) & np.uint16(0x7FFF)) <= HALF_FLOAT16).all():
            # (|share| <= 0.5 read on the float16 bits, without the sign: NaN and infinity are above 0.5 too)
            raise ValueError("left_shares holds a share outside [-0.5, 0.5], the range of their two-byte form")
        _, feature_bits = word_layout(self.n_features)
        if (
            self.words.dtype not in (np.uint32, np.uint64)
            or self.feature_bits != feature_bits
            or self.class_bits != class_bits(self.n_classes)
        ):
            layout = f"{self.feature_bits} feature and {self.class_bits} class bits"
            raise ValueError(f"node words of dtype {self.words.dtype} with {layout}")

    def _first_bad_node(self, offsets):
        return first_bad_node(
            self.words,
            offsets,
            np.asarray(self.side_bases),
            self.side_offset,
            self.side_category,
            len(self.category_bits),
            self.feature_bits,
            np.asarray(self.binner.missing_bins_, dtype=np.int64),
            self.n_classes or 0,
            len(self.table),
        )


class BinnedForest(PackedForest):
    """A forest of binned classification trees, predicting the mean of their class distributions.

    Attributes
    ----------
    n_classes : int
    (and those of :class:`PackedForest`)
    """

    def __init__(self, n_classes):
        self.n_classes = int(n_classes)

    def predict_proba_binned(self, codes, has_missing=True):
        """Mean of the trees' class distributions for rows already binned with ``self.binner``.

        ``has_missing=False`` promises that ``codes`` holds no missing value (no
        NaN in the rows binned), which skips the check for them.
        """
        out = self.route(codes, has_missing=has_missing)
        out /= self.n_trees
        return out

    def predict_proba(self, X):
        """Mean of the trees' class distributions.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), float
            NaN marks a missing value.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
        """
        codes, has_missing = bin_rows(self.binner, X)
        return self.predict_proba_binned(codes, has_missing=has_missing)


class BinnedRegressionForest(PackedForest):
    """A forest of binned regression trees, predicting the mean of their predictions (of ``n_outputs`` targets)."""

    #: Targets the trees predict: 1, or K for trees grown on a 2-D ``y`` (set on such a forest only).
    n_outputs = 1

    @property
    def _width(self):
        return self.n_outputs

    def predict_binned(self, codes, has_missing=True):
        """Mean of the trees' predictions for rows already binned with ``self.binner``: ``(n,)``, or ``(n, K)`` for
        ``n_outputs`` K > 1.

        ``has_missing=False`` promises that ``codes`` holds no missing value (no
        NaN in the rows binned), which skips the check for them.
        """
        out = self.route(codes, has_missing=has_missing)
        if self.n_outputs == 1:
            out = out[:, 0]
        out /= self.n_trees
        return out

    def predict(self, X):
        """Mean of the trees' predictions.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), float
            NaN marks a missing value.

        Returns
        -------
        ndarray of float64, shape (n_samples,), or (n_samples, n_outputs) for ``n_outputs`` > 1
        """
        codes, has_missing = bin_rows(self.binner, X)
        return self.predict_binned(codes, has_missing=has_missing)


class ForestBuilder:
    """Grown trees, packed one at a time as they are added, joined into a forest by :meth:`finish`.

    Parameters
    ----------
    binner : FeatureBinner
        The bin edges the trees are grown on.
    n_classes : int or None
        Classes of a classification forest; None for a regression forest.
    n_outputs : int, default=1
        Targets of a regression forest's trees (their leaves' width).
    """

    def __init__(self, binner, n_classes=None, n_outputs=1):
        self.binner = binner
        self.n_classes = n_classes
        self.n_outputs = n_outputs
        self.n_features = len(binner.edges_)
        self.dtype, self.feature_bits = word_layout(self.n_features)
        self.class_bits = class_bits(n_classes)
        self.trees = []  # per tree: (words, n_words, side_offset, side_category, category_bits, table)
        self.shares = []  # per tree: the share of each word's training weight that went left (or None)
        self.depths, self.importances = [], []

    def add(self, tree, keep=True):
        """Pack one :data:`mddf.trees.grower.GrownTree`, with its own side table, bitsets and leaf rows.

        ``keep=False`` packs it for :meth:`route_last` only: it is not part of the forest.
        """
        *packed, shares = pack_grown_tree(tree, self.dtype, self.feature_bits, self.n_features, self.n_classes or 0)
        self.last = (*packed, tree.category_bits, tree.leaf_values)
        if not keep:
            return
        # a tree whose side table or payloads do not fit 32-bit words makes the forest's words 64-bit
        self.dtype = np.promote_types(self.dtype, packed[0].dtype)
        self.trees.append(self.last)
        self.shares.append(shares)
        self.depths.append(tree.depth)
        self.importances.append(tree.importance)

    def route_last(self, codes, rows, has_missing, out):
        """Add the last tree's leaf of each row ``rows[k]`` of ``codes`` to ``out[k]``."""
        tree = single_tree(*self.last, self.feature_bits, self.class_bits)
        route_trees(tree, 0, 1, codes, rows, self.binner.missing_bins_ if has_missing else NO_MISSING, out)

    def finish(self):
        """The forest of the trees added (which the builder lets go)."""
        if not self.trees:
            raise ValueError("a forest needs at least one tree")
        forest = BinnedRegressionForest() if self.n_classes is None else BinnedForest(self.n_classes)
        if self.n_outputs > 1:
            forest.n_outputs = self.n_outputs
        forest.binner = self.binner
        forest.n_features = self.n_features
        forest.feature_bits = self.feature_bits
        forest.class_bits = self.class_bits
        n_classes = self.n_classes or 0
        forest.offsets = np.concatenate([[0], np.cumsum([t[1] for t in self.trees])]).astype(np.int64)
        forest.side_bases = np.concatenate([[0], np.cumsum([len(t[2]) for t in self.trees])]).astype(np.int64)
        bit_bases = np.cumsum([0] + [len(t[4]) for t in self.trees])
        row_bases = np.cumsum([0] + [len(t[5]) for t in self.trees])
        forest.side_offset = np.concatenate([t[2] for t in self.trees])
        side_category = np.concatenate([np.where(t[3] >= 0, t[3] + base, -1) for t, base in zip(self.trees, bit_bases)])
        # each distinct category set once: the splits of a forest on a few category columns repeat their sets
        bits, bit_map = deduplicate_rows(np.concatenate([t[4] for t in self.trees]).reshape(-1, CATEGORY_WORDS))
        if len(bit_map):
            side_category = np.where(side_category >= 0, bit_map[np.maximum(side_category, 0)], -1)
        forest.side_category = side_category.astype(np.int32)
        forest.category_bits = bits
        tables = [t[5] for t in self.trees]
        table, row_map = deduplicate_rows(np.concatenate(tables))
        tables.clear()
        trees, self.trees, self.last = self.trees, [], None
        words = np.empty(int(forest.offsets[-1]) + n_classes, dtype=self.dtype)
        for i, (start, base) in enumerate(zip(forest.offsets[:-1], row_bases[:-1])):
            tree_words = trees[i][0][: trees[i][1]].astype(self.dtype, copy=False)  # without its class words
            remap_leaf_rows(tree_words, row_map[base:])  # the tree's own rows become the forest's table rows
            words[start : start + len(tree_words)] = tree_words
            trees[i] = None  # released as soon as it is copied
        write_class_words(words, forest.offsets[-1], n_classes)
        forest.words = words
        shares, self.shares = self.shares, []
        if all(part is not None for part in shares):  # trees built by hand may have none
            forest.left_shares = np.concatenate(shares)
        forest.table = table
        forest.depths = np.asarray(self.depths, dtype=np.int32)
        forest.importances = np.sum(self.importances, axis=0)
        return forest
