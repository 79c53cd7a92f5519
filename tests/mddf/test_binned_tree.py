"""Trees grown on binned features: the binning, the split rules, and exact export to float thresholds."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from mddf.binned_forest import BinnedForest
from mddf.binned_tree import FeatureBinner, add_tree_proba, grow_tree
from mddf.block import BinnedInput


def _grow(Xb, y, w=None, n_classes=None, max_depth=-1, max_features=None, random_split=False, seed=0, n_bins=None):
    n, d = Xb.shape
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    n_bins = np.full(d, 256, dtype=np.int64) if n_bins is None else n_bins
    n_classes = int(y.max()) + 1 if n_classes is None else n_classes
    max_features = d if max_features is None else max_features
    return grow_tree(Xb, y.astype(np.int64), w, n_bins, n_classes, max_depth, max_features, random_split, seed)


def _proba(tree, Xb, n_classes):
    out = np.zeros((len(Xb), n_classes))
    add_tree_proba(tree[0], tree[1], tree[2], tree[3], Xb, np.arange(len(Xb), dtype=np.int64), out)
    return out


def _gini_score(Xb, y, w, f, b, n_classes):
    # sum over the two children of sum_c w_c^2 / w_child (higher = lower weighted Gini)
    score = 0.0
    for side in (Xb[:, f] <= b, Xb[:, f] > b):
        cw = np.bincount(y[side], weights=w[side], minlength=n_classes)
        if cw.sum() == 0:
            return -1.0
        score += (cw**2).sum() / cw.sum()
    return score


# ---------------------------------------------------------------- binning
def test_few_distinct_values_get_one_bin_each_and_unseen_values_go_to_the_nearer_side():
    X = np.array([[0.0], [1.0], [1.0], [5.0], [2.0]], dtype=np.float32)
    binner = FeatureBinner().fit(X)
    assert binner.transform(X).ravel().tolist() == [0, 1, 1, 3, 2]
    # thresholds are midpoints, as scikit-learn's are
    assert binner.edges_[0].tolist() == [0.5, 1.5, 3.5]
    assert binner.transform(np.array([[0.4], [0.6], [3.4], [3.6], [99.0]], dtype=np.float32)).ravel().tolist() == [
        0,
        1,
        2,
        3,
        3,
    ]


def test_many_distinct_values_get_equal_frequency_bins():
    x = np.random.RandomState(0).standard_normal((10_000, 1)).astype(np.float32)
    codes = FeatureBinner().fit_transform(x).ravel()
    counts = np.bincount(codes)
    assert len(counts) == 256
    assert counts.min() > 0.8 * len(x) / 256 and counts.max() < 1.2 * len(x) / 256


def test_bin_split_and_float_threshold_route_every_value_alike():
    rng = np.random.RandomState(1)
    X = np.column_stack([rng.standard_normal(3000), rng.randint(0, 7, 3000), rng.exponential(size=3000)])
    X = X.astype(np.float32)
    binner = FeatureBinner().fit(X)
    fresh = np.vstack([X, rng.standard_normal((500, 3)).astype(np.float32) * 3])
    codes = binner.transform(fresh)
    for j, edges in enumerate(binner.edges_):
        for b in range(len(edges)):
            assert np.array_equal(codes[:, j] <= b, fresh[:, j] <= edges[b])


def test_adjacent_float32_values_stay_in_different_bins():
    lo = np.float32(1.0)
    hi = np.nextafter(lo, np.float32(2))
    X = np.array([[lo], [hi], [lo], [hi]], dtype=np.float32)
    binner = FeatureBinner().fit(X)
    assert binner.transform(X).ravel().tolist() == [0, 1, 0, 1]


def test_max_bins_is_bounded():
    with pytest.raises(ValueError, match="max_bins"):
        FeatureBinner(max_bins=300)


# ---------------------------------------------------------------- best split (random forest trees)
def test_root_split_is_the_best_gini_split_over_all_features_and_thresholds():
    rng = np.random.RandomState(2)
    Xb = rng.randint(0, 12, size=(150, 4)).astype(np.uint8)
    y = rng.randint(0, 3, 150)
    w = rng.randint(1, 4, 150).astype(np.float64)
    feature, split_bin, *_ = _grow(Xb, y, w, max_depth=1)
    best = max(_gini_score(Xb, y, w, f, b, 3) for f in range(4) for b in range(12))
    assert _gini_score(Xb, y, w, int(feature[0]), int(split_bin[0]), 3) == pytest.approx(best)


@pytest.mark.parametrize("n_rows", [20, 3000])  # small nodes sort their rows, large ones use a histogram
def test_same_partition_as_scikit_learn_when_every_feature_is_searched(n_rows):
    rng = np.random.RandomState(3)
    X = rng.randint(0, 40, size=(n_rows, 5)).astype(np.float32)
    y = (X[:, 0] + 2 * X[:, 3] + rng.randint(0, 15, n_rows) > 70).astype(int)
    Xb = FeatureBinner().fit_transform(X)
    tree = _grow(Xb, y, max_depth=3)
    ref = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    # leaf distributions are stored as float32
    assert _proba(tree, Xb, 2) == pytest.approx(ref.predict_proba(X), abs=1e-7)


def test_fully_grown_trees_fit_distinct_rows_exactly():
    rng = np.random.RandomState(4)
    X = rng.rand(400, 3).astype(np.float32)
    y = rng.randint(0, 4, 400)
    Xb = BinnedInput(X).codes
    assert len(np.unique(Xb, axis=0)) == 400  # distinct after binning too
    for random_split in (False, True):
        tree = _grow(Xb, y, max_features=1, random_split=random_split)
        assert np.array_equal(_proba(tree, Xb, 4).argmax(axis=1), y)


def test_depth_limit_and_leaf_distributions():
    rng = np.random.RandomState(5)
    Xb = rng.randint(0, 50, size=(300, 4)).astype(np.uint8)
    y = rng.randint(0, 3, 300)
    feature, split_bin, right, impure, depth = tree = _grow(Xb, y, max_depth=2)
    assert depth == 2
    assert (feature >= 0).sum() == 3  # a full tree of depth 2
    proba = _proba(tree, Xb, 3)
    assert proba.sum(axis=1) == pytest.approx(np.ones(300))
    assert np.all(impure.sum(axis=1) == pytest.approx(1.0))


def test_zero_weight_rows_are_left_out_and_integer_weights_count_as_copies():
    rng = np.random.RandomState(6)
    Xb = rng.randint(0, 30, size=(200, 5)).astype(np.uint8)
    y = rng.randint(0, 3, 200)
    w = rng.randint(0, 3, 200).astype(np.float64)  # bootstrap-like counts
    weighted = _grow(Xb, y, w, max_features=2, seed=7)
    copies = np.repeat(np.arange(200), w.astype(int))
    copied = _grow(Xb[copies], y[copies], max_features=2, seed=7, n_classes=3)
    for a, b in zip(weighted[:4], copied[:4]):
        assert np.array_equal(a, b)


def test_constant_features_are_never_split_on():
    rng = np.random.RandomState(8)
    Xb = np.column_stack([np.full(300, 7), rng.randint(0, 30, 300), np.full(300, 3)]).astype(np.uint8)
    y = rng.randint(0, 2, 300)
    for random_split in (False, True):
        feature = _grow(Xb, y, max_features=1, random_split=random_split)[0]
        assert set(feature[feature >= 0].tolist()) == {1}


def test_random_splits_are_random_and_seeded():
    rng = np.random.RandomState(9)
    Xb = rng.randint(0, 100, size=(300, 6)).astype(np.uint8)
    y = rng.randint(0, 2, 300)
    roots = {tuple(int(a[0]) for a in _grow(Xb, y, max_features=1, random_split=True, seed=s)[:2]) for s in range(30)}
    assert len(roots) > 10  # (feature, bin) of the root varies with the seed
    first = _grow(Xb, y, max_features=1, random_split=True, seed=3)
    again = _grow(Xb, y, max_features=1, random_split=True, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(first[:4], again[:4]))


def test_random_split_threshold_lies_inside_the_nodes_range():
    # rows span bins 40..60 of feature 0: the split must leave rows on both sides
    rng = np.random.RandomState(10)
    Xb = rng.randint(40, 61, size=(200, 1)).astype(np.uint8)
    y = rng.randint(0, 2, 200)
    for seed in range(20):
        feature, split_bin, *_ = _grow(Xb, y, max_depth=1, random_split=True, seed=seed)
        assert 40 <= split_bin[0] < 60


# ---------------------------------------------------------------- stored forests
def test_stored_forest_predicts_new_raw_rows_as_its_trees_route_their_bins():
    rng = np.random.RandomState(11)
    X = np.column_stack([rng.standard_normal(2000), rng.randint(0, 5, 2000), rng.rand(2000)]).astype(np.float32)
    y = (X[:, 0] + X[:, 1] / 2 + rng.standard_normal(2000) > 1).astype(int) + (X[:, 2] > 0.7)
    binned = BinnedInput(X)
    X_new = np.column_stack([rng.standard_normal(500) * 2, rng.randint(-1, 7, 500), rng.rand(500)]).astype(np.float32)
    codes_new = binned.binner.transform(X_new)
    trees, expected = [], np.zeros((500, 3))
    for seed, random_split in enumerate([False, True, False, True]):
        tree = _grow(
            binned.codes, y, n_bins=binned.n_bins, max_features=2, random_split=random_split, seed=seed, n_classes=3
        )
        add_tree_proba(*tree[:4], codes_new, np.arange(500, dtype=np.int64), expected)
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
    tree = _grow(binned.codes, y, n_bins=binned.n_bins, max_features=2, random_split=True, n_classes=50)
    assert len(tree[0]) > 65_535
    forest = BinnedForest(binned.binner, 50, *map(list, zip(tree)))
    assert forest.right.dtype == np.int32
    assert np.array_equal(forest.predict_proba(X), _proba(tree, binned.codes, 50))


def test_rows_of_negligible_weight_do_not_break_the_split_search():
    # D_t can put 1e-30 on some rows next to 1 on others: then the weight right of the
    # last threshold rounds to zero, which must not be divided by
    x = np.arange(100, dtype=np.uint8)[:, None]
    y = np.random.RandomState(13).randint(0, 2, 100)
    w = np.where(x[:, 0] < 50, 1.0, 1e-30)
    feature, split_bin, right, impure, depth = tree = _grow(x, y, w)
    assert np.isfinite(impure).all()
    assert np.array_equal(_proba(tree, x, 2).argmax(axis=1)[:50], y[:50])


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
    tree = _grow(Xb, y, w, n_bins=np.full(3, 6, dtype=np.int64), max_features=1, seed=seed)
    leaves = set(np.flatnonzero(tree[0] < 0).tolist())
    reached = {_leaf_of(tree, row) for row in Xb[w > 0]}
    assert reached == leaves
