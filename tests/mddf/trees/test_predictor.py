"""Routing rows through stored trees: left on ``code <= split_bin``, on the missing side, or on a category in the
split's set; leaves add their class or their row of the leaf table."""

import numpy as np
import pytest
from tree_helpers import forest_of, grow, left_chain, packed_tree, proba, reference_route

from mddf.trees import FeatureBinner
from mddf.trees.grower import GrownTree
from mddf.trees.predictor import NO_MISSING, expand_tree, route_blocks, route_lanes, route_scalar, route_trees


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
    # feature 1: missing code 7, above its other codes (as the binner's missing bin always is)
    codes = np.array([[9, 3], [4, 4], [2, 4], [1, 6], [0, 7]], dtype=np.uint8)
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


def _forest_routes(forest, codes, missing_codes):
    """Each tree of ``forest`` routed both ways: the expanded lanes and the row-by-row loop on the words."""
    packed, rows = forest.packed, np.arange(len(codes), dtype=np.int64)
    lanes, scalar = np.zeros((len(codes), forest._width)), np.zeros((len(codes), forest._width))
    records = np.empty((int(np.diff(forest.offsets).max()), 4), dtype=np.int32)
    for t in range(forest.n_trees):
        expand_tree(packed, t, missing_codes, records)
        route_lanes(packed, t, records, codes, rows, lanes)
        route_scalar(packed, t, codes, rows, missing_codes, scalar)
    return lanes, scalar


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("n_rows", [1, 7, 8, 9, 300])
def test_rows_advanced_in_lanes_reach_the_leaves_of_the_row_by_row_loop(regression, n_rows):
    # features with NaN (missing values sent left at some splits and right at others), far right children
    # (side-table rows), folded pure leaves and table leaves; every row count around the eight lanes
    rng = np.random.RandomState(3)
    X = rng.normal(size=(600, 5)).astype(np.float32)
    X[rng.rand(600, 5) < 0.15] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=600) > 0).astype(np.int64)
    binner = FeatureBinner().fit(X)
    codes = binner.transform(X)
    missing = binner.missing_bins_
    target = np.nan_to_num(X[:, 1]) + y if regression else y
    trees = [
        grow(codes, target, max_features=2, random_split=split, seed=seed, missing_bin=missing)
        for seed, split in enumerate([False, True, 2, False])
    ]
    forest = forest_of(binner, None if regression else 2, trees)
    X_new = rng.normal(size=(n_rows, 5)).astype(np.float32)
    X_new[rng.rand(n_rows, 5) < 0.2] = np.nan
    new_codes = binner.transform(X_new)
    lanes, scalar = _forest_routes(forest, new_codes, missing)
    assert np.array_equal(lanes, scalar)
    assert np.array_equal(lanes, sum(reference_route(tree, new_codes, lanes.shape[1], missing) for tree in trees))
    # without missing codes, the missing code is an ordinary large bin for both
    lanes, scalar = _forest_routes(forest, new_codes, NO_MISSING)
    assert np.array_equal(lanes, scalar)


def test_a_one_leaf_tree_and_a_stump_route_in_lanes():
    codes = np.array([[0], [5], [9]], dtype=np.uint8)
    stump = grow(codes, np.array([0, 1, 1]), max_depth=1)
    leaf = grow(codes, np.array([1, 1, 1]))
    assert len(leaf.feature) == 1 and len(stump.feature) == 3
    forest = forest_of(FeatureBinner().fit(codes.astype(np.float32)), 2, [leaf, stump])
    lanes, scalar = _forest_routes(forest, codes, NO_MISSING)
    assert lanes.tolist() == scalar.tolist() == [[1.0, 1.0], [0.0, 2.0], [0.0, 2.0]]


def test_route_trees_gives_the_same_bits_for_any_number_of_rows_and_trees_with_category_splits():
    # route_trees sends a tree to the lanes only when it routes enough rows; the sums stay the same either way
    rng = np.random.RandomState(8)
    codes = rng.randint(0, 12, size=(400, 3)).astype(np.uint8)
    y = (codes[:, 0] % 3 == 0).astype(np.int64) ^ (codes[:, 1] > 6)
    binner = FeatureBinner().fit(codes.astype(np.float32))
    trees = [grow(codes, y, seed=0), grow(codes, y, seed=1, categorical=np.array([1, 0, 0]))]
    assert (trees[1].category >= 0).any() and not (trees[0].category >= 0).any()
    forest = forest_of(binner, 2, trees)
    for n in (1, 3, 400):
        rows = np.arange(n, dtype=np.int64)
        got = np.zeros((n, 2))
        route_trees(forest.packed, 0, 2, codes, rows, NO_MISSING, got)
        expected = sum(reference_route(tree, codes[:n], 2) for tree in trees)
        assert np.array_equal(got, expected)


@pytest.mark.parametrize("n_splits, dtype", [(1500, np.uint32), (5000, np.uint64)])
def test_far_right_children_route_in_lanes_as_on_the_words(n_splits, dtype):
    # 1,500 splits: the far right children take side-table rows of 32-bit words; 5,000: 64-bit words
    d = 256
    binner = FeatureBinner().fit(np.random.RandomState(0).rand(5, d).astype(np.float32))
    tree = left_chain(n_splits, d)
    forest = forest_of(binner, 2, [tree])
    assert forest.words.dtype == dtype and (len(forest.side_offset) > 0) == (dtype == np.uint32)
    codes = np.random.RandomState(1).randint(90, 110, size=(300, d)).astype(np.uint8)
    lanes, scalar = _forest_routes(forest, codes, NO_MISSING)
    assert np.array_equal(lanes, scalar)
    assert np.array_equal(lanes, reference_route(tree, codes, 2))


@pytest.mark.parametrize("random_split", [False, True])
def test_category_splits_route_in_lanes_as_on_the_words(random_split):
    # category and threshold splits mixed, missing values in both kinds of feature; the root may be either
    rng = np.random.RandomState(21)
    codes = rng.randint(0, 12, size=(700, 4)).astype(np.uint8)
    codes[rng.rand(700, 4) < 0.1] = 12  # the missing code of every feature
    y = ((codes[:, 0] % 3 == 0) ^ (codes[:, 1] > 6) ^ (codes[:, 2] % 2 == 1)).astype(np.int64)
    missing = np.full(4, 12)
    binner = FeatureBinner().fit(np.where(codes == 12, np.nan, codes).astype(np.float32))
    assert np.array_equal(binner.missing_bins_, missing)
    trees = [
        grow(codes, y, seed=s, random_split=random_split, missing_bin=missing, categorical=np.array([1, 0, 1, 0]))
        for s in range(4)
    ]
    assert all((tree.category >= 0).any() for tree in trees)
    forest = forest_of(binner, 2, trees)
    for n in (1, 9, 700):
        lanes, scalar = _forest_routes(forest, codes[:n], missing)
        assert np.array_equal(lanes, scalar)
        assert np.array_equal(lanes, sum(reference_route(tree, codes[:n], 2, missing) for tree in trees))


def test_category_codes_in_every_word_of_the_bitset_route_in_lanes_as_on_the_words():
    # 250 categories fill the four 64-bit words of a split's set; a threshold feature beside them
    rng = np.random.RandomState(5)
    codes = np.column_stack([rng.randint(0, 250, size=3000), rng.randint(0, 30, size=3000)]).astype(np.uint8)
    y = ((codes[:, 0] % 7 < 3) ^ (codes[:, 1] > 20)).astype(np.int64)
    binner = FeatureBinner().fit(codes.astype(np.float32))
    trees = [grow(codes, y, seed=s, random_split=s % 2 == 1, categorical=np.array([1, 0])) for s in range(4)]
    used = np.concatenate([tree.category_bits[tree.category[tree.category >= 0]] for tree in trees])
    assert all(used[:, word].any() for word in range(4))  # every word of the sets holds some category
    forest = forest_of(binner, 2, trees)
    lanes, scalar = _forest_routes(forest, codes, NO_MISSING)
    assert np.array_equal(lanes, scalar)
    assert np.array_equal(lanes, sum(reference_route(tree, codes, 2) for tree in trees))


@pytest.mark.parametrize("block", [1, 7, 64, 10_000])
@pytest.mark.parametrize("group", [0, 300, 1 << 30])
def test_rows_in_blocks_and_trees_in_groups_give_the_same_bits_as_one_tree_at_a_time(block, group):
    # route_trees takes a wide input's rows in blocks through groups of trees expanded together; each row
    # must still add its leaves in tree order, whatever the blocks and groups (threshold and category
    # splits, missing values, lanes and the row-by-row loop)
    rng = np.random.RandomState(5)
    codes = rng.randint(0, 12, size=(500, 4)).astype(np.uint8)
    codes[rng.rand(500, 4) < 0.1] = 12
    y = ((codes[:, 0] % 3 == 0) ^ (codes[:, 1] > 6)).astype(np.int64)
    missing = np.full(4, 12)
    binner = FeatureBinner().fit(np.where(codes == 12, np.nan, codes).astype(np.float32))
    trees = [
        grow(codes, y, seed=s, missing_bin=missing, categorical=np.array([1, 0, 0, 0]) if s % 2 else None)
        for s in range(6)
    ]
    forest = forest_of(binner, 2, trees)
    rows = rng.permutation(500)[:450].astype(np.int64)
    expected = np.zeros((len(rows), 2))
    for t in range(forest.n_trees):  # one tree at a time, every row
        route_trees(forest.packed, t, t + 1, codes, rows, missing, expected)
    got = np.zeros((len(rows), 2))
    route_blocks(forest.packed, 0, forest.n_trees, codes, rows, missing, got, block, group)
    assert np.array_equal(got, expected)
    assert np.array_equal(expected, sum(reference_route(tree, codes[rows], 2, missing) for tree in trees))


def test_routing_no_tree_adds_nothing():
    codes = np.array([[0], [5], [9]], dtype=np.uint8)
    forest = forest_of(FeatureBinner().fit(codes.astype(np.float32)), 2, [grow(codes, np.array([0, 1, 1]))])
    out = np.full((3, 2), 7.0)
    route_trees(forest.packed, 1, 1, codes, np.arange(3, dtype=np.int64), NO_MISSING, out)
    route_blocks(forest.packed, 0, 0, codes, np.arange(3, dtype=np.int64), NO_MISSING, out, 1, 0)
    assert out.tolist() == [[7.0, 7.0]] * 3
