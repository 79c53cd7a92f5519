"""Regression trees on bins: scikit-learn's DecisionTreeRegressor where binning is lossless, random splits,
weights, missing values and the stored forest."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor
from tree_helpers import forest_of, proba
from tree_helpers import grow as grow_tree

from mddf.forests import BinnedInput
from mddf.trees import FeatureBinner

NO_MISSING = np.zeros(0, dtype=np.int64)


def grow(Xb, y, w=None, max_depth=-1, max_features=None, random_split=False, seed=0, missing_bin=None):
    """A regression tree (squared error): random thresholds of every candidate feature with ``random_split``,
    the completely-random tree with ``max_features=1``."""
    rule = 2 if random_split and max_features not in (None, 1) else bool(random_split)
    if random_split and max_features is None:
        rule = 2
    y = np.asarray(y, dtype=np.float64)
    return grow_tree(Xb, y, w, max_depth=max_depth, max_features=max_features, random_split=rule, seed=seed,
                     missing_bin=missing_bin)  # fmt: skip


def predict(tree, Xb, missing_codes=None):
    return proba(tree, Xb, 1, missing_codes)[:, 0]


def _few_values(n, d=5, seed=0, n_values=60):
    # every feature has < 256 distinct values: binning is lossless, bins are scikit-learn's thresholds
    rng = np.random.RandomState(seed)
    X = rng.randint(0, n_values, size=(n, d)).astype(np.float32)
    y = 0.3 * X[:, 0] + np.sin(X[:, 1]) + X[:, 2] * (X[:, 3] > 30) / 10 + rng.standard_normal(n)
    return X, y


# ---------------------------------------------------------------- reference: scikit-learn's DecisionTreeRegressor
@pytest.mark.parametrize("n_rows", [20, 3000])  # small nodes sort their rows, large ones use a histogram
@pytest.mark.parametrize("weighted", [False, True])
def test_fully_grown_tree_predicts_the_training_rows_as_scikit_learn_does(n_rows, weighted):
    X, y = _few_values(n_rows, seed=n_rows)
    w = np.random.RandomState(1).randint(1, 4, n_rows).astype(np.float64) if weighted else np.ones(n_rows)
    Xb = FeatureBinner().fit_transform(X)
    tree = grow(Xb, y, w)
    ref = DecisionTreeRegressor(random_state=0).fit(X, y, sample_weight=w)
    assert len(tree[0]) == ref.tree_.node_count and tree.depth == ref.get_depth()
    assert np.array_equal(predict(tree, Xb), ref.predict(X))


@pytest.mark.parametrize("with_nan", [False, True])
def test_depth_limited_tree_predicts_new_rows_as_scikit_learn_does(with_nan):
    # near the root the best split has no tie, so the two trees are the same tree: they predict any new
    # row alike, missing values (and values outside the training range) included
    rng = np.random.RandomState(2)
    X, y = _few_values(3000, d=4, seed=3)
    if with_nan:
        X[rng.rand(*X.shape) < 0.15] = np.nan
        y[np.isnan(X[:, 0])] += 3  # missing values carry information
    binned = BinnedInput(X)
    tree = grow(binned.codes, y, max_depth=4, missing_bin=binned.missing_bin)
    ref = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    X_new = rng.randint(-5, 66, size=(1000, 4)).astype(np.float32)
    X_new[rng.rand(*X_new.shape) < 0.2] = np.nan  # also in features without NaN in training
    codes = binned.binner.transform(X_new)
    assert predict(tree, codes, binned.binner.missing_bins_) == pytest.approx(ref.predict(X_new), abs=1e-12)
    assert predict(tree, binned.codes, binned.binner.missing_bins_) == pytest.approx(ref.predict(X), abs=1e-12)
    # the variance decrease per feature is scikit-learn's unnormalised impurity importance
    assert tree.importance == pytest.approx(ref.tree_.compute_feature_importances(normalize=False), rel=1e-9)


def test_fully_grown_tree_with_missing_values_fits_the_training_rows_as_scikit_learn_does():
    rng = np.random.RandomState(4)
    X, y = _few_values(2000, d=4, seed=5)
    X[rng.rand(*X.shape) < 0.1] = np.nan
    binned = BinnedInput(X)
    tree = grow(binned.codes, y, missing_bin=binned.missing_bin)
    ref = DecisionTreeRegressor(random_state=0).fit(X, y)
    assert np.array_equal(predict(tree, binned.codes, binned.binner.missing_bins_), ref.predict(X))


# ---------------------------------------------------------------- the criterion
def _score(y, w, left):
    return sum(np.sum(w[s] * y[s]) ** 2 / np.sum(w[s]) for s in (left, ~left))


def test_root_split_is_the_best_squared_error_split_over_every_feature_threshold_and_missing_side():
    rng = np.random.RandomState(6)
    Xb = rng.randint(0, 12, size=(200, 4)).astype(np.uint8)
    Xb[rng.rand(200, 4) < 0.2] = 12  # the missing bin of every feature
    y = rng.standard_normal(200) + (Xb[:, 1] == 12) * 2
    w = rng.randint(1, 4, 200).astype(np.float64)
    feature, split_bin, _, _, missing_left, *_ = grow(Xb, y, w, max_depth=1, missing_bin=np.full(4, 12))
    candidates = []
    for f in range(4):
        missing = Xb[:, f] == 12
        for b in range(12):
            real_left = Xb[:, f] <= b
            for left in (real_left & ~missing, real_left | missing):  # missing rows right, left
                if 0 < left.sum() < 200:
                    candidates.append(_score(y, w, left))
    f, b = int(feature[0]), int(split_bin[0])
    left = (Xb[:, f] <= b) & (Xb[:, f] != 12) | ((Xb[:, f] == 12) & bool(missing_left[0]))
    assert _score(y, w, left) == pytest.approx(max(candidates), rel=1e-12)


def test_leaves_hold_the_weighted_mean_of_their_rows():
    rng = np.random.RandomState(7)
    Xb = rng.randint(0, 40, size=(500, 3)).astype(np.uint8)
    y = rng.standard_normal(500) * 10 + 100
    w = rng.uniform(0.1, 3, 500)
    for random_split in (False, True):
        tree = grow(Xb, y, w, max_depth=3, max_features=1, random_split=random_split, seed=1)
        prediction = predict(tree, Xb)
        for value in np.unique(prediction):
            rows = prediction == value
            assert value == pytest.approx(np.average(y[rows], weights=w[rows]), rel=1e-12)


def test_fully_grown_trees_fit_distinct_rows_exactly_and_stop_at_constant_targets():
    rng = np.random.RandomState(8)
    Xb = BinnedInput(rng.rand(400, 3).astype(np.float32)).codes
    assert len(np.unique(Xb, axis=0)) == 400
    y = rng.standard_normal(400)
    for random_split in (False, True):
        assert np.array_equal(predict(grow(Xb, y, max_features=1, random_split=random_split), Xb), y)
    tree = grow(Xb, np.full(400, 2.5))
    assert len(tree[0]) == 1 and tree.leaf_values[:, 0].tolist() == [2.5]


@pytest.mark.parametrize("random_split", [False, True])
def test_small_targets_grow_the_tree_of_their_unit_free_scale(random_split):
    # scikit-learn's leaf rule (weighted variance at most the float64 epsilon) is absolute: targets of
    # 1e-10 would be one leaf; they are grown as targets scaled by a power of two into [0.5, 1), so the
    # tree of y * 2**-40 is the tree of y, its values times 2**-40 to the bit
    rng = np.random.RandomState(11)
    Xb = BinnedInput(rng.rand(300, 3).astype(np.float32)).codes
    y = rng.standard_normal(300)
    y = y / np.abs(y).max() * 0.75  # largest magnitude in [0.5, 1): grown as it is
    w = rng.uniform(0.5, 2.0, 300)
    reference = grow(Xb, y, w, max_features=1, random_split=random_split)
    assert len(reference.feature) > 100
    for exponent in (-40, -60, -1000):
        tree = grow(Xb, np.ldexp(y, exponent), w, max_features=1, random_split=random_split)
        assert np.array_equal(tree.feature, reference.feature) and np.array_equal(tree.split_bin, reference.split_bin)
        assert np.array_equal(tree.leaf_values, np.ldexp(reference.leaf_values, exponent))
        assert np.array_equal(tree.importance, np.ldexp(reference.importance, 2 * exponent))
    tiny = grow(Xb, y * 1e-10, w, max_features=1, random_split=random_split)
    assert np.allclose(predict(tiny, Xb), y * 1e-10, rtol=1e-12, atol=0)  # fully grown: fits the rows


def test_depth_limit():
    rng = np.random.RandomState(9)
    Xb = rng.randint(0, 50, size=(300, 4)).astype(np.uint8)
    feature, _, _, values, _, _, _, depth, _, _ = grow(Xb, rng.standard_normal(300), max_depth=2)
    assert depth == 2 and (feature >= 0).sum() == 3 and len(values) == 4


def test_zero_weight_rows_are_left_out_and_integer_weights_count_as_copies():
    rng = np.random.RandomState(10)
    Xb = rng.randint(0, 30, size=(200, 5)).astype(np.uint8)
    # integer targets keep every sum exact, so that ties (two features isolating the same rows) are broken
    # alike: with real-valued targets the order of additions decides them
    y = rng.randint(-50, 50, 200).astype(np.float64)
    w = rng.randint(0, 3, 200).astype(np.float64)
    copies = np.repeat(np.arange(200), w.astype(int))
    for random_split, max_features in ((False, 2), (True, 1), (True, 3)):
        weighted = grow(Xb, y, w, max_features=max_features, random_split=random_split, seed=7)
        copied = grow(Xb[copies], y[copies], max_features=max_features, random_split=random_split, seed=7)
        for a, b in zip(weighted[:3] + weighted[5:6], copied[:3] + copied[5:6]):
            assert np.array_equal(a, b)
        assert weighted[3] == pytest.approx(copied[3], rel=1e-12)


# ---------------------------------------------------------------- random splits
def test_completely_random_splits_are_random_seeded_and_inside_the_nodes_range():
    rng = np.random.RandomState(11)
    Xb = rng.randint(0, 100, size=(300, 6)).astype(np.uint8)
    y = rng.standard_normal(300)
    roots = {tuple(int(a[0]) for a in grow(Xb, y, max_features=1, random_split=True, seed=s)[:2]) for s in range(30)}
    assert len(roots) > 10
    first = grow(Xb, y, max_features=1, random_split=True, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(first[:4], grow(Xb, y, max_features=1, random_split=True, seed=3)))
    narrow = rng.randint(40, 61, size=(200, 1)).astype(np.uint8)
    for seed in range(20):
        split_bin = grow(narrow, y[:200], max_depth=1, random_split=True, seed=seed)[1]
        assert 40 <= split_bin[0] < 60


def test_extremely_randomized_splits_take_the_best_of_their_random_thresholds():
    # one informative feature among noise: with every feature a candidate, the random threshold of the
    # informative one wins at the root; a completely-random tree picks any feature
    rng = np.random.RandomState(12)
    Xb = rng.randint(0, 100, size=(1000, 5)).astype(np.uint8)
    y = (Xb[:, 2] > 50) * 10.0 + rng.standard_normal(1000)
    extra = [grow(Xb, y, max_depth=1, max_features=5, random_split=True, seed=s)[0][0] for s in range(20)]
    crf = [grow(Xb, y, max_depth=1, max_features=1, random_split=True, seed=s)[0][0] for s in range(20)]
    assert np.mean(np.array(extra) == 2) > 0.8
    assert np.mean(np.array(crf) == 2) < 0.5


def test_constant_features_are_never_split_on():
    rng = np.random.RandomState(13)
    Xb = np.column_stack([np.full(300, 7), rng.randint(0, 30, 300), np.full(300, 3)]).astype(np.uint8)
    y = rng.standard_normal(300)
    for random_split, max_features in ((False, 1), (True, 1), (True, 3)):
        feature = grow(Xb, y, max_features=max_features, random_split=random_split)[0]
        assert set(feature[feature >= 0].tolist()) == {1}


# ---------------------------------------------------------------- missing values
def test_missing_rows_follow_the_side_that_lowers_the_error_and_unseen_missing_values_the_heavier_child():
    rng = np.random.RandomState(14)
    x = rng.randint(0, 10, 600).astype(np.float32)
    y = (x >= 5) * 10.0
    x[:60] = np.nan
    y[:60] = 10.0  # missing rows look like the high ones
    binned = BinnedInput(x[:, None])
    tree = grow(binned.codes, y, max_depth=1, missing_bin=binned.missing_bin)
    assert predict(tree, binned.codes, binned.binner.missing_bins_)[:60] == pytest.approx(10.0)
    # a column without NaN in training: NaN goes to the heavier child at prediction
    complete = BinnedInput(np.where(np.arange(600) < 400, 1.0, 2.0).astype(np.float32)[:, None])
    z = np.where(np.arange(600) < 400, 1.0, 5.0)
    tree = grow(complete.codes, z, max_depth=1, missing_bin=complete.missing_bin)
    codes = complete.binner.transform(np.array([[np.nan]], dtype=np.float32))
    assert predict(tree, codes, complete.binner.missing_bins_).tolist() == [1.0]


@pytest.mark.parametrize("max_features", [1, 3])
def test_random_splits_draw_the_missing_side_and_never_predict_nan(max_features):
    rng = np.random.RandomState(15)
    X = rng.rand(500, 4).astype(np.float32)
    X[rng.rand(500, 4) < 0.3] = np.nan
    X[:, 0], X[:, 1] = np.arange(500) % 25, np.arange(500) // 25  # complete columns keep the rows distinct
    y = rng.standard_normal(500)
    binned = BinnedInput(X)
    sides = set()
    for seed in range(10):
        tree = grow(
            binned.codes, y, max_features=max_features, random_split=True, seed=seed, missing_bin=binned.missing_bin
        )
        # distinct rows are fitted exactly
        assert np.array_equal(predict(tree, binned.codes, binned.binner.missing_bins_), y)
        sides |= set(tree.missing_left[tree.feature >= 0].tolist())
    assert sides == {0, 1}


# ---------------------------------------------------------------- the stored forest
def test_stored_forest_predicts_new_rows_as_the_mean_of_its_trees():
    rng = np.random.RandomState(16)
    X = np.column_stack([rng.standard_normal(2000), rng.randint(0, 5, 2000), rng.rand(2000)]).astype(np.float32)
    X[rng.rand(2000) < 0.1, 0] = np.nan
    y = X[:, 1] + np.nan_to_num(X[:, 0]) + rng.standard_normal(2000)
    binned = BinnedInput(X)
    X_new = np.column_stack([rng.standard_normal(300) * 2, rng.randint(-1, 7, 300), rng.rand(300)]).astype(np.float32)
    X_new[rng.rand(300) < 0.2, 2] = np.nan
    codes = binned.binner.transform(X_new)
    trees = [
        grow(binned.codes, y, max_features=2, random_split=s % 2 == 1, seed=s, missing_bin=binned.missing_bin)
        for s in range(4)
    ]
    expected = np.mean([predict(t, codes, binned.binner.missing_bins_) for t in trees], axis=0)
    forest = forest_of(binned.binner, None, trees)
    assert forest.n_trees == 4 and forest.n_words == len(forest.words) == sum(len(t.feature) for t in trees)
    assert forest.predict(X_new) == pytest.approx(expected, abs=1e-12)
    assert forest.importances == pytest.approx(np.sum([t.importance for t in trees], axis=0))
    # a 4-byte word and a 2-byte share of its weight a node, 8 bytes a distinct leaf value, and the per-tree offsets
    # and depths
    table_rows = len(np.unique(np.concatenate([t.leaf_values for t in trees])))
    expected_bytes = 6 * forest.n_words + 8 * table_rows + 2 * 8 * 5 + 4 * 4 + forest.side_offset.nbytes * 1.5
    assert forest.nbytes == expected_bytes


def test_a_large_tree_is_stored_in_one_word_a_node():
    rng = np.random.RandomState(17)
    X = rng.rand(40_000, 4).astype(np.float32)
    binned = BinnedInput(X)
    tree = grow(binned.codes, rng.standard_normal(40_000), max_features=1, random_split=True)
    assert len(tree.feature) > 65_535
    forest = forest_of(binned.binner, None, [tree])
    assert forest.words.dtype == np.uint32 and len(forest.words) == len(tree.feature)
    assert np.array_equal(forest.predict(X), predict(tree, binned.codes))
