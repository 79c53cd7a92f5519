"""PairFeatures: log-ratios and products of pairs of numeric columns, chosen by their out-of-fold gain."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf import PairFeatures


@parametrize_with_checks([PairFeatures(cv=2, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def ratio_frame(n=600, seed=0):
    """The label is the rate instalment / amount of a loan; a category column and a noise column beside them."""
    rng = np.random.default_rng(seed)
    amount = np.exp(rng.uniform(np.log(1_000), np.log(40_000), n))
    rate = rng.uniform(0.02, 0.06, n)
    X = pd.DataFrame(
        {
            "amount": amount,
            "colour": pd.Categorical(rng.choice(["red", "green"], size=n)),
            "noise": rng.standard_normal(n),
            "instalment": amount * rate,
        }
    )
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
