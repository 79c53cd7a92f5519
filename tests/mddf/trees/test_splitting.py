"""Split search: the best Gini split, the completely-random and extremely-randomised splits, weights that round."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier
from tree_helpers import grow, proba

from mddf.trees import FeatureBinner


def _gini_score(Xb, y, w, f, b, n_classes):
    # sum over the two children of sum_c w_c^2 / w_child (higher = lower weighted Gini)
    score = 0.0
    for side in (Xb[:, f] <= b, Xb[:, f] > b):
        cw = np.bincount(y[side], weights=w[side], minlength=n_classes)
        if cw.sum() == 0:
            return -1.0
        score += (cw**2).sum() / cw.sum()
    return score


# ---------------------------------------------------------------- best split (random forest trees)
def test_root_split_is_the_best_gini_split_over_all_features_and_thresholds():
    rng = np.random.RandomState(2)
    Xb = rng.randint(0, 12, size=(150, 4)).astype(np.uint8)
    y = rng.randint(0, 3, 150)
    w = rng.randint(1, 4, 150).astype(np.float64)
    feature, split_bin, *_ = grow(Xb, y, w, max_depth=1)
    best = max(_gini_score(Xb, y, w, f, b, 3) for f in range(4) for b in range(12))
    assert _gini_score(Xb, y, w, int(feature[0]), int(split_bin[0]), 3) == pytest.approx(best)


@pytest.mark.parametrize("n_rows", [20, 3000])  # small nodes sort their rows, large ones use a histogram
def test_same_partition_as_scikit_learn_when_every_feature_is_searched(n_rows):
    rng = np.random.RandomState(3)
    X = rng.randint(0, 40, size=(n_rows, 5)).astype(np.float32)
    y = (X[:, 0] + 2 * X[:, 3] + rng.randint(0, 15, n_rows) > 70).astype(int)
    Xb = FeatureBinner().fit_transform(X)
    tree = grow(Xb, y, max_depth=3)
    ref = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    # leaf distributions are stored as float32
    assert proba(tree, Xb, 2) == pytest.approx(ref.predict_proba(X), abs=1e-7)


def test_constant_features_are_never_split_on():
    rng = np.random.RandomState(8)
    Xb = np.column_stack([np.full(300, 7), rng.randint(0, 30, 300), np.full(300, 3)]).astype(np.uint8)
    y = rng.randint(0, 2, 300)
    for random_split in (False, True):
        feature = grow(Xb, y, max_features=1, random_split=random_split)[0]
        assert set(feature[feature >= 0].tolist()) == {1}


def test_random_splits_are_random_and_seeded():
    rng = np.random.RandomState(9)
    Xb = rng.randint(0, 100, size=(300, 6)).astype(np.uint8)
    y = rng.randint(0, 2, 300)
    roots = {tuple(int(a[0]) for a in grow(Xb, y, max_features=1, random_split=True, seed=s)[:2]) for s in range(30)}
    assert len(roots) > 10  # (feature, bin) of the root varies with the seed
    first = grow(Xb, y, max_features=1, random_split=True, seed=3)
    again = grow(Xb, y, max_features=1, random_split=True, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(first[:4], again[:4]))


def test_random_split_threshold_lies_inside_the_nodes_range():
    # rows span bins 40..60 of feature 0: the split must leave rows on both sides
    rng = np.random.RandomState(10)
    Xb = rng.randint(40, 61, size=(200, 1)).astype(np.uint8)
    y = rng.randint(0, 2, 200)
    for seed in range(20):
        feature, split_bin, *_ = grow(Xb, y, max_depth=1, random_split=True, seed=seed)
        assert 40 <= split_bin[0] < 60


# ---------------------------------------------------------------- extremely-randomised split (ExtraTrees trees)
def test_extra_trees_split_is_random_seeded_and_inside_the_nodes_range():
    rng = np.random.RandomState(10)
    Xb = rng.randint(40, 61, size=(200, 3)).astype(np.uint8)
    y = rng.randint(0, 2, 200)
    roots = set()
    for seed in range(20):
        feature, split_bin, *_ = grow(Xb, y, max_depth=1, max_features=2, random_split=2, seed=seed)
        assert 40 <= split_bin[0] < 60
        roots.add((int(feature[0]), int(split_bin[0])))
    assert len(roots) > 5  # a random threshold, not the best one
    first = grow(Xb, y, max_features=2, random_split=2, seed=3)
    again = grow(Xb, y, max_features=2, random_split=2, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(first[:4], again[:4]))


def test_extra_trees_split_keeps_the_best_of_its_random_candidates():
    # feature 0 has two bins and decides the class: its only threshold is a perfect split, so a
    # node that draws it among its candidates takes it. With every feature a candidate the root
    # always splits on it; a completely-random root does only when it draws feature 0.
    rng = np.random.RandomState(4)
    y = rng.randint(0, 2, 400)
    Xb = np.column_stack([y, rng.randint(0, 50, size=(400, 4))]).astype(np.uint8)
    et_roots = [grow(Xb, y, max_depth=1, max_features=5, random_split=2, seed=s)[0][0] for s in range(30)]
    crf_roots = [grow(Xb, y, max_depth=1, random_split=True, seed=s)[0][0] for s in range(30)]
    assert set(et_roots) == {0}
    assert len(set(crf_roots)) > 1
    # the score of the chosen split is the Gini score of that threshold
    feature, split_bin, *_ = grow(Xb, y, max_depth=1, max_features=5, random_split=2, seed=0)
    assert _gini_score(Xb, y, np.ones(400), 0, int(split_bin[0]), 2) == pytest.approx(400.0)


def test_extra_trees_split_with_one_candidate_is_a_completely_random_split_on_a_random_feature():
    rng = np.random.RandomState(12)
    Xb = rng.randint(0, 30, size=(300, 4)).astype(np.uint8)
    y = rng.randint(0, 3, 300)
    tree = grow(Xb, y, max_features=1, random_split=2, seed=5)
    assert proba(tree, Xb, 3).argmax(axis=1).tolist() == y.tolist()  # fully grown: every row in a leaf of its class
    assert len(set(tree[0][tree[0] >= 0].tolist())) == 4


# ---------------------------------------------------------------- weights that round
def test_rows_of_negligible_weight_do_not_break_the_split_search():
    # D_t can put 1e-30 on some rows next to 1 on others: then the weight right of the
    # last threshold rounds to zero, which must not be divided by
    x = np.arange(100, dtype=np.uint8)[:, None]
    y = np.random.RandomState(13).randint(0, 2, 100)
    w = np.where(x[:, 0] < 50, 1.0, 1e-30)
    tree = grow(x, y, w)
    assert np.isfinite(tree.leaf_values).all()
    assert np.array_equal(proba(tree, x, 2).argmax(axis=1)[:50], y[:50])


def _leaf_of(tree, row):
    feature, split_bin, right = tree[:3]
    node = 0
    while feature[node] >= 0:
        node = node + 1 if row[feature[node]] <= split_bin[node] else right[node]
    return node


@pytest.mark.parametrize("seed", range(5))
def test_every_leaf_holds_training_rows_whatever_the_weights_spread(seed):
    # weights spanning 10 orders of magnitude (as D_t does after a few layers) make the
    # weight left of a threshold round to the node's total before the last row is left of
    # it; a split must still leave rows, not just rounding residue, on both sides
    rng = np.random.RandomState(seed)
    Xb = rng.randint(0, 6, size=(3000, 3)).astype(np.uint8)
    y = rng.randint(0, 3, 3000)
    w = np.exp(rng.uniform(np.log(1e-9), np.log(50), 3000)) * rng.randint(0, 3, 3000)
    tree = grow(Xb, y, w, n_bins=np.full(3, 6, dtype=np.int64), max_features=1, seed=seed)
    leaves = set(np.flatnonzero(tree[0] < 0).tolist())
    reached = {_leaf_of(tree, row) for row in Xb[w > 0]}
    assert reached == leaves
