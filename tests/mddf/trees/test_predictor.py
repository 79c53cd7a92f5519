"""Routing rows through one grown tree: left on ``bin <= split_bin``, leaves add their class distributions."""

import numpy as np
import pytest
from tree_helpers import grow, proba

from mddf.trees import add_tree_proba


def test_rows_are_routed_by_their_bins_and_leaves_add_their_distributions():
    # node 0 splits feature 1 at bin 3: left is node 1 (pure leaf, class 2), right is
    # node 2 (impure leaf, row 0 of impure_values)
    feature = np.array([1, -1, -1], dtype=np.int32)
    split_bin = np.array([3, 0, 0], dtype=np.uint8)
    right = np.array([2, 2, -1], dtype=np.int32)
    impure_values = np.array([[0.25, 0.5, 0.25]], dtype=np.float32)
    Xb = np.array([[9, 3], [0, 4], [0, 0], [255, 255]], dtype=np.uint8)
    out = np.full((3, 3), 10.0)
    missing_left, no_missing = np.zeros(3, dtype=np.uint8), np.zeros(0, dtype=np.int64)
    add_tree_proba(
        feature, split_bin, right, impure_values, missing_left, Xb, no_missing, np.array([3, 0, 1], dtype=np.int64), out
    )
    assert out.tolist() == [[10.25, 10.5, 10.25], [10.0, 10.0, 11.0], [10.25, 10.5, 10.25]]


def test_grown_trees_give_each_row_a_class_distribution():
    rng = np.random.RandomState(14)
    Xb = rng.randint(0, 20, size=(500, 3)).astype(np.uint8)
    y = rng.randint(0, 4, 500)
    for random_split in (False, True):
        tree = grow(Xb, y, max_depth=3, max_features=1, random_split=random_split)
        p = proba(tree, Xb, 4)
        assert p.sum(axis=1) == pytest.approx(np.ones(500))
        assert (p >= 0).all()
