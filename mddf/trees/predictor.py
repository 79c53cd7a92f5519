"""Routing rows through stored trees to their leaves, compiled with numba.

The trees are node words (:mod:`mddf.trees.nodes`) gathered in a
:data:`PackedTrees`; rows are bin codes, binned with the edges the trees were
grown on (:class:`mddf.trees.binning.FeatureBinner`). A row at an internal node
goes to the next node (the left child) when its code of the node's feature is
at most the node's split bin, or when it is missing (the feature's missing
code) and the node sends missing values left; for a category split, when its
code is in the split's bitset. Otherwise it goes to the right child. A leaf
adds 1 to its class (a pure classification leaf) or its row of the leaf table
(class shares, or a regression tree's mean) to the row's output.

A row's walk down a tree is a chain of dependent loads, each followed by a
branch no predictor can learn. When a tree routes enough rows, it is first
expanded into 16-byte split records (feature, threshold, missing side and
both children, decoded once), and eight rows walk it together: their chains
are independent, so their loads overlap, and a level costs a subtraction, a
comparison and three loads without a branch on the comparison. Large trees
routing few rows walk the words row by row.

One kernel serves classification and regression, fitting (the held-out or
out-of-bag rows of each tree as it is grown) and prediction (every tree of a
forest, every forest of a layer). Outputs are sums in tree order, so the same
trees give the same bits whatever the blocks of rows, threads or routes.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._runtime.compile_cache import njit
from .._runtime.dispatch import entry_point, zeros
from ._kernel import inline_kernel
from .nodes import (
    BIN_SHIFT,
    EXTENDED,
    FEATURE_SHIFT,
    LEAF,
    LEFT_CLASS,
    MISSING_LEFT,
    PAYLOAD_SHIFT,
    RIGHT_CLASS,
    TABLE_ROW,
)

#: Stored trees as the kernel reads them (:mod:`mddf.trees.nodes`): ``words`` (uint32 or uint64) of every tree,
#: tree ``t`` from ``offsets[t]``, then the class words from ``offsets[-1]``; ``side_bases[t]``, the first row
#: of tree ``t`` in the side table ``side_offset`` / ``side_category``; ``category_bits`` (uint64, one row of
#: :data:`~mddf.trees.splitting.CATEGORY_WORDS` per category split); the leaf table, ``shares`` (float32 class
#: shares) or ``means`` (float64, a regression's), the other one empty (:func:`leaf_tables`), so that one compiled
#: kernel routes both; ``feature_bits`` and ``class_bits``, the widths of a word's feature and of a folded class.
PackedTrees = namedtuple(
    "PackedTrees",
    [
        "words",
        "offsets",
        "side_bases",
        "side_offset",
        "side_category",
        "category_bits",
        "shares",
        "means",
        "feature_bits",
        "class_bits",
    ],
)

NO_MISSING = np.zeros(0, dtype=np.int64)
_NO_SHARES = np.zeros((0, 1), dtype=np.float32)
_NO_MEANS = np.zeros((0, 1), dtype=np.float64)


def leaf_tables(table):
    """``(shares, means)`` of :data:`PackedTrees` for a leaf ``table``: float32 class shares, or float64 means."""
    if table.dtype == np.float64:
        return _NO_SHARES, table
    return np.asarray(table, dtype=np.float32), _NO_MEANS


#: A tree is expanded and routed in lanes (:func:`route_lanes`) when it has at most this many words per row routed.
LANE_WORDS_PER_ROW = 8
#: Bytes of codes in a block of rows that the trees of a group route in turn (:func:`route_trees`).
BLOCK_BYTES = 1 << 19
#: Most split records of the trees expanded together (16 bytes each), unless one tree has more.
GROUP_RECORDS = 1 << 19
#: Bits of an expanded split's feature (:func:`expand_tree`); wider layer inputs are routed by the scalar loop.
RECORD_FEATURE_BITS = 22
#: An expanded split's span when no code of the feature goes left past its threshold.
_OPEN_SPAN = 1 << 30
#: Children below ``-_CATEGORY_TARGET`` are category splits (:func:`expand_tree`); leaves are above.
_CATEGORY_TARGET = 1 << 30


def _route_variants():
    """The arguments of :func:`route_trees` built ahead of time (:mod:`mddf._ahead_of_time`): uint8 codes."""
    arrays = zeros((np.uint32, 1), (np.int64, 1), (np.int64, 1), (np.int64, 1), (np.int32, 1), (np.uint64, 2))
    packed = PackedTrees(*arrays, *zeros((np.float32, 2), (np.float64, 2)), 0, 0)
    return [(packed, 0, 0, *zeros((np.uint8, 2), (np.int64, 1), (np.int64, 1), (np.float64, 2)))]


@entry_point("route_trees", _route_variants)
@njit(cache=True, nogil=True)
def route_trees(trees, first, stop, codes, rows, missing_codes, out):
    """Add the leaf of row ``rows[k]`` of ``codes`` in each tree from ``first`` to ``stop - 1`` to ``out[k]``.

    A tree with at most :data:`LANE_WORDS_PER_ROW` words per row routed is
    expanded into split records (:func:`expand_tree`) and its rows advance
    eight at a time (:func:`route_lanes`); a larger tree (few rows) is routed
    row by row on its words (:func:`route_scalar`). Several trees are taken in
    groups of at most :data:`GROUP_RECORDS` records (or one tree), each group
    expanded once, and the rows in blocks of about :data:`BLOCK_BYTES` of
    codes, each block through every tree of the group before the next block:
    a block's codes stay in the cache while the group's trees route it, where
    the codes of all rows of a wide input would not (with one block, a group
    is one tree; one tree routes its rows in one block). Every route adds each
    row's leaf of tree ``t`` after those of the trees before it, so the sums
    (and the predictions) are the same bits whatever the blocks and routes.

    Parameters
    ----------
    trees : PackedTrees
    first, stop : int
        The trees routed.
    codes : ndarray of uint8 or uint16 (n, d)
        Bin codes of the rows, as :class:`~mddf.trees.binning.FeatureBinner`
        gives them: no code of a feature is above its missing code.
    rows : ndarray of int64
        Rows of ``codes`` to route.
    missing_codes : ndarray of int64 (d,) or (0,)
        Code of NaN in each feature (``FeatureBinner.missing_bins_``); empty
        when ``codes`` has no missing value, which skips the check.
    out : ndarray of float64 (len(rows), width)
        Added to in place: a pure leaf adds 1 to its class column, a table
        leaf its row of the leaf table.
    """
    n = len(rows)
    block = max(BLOCK_BYTES // max(codes.shape[1] * codes.itemsize, 1), 64)
    if stop - first <= 1:
        block = max(n, 1)  # blocks pay only when several trees reuse a block's codes
    _route_blocks(trees, first, stop, codes, rows, missing_codes, out, block, GROUP_RECORDS if n > block else 0)


@njit(cache=True, nogil=True)
def route_blocks(trees, first, stop, codes, rows, missing_codes, out, block, group):
    """:func:`route_trees` with rows in blocks of ``block`` and trees in groups of at most ``group`` records."""
    _route_blocks(trees, first, stop, codes, rows, missing_codes, out, block, group)


@njit(cache=True, nogil=True, inline="always")
def _route_blocks(trees, first, stop, codes, rows, missing_codes, out, block, group):
    """:func:`route_blocks`, typed inside its caller: :func:`route_trees` compiles it as part of its own code,
    not as a function of its own whose machine code it would optimise and generate again."""
    offsets = trees.offsets
    # the most words a tree routed in lanes may have (-1: none, the records cannot hold these trees)
    lanes = trees.feature_bits <= RECORD_FEATURE_BITS and len(trees.words) < _CATEGORY_TARGET
    limit = LANE_WORDS_PER_ROW * len(rows) if lanes else -1
    n = len(rows)
    if stop <= first:  # no tree: nothing to add
        return
    # the groups: trees ends[g - 1] to ends[g] - 1, whose records fit in ``group`` (at least one tree)
    ends = np.empty(stop - first, dtype=np.int64)
    n_groups, biggest, total, t = 0, 0, 0, first
    for u in range(first, stop):
        size = offsets[u + 1] - offsets[u]
        size = size if size <= limit else 0
        if u > t and total + size > group:
            ends[n_groups], n_groups, t, total = u, n_groups + 1, u, 0
        total += size
        biggest = max(biggest, total)
    ends[n_groups] = stop
    records = np.empty((biggest, 4), dtype=np.int32)  # one buffer for every group
    t = first
    for g in range(n_groups + 1):
        end = ends[g]
        at = 0
        for u in range(t, end):  # the group's trees expanded once, ...
            size = offsets[u + 1] - offsets[u]
            if size <= limit:
                expand_tree(trees, u, missing_codes, records[at : at + size])
                at += size
        # ... then the rows block by block, each block through every tree of the group in order
        for b in range(0, n, block):
            block_rows = rows[b : b + block]
            block_out = out[b : b + block]
            at = 0
            for u in range(t, end):
                size = offsets[u + 1] - offsets[u]
                if size <= limit:
                    route_lanes(trees, u, records[at : at + size], codes, block_rows, block_out)
                    at += size
                else:
                    route_scalar(trees, u, codes, block_rows, missing_codes, block_out)
        t = end


@njit(cache=True, nogil=True, internal=True)
def route_scalar(trees, t, codes, rows, missing_codes, out):
    """:func:`route_trees` for tree ``t`` alone, one row at a time on its node words."""
    words, offsets, side_bases = trees.words, trees.offsets, trees.side_bases
    side_offset, side_category, category_bits = trees.side_offset, trees.side_category, trees.category_bits
    has_missing = len(missing_codes) > 0
    fmask = (np.uint64(1) << np.uint64(trees.feature_bits)) - np.uint64(1)
    shift = np.uint64(FEATURE_SHIFT + trees.feature_bits)
    c_bits = np.uint64(trees.class_bits)
    cmask = (np.uint64(1) << c_bits) - np.uint64(1)
    class_base = offsets[len(offsets) - 1]
    base = offsets[t]
    side_base = side_bases[t]
    for k in range(len(rows)):
        r = rows[k]
        node = base
        w = np.uint64(words[node])
        while not w & np.uint64(LEAF):
            f = np.int64((w >> np.uint64(FEATURE_SHIFT)) & fmask)
            code = np.int64(codes[r, f])
            field = w >> shift
            if w & np.uint64(EXTENDED):
                s = side_base + np.int64(field)
                cat = side_category[s]
                if cat >= 0:
                    left = in_category_set(category_bits, cat, code)
                else:
                    left = _threshold_left(w, code, f, has_missing, missing_codes)
                node += 1 if left else side_offset[s]
            else:
                left = _threshold_left(w, code, f, has_missing, missing_codes)
                left_class = (w & np.uint64(LEFT_CLASS)) != 0
                if left:
                    node = class_base + np.int64(field & cmask) if left_class else node + 1
                elif w & np.uint64(RIGHT_CLASS):
                    at = c_bits if left_class else np.uint64(0)
                    node = class_base + np.int64((field >> at) & cmask)
                else:
                    node += 1 if left_class else np.int64(field)
            w = np.uint64(words[node])
        _add_leaf(words, trees.shares, trees.means, node, k, out)


@njit(cache=True, nogil=True, internal=True)
def expand_tree(trees, t, missing_codes, records):
    """Write the split records of tree ``t`` into the first rows of ``records``.

    ``records`` is int32 with 4 columns; row ``i`` belongs to the tree's word
    ``i``. For a split: column 0 holds its feature shifted by 9 bits, plus
    ``lo``, its bin plus 1; columns 1 and 2 its left and right child: a
    split's row, or ``-(w + 1)`` for a leaf in word ``w`` of the forest (its
    own word, or its class word when it is folded); column 3 its *span*. A
    row goes right exactly when ``code - lo``, as an unsigned number, is below
    the span: the span is ``missing_codes[f] - lo`` when missing values go
    left (a feature's missing code is above its other codes), else
    :data:`_OPEN_SPAN`, so one subtraction and one comparison decide both.
    A category split's row holds its feature in column 0 and its row of
    ``category_bits`` in column 3, and its parent points to it as
    ``-(_CATEGORY_TARGET + row + 1)``: the lanes meet it where they meet
    leaves, off the threshold splits' path (:func:`route_lanes`). The rows of
    leaf words hold what their bits decode to, and are never read.
    The selects are written as masks: the words' flags follow no pattern a
    branch predictor could learn.
    """
    words, offsets = trees.words, trees.offsets
    side_offset, side_category = trees.side_offset, trees.side_category
    fmask = (np.uint64(1) << np.uint64(trees.feature_bits)) - np.uint64(1)
    shift = np.uint64(FEATURE_SHIFT + trees.feature_bits)
    c_bits = np.int64(trees.class_bits)
    cmask = (np.int64(1) << c_bits) - 1
    class_base = offsets[len(offsets) - 1]
    base = offsets[t]
    last = len(words) - 1
    side_base = trees.side_bases[t]
    has_missing = np.int64(len(missing_codes) > 0)
    top_feature = len(missing_codes) - 1
    has_categories = len(trees.category_bits) > 0
    for i in range(base, offsets[t + 1]):
        w = np.uint64(words[i])
        f = np.int64((w >> np.uint64(FEATURE_SHIFT)) & fmask)
        lo = np.int64((w >> np.uint64(BIN_SHIFT)) & np.uint64(255)) + 1
        field = np.int64(w >> shift)
        span = np.int64(_OPEN_SPAN)
        if has_missing & np.int64((w >> np.uint64(1)) & np.uint64(1)):  # MISSING_LEFT
            span = missing_codes[min(f, top_feature)] - lo
        if w & np.uint64(EXTENDED) and not w & np.uint64(LEAF):
            side = side_base + field
            left = _record_child(words, i + 1, base)
            right = _record_child(words, i + side_offset[side], base)
            if side_category[side] >= 0:
                span = np.int64(side_category[side])
        else:
            left_class = np.int64((w >> np.uint64(3)) & np.uint64(1))  # LEFT_CLASS
            right_class = np.int64((w >> np.uint64(4)) & np.uint64(1))  # RIGHT_CLASS
            left = _select(
                left_class, -(class_base + (field & cmask) + 1), _record_child(words, min(i + 1, last), base)
            )
            right_word = min(i + 1 + (field - 1) * (1 - left_class), last)
            right = _select(
                right_class,
                -(class_base + ((field >> (left_class * c_bits)) & cmask) + 1),
                _record_child(words, right_word, base),
            )
        if has_categories:
            left = _category_target(words, side_category, base, side_base, shift, left)
            right = _category_target(words, side_category, base, side_base, shift, right)
        row = i - base
        records[row, 0] = (f << 9) | lo
        records[row, 1] = left
        records[row, 2] = right
        records[row, 3] = span


@njit(cache=True, nogil=True, internal=True)
def route_lanes(trees, t, records, codes, rows, out):
    """:func:`route_trees` for tree ``t`` alone, expanded in ``records`` (:func:`expand_tree`).

    Eight lanes each hold a row's place in the tree; a pass advances every
    lane by one level (a load of its split record, of its row's code and of
    the child), so eight independent chains of loads are in flight instead of
    one, and no branch depends on a comparison. A lane that reaches a leaf adds
    it to its row's output and takes the next row; one that reaches a category
    split (a target below ``-_CATEGORY_TARGET``) takes its child there, on the
    same branch. The lanes are eight sets of local variables, written out, so
    that they stay in registers.
    """
    words, shares, means, category_bits = trees.words, trees.shares, trees.means, trees.category_bits
    base = trees.offsets[t]
    root = _record_child(words, base, base)
    if len(category_bits):
        root = _category_target(
            words, trees.side_category, base, trees.side_bases[t], np.uint64(FEATURE_SHIFT + trees.feature_bits), root
        )
    a0, k0, r0, nxt = _start(root, rows, np.int64(0))
    a1, k1, r1, nxt = _start(root, rows, nxt)
    a2, k2, r2, nxt = _start(root, rows, nxt)
    a3, k3, r3, nxt = _start(root, rows, nxt)
    a4, k4, r4, nxt = _start(root, rows, nxt)
    a5, k5, r5, nxt = _start(root, rows, nxt)
    a6, k6, r6, nxt = _start(root, rows, nxt)
    a7, k7, r7, nxt = _start(root, rows, nxt)
    live = min(len(rows), 8)
    while live > 0:
        if a0 >= 0:
            a0 = _down(records, codes, r0, a0)
        elif a0 < -_CATEGORY_TARGET:
            a0 = _category_child(records, category_bits, codes, r0, a0)
        elif k0 >= 0:
            _add_leaf(words, shares, means, -a0 - 1, k0, out)
            a0, k0, r0, nxt, live = _next(root, rows, nxt, live)
        if a1 >= 0:
            a1 = _down(records, codes, r1, a1)
        elif a1 < -_CATEGORY_TARGET:
            a1 = _category_child(records, category_bits, codes, r1, a1)
        elif k1 >= 0:
            _add_leaf(words, shares, means, -a1 - 1, k1, out)
            a1, k1, r1, nxt, live = _next(root, rows, nxt, live)
        if a2 >= 0:
            a2 = _down(records, codes, r2, a2)
        elif a2 < -_CATEGORY_TARGET:
            a2 = _category_child(records, category_bits, codes, r2, a2)
        elif k2 >= 0:
            _add_leaf(words, shares, means, -a2 - 1, k2, out)
            a2, k2, r2, nxt, live = _next(root, rows, nxt, live)
        if a3 >= 0:
            a3 = _down(records, codes, r3, a3)
        elif a3 < -_CATEGORY_TARGET:
            a3 = _category_child(records, category_bits, codes, r3, a3)
        elif k3 >= 0:
            _add_leaf(words, shares, means, -a3 - 1, k3, out)
            a3, k3, r3, nxt, live = _next(root, rows, nxt, live)
        if a4 >= 0:
            a4 = _down(records, codes, r4, a4)
        elif a4 < -_CATEGORY_TARGET:
            a4 = _category_child(records, category_bits, codes, r4, a4)
        elif k4 >= 0:
            _add_leaf(words, shares, means, -a4 - 1, k4, out)
            a4, k4, r4, nxt, live = _next(root, rows, nxt, live)
        if a5 >= 0:
            a5 = _down(records, codes, r5, a5)
        elif a5 < -_CATEGORY_TARGET:
            a5 = _category_child(records, category_bits, codes, r5, a5)
        elif k5 >= 0:
            _add_leaf(words, shares, means, -a5 - 1, k5, out)
            a5, k5, r5, nxt, live = _next(root, rows, nxt, live)
        if a6 >= 0:
            a6 = _down(records, codes, r6, a6)
        elif a6 < -_CATEGORY_TARGET:
            a6 = _category_child(records, category_bits, codes, r6, a6)
        elif k6 >= 0:
            _add_leaf(words, shares, means, -a6 - 1, k6, out)
            a6, k6, r6, nxt, live = _next(root, rows, nxt, live)
        if a7 >= 0:
            a7 = _down(records, codes, r7, a7)
        elif a7 < -_CATEGORY_TARGET:
            a7 = _category_child(records, category_bits, codes, r7, a7)
        elif k7 >= 0:
            _add_leaf(words, shares, means, -a7 - 1, k7, out)
            a7, k7, r7, nxt, live = _next(root, rows, nxt, live)


@inline_kernel
def _down(records, codes, r, node):
    """The child of split record ``node`` that row ``r`` goes to; unsigned indices skip numba's wraparound."""
    at = np.uint64(node)
    split = np.uint64(np.uint32(records[at, 0]))
    code = np.uint64(codes[np.uint64(r), split >> np.uint64(9)])
    right = (code - (split & np.uint64(511))) < np.uint64(np.uint32(records[at, 3]))
    return np.int64(records[at, np.uint64(1) + np.uint64(right)])


@inline_kernel
def _category_child(records, category_bits, codes, r, target):
    """The child of the category split at ``target`` (:func:`expand_tree`) that row ``r`` goes to."""
    node = -target - _CATEGORY_TARGET - 1
    code = np.int64(codes[r, records[node, 0] >> 9])
    left = in_category_set(category_bits, records[node, 3], code)
    return np.int64(records[node, 1] if left else records[node, 2])


@inline_kernel
def _start(root, rows, nxt):
    """A lane's ``(node, k, row)`` at row ``nxt``, or idle past the rows, and the next row to take."""
    if nxt < len(rows):
        return root, nxt, rows[nxt], nxt + 1
    return np.int64(-1), np.int64(-1), np.int64(0), nxt


@inline_kernel
def _next(root, rows, nxt, live):
    """A lane's state after its row reached a leaf: the next row, or idle (one lane fewer live)."""
    node, k, r, nxt = _start(root, rows, nxt)
    return node, k, r, nxt, live - (k < 0)


@inline_kernel
def _record_child(words, i, base):
    """The record of the node in word ``i``: its row when it is a split, ``-(i + 1)`` when it is a leaf."""
    leaf = -np.int64(np.uint64(words[i]) & np.uint64(LEAF))
    return ((-(i + 1)) & leaf) | ((i - base) & ~leaf)


@inline_kernel
def _category_target(words, side_category, base, side_base, shift, target):
    """``target``, or ``-(_CATEGORY_TARGET + target + 1)`` when it is the row of a category split."""
    if target < 0:
        return target
    w = np.uint64(words[base + target])
    if not w & np.uint64(EXTENDED) or side_category[side_base + np.int64(w >> shift)] < 0:
        return target
    return -(_CATEGORY_TARGET + target + 1)


@inline_kernel
def _select(flag, if_set, if_clear):
    """``if_set`` when ``flag`` (0 or 1) is 1, else ``if_clear``, without a branch."""
    mask = -flag
    return (if_set & mask) | (if_clear & ~mask)


@inline_kernel
def _add_leaf(words, shares, means, node, k, out):
    """Add the leaf in word ``node`` to ``out[k]``: 1 to its class, or its row of the leaf table (``means`` when
    it is not empty, else ``shares``)."""
    w = np.uint64(words[node])
    payload = np.int64(w >> np.uint64(PAYLOAD_SHIFT))
    if w & np.uint64(TABLE_ROW):
        if len(means):
            for c in range(out.shape[1]):
                out[k, c] += means[payload, c]
        else:
            for c in range(out.shape[1]):
                out[k, c] += shares[payload, c]
    else:
        out[k, payload] += 1.0


@inline_kernel
def in_category_set(category_bits, cat, code):
    """Whether ``code`` is in row ``cat`` of the category bitsets (codes from 256 never are)."""
    word = category_bits[cat, code >> 6] if code < 256 else np.uint64(0)
    return (word >> np.uint64(code & 63)) & np.uint64(1) != 0


@inline_kernel
def _threshold_left(w, code, f, has_missing, missing_codes):
    if code <= np.int64((w >> np.uint64(BIN_SHIFT)) & np.uint64(255)):
        return True
    return has_missing and (w & np.uint64(MISSING_LEFT)) != 0 and code == missing_codes[f]
