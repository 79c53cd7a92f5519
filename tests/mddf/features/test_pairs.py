"""PairFeatures: log-ratios and products of pairs of numeric columns, chosen by their out-of-fold gain."""

import pickle

import numpy as np
import pandas as pd
import pytest
from estimator_checks_table import expected_failed_checks
from loan_table import loan_table
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf import PairFeatures


@parametrize_with_checks(
    [PairFeatures(cv=2, random_state=0)], expected_failed_checks=expected_failed_checks, xfail_strict=True
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def ratio_frame(n=600, seed=0):
    """The label is the rate instalment / amount of a loan; a category column and a noise column beside them."""
    X, rate = loan_table(n, seed)
    return X, (rate > 0.04).astype(int)


def test_the_ratio_that_carries_the_label_is_chosen_first_and_appended_by_name():
    X, y = ratio_frame()
    pairs = PairFeatures(random_state=0).fit(X, y)
    assert list(pairs.columns_) == [0, 2, 3]  # the category column is never paired
    assert pairs.pairs_[0] == (0, 3, "log_ratio") and pairs.gains_[0] > 0.5
    assert set(pairs.candidate_gains_) == {
        (a, b, op) for a, b in ((0, 2), (0, 3), (2, 3)) for op in ("log_ratio", "product")
    }
    assert all(np.diff(pairs.gains_) <= 0) and all(g > pairs.min_gain for g in pairs.gains_)
    out = pairs.transform(X)
    assert list(out.columns[:4]) == list(X.columns) and out.columns[4] == "log(amount/instalment)"
    pd.testing.assert_frame_equal(out[X.columns], X)
    np.testing.assert_allclose(out["log(amount/instalment)"], np.log1p(X["amount"]) - np.log1p(X["instalment"]))
    assert list(pairs.get_feature_names_out()) == list(out.columns)


def test_the_ratio_lets_a_forest_read_the_label():
    X, y = ratio_frame(600, seed=1)
    forest = RandomForestClassifier(n_estimators=30, random_state=0)
    plain = cross_val_score(forest, X.drop(columns="colour"), y, cv=3).mean()
    paired = cross_val_score(make_pipeline(PairFeatures(random_state=0), forest), X.drop(columns="colour"), y, cv=3)
    assert paired.mean() > plain + 0.05


def test_a_regression_target_a_product_and_missing_values():
    rng = np.random.default_rng(2)
    A = rng.uniform(-2, 2, (500, 3))
    y = A[:, 0] * A[:, 1] + 0.05 * rng.standard_normal(500)
    A[::10, 2] = np.nan
    pairs = PairFeatures(operations=("product",), random_state=0).fit(A, y)
    assert pairs.pairs_[0] == (0, 1, "product")
    out = pairs.transform(A)
    assert out.shape == (500, 3 + len(pairs.pairs_))
    np.testing.assert_allclose(out[:, 3], A[:, 0] * A[:, 1])
    assert list(pairs.get_feature_names_out()[3:4]) == ["x0*x1"]
    assert np.isnan(PairFeatures(operations=("product",), min_gain=-1, random_state=0).fit(A, y).transform(A)).any()


def test_no_pair_gains_nothing_is_appended_and_bad_input_is_refused():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((200, 2))
    y = (A[:, 0] > 0).astype(int)  # one column alone carries the label: no pair feature helps
    pairs = PairFeatures(random_state=0).fit(A, y)
    assert pairs.pairs_ == [] and pairs.transform(A).shape == (200, 2)
    with pytest.raises(ValueError, match="operations must be some of"):
        PairFeatures(operations=("ratio",)).fit(A, y)
    with pytest.raises(ValueError, match="requires y"):
        PairFeatures().fit(A)
    with pytest.raises(ValueError, match="infinite values"):
        PairFeatures().fit(pd.DataFrame({"a": [1.0, np.inf, 2.0], "b": [1.0, 2.0, 3.0]}), [0, 1, 0])


def test_the_same_seed_gives_the_same_pairs_and_a_fitted_transformer_pickles():
    X, y = ratio_frame(300, seed=4)
    first = PairFeatures(random_state=7, max_samples=200).fit(X, y)
    again = pickle.loads(pickle.dumps(PairFeatures(random_state=7, max_samples=200).fit(X, y)))
    assert first.pairs_ == again.pairs_ and first.candidate_gains_ == again.candidate_gains_
    pd.testing.assert_frame_equal(first.transform(X), again.transform(X))


# ------------------------------------------------------------------------------------------ the search
def reference_search(X, y, operations=("log_ratio", "product"), cv=3, max_depth=4, min_gain=0.02, seed=0):
    """The search PairFeatures made before its probes were the project's trees: one scikit-learn tree fitted per
    probe, the gain of a feature the relative reduction of the held-out loss (log-loss of a tree with leaves of
    five rows or more, squared error), the features above ``min_gain`` of highest gain first."""
    from itertools import combinations

    from sklearn.model_selection import KFold, StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    from mddf.features.pair_search import pair_values

    regression = y.dtype.kind == "f"
    splitter = (
        KFold(cv, shuffle=True, random_state=seed)
        if regression
        else StratifiedKFold(cv, shuffle=True, random_state=seed)
    )
    folds = list(splitter.split(X, y))

    def loss(A):
        total = 0.0
        for fit, held in folds:
            if regression:
                tree = DecisionTreeRegressor(max_depth=max_depth, random_state=seed).fit(A[fit], y[fit])
                total += np.sum((y[held] - tree.predict(A[held])) ** 2)
            else:
                tree = DecisionTreeClassifier(max_depth=max_depth, min_samples_leaf=5, random_state=seed)
                proba = tree.fit(A[fit], y[fit]).predict_proba(A[held])
                total -= np.sum(np.log(np.clip(proba[np.arange(len(held)), y[held]], 1e-6, 1)))
        return total

    gains = {}
    for a, b in combinations(range(X.shape[1]), 2):
        base = loss(X[:, [a, b]])
        for op in operations:
            gains[(a, b, op)] = (
                base - loss(np.column_stack([X[:, a], X[:, b], pair_values(X[:, a], X[:, b], op)]))
            ) / base
    return [k for k in sorted(gains, key=lambda k: -gains[k]) if gains[k] > min_gain]


def _signals(seed, n=2000):
    """Three tables whose label follows a pair: a ratio (classes), a product (classes), a product (values)."""
    rng = np.random.default_rng(seed)
    X = np.exp(rng.normal(size=(n, 5)))
    ratio = (np.log(X[:, 0] / X[:, 3]) + 0.1 * rng.standard_normal(n) > 0).astype(int)
    product = (X[:, 1] * X[:, 2] > 1.0).astype(int)
    values = np.log(X[:, 2] * X[:, 4]) + 0.1 * rng.standard_normal(n)
    return [(X, ratio), (X, product), (X, values)]


@pytest.mark.parametrize("seed", [0, 1])
def test_the_probe_trees_choose_the_pairs_the_scikit_learn_search_chose(seed):
    for X, y in _signals(seed):
        ours = PairFeatures(random_state=seed).fit(X, y)
        assert ours.pairs_, "a planted pair is found"
        assert ours.pairs_[0] == reference_search(X, y, seed=seed)[0]


@pytest.mark.slow
def test_with_more_columns_than_max_columns_the_screen_keeps_the_pairs_columns_and_the_same_pair_wins():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((1500, 30))
    X[:, [7, 22]] = np.exp(X[:, [7, 22]])
    y = (np.log(X[:, 7] / X[:, 22]) + 0.3 * rng.standard_normal(1500) > 0).astype(int)
    screened = PairFeatures(max_columns=8, random_state=0).fit(X, y)
    assert len(screened.screened_columns_) == 8 and {7, 22} <= set(screened.screened_columns_)
    assert len(screened.candidate_gains_) == 8 * 7 // 2 * 2  # the pairs of the kept columns only
    everything = PairFeatures(max_columns=None, random_state=0).fit(X, y)
    assert len(everything.candidate_gains_) == 30 * 29 // 2 * 2
    assert screened.pairs_[0] == everything.pairs_[0] == (7, 22, "log_ratio")
    for key, gain in screened.candidate_gains_.items():  # a pair of kept columns: the same gain either way
        assert everything.candidate_gains_[key] == gain


def test_the_cost_is_bounded_by_the_pairs_of_the_kept_columns(monkeypatch):
    from mddf.forests.probes import ProbeTrees

    calls = []
    losses = ProbeTrees.losses
    monkeypatch.setattr(ProbeTrees, "losses", lambda self, *args: calls.append(1) or losses(self, *args))
    rng = np.random.default_rng(6)
    X = rng.standard_normal((300, 40))
    PairFeatures(max_columns=6, operations=("log_ratio", "product", "difference"), random_state=0).fit(X, X[:, 0] > 0)
    assert len(calls) == 6 * 5 // 2 * (1 + 3)  # per pair: the pair alone, then each operation's feature


@pytest.mark.slow
def test_on_noise_the_two_se_test_seldom_appends_and_without_it_the_gain_alone_decides():
    appended = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        X = np.exp(rng.normal(size=(1000, 6)))
        y = (X[:, 0] + X[:, 1] + 2 * rng.standard_normal(1000) > 3.3).astype(int)  # no pair beats its columns
        pairs = PairFeatures(random_state=seed).fit(X, y)
        appended.append(len(pairs.pairs_))
        assert all(pairs.candidate_z_[k] > 2.0 and pairs.candidate_gains_[k] > 0.02 for k in pairs.pairs_)
        unchecked = PairFeatures(min_gain_se=0.0, min_gain=-1.0, random_state=seed).fit(X, y)
        assert len(unchecked.pairs_) == unchecked.max_features  # without either threshold, the best 8 go in
    assert sum(n > 0 for n in appended) <= 2


def test_a_difference_is_found_when_the_label_follows_one_and_named_a_minus_b():
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"income": rng.uniform(1, 10, 800), "spent": rng.uniform(1, 10, 800), "x": rng.normal(size=800)})
    y = ((X["income"] - X["spent"]) > 0.5).astype(int)
    pairs = PairFeatures(operations=("log_ratio", "product", "difference"), random_state=0).fit(X, y)
    assert pairs.pairs_[0][:2] == (0, 1) and "income-spent" in pairs.get_feature_names_out()
    np.testing.assert_allclose(pairs.transform(X)["income-spent"], X["income"] - X["spent"])


def test_threads_do_not_change_the_gains_and_fit_task_reads_integer_targets_as_values():
    from mddf.features.pair_search import THREADED_MIN_ROWS

    X, y = _signals(0)[0]
    assert len(X) >= THREADED_MIN_ROWS  # so two threads do try the pairs
    one, two = PairFeatures(random_state=0, n_jobs=1).fit(X, y), PairFeatures(random_state=0, n_jobs=2).fit(X, y)
    assert one.candidate_gains_ == two.candidate_gains_ and one.pairs_ == two.pairs_
    assert list(one.candidate_gains_) == list(two.candidate_gains_)  # in the same order
    counts = np.round(3 * np.log(X[:, 1] * X[:, 2])).astype(int) + 20  # integer values of a continuous target
    as_values = PairFeatures(random_state=0).fit_task(X, counts, regression=True)
    as_classes = PairFeatures(random_state=0).fit(X, counts)
    assert as_values.candidate_gains_ != as_classes.candidate_gains_
    assert as_values.pairs_[0] == (1, 2, "product")


def test_products_beyond_float32_are_clipped_to_its_range():
    from mddf.features.pair_search import pair_values

    out = pair_values(np.array([1e30, -1e30, np.nan]), np.array([1e10, 1e10, 1.0]), "product")
    assert out[0] == np.finfo(np.float32).max and out[1] == -np.finfo(np.float32).max and np.isnan(out[2])


def test_duplicate_column_names_and_list_cells_get_errors_that_name_them():
    X, y = ratio_frame(100)
    with pytest.raises(ValueError, match=r"PairFeatures: X has duplicate column names: 'amount' \(2 times\)"):
        PairFeatures().fit(X.set_axis(["amount", "colour", "noise", "amount"], axis=1), y)
    with pytest.raises(TypeError, match=r"PairFeatures: column\(s\) 'extra' of X hold lists"):
        PairFeatures().fit(X.assign(extra=[[1, 2]] * len(X)), y)
