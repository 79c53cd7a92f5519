"""Stored forests: compact node arrays that predict new float rows as their trees route bins."""

import numpy as np
import pytest
from tree_helpers import grow, proba

from mddf.block import BinnedInput
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
