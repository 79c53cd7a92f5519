"""The node words that store grown trees for prediction: one word a node, leaves and splits alike.

A deep forest keeps k x 4 forests per layer for prediction, so the bytes of a
node decide its memory, and the loads of a node the speed of its traversal. A
tree of :func:`mddf.trees.grower.grow_tree` is stored depth first (a node's
left child is the next node) as one unsigned word per node, 32-bit unless the
layer input has more than 1024 features (then 64-bit):

==========  ============================================================================
bits        an internal node (bit 0 clear)
==========  ============================================================================
0           0
1           :data:`MISSING_LEFT`: missing values (NaN) go left
2           :data:`EXTENDED`: the right child, or the category split, is in the side table
3-10        the split bin: rows whose code is at most it go left
11-         the feature (``feature_bits`` bits), then the right child's offset from the
            node (or, with :data:`EXTENDED`, the node's row of its tree's side table)
==========  ============================================================================

==========  ============================================================================
bits        a leaf (bit 0 set)
==========  ============================================================================
0           :data:`LEAF`
1           :data:`TABLE_ROW`: the payload is a row of the forest's leaf table (class shares,
            or a regression tree's mean), else a class (the pure leaves of classification trees)
2-          the payload
==========  ============================================================================

The fields below the offset sit at the same bits in both widths, so a 32-bit
word widened to 64 bits is the same node. Offsets relative to the node stay small (a node's right child follows its left
subtree), so the few that do not fit their bits, near the root of large trees,
and the category splits (whose bitset of left codes needs more room) take a row
of the tree's *side table*: the offset, and the split's row of the forest's
category bitsets (-1 for a threshold). The leaf table is shared by the trees of
a forest and holds each distinct row once (:func:`deduplicate_rows`): the class
shares of small impure leaves repeat.

A word is read by one load; routing decodes it with shifts and masks
(:mod:`mddf.trees.predictor`). :func:`first_bad_node` checks stored words
before they are trusted: routing then only moves forward inside its tree and
ends at a leaf whose payload exists.
"""

from __future__ import annotations

import numpy as np
from numba import njit

LEAF = 1
MISSING_LEFT = 2
EXTENDED = 4
TABLE_ROW = 2
BIN_SHIFT = 3
FEATURE_SHIFT = 11
PAYLOAD_SHIFT = 2
#: Features of a layer input whose trees are stored in 32-bit words (more take 64-bit words).
MAX_FEATURES_32 = 1 << 10

#: What :func:`first_bad_node` reports for each problem code.
NODE_PROBLEMS = {
    1: "a split feature is not below n_features",
    2: "a right child is not after its left subtree, inside its tree",
    3: "a split threshold is out of range",
    4: "a leaf's class or leaf-table row is out of range",
    5: "a side-table row is out of range",
    6: "a category split is out of range",
}


def word_layout(n_features, wide=False):
    """``(dtype, feature_bits)`` of the node words of trees on ``n_features`` features.

    ``wide`` asks for 64-bit words whatever the features (a tree whose side
    table does not fit the 32-bit words' offset field).
    """
    feature_bits = max(1, int(n_features - 1).bit_length())
    if feature_bits > 32:
        raise ValueError(f"{n_features} features: the node words address at most 2**32")
    dtype = np.uint64 if wide or n_features > MAX_FEATURES_32 else np.uint32
    return np.dtype(dtype), feature_bits


def offset_bits(dtype, feature_bits):
    """Bits of a node word's offset (or side-table row) field."""
    return np.dtype(dtype).itemsize * 8 - FEATURE_SHIFT - feature_bits


@njit(cache=True, nogil=True)
def pack_tree(feature, split_bin, right, missing_left, category, feature_bits, words):
    """Write a grown tree's nodes to ``words`` (length ``n_nodes``); return its side table.

    ``feature`` ... ``category`` are the arrays of a :data:`mddf.trees.grower.GrownTree`
    (``category`` empty without category splits); a leaf's table row is the
    tree's own (``-(right + 1)``). Returns ``(side_offset, side_category, fits)``:
    per row of the side table the right child's offset and the row of the
    tree's category bitsets (-1 for a threshold); ``fits`` is False when a
    side-table row or a payload does not fit the words' fields (then the tree
    needs 64-bit words).
    """
    n = len(feature)
    word_bits = words.itemsize * 8
    shift = FEATURE_SHIFT + feature_bits
    limit = np.int64(1) << (word_bits - shift)
    payload_limit = np.int64(1) << (word_bits - PAYLOAD_SHIFT)
    has_categories = len(category) > 0
    n_side = 0
    for i in range(n):
        if feature[i] >= 0 and ((has_categories and category[i] >= 0) or right[i] - i >= limit):
            n_side += 1
    side_offset = np.empty(n_side, dtype=np.int64)
    side_category = np.empty(n_side, dtype=np.int32)
    fits = n_side <= limit
    k = 0
    for i in range(n):
        f = feature[i]
        if f < 0:
            r = np.int64(right[i])
            if r >= 0:
                payload = r
                word = np.uint64(LEAF) | (np.uint64(r) << np.uint64(PAYLOAD_SHIFT))
            else:
                payload = -r - 1
                word = np.uint64(LEAF | TABLE_ROW) | (np.uint64(payload) << np.uint64(PAYLOAD_SHIFT))
            if payload >= payload_limit:
                fits = False
        else:
            word = (
                (np.uint64(missing_left[i] & 1) << np.uint64(1))
                | (np.uint64(split_bin[i]) << np.uint64(BIN_SHIFT))
                | (np.uint64(f) << np.uint64(FEATURE_SHIFT))
            )
            offset = np.int64(right[i]) - i
            cat = np.int32(category[i]) if has_categories else np.int32(-1)
            if cat >= 0 or offset >= limit:
                side_offset[k] = offset
                side_category[k] = cat
                word |= np.uint64(EXTENDED) | (np.uint64(k) << np.uint64(shift))
                k += 1
            else:
                word |= np.uint64(offset) << np.uint64(shift)
        words[i] = word
    return side_offset, side_category, fits


@njit(cache=True, nogil=True)
def remap_leaf_rows(words, row_map):
    """Replace the payload ``p`` of every table-row leaf by ``row_map[p]`` (in place)."""
    for i in range(len(words)):
        w = np.uint64(words[i])
        if (w & np.uint64(LEAF | TABLE_ROW)) == np.uint64(LEAF | TABLE_ROW):
            row = row_map[np.int64(w >> np.uint64(PAYLOAD_SHIFT))]
            words[i] = np.uint64(LEAF | TABLE_ROW) | (np.uint64(row) << np.uint64(PAYLOAD_SHIFT))


def deduplicate_rows(table):
    """``(unique_rows, row_map)``: each distinct row of ``table`` (compared bit for bit) once, and where each went."""
    table = np.ascontiguousarray(table)
    if len(table) == 0:
        return table, np.zeros(0, dtype=np.int64)
    rows = table.view(np.dtype((np.void, table.dtype.itemsize * table.shape[1]))).ravel()
    _, first, row_map = np.unique(rows, return_index=True, return_inverse=True)
    return table[first], row_map.astype(np.int64).ravel()


@njit(cache=True, nogil=True)
def first_bad_node(
    words, offsets, side_bases, side_offset, side_category, n_bitsets, feature_bits, missing_bins, n_classes, n_rows
):
    """``(problem, node)`` of the first node that could misroute a row (a key of :data:`NODE_PROBLEMS`), or ``(0, -1)``.

    An internal node needs a feature below ``len(missing_bins)``, a split bin
    at most the feature's missing bin and a right child after its left child
    (the next node) and inside its tree; an extended one a row of its tree's
    side table, whose category split is -1 or a row of the ``n_bitsets``
    bitsets. A leaf needs a class below ``n_classes`` (0 for regression trees,
    which have none) or a row of the ``n_rows`` of the leaf table. The caller
    has checked that the offsets span the words and the side table.
    """
    n_features = len(missing_bins)
    shift = FEATURE_SHIFT + feature_bits
    fmask = (np.uint64(1) << np.uint64(feature_bits)) - np.uint64(1)
    for t in range(len(offsets) - 1):
        base = offsets[t]
        size = offsets[t + 1] - base
        side_base = side_bases[t]
        n_side = side_bases[t + 1] - side_base
        for local in range(size):
            node = base + local
            w = np.uint64(words[node])
            if w & np.uint64(LEAF):
                payload = np.int64(w >> np.uint64(PAYLOAD_SHIFT))
                limit = n_rows if w & np.uint64(TABLE_ROW) else n_classes
                if payload >= limit:
                    return 4, node
                continue
            f = np.int64((w >> np.uint64(FEATURE_SHIFT)) & fmask)
            if f >= n_features:
                return 1, node
            if np.int64((w >> np.uint64(BIN_SHIFT)) & np.uint64(255)) > missing_bins[f]:
                return 3, node
            field = np.int64(w >> np.uint64(shift))
            if w & np.uint64(EXTENDED):
                if field >= n_side:
                    return 5, node
                offset = side_offset[side_base + field]
                cat = side_category[side_base + field]
                if cat < -1 or cat >= n_bitsets:
                    return 6, node
            else:
                offset = field
            if offset < 2 or local + offset >= size:
                return 2, node
    return 0, -1
