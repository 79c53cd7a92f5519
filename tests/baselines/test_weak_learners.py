"""The weak learners of DeepBoost and AdaBoost (Section 4): the exhaustive stump, the layer-wise trees and the stump
families against brute force, with and without missing values."""

import itertools

import numpy as np
import pytest
from sklearn.datasets import make_classification

from mddf.baselines import AdaBoostClassifier
from mddf.baselines._binned_features import BinnedFeatures
from mddf.baselines._split_search import SplitSearch
from mddf.baselines._tree_growth import grow_stump_candidates, grow_tree_candidates


def brute_best_split(X, y, w, rows, exclude_feature=None):
    """Best (error, feature, threshold) over every feature and distinct value of ``rows``.

    Both children predict their weighted majority. Ties: lowest feature, then lowest threshold.
    Only splits leaving both children non-empty count.
    """
    best = None
    for j in range(X.shape[1]):
        if j == exclude_feature:
            continue
        for v in np.unique(X[rows, j])[:-1]:
            left = rows[X[rows, j] <= v]
            right = rows[X[rows, j] > v]
            err = sum(min(w[s][y[s] > 0].sum(), w[s][y[s] < 0].sum()) for s in (left, right))
            if best is None or err < best[0]:
                best = (err, j, v)
    return best


def majority_predictions(leaf_rows, y, w, n):
    pred = np.zeros(n, dtype=np.int8)
    for rows in leaf_rows:
        pred[rows] = 1 if w[rows][y[rows] > 0].sum() >= w[rows][y[rows] < 0].sum() else -1
    return pred


def tied_problem(seed, n=40, d=4):
    """Integer features with many repeated values and dyadic weights: sums are exact, so
    exact ties between splits really occur and must be broken by (feature, threshold)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(np.float32)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    w = rng.integers(1, 5, size=n)
    total = 1 << int(np.ceil(np.log2(w.sum())))
    np.add.at(w, rng.integers(0, n, size=total - w.sum()), 1)  # sum is a power of two
    return X, y, w / total


def continuous_problem(seed, n=60, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    w = rng.random(n)
    return X, y, w / w.sum()


def searcher(X, y):
    return SplitSearch(BinnedFeatures(X), y)


def no_penalty(errors, n_internal):
    return 0.5 - errors


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("make", [tied_problem, continuous_problem])
def test_best_stump_equals_brute_force(seed, make):
    X, y, w = make(seed)
    (stump,) = grow_tree_candidates(searcher(X, y), w, 1, no_penalty)
    err, j, v = brute_best_split(X, y, w, np.arange(len(y)))
    assert stump.tree.feature[0] == j
    assert stump.tree.threshold[0] == v
    assert stump.error == pytest.approx(err, abs=1e-12)
    left = np.flatnonzero(X[:, j] <= v)
    right = np.flatnonzero(X[:, j] > v)
    np.testing.assert_array_equal(stump.train_pred, majority_predictions([left, right], y, w, len(y)))
    np.testing.assert_array_equal(stump.tree.predict(X), stump.train_pred)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("make", [tied_problem, continuous_problem])
def test_tree_layers_equal_brute_force_greedy_growth(seed, make):
    # With no penalty every leaf whose best split lowers the error is split, layer by layer.
    X, y, w = make(seed)
    cands = grow_tree_candidates(searcher(X, y), w, 3, no_penalty)
    leaves = [np.arange(len(y))]
    for depth, cand in enumerate(cands, start=1):
        new_leaves = []
        for rows in leaves:
            parent = min(w[rows][y[rows] > 0].sum(), w[rows][y[rows] < 0].sum())
            best = brute_best_split(X, y, w, rows)
            if best is not None and (depth == 1 or best[0] < parent - 1e-15):
                _, j, v = best
                new_leaves += [rows[X[rows, j] <= v], rows[X[rows, j] > v]]
            else:
                new_leaves.append(rows)
        leaves = new_leaves
        expected = majority_predictions(leaves, y, w, len(y))
        np.testing.assert_array_equal(cand.train_pred, expected)
        np.testing.assert_array_equal(cand.tree.predict(X), expected)
        err = sum(min(w[r][y[r] > 0].sum(), w[r][y[r] < 0].sum()) for r in leaves)
        assert cand.error == pytest.approx(err, abs=1e-12)
        assert cand.tree.depth == depth
        assert cand.tree.n_leaves == len(leaves)


def concave_score(errors, n_internal):
    """|d| with a penalty concave in the tree size, like eq. 9's sqrt(4n + 2)."""
    return np.maximum(0.5 - errors - 0.02 * np.sqrt(4 * n_internal + 2), 0.0)


def test_any_leaf_growth_can_split_a_leaf_skipped_at_an_earlier_level():
    # With a concave penalty the marginal cost of a split falls as the tree grows, so a leaf
    # not worth splitting at level 2 can be worth it at level 3 -- only "any_leaf" may do so.
    X, y, w = continuous_problem(0, n=90)
    last = grow_tree_candidates(searcher(X, y), w, 4, concave_score, "last_layer")
    anyl = grow_tree_candidates(searcher(X, y), w, 4, concave_score, "any_leaf")
    assert [c.tree.n_internal for c in last] == [c.tree.n_internal for c in anyl]
    assert anyl[2].error < last[2].error
    assert anyl[2].tree.depth < 3 or anyl[3].tree.depth < 4  # a shallower leaf was split


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("grow", ["last_layer", "any_leaf"])
def test_each_layer_keeps_the_split_subset_that_maximises_the_score(seed, grow):
    # A size penalty makes splitting every leaf suboptimal: the leaves split at each level must
    # be the best of all subsets of the eligible leaves (brute force over subsets), eligible
    # meaning at depth k-1 ("last_layer") or any leaf ("any_leaf").
    X, y, w = continuous_problem(seed, n=90)
    score = concave_score

    def error(leaves):
        return sum(min(w[r][y[r] > 0].sum(), w[r][y[r] < 0].sum()) for r, _ in leaves)

    cands = grow_tree_candidates(searcher(X, y), w, 4, score, grow)
    _, j, v = brute_best_split(X, y, w, np.arange(len(y)))
    leaves = [(np.flatnonzero(X[:, j] <= v), 1), (np.flatnonzero(X[:, j] > v), 1)]
    n_internal = 1
    for level, cand in enumerate(cands[1:], start=2):
        options = []
        splits = {}
        for i, (rows, depth) in enumerate(leaves):
            if grow == "last_layer" and depth != level - 1:
                continue
            best = brute_best_split(X, y, w, rows)
            parent = min(w[rows][y[rows] > 0].sum(), w[rows][y[rows] < 0].sum())
            if best is not None and best[0] < parent - 1e-15:
                splits[i] = best
        for size in range(1, len(splits) + 1):
            for subset in itertools.combinations(sorted(splits), size):
                new = []
                for i, (rows, depth) in enumerate(leaves):
                    if i in subset:
                        _, jj, vv = splits[i]
                        new += [(rows[X[rows, jj] <= vv], depth + 1), (rows[X[rows, jj] > vv], depth + 1)]
                    else:
                        new.append((rows, depth))
                value = score(np.array([error(new)]), np.array([n_internal + size]))[0]
                options.append((value, -size, new))
        best_value, neg_size, leaves = max(options, key=lambda o: (o[0], o[1]))
        n_internal -= neg_size
        expected = majority_predictions([r for r, _ in leaves], y, w, len(y))
        np.testing.assert_array_equal(cand.train_pred, expected)
        assert cand.tree.n_internal == n_internal
        assert score(np.array([cand.error]), np.array([n_internal]))[0] == pytest.approx(best_value)
    # Growth stops early only when no eligible leaf can lower the error.
    if len(cands) < 4:
        for rows, depth in leaves:
            if grow == "last_layer" and depth != len(cands):
                continue
            best = brute_best_split(X, y, w, rows)
            parent = min(w[rows][y[rows] > 0].sum(), w[rows][y[rows] < 0].sum())
            assert best is None or best[0] >= parent - 1e-15


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("make", [tied_problem, continuous_problem])
def test_stump_family_candidates_equal_brute_force(seed, make):
    # H_2^stumps: the same second question (on another feature) in both children (eq. 8).
    X, y, w = make(seed)
    first, second = grow_stump_candidates(searcher(X, y), w)
    _, j, v = brute_best_split(X, y, w, np.arange(len(y)))
    halves = [np.flatnonzero(X[:, j] <= v), np.flatnonzero(X[:, j] > v)]
    best = None
    for j2 in range(X.shape[1]):
        if j2 == j:
            continue
        for v2 in np.unique(X[:, j2])[:-1]:
            leaves, separates = [], False
            for rows in halves:
                lo, hi = rows[X[rows, j2] <= v2], rows[X[rows, j2] > v2]
                if len(lo) and len(hi):
                    leaves += [lo, hi]
                    separates = True
                else:
                    leaves.append(rows)
            if not separates:
                continue
            err = sum(min(w[r][y[r] > 0].sum(), w[r][y[r] < 0].sum()) for r in leaves)
            if best is None or err < best[0]:
                best = (err, j2, v2, leaves)
    assert first.tree.family == "stump" and second.tree.family == "stump2"
    assert second.error == pytest.approx(best[0], abs=1e-12)
    np.testing.assert_array_equal(second.train_pred, majority_predictions(best[3], y, w, len(y)))
    internal = second.tree.feature >= 0
    assert set(second.tree.feature[internal]) == {j, best[1]}
    assert second.tree.n_questions == 2


def test_search_ignores_constant_features_and_reports_no_candidate_without_splits():
    X = np.column_stack([np.ones(10), np.arange(10.0)]).astype(np.float32)
    y = np.where(np.arange(10) < 5, -1, 1)
    w = np.full(10, 0.1)
    (stump,) = grow_tree_candidates(searcher(X, y), w, 3, no_penalty)
    assert stump.tree.feature[0] == 1 and stump.error == 0.0
    assert grow_tree_candidates(searcher(X[:, :1], y), w, 3, no_penalty) == []
    assert grow_stump_candidates(searcher(X[:, :1], y), w) == []


def brute_best_split_missing(X, y, w):
    """Lowest weighted error over every feature, threshold (distinct present value) and side of
    the missing rows; both children non-empty."""
    best = np.inf
    for j in range(X.shape[1]):
        miss = np.isnan(X[:, j])
        for v in np.unique(X[~miss, j]):
            for nan_left in (False, True):
                left = (X[:, j] <= v) | (miss & nan_left)
                if left.all() or not left.any():
                    continue
                err = sum(min(w[s & (y > 0)].sum(), w[s & (y < 0)].sum()) for s in (left, ~left))
                best = min(best, err)
    return best


def _missing_problem(seed, n=60, d=4, rate=0.25):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, d)).astype(np.float32)
    X[rng.random((n, d)) < rate] = np.nan
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[np.isnan(X[:, 0])] = 1.0  # missingness itself carries information
    w = rng.random(n) + 0.1
    return X, y, w / w.sum()


@pytest.mark.parametrize("seed", range(8))
def test_missing_values_best_stump_matches_brute_force(seed):
    X, y, w = _missing_problem(seed)
    search = SplitSearch(BinnedFeatures(X), y)
    (stump,) = grow_tree_candidates(search, w, 1, lambda e, n: 0.5 - e)
    assert stump.error == pytest.approx(brute_best_split_missing(X, y, w), abs=1e-12)
    # train_pred is what the stored tree predicts on the training rows (NaN follows the stored side)
    assert np.array_equal(stump.tree.predict(X), stump.train_pred)
    expected = 0.5 * (1 - (w * y) @ stump.train_pred)
    assert stump.error == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("grow", ["last_layer", "any_leaf"])
def test_missing_values_trees_predict_what_they_were_scored_on(seed, grow):
    X, y, w = _missing_problem(seed, n=120)
    search = SplitSearch(BinnedFeatures(X), y)
    for cand in grow_tree_candidates(search, w, 4, lambda e, n: 0.5 - e, grow):
        assert np.array_equal(cand.tree.predict(X), cand.train_pred)
        assert cand.error == pytest.approx(0.5 * (1 - (w * y) @ cand.train_pred), abs=1e-12)
    for cand in grow_stump_candidates(search, w):
        assert np.array_equal(cand.tree.predict(X), cand.train_pred)


def test_nan_at_prediction_goes_to_the_heavier_side_for_features_without_nan():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)).astype(np.float32)
    y = np.where(X[:, 0] > 0.8, 1, 0)  # the right child (x0 > 0.8) is the lighter one
    clf = AdaBoostClassifier(n_iter=1).fit(X, y)
    tree = clf.hypotheses_[0]
    assert tree.feature[0] == 0 and tree.missing_left[0]
    X_nan = X[:5].copy()
    X_nan[:, 0] = np.nan
    # NaN in the root feature goes left, like the (heavier) rows with x0 <= threshold
    left_value = tree.value[tree.left[0]]
    assert np.all(tree.predict(X_nan) == left_value)


def test_without_nan_at_training_the_trees_are_unchanged():
    X, y = make_classification(n_samples=200, n_features=5, random_state=2)
    binned = BinnedFeatures(X.astype(np.float32))
    assert not binned.has_missing and len(binned.split_bins) == 0
