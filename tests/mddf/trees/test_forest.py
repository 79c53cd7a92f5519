"""Stored forests: compact node arrays that predict new float rows as their trees route bins."""

import pickle

import numpy as np
import pytest
from tree_helpers import grow, proba

from mddf._block import BinnedInput
from mddf.trees import BinnedForest, add_tree_proba

NO_MISSING = np.zeros(0, dtype=np.int64)


def test_stored_forest_predicts_new_raw_rows_as_its_trees_route_their_bins():
    rng = np.random.RandomState(11)
    X = np.column_stack([rng.standard_normal(2000), rng.randint(0, 5, 2000), rng.rand(2000)]).astype(np.float32)
    y = (X[:, 0] + X[:, 1] / 2 + rng.standard_normal(2000) > 1).astype(int) + (X[:, 2] > 0.7)
    binned = BinnedInput(X)
    X_new = np.column_stack([rng.standard_normal(500) * 2, rng.randint(-1, 7, 500), rng.rand(500)]).astype(np.float32)
    codes_new = binned.binner.transform(X_new)
    trees, expected = [], np.zeros((500, 3))
    for seed, random_split in enumerate([False, True, False, True]):
        tree = grow(
            binned.codes, y, n_bins=binned.n_bins, max_features=2, random_split=random_split, seed=seed, n_classes=3
        )
        add_tree_proba(*tree[:4], tree[5], codes_new, NO_MISSING, np.arange(500, dtype=np.int64), expected)
        trees.append(tree)
    forest = BinnedForest(binned.binner, 3, *map(list, zip(*trees)))
    assert forest.n_trees == 4 and forest.node_count == sum(len(t[0]) for t in trees)
    assert forest.predict_proba(X_new) == pytest.approx(expected / 4, abs=1e-12)
    assert forest.nbytes < 6 * forest.node_count + 16 * 5 + forest.impure_values.nbytes


def test_trees_of_more_than_65535_nodes_keep_32_bit_child_indices():
    rng = np.random.RandomState(12)
    X = rng.rand(40_000, 4).astype(np.float32)
    y = rng.randint(0, 50, 40_000)  # noise in 50 classes: a fully grown tree has nearly 2 x 40,000 nodes
    binned = BinnedInput(X)
    tree = grow(binned.codes, y, n_bins=binned.n_bins, max_features=2, random_split=True, n_classes=50)
    assert len(tree[0]) > 65_535
    forest = BinnedForest(binned.binner, 50, *map(list, zip(tree)))
    assert forest.right.dtype == np.int32
    assert np.array_equal(forest.predict_proba(X), proba(tree, binned.codes, 50))


def test_trees_compacted_one_at_a_time_give_the_arrays_of_the_whole_forest_compacted_at_once():
    # the reference: concatenate the grown trees, then mark impure leaves and narrow the dtypes
    from mddf.trees.forest import CompactTrees

    rng = np.random.RandomState(13)
    X = rng.rand(3000, 5).astype(np.float32)
    X[rng.rand(3000, 5) < 0.1] = np.nan
    y = rng.randint(0, 4, 3000)
    binned = BinnedInput(X)
    trees = [
        grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, max_depth=depth, seed=seed,
             random_split=seed % 2, max_features=2, n_classes=4)
        for seed, depth in enumerate([3, -1, 5, -1])
    ]  # fmt: skip
    gathered = CompactTrees(binned.binner, 4)
    for tree in trees:
        gathered.add(tree)
    forest = BinnedForest.from_trees(gathered)
    assert not gathered.features and not gathered.depths  # the per-tree arrays were let go
    feature = np.concatenate([t[0] for t in trees])
    right = np.concatenate([t[2] for t in trees]).astype(np.int64)
    impure = (feature < 0) & (right < 0)
    assert impure.any() and (feature < 0).sum() > impure.sum()  # both kinds of leaves
    right[impure] = -right[impure] - 1
    feature[impure] = -2
    assert forest.feature.dtype == np.int16 and np.array_equal(forest.feature, feature)
    assert forest.right.dtype == np.uint16 and np.array_equal(forest.right, right)
    assert np.array_equal(forest.split_bin, np.concatenate([t[1] for t in trees]))
    assert np.array_equal(forest.impure_values, np.concatenate([t[3] for t in trees]))
    bits = np.packbits(np.concatenate([t[5] for t in trees]).astype(bool), bitorder="little")
    assert np.array_equal(forest.missing_left_bits, bits)
    assert np.array_equal(forest.importances, np.sum([t[6] for t in trees], axis=0))
    assert np.array_equal(forest.offsets, np.cumsum([0] + [len(t[0]) for t in trees]))
    built = BinnedForest(binned.binner, 4, *map(list, zip(*trees)))
    assert all(np.array_equal(getattr(built, k), v) for k, v in vars(forest).items() if isinstance(v, np.ndarray))


@pytest.fixture(scope="module")
def small_forest():
    """A forest with missing values, impure leaves (depth 3) and both split kinds, and rows to predict."""
    rng = np.random.RandomState(14)
    X = rng.randint(0, 6, size=(800, 4)).astype(np.float32)
    X[rng.rand(800, 4) < 0.1] = np.nan
    y = rng.randint(0, 3, 800)
    binned = BinnedInput(X)
    trees = [
        grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, max_depth=depth, seed=seed,
             random_split=seed % 2, max_features=2, n_classes=3)
        for seed, depth in enumerate([3, -1, 3, -1])
    ]  # fmt: skip
    return BinnedForest(binned.binner, 3, *map(list, zip(*trees))), X


def damaged(forest, name, index, value):
    """A copy of ``forest`` whose array ``name`` holds ``value`` at ``index``."""
    copy = pickle.loads(pickle.dumps(forest))
    array = getattr(copy, name).copy()
    array[index] = value
    setattr(copy, name, array)
    return copy


def first(forest, condition):
    return int(np.flatnonzero(condition(forest))[0])


def test_valid_forest_passes_the_checks_and_pickles_to_the_same_predictions(small_forest):
    forest, X = small_forest
    forest.check_arrays()
    assert (forest.feature == -2).any() and (forest.feature == -1).any()  # precondition: both kinds of leaves
    assert np.array_equal(pickle.loads(pickle.dumps(forest)).predict_proba(X), forest.predict_proba(X))


@pytest.mark.parametrize(
    "name, where, value, problem",
    [
        ("right", lambda f: f.feature >= 0, 0, "right child"),  # back to the root: routing would loop
        ("right", lambda f: f.feature >= 0, 60_000, "right child"),  # past the tree's end
        ("feature", lambda f: f.feature >= 0, 4, "split feature"),
        ("feature", lambda f: f.feature < 0, -3, "leaf"),
        ("split_bin", lambda f: f.feature >= 0, 200, "split threshold"),
        ("right", lambda f: f.feature == -1, 3, "leaf"),  # class 3 of 3
        ("right", lambda f: f.feature == -2, 5_000, "leaf"),  # past the tree's distributions
        ("impure_values", lambda f: np.ones(len(f.impure_values), bool), np.nan, "impure_values"),
        ("impure_values", lambda f: np.ones(len(f.impure_values), bool), -0.5, "impure_values"),
        ("offsets", lambda f: np.arange(len(f.offsets)) == 2, 10**6, "offsets"),
        ("impure_offsets", lambda f: np.arange(len(f.impure_offsets)) == 1, 10**6, "impure_offsets"),
    ],
)
def test_arrays_that_could_misroute_a_row_raise_when_checked_and_unpickled(small_forest, name, where, value, problem):
    forest, _ = small_forest
    bad = damaged(forest, name, first(forest, where), value)
    with pytest.raises(ValueError, match=problem):
        bad.check_arrays()
    with pytest.raises(ValueError, match=problem):
        pickle.loads(pickle.dumps(bad))
