"""Missing values (NaN) in the binned trees: their bin, the side splits send them to, and their routing."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier
from tree_helpers import forest_of, grow, proba

from mddf.forests import BinnedInput
from mddf.trees import FeatureBinner
from mddf.trees.nodes import LEAF, MISSING_LEFT


def _with_nan(X, fraction, seed):
    X = np.array(X, dtype=np.float32)
    X[np.random.RandomState(seed).rand(*X.shape) < fraction] = np.nan
    return X


# ---------------------------------------------------------------- binning
def test_nan_gets_a_bin_past_the_real_ones_and_complete_columns_keep_their_bins():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((3000, 3)).astype(np.float32)
    X_nan = X.copy()
    X_nan[rng.rand(3000) < 0.1, 1] = np.nan
    complete, binner = FeatureBinner().fit(X), FeatureBinner().fit(X_nan)
    assert binner.has_missing_.tolist() == [False, True, False]
    for j in (0, 2):  # columns without NaN are cut exactly as before
        assert np.array_equal(binner.edges_[j], complete.edges_[j])
    assert len(complete.edges_[1]) + 1 == 256 and len(binner.edges_[1]) + 1 == 255  # one code kept for NaN
    codes = binner.transform(X_nan)
    assert codes.dtype == np.uint8
    assert np.all(codes[np.isnan(X_nan[:, 1]), 1] == 255) and codes[~np.isnan(X_nan[:, 1]), 1].max() == 254
    assert binner.missing_bins_.tolist() == [256, 255, 256]


def test_nan_in_a_full_feature_at_prediction_gets_wide_codes():
    X = np.random.RandomState(1).standard_normal((2000, 2)).astype(np.float32)
    binner = FeatureBinner().fit(X)  # 256 real bins, no NaN: NaN's code 256 needs uint16
    X_new = X[:5].copy()
    X_new[2, 0] = np.nan
    codes = binner.transform(X_new)
    assert codes.dtype == np.uint16 and codes[2, 0] == 256
    assert np.array_equal(codes[[0, 1, 3, 4]], binner.transform(X[[0, 1, 3, 4]]))


def test_a_column_of_nan_only_is_never_split_on():
    rng = np.random.RandomState(2)
    X = np.column_stack([np.full(200, np.nan), rng.rand(200)]).astype(np.float32)
    y = (X[:, 1] > 0.5).astype(int)
    binned = BinnedInput(X)
    assert binned.binner.edges_[0].size == 0 and binned.missing_bin.tolist()[0] == 1
    for random_split in (False, True):
        tree = grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, random_split=random_split)
        assert set(tree[0][tree[0] >= 0].tolist()) == {1}


# ---------------------------------------------------------------- best split: brute force reference
def _gini_score(left, y, w, n_classes):
    score = 0.0
    for side in (left, ~left):
        cw = np.bincount(y[side], weights=w[side], minlength=n_classes)
        score += (cw**2).sum() / cw.sum()
    return score


def _brute_force_best(codes, y, w, missing_bin, n_classes):
    """Best (score, bin, missing side) over every threshold, missing rows right or left."""
    real = codes != missing_bin
    best = (-1.0, None, None)
    for b in np.unique(codes[real]):
        for side in (0, 1):
            left = (codes <= b) & real | (~real & bool(side))
            if left.all() or not left.any():
                continue
            score = _gini_score(left, y, w, n_classes)
            if score > best[0] + 1e-9:
                best = (score, int(b), side)
    return best


@pytest.mark.parametrize("n_rows", [30, 4000])  # small nodes sort their rows, large ones use a histogram
@pytest.mark.parametrize("seed", range(4))
def test_root_split_and_missing_side_match_a_brute_force_gini_search(n_rows, seed):
    rng = np.random.RandomState(seed)
    x = rng.randint(0, 12, n_rows).astype(np.float32)
    y = rng.randint(0, 3, n_rows)
    y[x > 8] = 2
    x[rng.rand(n_rows) < 0.25 * (1 + (y == seed % 3))] = np.nan  # NaN more frequent in one class
    w = rng.randint(1, 4, n_rows).astype(np.float64)
    binned = BinnedInput(x[:, None])
    mb = int(binned.missing_bin[0])
    feature, split_bin, _, _, missing_left, *_ = grow(
        binned.codes, y, w, n_bins=binned.n_bins, missing_bin=binned.missing_bin, max_depth=1, n_classes=3
    )
    score, b, side = _brute_force_best(binned.codes[:, 0], y, w, mb, 3)
    assert feature[0] == 0
    codes = binned.codes[:, 0]
    left = (codes <= split_bin[0]) & (codes != mb) | ((codes == mb) & bool(missing_left[0]))
    assert _gini_score(left, y, w, 3) == pytest.approx(score, rel=1e-12)


def test_a_split_on_missingness_alone_is_learned():
    # every NaN row is class 1, real values say nothing: the best split is real | missing
    rng = np.random.RandomState(3)
    x = rng.rand(500).astype(np.float32)
    y = rng.randint(0, 2, 500) * 0
    y[::3] = 1
    x[y == 1] = np.nan
    binned = BinnedInput(x[:, None])
    tree = grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, max_depth=1)
    assert np.array_equal(proba(tree, binned.codes, 2, binned.binner.missing_bins_).argmax(axis=1), y)


def test_the_class_of_the_missing_rows_is_learned_and_predicted():
    rng = np.random.RandomState(4)
    X = rng.rand(2000, 3).astype(np.float32)
    y = (X[:, 0] > 0.5).astype(int)
    nan = rng.rand(2000) < 0.2
    X[nan, 0] = np.nan
    y[nan] = 2
    binned = BinnedInput(X)
    X_new = rng.rand(300, 3).astype(np.float32)
    X_new[:100, 0] = np.nan
    # a best-split tree splits the NaN rows off at once
    tree = grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, seed=5)
    forest = forest_of(binned.binner, 3, [tree])
    assert np.all(forest.predict_proba(X_new)[:100].argmax(axis=1) == 2)
    # completely-random trees split on x0 at random depths: a NaN row may meet an x0 split whose
    # node held no NaN, and then goes to the heavier child; the forest still knows
    trees = [
        grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, random_split=True, seed=s)
        for s in range(25)
    ]
    forest = forest_of(binned.binner, 3, trees)
    assert np.mean(forest.predict_proba(X_new)[:100].argmax(axis=1) == 2) > 0.95


# ---------------------------------------------------------------- routing at prediction
@pytest.mark.parametrize("random_split", [False, True, 2])  # best, completely random, extra-trees
def test_prediction_routes_missing_values_as_training_partitioned_them(random_split):
    # fully grown on distinct rows, each training row must land in a leaf of its own class
    rng = np.random.RandomState(6)
    X = _with_nan(rng.rand(600, 4), 0.3, 7)
    X = X[np.sort(np.unique(BinnedInput(X).codes, axis=0, return_index=True)[1])]  # distinct after binning
    y = rng.randint(0, 3, len(X))
    binned = BinnedInput(X)
    tree = grow(
        binned.codes,
        y,
        n_bins=binned.n_bins,
        missing_bin=binned.missing_bin,
        max_features=2,
        random_split=random_split,
    )
    assert np.array_equal(proba(tree, binned.codes, 3, binned.binner.missing_bins_).argmax(axis=1), y)
    forest = forest_of(binned.binner, 3, [tree])
    assert np.array_equal(forest.predict_proba(X), proba(tree, binned.codes, 3, binned.binner.missing_bins_))


@pytest.mark.parametrize("random_split", [False, True, 2])  # best, completely random, extra-trees
def test_nan_in_a_feature_that_had_none_goes_to_the_heavier_child(random_split):
    rng = np.random.RandomState(8)
    x = np.repeat([0.0, 1.0], [300, 100]).astype(np.float32)
    y = (x > 0.5).astype(int)
    X = np.column_stack([x, np.full(400, 5.0, dtype=np.float32)])
    for w, heavier in [(np.ones(400), 0), (np.where(x > 0.5, 10.0, 1.0), 1)]:  # by weight, not by rows
        binned = BinnedInput(X)
        tree = grow(binned.codes, y, w, n_bins=binned.n_bins, random_split=random_split, seed=int(rng.randint(99)))
        assert tree[0][0] == 0 and tree.missing_left[0] == (1 - heavier)
        forest = forest_of(binned.binner, 2, [tree])
        new = np.array([[np.nan, 5.0], [np.nan, np.nan]], dtype=np.float32)
        assert forest.predict_proba(new).argmax(axis=1).tolist() == [heavier, heavier]


def test_binned_forest_stores_the_missing_side_in_one_bit_of_the_node_word():
    rng = np.random.RandomState(9)
    X = _with_nan(rng.rand(1000, 3), 0.2, 10)
    y = rng.randint(0, 2, 1000)
    binned = BinnedInput(X)
    trees = [
        grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, random_split=rs, seed=s)
        for s, rs in enumerate([False, True, False])
    ]
    forest = forest_of(binned.binner, 2, trees)
    splits = forest.words[(forest.words & LEAF) == 0]  # in tree order, as the grown trees' splits
    missing_left = np.concatenate([t.missing_left[t.feature >= 0] for t in trees]).astype(bool)
    assert forest.words.dtype == np.uint32 and np.array_equal((splits & MISSING_LEFT) != 0, missing_left)
    expected = sum(proba(t, binned.codes, 2, binned.binner.missing_bins_) for t in trees) / 3
    assert np.array_equal(forest.predict_proba(X), expected)


# ---------------------------------------------------------------- completely-random splits
@pytest.mark.parametrize("random_split", [True, 2])  # completely random, extra-trees
def test_random_splits_draw_the_missing_side(random_split):
    rng = np.random.RandomState(11)
    X = _with_nan(rng.rand(300, 1), 0.3, 12)
    y = rng.randint(0, 2, 300)
    binned = BinnedInput(X)
    sides = {
        int(
            grow(
                binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, random_split=random_split, seed=s
            ).missing_left[0]
        )
        for s in range(40)
    }
    assert sides == {0, 1}


@pytest.mark.parametrize("random_split", [False, True, 2])  # best, completely random, extra-trees
def test_complete_data_grows_the_same_tree_with_or_without_the_missing_value_code(random_split):
    # missing_bin=None compiles the missing-value code out; an array of -1 runs it, finding no NaN
    rng = np.random.RandomState(13)
    Xb = rng.randint(0, 40, size=(800, 5)).astype(np.uint8)
    y = rng.randint(0, 3, 800)
    w = rng.randint(0, 3, 800).astype(np.float64)
    a = grow(Xb, y, w, max_features=2, random_split=random_split, seed=3)
    b = grow(Xb, y, w, max_features=2, random_split=random_split, seed=3, missing_bin=np.full(5, -1))
    assert all(np.array_equal(u, v) for u, v in zip(a, b))


def test_nan_in_other_nodes_leaves_the_random_stream_of_complete_nodes_alone():
    # the NaN rows all sit right of x0 = 0.5: the left subtree, without NaN, draws what it drew before
    rng = np.random.RandomState(14)
    X = rng.rand(400, 3).astype(np.float32)
    y = rng.randint(0, 2, 400)
    X_nan = X.copy()
    X_nan[(X[:, 0] > 0.9) & (rng.rand(400) < 0.5), 2] = np.nan
    for random_split in (False, True):
        trees = [
            grow(b.codes, y, n_bins=b.n_bins, missing_bin=b.missing_bin, random_split=random_split, seed=1)
            for b in (BinnedInput(X), BinnedInput(X_nan))
        ]
        assert trees[0][0][0] == trees[1][0][0]  # same root feature


# ---------------------------------------------------------------- importances
@pytest.mark.parametrize("n_rows", [300, 3000])
def test_importances_equal_scikit_learns_for_the_same_tree(n_rows):
    rng = np.random.RandomState(15)
    X = rng.randint(0, 30, size=(n_rows, 5)).astype(np.float32)
    y = (X[:, 0] + 2 * X[:, 3] + rng.randint(0, 15, n_rows) > 50).astype(int)
    w = rng.randint(1, 4, n_rows).astype(np.float64)
    binned = BinnedInput(X)
    tree = grow(binned.codes, y, w, n_bins=binned.n_bins, max_depth=4)
    ref = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y, sample_weight=w)
    assert proba(tree, binned.codes, 2) == pytest.approx(ref.predict_proba(X), abs=1e-7)  # the same tree
    assert tree.importance == pytest.approx(ref.tree_.compute_feature_importances(normalize=False), abs=1e-12)


def test_importances_of_random_and_missing_splits_are_non_negative_and_sum_to_the_root_gini():
    rng = np.random.RandomState(16)
    X = _with_nan(rng.rand(500, 4), 0.2, 17)
    y = rng.randint(0, 3, 500)
    binned = BinnedInput(X)
    root_gini = 1 - ((np.bincount(y) / 500) ** 2).sum()
    for random_split in (False, True):
        tree = grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, random_split=random_split)
        assert (tree.importance >= 0).all()
        assert tree.importance.sum() == pytest.approx(root_gini)  # fully grown: every leaf pure
