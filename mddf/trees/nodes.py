"""The node words that store grown trees for prediction: one word a split, pure leaves folded into their parents.

A deep forest keeps k x 4 forests per layer for prediction, so the bytes of a
node decide its memory, and the loads of a node the speed of its traversal. A
tree of :func:`mddf.trees.grower.grow_tree` is stored depth first (a node's
left child is the next word) as one unsigned word per split, 32-bit unless the
layer input has more than 256 features (then 64-bit). Fully grown
classification trees end mostly in pure leaves, about half of their nodes: a
pure leaf takes no word of its own. Its parent holds its class, and routing
jumps to the forest's *class words*, one leaf word per class after the trees.

==========  ============================================================================
bits        a split (bit 0 clear)
==========  ============================================================================
0           0
1           :data:`MISSING_LEFT`: missing values (NaN) go left
2           :data:`EXTENDED`: the right child's offset, or the category split, is in the side table
3           :data:`LEFT_CLASS`: the left child is a pure leaf, its class in the field
4           :data:`RIGHT_CLASS`: the right child is a pure leaf, its class in the field (after the
            left child's class when both are)
5-12        the split bin: rows whose code is at most it go left
13-         the feature (``feature_bits`` bits), then the field: the classes of the folded
            children, or else the right child's offset from the split (with
            :data:`EXTENDED`, the split's row of its tree's side table). When the left child is
            folded, the right child (a split or an unfolded leaf) is the next word.
==========  ============================================================================

==========  ============================================================================
bits        a leaf (bit 0 set)
==========  ============================================================================
0           :data:`LEAF`
1           :data:`TABLE_ROW`: the payload is a row of the forest's leaf table (class shares,
            or a regression tree's mean), else a class
2-          the payload
==========  ============================================================================

A leaf keeps a word of its own when it is a table row (impure classification
leaves, every regression leaf), the root, or the child of a category split.
The fields below the offset sit at the same bits in both widths, so a 32-bit
word widened to 64 bits is the same node. Offsets relative to the split stay
small (its right child follows its left subtree), so the few that do not fit
their bits, near the root of large trees, and the category splits (whose set
of left codes needs more room) take a row of the tree's *side table*: the
offset, and the split's row of the forest's category bitsets (-1 for a
threshold). The leaf table is shared by the trees of a forest and holds each
distinct row once (:func:`deduplicate_rows`): the class shares of small impure
leaves repeat.

A word is read by one load; routing decodes it with shifts and masks
(:mod:`mddf.trees.predictor`). :func:`first_bad_node` checks stored words
before they are trusted: routing then only moves forward inside its tree and
ends at a leaf, in its tree or among the class words, whose payload exists.
"""

from __future__ import annotations

import numpy as np

from .._runtime.compile_cache import njit
from .._runtime.dispatch import entry_point, zeros
from ._kernel import kernel

LEAF = 1
MISSING_LEFT = 2
EXTENDED = 4
LEFT_CLASS = 8
RIGHT_CLASS = 16
TABLE_ROW = 2
BIN_SHIFT = 5
FEATURE_SHIFT = 13
PAYLOAD_SHIFT = 2
#: Features of a layer input whose trees are stored in 32-bit words (more take 64-bit words).
MAX_FEATURES_32 = 1 << 8

#: What :func:`first_bad_node` reports for each problem code.
NODE_PROBLEMS = {
    1: "a split feature is not below n_features",
    2: "a child is not after its split, inside its tree",
    3: "a split threshold is out of range",
    4: "a leaf's class or leaf-table row is out of range",
    5: "a side-table row is out of range",
    6: "a category split is out of range",
    7: "a class word is not the leaf of its class",
}


def word_layout(n_features, wide=False):
    """``(dtype, feature_bits)`` of the node words of trees on ``n_features`` features.

    ``wide`` asks for 64-bit words whatever the features (a tree whose side
    table or payloads do not fit the 32-bit words' fields).
    """
    feature_bits = max(1, int(n_features - 1).bit_length())
    if feature_bits > 32:
        raise ValueError(f"{n_features} features: the node words address at most 2**32")
    dtype = np.uint64 if wide or n_features > MAX_FEATURES_32 else np.uint32
    return np.dtype(dtype), feature_bits


def class_bits(n_classes):
    """Bits of a folded class in a split's field (0 for regression trees, whose leaves are not folded)."""
    return 0 if not n_classes else max(1, int(n_classes - 1).bit_length())


@kernel
def _foldable(feature, right, node, parent_is_category):
    """Whether ``node`` is a pure leaf that its split can hold."""
    return node > 0 and feature[node] < 0 and right[node] >= 0 and not parent_is_category


@entry_point(
    "pack_tree",
    lambda: [
        (
            *zeros((np.int32, 1), (np.uint8, 1), (np.int32, 1), (np.uint8, 1), (np.int32, 1)),
            0,
            0,
            *zeros((np.uint32, 1), (np.float64, 1), (np.float32, 1)),
        )
    ],
)
@njit(cache=True, nogil=True)
def pack_tree(feature, split_bin, right, missing_left, category, feature_bits, n_classes, words, left_share, shares):
    """Pack a grown tree into ``words``; return ``(n_words, side_offset, side_category, fits)``.

    ``feature`` ... ``category`` are the arrays of a :data:`mddf.trees.grower.GrownTree`
    (``category`` empty without category splits); a leaf's table row is the
    tree's own (``-(right + 1)``). ``words`` has room for every node; the
    first ``n_words`` are the tree's. Pure leaves are folded into their splits
    when ``n_classes`` is positive and the classes fit the field (routing then
    jumps to the class words, which the caller writes). The side
    table gives, per row, the right child's offset and the row of the tree's
    category bitsets (-1 for a threshold); ``fits`` is False when a side-table
    row or a payload does not fit the words' fields
    (then the tree needs 64-bit words). ``left_share`` (empty: none) holds
    each split's share of its weight that went left; ``shares[k]`` receives
    that of the node in word ``k`` (0 for a leaf).
    """
    n = len(feature)
    word_bits = words.itemsize * 8
    shift = FEATURE_SHIFT + feature_bits
    field_bits = word_bits - shift
    limit = np.int64(1) << field_bits
    payload_limit = np.int64(1) << (word_bits - PAYLOAD_SHIFT)
    c_bits = 0
    if n_classes > 0:
        c_bits = 1
        while (np.int64(1) << c_bits) < n_classes:
            c_bits += 1
    fold_one = n_classes > 0 and c_bits <= field_bits
    fold_two = n_classes > 0 and 2 * c_bits <= field_bits
    has_categories = len(category) > 0
    # which leaves fold into their split, and each kept node's word index
    folded = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if feature[i] < 0 or not fold_one:
            continue
        is_category = has_categories and category[i] >= 0
        left = _foldable(feature, right, i + 1, is_category)
        right_leaf = _foldable(feature, right, np.int64(right[i]), is_category)
        if left and right_leaf and not fold_two:
            right_leaf = False
        folded[i + 1] = left
        folded[right[i]] = right_leaf
    index = np.empty(n, dtype=np.int64)
    n_words = 0
    for i in range(n):
        index[i] = n_words
        if not folded[i]:
            n_words += 1
    fits = True
    n_side = 0
    for i in range(n):
        if feature[i] >= 0 and not folded[i + 1] and not folded[right[i]]:
            if (has_categories and category[i] >= 0) or index[right[i]] - index[i] >= limit:
                n_side += 1
    side_offset = np.empty(n_side, dtype=np.int64)
    side_category = np.empty(n_side, dtype=np.int32)
    if n_side > limit:
        fits = False
    k = 0
    for i in range(n):
        if folded[i]:
            continue
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
            r = right[i]
            if folded[i + 1] or folded[r]:
                field = np.uint64(0)
                at = np.uint64(0)
                if folded[i + 1]:
                    word |= np.uint64(LEFT_CLASS)
                    field |= np.uint64(right[i + 1])
                    at = np.uint64(c_bits)
                if folded[r]:
                    word |= np.uint64(RIGHT_CLASS)
                    field |= np.uint64(right[r]) << at
                word |= field << np.uint64(shift)
            else:
                offset = index[r] - index[i]
                cat = np.int32(category[i]) if has_categories else np.int32(-1)
                if cat >= 0 or offset >= limit:
                    side_offset[k] = offset
                    side_category[k] = cat
                    word |= np.uint64(EXTENDED) | (np.uint64(k) << np.uint64(shift))
                    k += 1
                else:
                    word |= np.uint64(offset) << np.uint64(shift)
        words[index[i]] = word
        if len(left_share):
            shares[index[i]] = left_share[i] if f >= 0 else 0.0
    return n_words, side_offset, side_category, fits


@entry_point("write_class_words", lambda: [(*zeros((np.uint32, 1)), 0, 0)])
@njit(cache=True, nogil=True)
def write_class_words(words, class_base, n_classes):
    """Write the leaf word of each class from ``class_base``: where the folded pure leaves route to."""
    for c in range(n_classes):
        words[class_base + c] = np.uint64(LEAF) | (np.uint64(c) << np.uint64(PAYLOAD_SHIFT))


@entry_point("remap_leaf_rows", lambda: [zeros((np.uint32, 1), (np.int64, 1))])
@njit(cache=True, nogil=True)
def remap_leaf_rows(words, row_map):
    """Replace the payload ``p`` of every table-row leaf by ``row_map[p]`` (in place)."""
    for i in range(len(words)):
        w = np.uint64(words[i])
        if (w & np.uint64(LEAF | TABLE_ROW)) == np.uint64(LEAF | TABLE_ROW):
            row = row_map[np.int64(w >> np.uint64(PAYLOAD_SHIFT))]
            words[i] = np.uint64(LEAF | TABLE_ROW) | (np.uint64(row) << np.uint64(PAYLOAD_SHIFT))


def deduplicate_rows(table):
    """``(unique_rows, row_map)``: each distinct row of ``table`` (compared bit for bit) once, and where each went.

    The rows are compared as unsigned integers of their float bits: one column is sorted as such, several
    are ordered by :func:`numpy.lexsort` over their columns (a numeric sort, much faster than sorting the
    rows as opaque byte strings).
    """
    table = np.ascontiguousarray(table)
    n = len(table)
    if n == 0:
        return table, np.zeros(0, dtype=np.int64)
    bits = table.view(np.dtype(f"u{table.dtype.itemsize}"))
    if table.shape[1] == 1:
        _, first, row_map = np.unique(bits[:, 0], return_index=True, return_inverse=True)
        return table[first], row_map.astype(np.int64).ravel()
    order = np.lexsort(bits.T[::-1])
    ordered = bits[order]
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=starts[1:])
    row_map = np.empty(n, dtype=np.int64)
    row_map[order] = np.cumsum(starts) - 1
    return table[order[starts]], row_map


def first_bad_node(
    words,
    offsets,
    side_bases,
    side_offset,
    side_category,
    n_bitsets,
    feature_bits,
    missing_bins,
    n_classes,
    n_rows,
):
    """``(problem, node)`` of the first word that could misroute a row (a key of :data:`NODE_PROBLEMS`), or ``(0, -1)``.

    A split needs a feature below ``len(missing_bins)``, a split bin at most
    the feature's missing bin, folded classes below ``n_classes`` and unfolded
    children after it inside its tree; an extended one a row of its tree's
    side table, whose category split is -1 or a row of the ``n_bitsets``
    bitsets. A leaf needs a class below ``n_classes`` (0 for regression
    trees, which have none) or a row of the ``n_rows`` of the leaf table. The
    ``n_classes`` words after the trees (from ``offsets[-1]``) must be the
    leaves of their classes. The caller has checked that the offsets span the
    trees' words and the side table.

    Written with numpy, not compiled: loading a saved model runs it, and a fit never does, so a compiled check
    would be compiled by the first load of a model on every installation. The words are checked in chunks of
    whole trees of about :data:`CHECK_WORDS` words (the temporaries stay in the processor's cache): each chunk
    first as one verdict, in the words' own integer type (:func:`_trees_pass`), and a chunk that does not pass
    word by word, each word's problem the first of its checks that fails, in the order above.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    class_base = int(offsets[-1])
    expected = np.uint64(LEAF) | (np.arange(n_classes, dtype=np.uint64) << np.uint64(PAYLOAD_SHIFT))
    wrong = np.flatnonzero(np.asarray(words[class_base : class_base + n_classes], dtype=np.uint64) != expected)
    if len(wrong):
        return 7, class_base + int(wrong[0])
    layout = (feature_bits, np.asarray(missing_bins, dtype=np.int64), n_classes, n_rows, n_bitsets)
    side = (np.asarray(side_bases, dtype=np.int64), np.asarray(side_offset), np.asarray(side_category))
    first = 0
    while first < len(offsets) - 1:
        stop = max(int(np.searchsorted(offsets, offsets[first] + CHECK_WORDS, side="right")) - 1, first + 1)
        if not _trees_pass(words, offsets, first, stop, side, layout):
            problem, node = _first_bad_in_trees(words, offsets, first, stop, side, layout)
            if problem:
                return problem, node
        first = stop
    return 0, -1


#: Words of whole trees that :func:`first_bad_node` checks at a time (at least one tree).
CHECK_WORDS = 1 << 16


def _trees_pass(words, offsets, first, stop, side, layout):
    """Whether every word of trees ``first`` to ``stop - 1`` passes the checks of :func:`first_bad_node`: one
    verdict (False: some word may not, :func:`_first_bad_in_trees` says which and why).

    The words are read in their own unsigned type, bits 0 and 2 to 4 (:data:`LEAF`, :data:`EXTENDED`,
    :data:`LEFT_CLASS`, :data:`RIGHT_CLASS`) telling a word's kind. A leaf word is ``1 | class << 2`` or
    ``3 | row << 2``, so it is below ``n_classes << 2`` or ``n_rows << 2``. A split's child that must be inside
    its tree is checked per tree (the largest ``node + offset`` of its plain splits is below the tree's end; a
    split with one folded child is not its tree's last word); the extended splits through their side-table rows.
    """
    feature_bits, missing_bins, n_classes, n_rows, n_bitsets = layout
    side_bases, side_offset, side_category = side
    base, end = int(offsets[first]), int(offsets[stop])
    w = words[base:end]
    u = w.dtype.type
    top = np.iinfo(w.dtype).max
    low, kind = w & u(3), w & u(LEAF | EXTENDED | LEFT_CLASS | RIGHT_CLASS)
    if (((low == 1) & (w >= min(n_classes << 2, top))) | ((low == 3) & (w >= min(n_rows << 2, top)))).any():
        return False
    bins = np.zeros(1 << feature_bits, dtype=np.uint16)  # the bins of each feature (none past the features)
    bins[: len(missing_bins)] = np.clip(missing_bins[: len(bins)] + 1, 0, 256)  # (2**feature_bits < 2 n_features)
    feature = ((w >> u(FEATURE_SHIFT)) & u((1 << feature_bits) - 1)).astype(np.intp)
    if ((low & u(1) == 0) & (((w >> u(BIN_SHIFT)) & u(255)) >= np.take(bins, feature))).any():
        return False
    folded = (kind >= LEFT_CLASS) & (kind & u(LEAF) == 0)
    if (folded & (kind & u(EXTENDED) != 0)).any():
        return False
    field = w >> u(FEATURE_SHIFT + feature_bits)
    c_bits = class_bits(n_classes)
    if n_classes != 1 << c_bits:  # (classes in c_bits bits: some values are not classes)
        cmask = u((1 << c_bits) - 1)
        both = kind == LEFT_CLASS | RIGHT_CLASS
        if ((folded & ((field & cmask) >= n_classes)) | (both & ((field >> u(c_bits)) & cmask >= n_classes))).any():
            return False
    plain = kind == 0
    if (plain & (field < 2)).any():
        return False
    starts, ends = offsets[first:stop] - base, offsets[first + 1 : stop + 1] - base
    last = kind[ends - 1]
    if ((last == LEFT_CLASS) | (last == RIGHT_CLASS)).any():
        return False
    target = field * plain + np.arange(len(w), dtype=w.dtype if len(w) < 1 << 31 else np.int64)  # (fields < 2**19)
    if (np.maximum.reduceat(target, starts) >= ends).any():
        return False
    extended = kind == EXTENDED
    node = np.flatnonzero(extended)
    if len(node):  # each one's tree, then its row of the side table
        tree = np.repeat(np.arange(first, stop), np.add.reduceat(extended, starts, dtype=np.int64))
        row = field[node].astype(np.int64)
        if (row >= side_bases[tree + 1] - side_bases[tree]).any():
            return False
        at = side_bases[tree] + row
        offset, category = side_offset[at], side_category[at]
        if ((offset < 2) | (node + offset >= ends[tree - first]) | (category < -1) | (category >= n_bitsets)).any():
            return False
    return True


def _first_bad_in_trees(words, offsets, first, stop, side, layout):
    """:func:`first_bad_node` on trees ``first`` to ``stop - 1``: ``(problem, node)`` or ``(0, -1)``."""
    feature_bits, missing_bins, n_classes, n_rows, n_bitsets = layout
    side_bases, side_offset, side_category = side
    base = int(offsets[first])
    sizes = np.diff(offsets[first : stop + 1])
    w = np.asarray(words[base : int(offsets[stop])], dtype=np.uint64)
    local = np.arange(len(w), dtype=np.int64) - np.repeat(offsets[first:stop] - base, sizes)
    size = np.repeat(sizes, sizes)
    side_base = np.repeat(side_bases[first:stop], sizes)
    n_side = np.repeat(np.diff(side_bases[first : stop + 1]), sizes)
    leaf, table_row, extended, left_class, right_class = (
        (w & np.uint64(bit)) != 0 for bit in (LEAF, TABLE_ROW, EXTENDED, LEFT_CLASS, RIGHT_CLASS)
    )
    payload = (w >> np.uint64(PAYLOAD_SHIFT)).astype(np.int64)
    f = ((w >> np.uint64(FEATURE_SHIFT)) & np.uint64((1 << feature_bits) - 1)).astype(np.int64)
    split_bin = ((w >> np.uint64(BIN_SHIFT)) & np.uint64(255)).astype(np.int64)
    field = (w >> np.uint64(FEATURE_SHIFT + feature_bits)).astype(np.int64)
    c_bits = class_bits(n_classes)
    cmask = (1 << c_bits) - 1
    folded = ~leaf & (left_class | right_class)
    row = np.where(extended & ~leaf & ~folded, field, 0)
    bad_row = row >= n_side
    at = np.where(bad_row, 0, side_base + row)
    offset, category = field, np.full(len(w), -1)
    if len(side_offset):  # (the side table's rows of the extended splits; any row for the other words)
        offset = np.where(extended, side_offset[np.minimum(at, len(side_offset) - 1)], field)
        category = side_category[np.minimum(at, len(side_category) - 1)]
    right_field = np.where(left_class, field >> c_bits, field)
    checks = [
        (leaf & (payload >= np.where(table_row, n_rows, n_classes)), 4),
        (~leaf & (f >= len(missing_bins)), 1),
        (~leaf & (split_bin > missing_bins[np.minimum(f, len(missing_bins) - 1)]), 3),
        (folded & extended, 5),
        (folded & left_class & ((field & cmask) >= n_classes), 4),
        (folded & right_class & ((right_field & cmask) >= n_classes), 4),
        (folded & ~(left_class & right_class) & (local + 1 >= size), 2),
        (~leaf & ~folded & extended & bad_row, 5),
        (~leaf & ~folded & extended & ((category < -1) | (category >= n_bitsets)), 6),
        (~leaf & ~folded & ((offset < 2) | (local + offset >= size)), 2),
    ]
    problem = np.select([bad for bad, _ in checks], [code for _, code in checks], 0)
    bad = np.flatnonzero(problem)
    return (int(problem[bad[0]]), base + int(bad[0])) if len(bad) else (0, -1)
