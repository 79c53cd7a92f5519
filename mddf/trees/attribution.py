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
    The values are those of the path-dependent value function (see the module).
    """
    parent, depth, end, previous, share, n_distinct = edge_layout(nodes.feature, nodes.right, nodes.left_share)
    n_points = max(1, (n_distinct + 1) // 2)
    if n_points > MAX_POINTS:
        raise ValueError(f"a tree path has {n_distinct} distinct features, more than {2 * MAX_POINTS}")
    points, weights = quadrature(n_points)
    factor, term = _edge_terms(previous, share, points, weights)
    layout = (parent, depth, end, previous)
    _shap_rows(nodes, layout, factor, term, codes, rows, missing_codes, category_bits, scale, out)
    return nodes.value[0]


@njit(cache=True, nogil=True)
def _edge_terms(previous, share, points, weights):
    """For each node entered by a split on feature i and each state ``2 p + p_before`` of i (``p`` whether the row
    meets the path's splits on i down to the node, ``p_before`` down to the ``previous`` one, 1 when none): the
    factor of the path product at each point (``F / F_before``, ``F = q + (p - q) t``, ``q`` the node's ``share``)
    and the weighted term ``weights (g - g_before)`` with ``g = (p - q) / F`` (0 when none)."""
    n, n_points = len(share), len(points)
    factor = np.zeros((n, 4, n_points))
    term = np.zeros((n, 4, n_points))
    for node in range(1, n):
        q = share[node]
        m = previous[node]
        q_before = share[m] if m >= 0 else 1.0
        for state in (0, 1, 3):  # p = 1 needs p_before = 1
            p, p_before = state >> 1, state & 1
            for k in range(n_points):
                t = points[k]
                f_now = q + (p - q) * t
                f_before = q_before + (p_before - q_before) * t if m >= 0 else 1.0
                g_now = (1.0 - q) / f_now if p else -1.0 / (1.0 - t)
                g_before = 0.0
                if m >= 0:
                    g_before = (1.0 - q_before) / f_before if p_before else -1.0 / (1.0 - t)
                # a zero share (a child of no weight, rounded) makes the products below it 0: no 0 / 0
                factor[node, state, k] = f_now / f_before if f_before > 0.0 else 0.0
                term[node, state, k] = weights[k] * (g_now - g_before)
    return factor, term


@njit(cache=True, nogil=True)
def _shap_rows(nodes, layout, factor, term, codes, rows, missing_codes, category_bits, scale, out):
    """:func:`tree_shap` for the rows of ``rows`` together: one pass over the nodes in depth-first order
    (``layout``: the ``parent``, ``depth``, ``end`` and ``previous`` of :func:`edge_layout`).

    Entering a node, each row's path product is updated at every point; a split records where each row goes; a
    node whose subtree is done (a leaf at once) adds its term times the sum of its leaves' values times their
    path products to the feature of the split above it, and passes that sum on to its parent. The rows are the
    innermost index of every buffer, so that each step is one loop over them.
    """
    feature, value = nodes.feature, nodes.value
    parent, depth, end, previous = layout
    n_rows, n_points, width = len(rows), factor.shape[2], value.shape[1]
    levels = np.max(depth) + 1
    product = np.ones((levels, n_points, n_rows))  # the path product of the node at each depth, per point and row
    below = np.zeros((levels, width, n_points, n_rows))  # the sums over the leaves below the split at each depth
    met = np.ones((levels, n_rows), dtype=np.uint8)  # whether the row meets the splits on the feature down to it
    state = np.zeros((levels, n_rows), dtype=np.uint8)
    left = np.zeros((levels, n_rows), dtype=np.uint8)
    total = np.zeros(n_rows)
    acc = np.zeros((out.shape[1], width, n_rows))  # the attributions, rows innermost; added to out at the end
    open_splits = np.empty(levels, dtype=np.int64)
    present = _classes_below(feature, nodes.right, value)
    top, node = 0, 0
    while node <= len(feature):
        while top > 0 and (node == len(feature) or end[open_splits[top - 1]] <= node):
            top -= 1
            done = open_splits[top]
            if done > 0:
                d, f = depth[done], feature[parent[done]]
                for c in range(width):
                    if width <= 64 and not (present[done] >> np.uint64(c)) & np.uint64(1):
                        continue  # no leaf below has a value in this column: its sums are 0
                    first = done == parent[done] + 1  # a left child: the first to pass its sums up
                    _terms(below[d, c], 1.0, term[done], state[d], below[d - 1, c], total, first)
                    for k in range(n_rows):
                        acc[f, c, k] += total[k]
        if node == len(feature):
            break
        if node > 0 and present[node] == 0 and width <= 64:
            node = end[node]  # no leaf below has a value: the subtree adds nothing (its parent cleared its sums)
            continue
        d = depth[node]
        if node > 0:
            p, m = parent[node], previous[node]
            goes = np.uint8(node == p + 1)
            if m >= 0:  # the feature's state down to the split above that read it last
                at = depth[m]
                for k in range(n_rows):
                    before = met[at, k]
                    now = before & np.uint8(left[d - 1, k] == goes)
                    met[d, k] = now
                    state[d, k] = 2 * now + before
            else:
                for k in range(n_rows):
                    now = np.uint8(left[d - 1, k] == goes)
                    met[d, k] = now
                    state[d, k] = 2 * now + 1
            for j in range(n_points):
                f0, f1, f3 = factor[node, 0, j], factor[node, 1, j], factor[node, 3, j]
                for k in range(n_rows):
                    s = state[d, k]
                    product[d, j, k] = product[d - 1, j, k] * (f3 if s == 3 else f1 if s == 1 else f0)
        if feature[node] >= 0:
            for k in range(n_rows):
                left[d, k] = _goes_left(nodes, node, codes, rows[k], missing_codes, category_bits)
            # the left child writes its columns' sums here, the right one adds to them: only the columns that
            # are 0 on the left need clearing
            clear = present[node] & ~present[node + 1]
            for c in range(width):
                if width > 64 or (clear >> np.uint64(c)) & np.uint64(1):
                    below[d, c] = 0.0
            open_splits[top] = node
            top += 1
        elif node > 0:  # a leaf: its value times its path product is the sum below it
            f = feature[parent[node]]
            for c in range(width):
                v = value[node, c]
                if v != 0.0 or width > 64:  # past 64 columns every leaf writes every column (none is cleared)
                    _terms(product[d], v, term[node], state[d], below[d - 1, c], total, node == parent[node] + 1)
                    for k in range(n_rows):
                        acc[f, c, k] += total[k]
        node += 1
    for f in range(acc.shape[0]):
        for c in range(width):
            for k in range(n_rows):
                out[k, f, c] += scale * acc[f, c, k]


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _terms(sums, v, term, state, into, total, first):
    """``total[k]``: the sum over the points ``j`` of ``term[state[k], j] * v * sums[j, k]``, each ``v * sums[j, k]``
    also written to ``into[j, k]`` (``first``) or added to it (a node's terms, and its sums passed on to its
    parent)."""
    n_points, n_rows = sums.shape
    for k in range(n_rows):
        total[k] = 0.0
    for j in range(n_points):
        t0, t1, t3 = term[0, j], term[1, j], term[3, j]
        if first:
            for k in range(n_rows):
                h = v * sums[j, k]
                s = state[k]
                total[k] += (t3 if s == 3 else t1 if s == 1 else t0) * h
                into[j, k] = h
        else:
            for k in range(n_rows):
                h = v * sums[j, k]
                s = state[k]
                total[k] += (t3 if s == 3 else t1 if s == 1 else t0) * h
                into[j, k] += h


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
