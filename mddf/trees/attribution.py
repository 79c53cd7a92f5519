"""A tree's output attributed to the features of its input: exact TreeSHAP and path contributions, compiled.

A stored tree (:mod:`mddf.trees.nodes`) is first decoded into explicit nodes in
depth-first order (:func:`decode_tree`, a :data:`TreeNodes`), the pure leaves
that its words fold into their splits included. Every node gets a value: a
leaf its output (its class, or its row of the leaf table), a split the mean of
its children's values weighted by the training weight that reached each
(``left_share``, kept by the grower), so the root's value is the tree's
expected output over its training rows.

*Exact* attributions are the Shapley values of the tree's path-dependent value
function (Lundberg et al., "From local explanations to global understanding
with explainable AI for trees", Nature Machine Intelligence 2020): ``v(S)`` is
the tree's output for a row when only the features in ``S`` are known, a
split on another feature sending the row down both children in proportion to
their training weight. Grouping a leaf's splits by feature, ``v(S) = sum_l v_l
prod_{j on l's path} (p_j if j in S else q_j)``, with ``q_j`` the product of
the weight shares of the leaf's splits on j and ``p_j`` 1 when the row meets
all of them (else 0). Its Shapley value for feature i is

    phi_i = sum_l v_l (p_i - q_i) integral_0^1 prod_{j != i} (q_j + (p_j - q_j) t) dt,

the integrand a polynomial of degree below the number of distinct features
on the path. :func:`tree_shap` computes it in one pass over the nodes per
row (Yu et al., "Linear TreeShap", NeurIPS 2022): the products are kept as
their values at the Gauss-Legendre points of [0, 1] (enough of them to
integrate exactly), and a split's share of the sum telescopes when its
feature repeats on the path, so that every node adds one term, weighted by
the sum of the leaves below it. The values add up: ``sum_i phi_i`` is the
row's output less the root's value.

*Fast* attributions are the path contributions of Saabas (the ``treeinterpreter``
package): each split on a row's path credits its feature with the change of
value from the split to the child the row goes to (:func:`path_contributions`).
They add up the same way, at the cost of a prediction, but are not Shapley
values: a feature split near the root gets more than its share.

Both take the rows as bin codes, as :func:`mddf.trees.route_trees` does (or as
codes of the thresholds of any tree decoded into a :data:`TreeNodes`).
"""

from __future__ import annotations

from collections import namedtuple
from functools import cache

import numpy as np

from .._runtime.compile_cache import njit
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
from .predictor import in_category_set

#: A tree's explicit nodes in depth-first order (a split's left child is the next node): ``feature`` (int32, -1 for a
#: leaf), ``right`` (int32, a split's right child), ``split_bin`` (int32: rows whose code is at most it go left),
#: ``missing_left`` (uint8: rows whose code is the feature's missing code go left), ``category`` (int32: a category
#: split's row of the category bitsets, else -1), ``left_share`` (float64: the share of a split's training weight
#: that went left) and ``value`` (float64 ``(n_nodes, width)``: a leaf's output, a split's weighted mean of its
#: children's).
TreeNodes = namedtuple(
    "TreeNodes", ["feature", "right", "split_bin", "missing_left", "category", "left_share", "value"]
)

#: The most Gauss-Legendre points :func:`tree_shap` uses: paths of up to twice as many distinct features.
MAX_POINTS = 256
#: The most rows :func:`tree_shap` walks through a tree together (a block): each step is a loop over them.
BLOCK_ROWS = 512
#: The most values of a block's sums (depth levels x output columns x points x rows), which fewer rows keep to.
BLOCK_VALUES = 1 << 21


@njit(cache=True, nogil=True)
def decode_tree(trees, t, left_shares, width):
    """Tree ``t`` of the :data:`~mddf.trees.predictor.PackedTrees` ``trees`` as a :data:`TreeNodes` of ``width``
    output columns; ``left_shares`` holds the share of each word's training weight that went left."""
    words, offsets = trees.words, trees.offsets
    side_offset, side_category = trees.side_offset, trees.side_category
    base, side_base = offsets[t], trees.side_bases[t]
    fmask = (np.uint64(1) << np.uint64(trees.feature_bits)) - np.uint64(1)
    shift = np.uint64(FEATURE_SHIFT + trees.feature_bits)
    c_bits = np.uint64(trees.class_bits)
    cmask = (np.uint64(1) << c_bits) - np.uint64(1)
    class_base = offsets[len(offsets) - 1]
    capacity = 2 * (offsets[t + 1] - base) + 1  # each word, and a folded leaf for each of its children at most
    feature = np.full(capacity, -1, dtype=np.int32)
    right = np.zeros(capacity, dtype=np.int32)
    split_bin = np.zeros(capacity, dtype=np.int32)
    missing_left = np.zeros(capacity, dtype=np.uint8)
    category = np.full(capacity, -1, dtype=np.int32)
    share = np.zeros(capacity)
    value = np.zeros((capacity, width))
    # the nodes still to decode: their word (a class word for a folded leaf) and the split whose right child each is
    pending_word = np.empty(capacity, dtype=np.int64)
    pending_parent = np.empty(capacity, dtype=np.int64)
    pending_word[0], pending_parent[0], top, n = base, -1, 1, 0
    while top > 0:
        top -= 1
        i, parent, node = pending_word[top], pending_parent[top], n
        n += 1
        if parent >= 0:
            right[parent] = node
        w = np.uint64(words[i])
        if w & np.uint64(LEAF):
            payload = np.int64(w >> np.uint64(PAYLOAD_SHIFT))
            if not w & np.uint64(TABLE_ROW):
                value[node, payload] = 1.0
            elif len(trees.means):
                for c in range(width):
                    value[node, c] = trees.means[payload, c]
            else:
                for c in range(width):
                    value[node, c] = trees.shares[payload, c]
            continue
        feature[node] = np.int32((w >> np.uint64(FEATURE_SHIFT)) & fmask)
        split_bin[node] = np.int32((w >> np.uint64(BIN_SHIFT)) & np.uint64(255))
        missing_left[node] = np.uint8((w & np.uint64(MISSING_LEFT)) != 0)
        share[node] = left_shares[i]
        field = w >> shift
        if w & np.uint64(EXTENDED):
            s = side_base + np.int64(field)
            category[node] = side_category[s]
            left_word, right_word = i + 1, i + side_offset[s]
        else:
            left_class = (w & np.uint64(LEFT_CLASS)) != 0
            left_word = class_base + np.int64(field & cmask) if left_class else i + 1
            if w & np.uint64(RIGHT_CLASS):
                at = c_bits if left_class else np.uint64(0)
                right_word = class_base + np.int64((field >> at) & cmask)
            else:
                right_word = i + 1 if left_class else i + np.int64(field)
        pending_word[top], pending_parent[top] = right_word, node
        pending_word[top + 1], pending_parent[top + 1] = left_word, -1
        top += 2
    split_values(feature[:n], right[:n], share[:n], value[:n])
    return TreeNodes(
        feature[:n].copy(),
        right[:n].copy(),
        split_bin[:n].copy(),
        missing_left[:n].copy(),
        category[:n].copy(),
        share[:n].copy(),
        value[:n].copy(),
    )


@njit(cache=True, nogil=True)
def split_values(feature, right, left_share, value):
    """Write each split's value (in place): the mean of its children's, weighted by their shares of its training
    weight; the leaves' rows of ``value`` hold their outputs."""
    for node in range(len(feature) - 1, -1, -1):
        if feature[node] >= 0:
            s = left_share[node]
            for c in range(value.shape[1]):
                value[node, c] = s * value[node + 1, c] + (1.0 - s) * value[right[node], c]


@inline_kernel
def _goes_left(nodes, node, codes, r, missing_codes, category_bits):
    """Whether row ``r`` of ``codes`` goes from split ``node`` to its left child (as the router sends it)."""
    f = nodes.feature[node]
    code = np.int64(codes[r, f])
    cat = nodes.category[node]
    if cat >= 0:
        return in_category_set(category_bits, cat, code)
    if code <= nodes.split_bin[node]:
        return True
    return len(missing_codes) > 0 and nodes.missing_left[node] != 0 and code == missing_codes[f]


@njit(cache=True, nogil=True)
def path_contributions(nodes, codes, rows, missing_codes, category_bits, scale, out):
    """Add ``scale`` times the path contributions of row ``rows[k]`` of ``codes`` to ``out[k]`` ``(n_features,
    width)``: each split on the row's path adds its child's value less its own to its feature.

    ``missing_codes`` and ``category_bits`` are :func:`mddf.trees.route_trees`' (``missing_codes`` empty when the
    codes hold no missing value). The contributions of a row add up to its leaf's value less the root's.
    """
    feature, right, value = nodes.feature, nodes.right, nodes.value
    width = value.shape[1]
    for k in range(len(rows)):
        r = rows[k]
        node = 0
        while feature[node] >= 0:
            child = node + 1 if _goes_left(nodes, node, codes, r, missing_codes, category_bits) else right[node]
            f = feature[node]
            for c in range(width):
                out[k, f, c] += scale * (value[child, c] - value[node, c])
            node = child


@njit(cache=True, nogil=True)
def packed_path_contributions(trees, left_shares, width, codes, rows, missing_codes, category_bits, scale, out):
    """:func:`path_contributions` of every tree of the :data:`~mddf.trees.predictor.PackedTrees` ``trees``, each
    decoded in turn (:func:`decode_tree`) within one compiled call, added to ``out`` times ``scale``; return the sum
    of the trees' expected outputs (their roots' values) times ``scale``."""
    base = np.zeros(width)
    for t in range(len(trees.offsets) - 1):
        nodes = decode_tree(trees, t, left_shares, width)
        for c in range(width):
            base[c] += scale * nodes.value[0, c]
        path_contributions(nodes, codes, rows, missing_codes, category_bits, scale, out)
    return base


@njit(cache=True, nogil=True)
def edge_layout(feature, right, left_share):
    """What the attributions read of a tree's shape, whatever the rows: ``(parent, depth, end, previous, share,
    n_distinct)``.

    For each node: its parent split (-1 for the root), its depth, the end of its subtree (the node after its
    last descendant), the nearest node above it entered by a split on the same feature as its own parent's (-1:
    none), ``share``, the product of the shares of the training weight along the splits on that feature from the
    root to it; and ``n_distinct``, the most distinct features on a path from the root to a leaf.
    """
    n = len(feature)
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    end = np.zeros(n, dtype=np.int64)
    previous = np.full(n, -1, dtype=np.int64)
    share = np.ones(n)
    distinct = np.zeros(n, dtype=np.int64)
    n_distinct = 0
    for node in range(n - 1, -1, -1):
        end[node] = node + 1 if feature[node] < 0 else end[right[node]]
    # the last node on the path to the current one entered by a split on each feature, and what each node
    # entered replaced, restored once its subtree is done
    last = np.full(max(1, np.max(feature) + 1), -1, dtype=np.int64)
    entered = np.empty(n, dtype=np.int64)
    replaced = np.empty(n, dtype=np.int64)
    top = 0
    for node in range(n):
        while top > 0 and end[entered[top - 1]] <= node:
            top -= 1
            last[feature[parent[entered[top]]]] = replaced[top]
        p = parent[node]
        if p >= 0:
            f = feature[p]
            previous[node] = last[f]
            entered[top], replaced[top] = node, last[f]
            top += 1
            last[f] = node
            ratio = left_share[p] if node == p + 1 else 1.0 - left_share[p]
            share[node] = ratio * (share[previous[node]] if previous[node] >= 0 else 1.0)
            distinct[node] = distinct[p] + (previous[node] < 0)
        if feature[node] >= 0:
            for child in (np.int64(node + 1), np.int64(right[node])):
                parent[child] = node
                depth[child] = depth[node] + 1
        else:
            n_distinct = max(n_distinct, distinct[node])
    return parent, depth, end, previous, share, n_distinct


@cache
def quadrature(n_points):
    """The ``n_points`` Gauss-Legendre points of [0, 1] and their weights (exact for polynomials of degree below
    ``2 * n_points``)."""
    x, w = np.polynomial.legendre.leggauss(n_points)
    return (x + 1.0) / 2.0, w / 2.0


def tree_shap(nodes, codes, rows, missing_codes, category_bits, scale, out):
    """Add ``scale`` times the exact TreeSHAP values of row ``rows[k]`` of ``codes`` to ``out[k]`` ``(n_features,
    width)``; return the tree's expected output (its root's value), from which they add up to the row's output.

    ``nodes`` is a :data:`TreeNodes`; ``missing_codes`` and ``category_bits`` are :func:`mddf.trees.route_trees`'.
    The values are those of the path-dependent value function (see the module). What the values read of the tree
    is computed once a call; the rows are walked :data:`BLOCK_ROWS` at most at a time, and a row's values do not
    depend on the rows walked with it.
    """
    parent, depth, end, previous, share, n_distinct = edge_layout(nodes.feature, nodes.right, nodes.left_share)
    n_points = max(1, (n_distinct + 1) // 2)
    if n_points > MAX_POINTS:
        raise ValueError(f"a tree path has {n_distinct} distinct features, more than {2 * MAX_POINTS}")
    points, weights = quadrature(n_points)
    terms = _child_terms(parent, previous, share, points, weights)
    layout = (parent, depth, end, previous)
    block = _block_rows(len(rows), int(depth.max()) + 1, nodes.value.shape[1], n_points)
    _shap_rows(nodes, layout, terms, codes, rows, missing_codes, category_bits, scale, out, block)
    return nodes.value[0]


def _block_rows(n_rows, levels, width, n_points):
    """The rows of each block: as few blocks as :data:`BLOCK_ROWS` and :data:`BLOCK_VALUES` allow, of equal size."""
    most = max(1, min(BLOCK_ROWS, BLOCK_VALUES // (levels * width * n_points)))
    n_blocks = max(1, -(-n_rows // most))
    return max(1, -(-n_rows // n_blocks))


@njit(cache=True, nogil=True)
def _child_terms(parent, previous, share, points, weights):
    """What a row's walk adds at each child of a split, at each Gauss-Legendre point, as quadratics in the row's
    flag ``z`` at the split: 0 when the row fails a split above on the split's feature, else 1 when it goes right
    and 2 when it goes left. ``terms[node, 3 q : 3 q + 3, k]`` are ``X_0, X_1, X_2`` of ``X = X_0 + z (X_1 + z
    X_2)`` for ``q`` = 0, the factor of the path product (``F / F_before``, ``F = s + (p - s) t``, ``s`` the node's
    ``share``, ``p`` whether the row meets the path's splits on the feature down to the node, ``F_before`` the
    same down to its ``previous``, 1 when none); ``q`` = 1, the weighted term ``weights (g - g_before)`` with ``g
    = (p - s) / F`` (0 when none); ``q`` = 2, their product."""
    n, n_points = len(share), len(points)
    terms = np.zeros((n, 9, n_points))
    g_off = -1.0 / (1.0 - points)  # g at each point when the row fails the feature
    for node in range(1, n):
        left = node == parent[node] + 1
        s, m = share[node], previous[node]
        s_before = share[m] if m >= 0 else 1.0
        # z = 0, the row failed a split on the feature above: F and g fail before and now, F / F_before is the
        # ratio of the shares and the term is 0; a zero share (a child of no weight, rounded) makes the products
        # below it 0: no 0 / 0
        ratio = s / s_before if s_before > 0.0 else 0.0
        for k in range(n_points):
            t, w = points[k], weights[k]
            f_off, f_on = s * (1.0 - t), s + (1.0 - s) * t  # F at t when the row fails or meets the feature
            g_on = (1.0 - s) / f_on
            # F and g down to the previous split on the feature, which the row met (1 and 0 when none)
            before = s_before + (1.0 - s_before) * t if m >= 0 else 1.0
            inverse = 1.0 / before if before > 0.0 else 0.0
            g_before = (1.0 - s_before) * inverse if m >= 0 else 0.0
            factor_fail, factor_meet = f_off * inverse, f_on * inverse
            term_fail, term_meet = w * (g_off[k] - g_before), w * (g_on - g_before)
            # z = 1 and 2, the row goes right and left: the left child fails then meets, the right one the reverse
            factor_b, factor_c = (factor_fail, factor_meet) if left else (factor_meet, factor_fail)
            term_b, term_c = (term_fail, term_meet) if left else (term_meet, term_fail)
            factor_a, term_a = (ratio, 0.0) if m >= 0 else (factor_b, term_b)  # with none above, z is not 0
            products = (term_a * factor_a, term_b * factor_b, term_c * factor_c)
            for q, (at_0, at_1, at_2) in enumerate(
                ((factor_a, factor_b, factor_c), (term_a, term_b, term_c), products)
            ):
                # the quadratic in z through the three cases: X = X_0 + z (X_1 + z X_2)
                second = 0.5 * (at_0 - 2.0 * at_1 + at_2)
                terms[node, 3 * q, k], terms[node, 3 * q + 1, k], terms[node, 3 * q + 2, k] = (
                    at_0,
                    at_1 - at_0 - second,
                    second,
                )
    return terms


@njit(cache=True, nogil=True, fastmath={"contract"})
def _shap_rows(nodes, layout, terms, codes, rows, missing_codes, category_bits, scale, out, block):
    """:func:`tree_shap` for the rows of ``rows``, ``block`` at a time: one pass over the splits in depth-first
    order per block (``layout``: the ``parent``, ``depth``, ``end`` and ``previous`` of :func:`edge_layout`;
    ``terms``: :func:`_child_terms`).

    Entering a split, each row's path product is updated at every point and its flag ``z`` for the split's
    children is set; when its subtree is done, the split adds, for each child, the child's term times the sum of
    the child's leaves' values times their path products to its feature, and writes the sum of both children's
    sums, which its parent reads. A leaf is taken at its parent's exit (its sum is its value times the parent's
    product times its factor), so that no leaf's product is stored. The rows are the innermost index of every
    buffer, so that each step is one loop over them, the same for a row whatever the rows beside it.
    """
    feature, right, value = nodes.feature, nodes.right, nodes.value
    parent, depth, end, previous = layout
    n, n_points, width, n_rows = len(feature), terms.shape[2], value.shape[1], len(rows)
    if feature[0] < 0 or n_rows == 0:
        return  # a tree of one leaf: a constant, nothing to attribute
    levels = np.max(depth) + 1
    present = _classes_below(feature, right, value)
    used = np.full(codes.shape[1], -1, dtype=np.int64)  # each feature the splits read: its row of `code`
    n_used = 0
    for node in range(n):
        if feature[node] >= 0 and used[feature[node]] < 0:
            used[feature[node]] = n_used
            n_used += 1
    code = np.empty((n_used, block), dtype=np.int32)  # the rows' codes of those features, rows innermost
    product = np.empty((levels, n_points, block))  # the path product of the split at each depth
    product[0] = 1.0
    # the sums of a finished left child at its depth; those of a right child past them, at one of two places by
    # the parity of its depth, so that a right child's split writes where its own right child's are not read
    sums = np.empty((levels + 2, width, n_points, block))
    z = np.ones((levels + 1, block))  # each row's flag at the split at each depth (see _child_terms); 1 past them
    acc = np.empty((out.shape[1], width, block))  # the attributions, rows innermost; added to out after a block
    coef = np.empty((6, n_points))  # the leaf children's sums and terms, per point, in one column
    open_splits = np.empty(levels, dtype=np.int64)
    has_missing = len(missing_codes) > 0
    for start in range(0, n_rows, block):
        nb = min(block, n_rows - start)
        for k in range(nb):
            r = rows[start + k]
            for f in range(len(used)):
                if used[f] >= 0:
                    code[used[f], k] = codes[r, f]
        acc[:, :, :nb] = 0.0
        top, node = 0, 0
        while node <= n:
            while top > 0 and (node == n or end[open_splits[top - 1]] <= node):
                top -= 1
                s = open_splits[top]
                d, f = depth[s], feature[s]
                into = d if s > 0 and s == parent[s] + 1 else levels + d % 2  # the root's go unread
                right_sums = levels + (d + 1) % 2
                lc, rc = s + 1, right[s]
                for c in range(width):
                    if width <= 64 and not (present[s] >> np.uint64(c)) & np.uint64(1):
                        continue  # no leaf below has a value in this column: its sums are unread
                    in_l = width > 64 or (present[lc] >> np.uint64(c)) & np.uint64(1) != 0
                    in_r = width > 64 or (present[rc] >> np.uint64(c)) & np.uint64(1) != 0
                    v_l = value[lc, c] if in_l and feature[lc] < 0 else 0.0
                    v_r = value[rc, c] if in_r and feature[rc] < 0 else 0.0
                    split_l, split_r = in_l and feature[lc] >= 0, in_r and feature[rc] >= 0
                    # the sums and terms of the leaf children, which the loops read unless both children are splits
                    for j in range(0 if split_l and split_r else n_points):
                        for i in range(3):
                            coef[i, j] = v_l * terms[lc, i, j] + v_r * terms[rc, i, j]
                            coef[3 + i, j] = v_l * terms[lc, 6 + i, j] + v_r * terms[rc, 6 + i, j]
                    for j in range(n_points):
                        k0, kb, kl, m0, mb, ml = coef[0, j], coef[1, j], coef[2, j], coef[3, j], coef[4, j], coef[5, j]
                        l0, lb, ll = terms[lc, 3, j], terms[lc, 4, j], terms[lc, 5, j]
                        r0, rb, rl = terms[rc, 3, j], terms[rc, 4, j], terms[rc, 5, j]
                        if not split_l and not split_r:
                            for k in range(nb):
                                x, p = z[d, k], product[d, j, k]
                                sums[into, c, j, k] = p * (k0 + x * (kb + x * kl))
                                acc[f, c, k] += p * (m0 + x * (mb + x * ml))
                        elif not split_r:
                            for k in range(nb):
                                x, p, g = z[d, k], product[d, j, k], sums[d + 1, c, j, k]
                                sums[into, c, j, k] = p * (k0 + x * (kb + x * kl)) + g
                                acc[f, c, k] += p * (m0 + x * (mb + x * ml)) + (l0 + x * (lb + x * ll)) * g
                        elif not split_l:
                            for k in range(nb):
                                x, p, g = z[d, k], product[d, j, k], sums[right_sums, c, j, k]
                                sums[into, c, j, k] = p * (k0 + x * (kb + x * kl)) + g
                                acc[f, c, k] += p * (m0 + x * (mb + x * ml)) + (r0 + x * (rb + x * rl)) * g
                        else:
                            for k in range(nb):
                                x, g, e = z[d, k], sums[d + 1, c, j, k], sums[right_sums, c, j, k]
                                sums[into, c, j, k] = g + e
                                acc[f, c, k] += (l0 + x * (lb + x * ll)) * g + (r0 + x * (rb + x * rl)) * e
            if node == n:
                break
            if feature[node] < 0 or (node > 0 and width <= 64 and present[node] == 0):
                node = end[node]  # a leaf is taken at its parent's exit; a subtree of no value adds nothing
                continue
            d = depth[node]
            if node > 0:  # the row's path product
                pd = d - 1
                for j in range(n_points):
                    f0, fb, fl = terms[node, 0, j], terms[node, 1, j], terms[node, 2, j]
                    for k in range(nb):
                        x = z[pd, k]
                        product[d, j, k] = product[pd, j, k] * (f0 + x * (fb + x * fl))
            # z: whether the row meets the splits above on this split's feature, read from the flag at the split
            # above m, the last of them (met: m is a left child and z is 2 there, or a right one and z is 1), times
            # 1 + whether it goes left
            m = previous[node + 1]
            if m >= 0:
                at, meets = depth[m] - 1, 2.0 if m == parent[m] + 1 else 1.0
            else:  # none above: met, read from a flag that is 1
                at, meets = levels, 1.0
            u, cat = used[feature[node]], nodes.category[node]
            if cat >= 0:
                for k in range(nb):
                    x = 1.0 if z[at, k] == meets else 0.0
                    z[d, k] = x + x if in_category_set(category_bits, cat, code[u, k]) else x
            else:  # no branch a row: the rows go either way
                at_most = nodes.split_bin[node]
                missing = missing_codes[feature[node]] if has_missing and nodes.missing_left[node] != 0 else -1
                for k in range(nb):
                    x = 1.0 if z[at, k] == meets else 0.0
                    z[d, k] = x + x if (code[u, k] <= at_most) | (code[u, k] == missing) else x
            open_splits[top] = node
            top += 1
            node += 1
        for f in range(acc.shape[0]):
            for c in range(width):
                for k in range(nb):
                    out[start + k, f, c] += scale * acc[f, c, k]


@njit(cache=True, nogil=True)
def _classes_below(feature, right, value):
    """For each node, which output columns some leaf below it has a non-zero value in: a bit per column (every
    bit past 63 columns)."""
    n, width = value.shape
    present = np.zeros(n, dtype=np.uint64)
    for node in range(n - 1, -1, -1):
        if feature[node] >= 0:
            present[node] = present[node + 1] | present[right[node]]
        elif width > 64:
            present[node] = ~np.uint64(0)
        else:
            for c in range(width):
                if value[node, c] != 0.0:
                    present[node] |= np.uint64(1) << np.uint64(c)
    return present
