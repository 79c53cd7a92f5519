"""Shared helpers of the tests of mddf.trees: grow one tree with defaults, predict with it."""

import numpy as np

from mddf.trees import add_tree_proba, grow_tree


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
):
    """Grow one tree; ``missing_bin`` (per feature, -1: none) defaults to None, no missing values."""
    n, d = Xb.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    n_bins = np.full(d, 256, dtype=np.int64) if n_bins is None else n_bins
    missing_bin = None if missing_bin is None else np.asarray(missing_bin, dtype=np.int64)
    n_classes = int(y.max()) + 1 if n_classes is None else n_classes
    max_features = d if max_features is None else max_features
    return grow_tree(
        Xb, y.astype(np.int64), w, n_bins, missing_bin, n_classes, max_depth, max_features, random_split, seed
    )


def proba(tree, Xb, n_classes, missing_codes=None):
    """Each row's class distribution; ``missing_codes``: code of NaN per feature, None when Xb has none."""
    out = np.zeros((len(Xb), n_classes))
    missing_codes = np.zeros(0, dtype=np.int64) if missing_codes is None else np.asarray(missing_codes, np.int64)
    add_tree_proba(
        tree[0], tree[1], tree[2], tree[3], tree[5], Xb, missing_codes, np.arange(len(Xb), dtype=np.int64), out
    )
    return out
