"""Routing rows through stored trees: left on ``code <= split_bin``, on the missing side, or on a category in the
split's set; leaves add their class or their row of the leaf table."""

import numpy as np
import pytest
from tree_helpers import grow, proba, reference_route

from mddf.trees.forest import packed_tree
from mddf.trees.grower import GrownTree
from mddf.trees.predictor import NO_MISSING, route_trees


def _hand_tree():
    # node 0 splits feature 1 at bin 3 (missing values left); node 1 is a pure leaf of class 2; node 2 splits
    # feature 0 on the category set {1, 4}; node 3 is row 0 of the leaf table, node 4 a pure leaf of class 0
    return GrownTree(
        feature=np.array([1, -1, 0, -1, -1], dtype=np.int32),
        split_bin=np.array([3, 0, 0, 0, 0], dtype=np.uint8),
        right=np.array([2, 2, 4, -1, 0], dtype=np.int32),
        leaf_values=np.array([[0.25, 0.5, 0.25]], dtype=np.float32),
        missing_left=np.array([1, 0, 0, 0, 0], dtype=np.uint8),
        category=np.array([-1, -1, 0, -1, -1], dtype=np.int32),
        category_bits=np.array([[(1 << 1) | (1 << 4), 0, 0, 0]], dtype=np.uint64),
        depth=2,
        importance=np.zeros(2),
    )


def test_rows_go_left_on_bins_missing_side_and_category_sets_and_leaves_add_their_output():
    tree = _hand_tree()
    codes = np.array([[9, 3], [4, 4], [2, 4], [1, 9], [0, 7]], dtype=np.uint8)  # feature 1: missing code 7
    missing = np.array([200, 7], dtype=np.int64)
    out = np.full((5, 3), 10.0)
    route_trees(packed_tree(tree, 2, 3), 0, 1, codes, np.arange(5, dtype=np.int64), missing, out)
    assert out.tolist() == [
        [10.0, 10.0, 11.0],  # bin 3 <= 3: left, class 2
        [10.25, 10.5, 10.25],  # bin 4 > 3: right; category 4 in {1, 4}: left, the table row
        [11.0, 10.0, 10.0],  # category 2 not in the set: class 0
        [10.25, 10.5, 10.25],
        [10.0, 10.0, 11.0],  # missing in feature 1: left
    ]
    assert np.array_equal(out - 10.0, reference_route(tree, codes, 3, missing))


def test_without_missing_codes_the_missing_code_is_an_ordinary_large_bin():
    tree = _hand_tree()
    codes = np.array([[0, 7]], dtype=np.uint8)
    out = np.zeros((1, 3))
    route_trees(packed_tree(tree, 2, 3), 0, 1, codes, np.zeros(1, dtype=np.int64), NO_MISSING, out)
    assert out.tolist() == [[1.0, 0.0, 0.0]]  # 7 > 3: right; category 0 not in the set: class 0


def test_only_the_rows_asked_for_are_routed_in_their_order():
    tree = _hand_tree()
    codes = np.array([[9, 3], [4, 4], [2, 4]], dtype=np.uint8)
    out = np.zeros((2, 3))
    route_trees(packed_tree(tree, 2, 3), 0, 1, codes, np.array([2, 0], dtype=np.int64), NO_MISSING, out)
    assert out.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


@pytest.mark.parametrize("random_split", [False, True, 2])
def test_grown_trees_route_every_row_as_the_reference_router(random_split):
    rng = np.random.RandomState(14)
    Xb = rng.randint(0, 20, size=(500, 4)).astype(np.uint8)
    Xb[rng.rand(500, 4) < 0.1] = 20  # the missing code of every feature
    y = rng.randint(0, 4, 500)
    categorical = np.array([0, 1, 0, 1])
    tree = grow(
        Xb, y, max_depth=8, max_features=2, random_split=random_split, missing_bin=np.full(4, 20),
        categorical=categorical,
    )  # fmt: skip
    assert (tree.category >= 0).any() and (tree.feature[tree.category < 0] >= 0).any()  # both kinds of split
    p = proba(tree, Xb, 4, missing_codes=np.full(4, 20))
    assert np.array_equal(p, reference_route(tree, Xb, 4, np.full(4, 20)))
    assert p.sum(axis=1) == pytest.approx(np.ones(500))
