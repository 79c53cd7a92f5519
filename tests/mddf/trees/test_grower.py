"""Growing one tree: fully grown and depth-limited trees, leaves, and row weights."""

import numpy as np
import pytest
from tree_helpers import grow, proba

from mddf._block import BinnedInput


def test_fully_grown_trees_fit_distinct_rows_exactly():
    rng = np.random.RandomState(4)
    X = rng.rand(400, 3).astype(np.float32)
    y = rng.randint(0, 4, 400)
    Xb = BinnedInput(X).codes
    assert len(np.unique(Xb, axis=0)) == 400  # distinct after binning too
    for random_split in (False, True):
        tree = grow(Xb, y, max_features=1, random_split=random_split)
        assert np.array_equal(proba(tree, Xb, 4).argmax(axis=1), y)


def test_depth_limit_and_leaf_distributions():
    rng = np.random.RandomState(5)
    Xb = rng.randint(0, 50, size=(300, 4)).astype(np.uint8)
    y = rng.randint(0, 3, 300)
    feature, split_bin, right, impure, depth, *_ = tree = grow(Xb, y, max_depth=2)
    assert depth == 2
    assert (feature >= 0).sum() == 3  # a full tree of depth 2
    distributions = proba(tree, Xb, 3)
    assert distributions.sum(axis=1) == pytest.approx(np.ones(300))
    assert np.all(impure.sum(axis=1) == pytest.approx(1.0))


def test_zero_weight_rows_are_left_out_and_integer_weights_count_as_copies():
    rng = np.random.RandomState(6)
    Xb = rng.randint(0, 30, size=(200, 5)).astype(np.uint8)
    y = rng.randint(0, 3, 200)
    w = rng.randint(0, 3, 200).astype(np.float64)  # bootstrap-like counts
    weighted = grow(Xb, y, w, max_features=2, seed=7)
    copies = np.repeat(np.arange(200), w.astype(int))
    copied = grow(Xb[copies], y[copies], max_features=2, seed=7, n_classes=3)
    for a, b in zip(weighted[:4], copied[:4]):
        assert np.array_equal(a, b)
