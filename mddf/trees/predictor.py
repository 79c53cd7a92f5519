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

One kernel serves classification and regression, fitting (the held-out or
out-of-bag rows of each tree as it is grown) and prediction (every tree of a
forest, every forest of a layer). Outputs are sums in tree order, so the same
trees give the same bits whatever the blocks of rows or threads.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

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
#: :data:`~mddf.trees.splitting.CATEGORY_WORDS` per category split); ``table`` (the leaf table, float32 class
#: shares or float64 means); ``feature_bits`` and ``class_bits``, the widths of a word's feature and of a folded
#: class.
PackedTrees = namedtuple(
    "PackedTrees",
    [
        "words",
        "offsets",
        "side_bases",
        "side_offset",
        "side_category",
        "category_bits",
        "table",
        "feature_bits",
        "class_bits",
    ],
)

NO_MISSING = np.zeros(0, dtype=np.int64)


@njit(cache=True, nogil=True)
def route_trees(trees, first, stop, codes, rows, missing_codes, out):
    """Add the leaf of row ``rows[k]`` of ``codes`` in each tree from ``first`` to ``stop - 1`` to ``out[k]``.

    Parameters
    ----------
    trees : PackedTrees
    first, stop : int
        The trees routed.
    codes : ndarray of uint8 or uint16 (n, d)
        Bin codes of the rows.
    rows : ndarray of int64
        Rows of ``codes`` to route.
    missing_codes : ndarray of int64 (d,) or (0,)
        Code of NaN in each feature (``FeatureBinner.missing_bins_``); empty
        when ``codes`` has no missing value, which skips the check.
    out : ndarray of float64 (len(rows), width)
        Added to in place: a pure leaf adds 1 to its class column, a table
        leaf its row of the leaf table.
    """
    words, offsets, side_bases = trees.words, trees.offsets, trees.side_bases
    side_offset, side_category, category_bits, table = (
        trees.side_offset,
        trees.side_category,
        trees.category_bits,
        trees.table,
    )
    width = out.shape[1]
    has_missing = len(missing_codes) > 0
    fmask = (np.uint64(1) << np.uint64(trees.feature_bits)) - np.uint64(1)
    shift = np.uint64(FEATURE_SHIFT + trees.feature_bits)
    c_bits = np.uint64(trees.class_bits)
    cmask = (np.uint64(1) << c_bits) - np.uint64(1)
    class_base = offsets[len(offsets) - 1]
    for t in range(first, stop):
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
                        word = category_bits[cat, code >> 6] if code < 256 else np.uint64(0)
                        left = (word >> np.uint64(code & 63)) & np.uint64(1) != 0
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
            payload = np.int64(w >> np.uint64(PAYLOAD_SHIFT))
            if w & np.uint64(TABLE_ROW):
                for c in range(width):
                    out[k, c] += table[payload, c]
            else:
                out[k, payload] += 1.0


@njit(inline="always")
def _threshold_left(w, code, f, has_missing, missing_codes):
    if code <= np.int64((w >> np.uint64(BIN_SHIFT)) & np.uint64(255)):
        return True
    return has_missing and (w & np.uint64(MISSING_LEFT)) != 0 and code == missing_codes[f]
