"""The compiled per-leaf split search of the weak learners equals the dense one exactly.

:meth:`SplitSearch.best_splits` (compiled, used by the tree growers) and ``argmin`` over
:meth:`SplitSearch.split_errors` (numpy, every (leaf, bin) error at once) must give the same bin,
error and missing side for every leaf that has a split.
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from mddf.baselines import DeepBoostClassifier
from mddf.baselines._binned_features import BinnedFeatures
from mddf.baselines._split_search import SplitSearch, quantize_weights

NO_SPLIT = SplitSearch._NO_SPLIT


def dense_best(search, wq, leaf_of, n_leaves):
    err, _, side = search.split_errors(wq, search.entry_weights(wq), leaf_of, n_leaves, return_missing=True)
    if err.shape[1] == 0:  # no feature can be split
        return np.zeros(n_leaves, dtype=np.int64), np.full(n_leaves, NO_SPLIT), np.full(n_leaves, -1)
    best = np.argmin(err, axis=1)
    rows = np.arange(n_leaves)
    side = side[rows, best] if side is not None else np.full(n_leaves, -1)
    return best, err[rows, best], side


def assert_same_best_splits(search, wq, leaf_of, n_leaves):
    d_bin, d_err, d_side = dense_best(search, wq, leaf_of, n_leaves)
    k_bin, k_err, k_side = search.best_splits(wq.astype(np.int64), leaf_of, n_leaves)
    np.testing.assert_array_equal(k_err, d_err)
    has_split = d_err != NO_SPLIT
    np.testing.assert_array_equal(k_bin[has_split], d_bin[has_split])
    np.testing.assert_array_equal(k_side[has_split], d_side[has_split])


def random_problem(rng):
    """Breast-cancer columns rounded to make ties, with NaN at a random rate (up to 95%),
    random leaves (some rows left out) and heavy-tailed weights."""
    X, y = load_breast_cancer(return_X_y=True)
    X = np.round(X, rng.integers(0, 3)).astype(np.float32)
    X[rng.random(X.shape) < rng.choice([0.0, 0.05, 0.3, 0.7, 0.95])] = np.nan
    X = X[:, rng.choice(X.shape[1], rng.integers(1, 8), replace=False)]
    n_leaves = int(rng.integers(1, 40))
    leaf_of = rng.integers(-1, n_leaves, len(y))
    wq = quantize_weights(rng.exponential(size=len(y)) ** rng.choice([1, 4]))
    return SplitSearch(BinnedFeatures(X), np.where(y == 1, 1, -1)), wq, leaf_of, n_leaves


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.slow
def test_compiled_search_equals_the_dense_argmin(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        assert_same_best_splits(*random_problem(rng))


def test_missing_vs_present_split_at_a_bin_the_leaf_does_not_hold():
    """Leaf 1 holds no row at feature 0's first bin: its best split is "missing rows left, the
    others right", which the dense search finds at that first bin."""
    x = np.array([0.0, 1.0, 2.0, 3.0, np.nan, np.nan, 2.0, 3.0], dtype=np.float32)
    y = np.array([1, -1, 1, -1, 1, 1, -1, -1])
    leaf_of = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    search = SplitSearch(BinnedFeatures(x[:, None]), y)
    wq = quantize_weights(np.ones(len(y)))
    assert_same_best_splits(search, wq, leaf_of, 2)
    bins, errs, sides = search.best_splits(wq.astype(np.int64), leaf_of, 2)
    assert (bins[1], errs[1], sides[1]) == (0, 0, 1)


def test_mode_bin_is_the_missing_bin():
    rng = np.random.default_rng(0)
    x = np.where(rng.random(200) < 0.6, np.nan, rng.integers(0, 6, 200)).astype(np.float32)
    search = SplitSearch(BinnedFeatures(x[:, None]), np.where(rng.random(200) < 0.5, 1, -1))
    assert search.binned.mode_bin[0] == search.binned.missing_bin[0]
    for n_leaves in (1, 3, 9):
        assert_same_best_splits(
            search, quantize_weights(rng.random(200) + 0.01), rng.integers(-1, n_leaves, 200), n_leaves
        )


def test_fits_are_identical_whichever_search_the_growers_use(monkeypatch):
    """The growers call the compiled search on this data; replaced by the dense one, the ensemble
    is bit-identical."""
    X, y = load_breast_cancer(return_X_y=True)
    X = np.round(X, 1)
    X[np.random.default_rng(1).random(X.shape) < 0.2] = np.nan
    compiled_calls = []
    compiled = SplitSearch.best_splits

    def counted(self, *args):
        compiled_calls.append(args[-1])
        return compiled(self, *args)

    def fit(search):
        monkeypatch.setattr(SplitSearch, "best_splits", search)
        return DeepBoostClassifier(max_depth=4, lam=1e-5, beta=1e-5, n_iter=40).fit(X, y)

    a = fit(counted)
    b = fit(lambda self, wq, leaf_of, n: dense_best(self, wq.astype(np.float64), leaf_of, n))
    assert len(compiled_calls) > 40
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    assert len(a.hypotheses_) == len(b.hypotheses_) > 5
    for ta, tb in zip(a.hypotheses_, b.hypotheses_):
        np.testing.assert_array_equal(ta.feature, tb.feature)
        np.testing.assert_array_equal(ta.threshold, tb.threshold)
        np.testing.assert_array_equal(ta.missing_left, tb.missing_left)


@pytest.mark.parametrize("leaves_per_group", [1, 3])
def test_bounded_scratch_searches_leaves_in_groups_with_the_same_splits(leaves_per_group, monkeypatch):
    """With a scratch bound below all leaves' histograms, the leaves are searched a group at a
    time: the scratch never exceeds the bound, and every leaf gets the same split."""
    rng = np.random.default_rng(7)
    for _ in range(10):
        search, wq, leaf_of, n_leaves = random_problem(rng)
        expected = search.best_splits(wq.astype(np.int64), leaf_of, n_leaves)
        bounded = SplitSearch(search.binned, np.where(search.is_pos == 1, 1, -1))
        bound = leaves_per_group * 2 * bounded.binned.n_bins * 8
        monkeypatch.setattr(bounded, "max_scratch_bytes", bound)
        got = bounded.best_splits(wq.astype(np.int64), leaf_of, n_leaves)
        assert bounded._scratch.nbytes <= bound
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g, e)


def test_a_bounded_scratch_fit_is_identical(monkeypatch):
    X, y = load_breast_cancer(return_X_y=True)
    a = DeepBoostClassifier(max_depth=4, lam=1e-5, beta=1e-5, n_iter=30).fit(X, y)
    monkeypatch.setattr(SplitSearch, "max_scratch_bytes", 1)  # one leaf at a time
    b = DeepBoostClassifier(max_depth=4, lam=1e-5, beta=1e-5, n_iter=30).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert len(a.hypotheses_) == len(b.hypotheses_)
