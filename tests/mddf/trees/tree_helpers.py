"""Shared helpers of the tests of mddf.trees: grow one tree with defaults, store it, route rows through it."""

import numpy as np

from mddf.forests import ForestBuilder
from mddf.trees import BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD, GrownTree, TreeSettings, grow_tree
from mddf.trees.nodes import class_bits, word_layout
from mddf.trees.packing import pack_grown_tree, single_tree
from mddf.trees.predictor import NO_MISSING, route_trees

#: The split rule of ``grow(random_split=...)``: False the best split, True completely random, 2 extremely randomised.
RULES = {False: BEST, True: COMPLETELY_RANDOM, 2: RANDOM_THRESHOLD}


def grow(
    Xb,
    y,
    w=None,
    n_classes=None,
    max_depth=-1,
    max_features=None,
    random_split=False,
    seed=0,
    n_bins=None,
    missing_bin=None,
    categorical=None,
    max_category_splits=32,
    min_category_count=1,
    criterion=None,
    monotone=None,
):
    """Grow one tree (Gini for integer ``y``, squared error for float ``y``, unless ``criterion`` names one);
    ``missing_bin`` None: no NaN; ``monotone`` a constraint per feature."""
    n, d = Xb.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    n_bins = np.full(d, 256, dtype=np.int64) if n_bins is None else n_bins
    missing_bin = None if missing_bin is None else np.asarray(missing_bin, dtype=np.int64)
    categorical = None if categorical is None else np.asarray(categorical, dtype=np.uint8)
    y = np.asarray(y)
    y = y.astype(np.float64) if y.dtype.kind == "f" else y.astype(np.int64)
    if n_classes is None:
        n_classes = int(y.max()) + 1 if y.dtype == np.int64 else 0
    max_features = d if max_features is None else max_features
    settings = TreeSettings(max_depth, max_features, RULES[random_split], max_category_splits, min_category_count)
    return grow_tree(Xb, y, w, n_bins, missing_bin, categorical, n_classes, settings, seed, criterion, monotone)


def forest_of(binner, n_classes, trees):
    """The stored forest of grown ``trees`` (``n_classes`` None: regression)."""
    builder = ForestBuilder(binner, n_classes)
    for tree in trees:
        builder.add(tree)
    return builder.finish()


def proba(tree, Xb, n_classes, missing_codes=None):
    """Each row's leaf output through the stored tree (class distribution, or ``(n, 1)`` means for n_classes 1)."""
    out = np.zeros((len(Xb), n_classes))
    missing_codes = NO_MISSING if missing_codes is None else np.asarray(missing_codes, np.int64)
    regression = tree.leaf_values.dtype == np.float64
    packed = packed_tree(tree, Xb.shape[1], None if regression else n_classes)
    route_trees(packed, 0, 1, np.ascontiguousarray(Xb), np.arange(len(Xb), dtype=np.int64), missing_codes, out)
    return out


def reference_route(tree, Xb, width, missing_codes=None):
    """The leaf output of each row, routed in Python on the grown tree's own arrays: the specification."""
    out = np.zeros((len(Xb), width))
    for r, row in enumerate(Xb):
        node = 0
        while tree.feature[node] >= 0:
            f = tree.feature[node]
            code = int(row[f])
            if len(tree.category) and tree.category[node] >= 0:
                bits = tree.category_bits[tree.category[node]]
                left = code < 256 and bool((int(bits[code >> 6]) >> (code & 63)) & 1)
            else:
                missing = missing_codes is not None and code == missing_codes[f]
                left = code <= tree.split_bin[node] or (missing and tree.missing_left[node] == 1)
            node = node + 1 if left else tree.right[node]
        leaf = tree.right[node]
        if leaf >= 0:
            out[r, leaf] += 1.0
        else:
            out[r] += tree.leaf_values[-leaf - 1]
    return out


def left_chain(n_internal, n_features):
    """A tree whose splits form a chain of left children: its first right children are far away."""
    n = 2 * n_internal + 1
    feature = np.full(n, -1, dtype=np.int32)
    feature[:n_internal] = np.arange(n_internal) % n_features
    right = np.zeros(n, dtype=np.int32)
    right[:n_internal] = 2 * n_internal - np.arange(n_internal)  # after the chain, the deepest first
    right[n_internal:] = -1 - np.arange(n - n_internal) % 2  # impure leaves (not folded): table rows 0 and 1
    return GrownTree(
        feature, np.full(n, 100, dtype=np.uint8), right, np.array([[0.75, 0.25], [0.25, 0.75]], dtype=np.float32),
        np.zeros(n, dtype=np.uint8), np.empty(0, dtype=np.int32), np.empty((0, 4), dtype=np.uint64),
        n_internal, np.zeros(n_features),
    )  # fmt: skip


def packed_tree(tree, n_features, n_classes):
    """One grown tree (:data:`mddf.trees.grower.GrownTree`) packed alone, as :func:`route_trees` reads it.

    ``n_classes`` is None for a regression tree.
    """
    dtype, feature_bits = word_layout(n_features)
    *packed, _ = pack_grown_tree(tree, dtype, feature_bits, n_features, n_classes or 0)
    return single_tree(*packed, tree.category_bits, tree.leaf_values, feature_bits, class_bits(n_classes))
