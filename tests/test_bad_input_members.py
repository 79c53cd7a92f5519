"""Bad input, as a specification: members of ``forest_types`` and predictors that misbehave (NaN, the wrong width,
rows not summing to 1, no ``classes_``, no NaN support), for mdDF and the regressor."""

from __future__ import annotations

import numpy as np
import pytest
from bad_input import Cases, assert_learned, data, make, raises
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from mddf import PairFeatures


class NaNProba(ClassifierMixin, BaseEstimator):
    """A classifier whose probabilities are NaN."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), np.nan)


class WideProba(ClassifierMixin, BaseEstimator):
    """A classifier whose probabilities have one column too many."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_) + 1), 1.0 / (len(self.classes_) + 1))


class ProbaSumsTo7(NaNProba):
    """A classifier whose probability rows sum to 7."""

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), 3.5)


class NoClasses(ClassifierMixin, BaseEstimator):
    """A classifier without ``classes_``."""

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        return np.full((len(X), 2), 0.5)


class NaNPrediction(RegressorMixin, BaseEstimator):
    """A regressor whose predictions are NaN."""

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.full(len(X), np.nan)


def imputing_logistic():
    return make_pipeline(SimpleImputer(), LogisticRegression())


CASES = Cases()


# members of forest_types and the predictor (mdDF)


@CASES.add(("mddf",), "error")
def member_returns_nan(name):
    X, y = data(name)
    with raises(ValueError, "forest_types[1] (NaNProba): predict_proba returned non-finite values"):
        make(name, forest_types=("rf", NaNProba())).fit(X, y)


@CASES.add(("mddf",), "error")
def member_returns_wrong_width(name):
    X, y = data(name)
    with raises(ValueError, "forest_types[1] (WideProba): predict_proba returned shape (20, 3); expected (20, 2)"):
        make(name, forest_types=("rf", WideProba())).fit(X, y)


@CASES.add(("mddf",), "result")
def member_returns_rows_not_summing_to_1(name):
    X, y = data(name)
    for params in (dict(forest_types=("rf", ProbaSumsTo7())), dict(predictor=ProbaSumsTo7())):
        model = make(name, **params).fit(X, y)
        np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


@CASES.add(("mddf",), "result")
def float32_probabilities_of_xgboost_sum_to_1(name):
    # XGBoost's probabilities are float32 (rows summing to 1 within about 1e-7): read as float64 and renormalised,
    # as the predictor and as a member of the layers, with and without calibration
    X, y = data(name, n=60)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    for params in (
        dict(predictor="xgboost"),
        dict(predictor="xgboost", predictor_input="auto"),
        dict(forest_types=("rf", "gbdt"), calibration=None),
        dict(forest_types=("rf", "gbdt")),
    ):
        model = make(name, **params).fit(X, y)
        for proba in (model.predict_proba(X), *model.staged_predict_proba(X)):
            assert proba.dtype == np.float64
            np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@CASES.add(("mddf", "regressor"), "error")
def pair_features_with_bad_parameters(name):
    # checked at the cascade's fit, before any work, by mddf's message naming pair_features (scikit-learn skips
    # the nested check inside the cascade's own)
    X, y = data(name)
    for params, problem in (
        (dict(max_features=-3), "The 'max_features' parameter of PairFeatures must be an int in the range [1, inf)"),
        (dict(max_features=0), "The 'max_features' parameter of PairFeatures must be an int in the range [1, inf)"),
        (dict(cv=1), "The 'cv' parameter of PairFeatures must be an int in the range [2, inf). Got 1"),
        (dict(operations=("ratio",)), "operations must be some of ['log_ratio', 'product', 'difference']"),
    ):
        search = PairFeatures(**params)
        with raises(ValueError, f"{type(make(name)).__name__}: pair_features={search!r}: {problem}"):
            make(name, pair_features=search).fit(X, y)


@CASES.add(("mddf",), "error")
def member_without_classes(name):
    X, y = data(name)
    with raises(ValueError, "forest_types[1] (NoClasses): has no classes_ after fit"):
        make(name, forest_types=("rf", NoClasses())).fit(X, y)
    with raises(ValueError, "predictor (NoClasses): has no classes_ after fit"):
        make(name, predictor=NoClasses()).fit(X, y)


@CASES.add(("mddf",), "error")
def member_without_nan_support_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    with raises(ValueError, "forest_types[1]: LogisticRegression does not accept missing values (NaN)"):
        make(name, forest_types=("rf", LogisticRegression())).fit(X, y)


@CASES.add(("mddf",), "result")
def imputing_pipeline_member_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    model = make(name, forest_types=("rf", imputing_logistic())).fit(X, y)
    assert_learned(name, model, X, y)


@CASES.add(("mddf",), "result")
def imputing_pipeline_predictor_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    model = make(name, predictor=imputing_logistic()).fit(X, y)
    assert_learned(name, model, X, y)


@CASES.add(("mddf",), "error")
def predictor_returns_nan(name):
    X, y = data(name)
    with raises(ValueError, "predictor (NaNProba): predict_proba returned non-finite values"):
        make(name, predictor=NaNProba()).fit(X, y)


@CASES.add(("regressor",), "error")
def regressor_predictor_returns_nan(name):
    # it read as a shape complaint: "predict returned (16,) values where (16,) finite ones were expected"
    X, y = data(name)
    with raises(ValueError, "predictor (NaNPrediction): predict returned non-finite values (NaN or infinity) in 16"):
        make(name, predictor=NaNPrediction()).fit(X, y)
    with raises(ValueError, "forest_types[1] (NaNPrediction): predict returned non-finite values (NaN or infinity)"):
        make(name, forest_types=("rf", NaNPrediction())).fit(X, y)


@CASES.add(("mddf",), "error")
def predictor_without_nan_support_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    with raises(ValueError, "predictor: LogisticRegression does not accept missing values (NaN)"):
        make(name, predictor=LogisticRegression()).fit(X, y)


@pytest.mark.parametrize("name, case_name", CASES.matrix, ids=[f"{n}-{c}" for n, c in CASES.matrix])
def test_bad_input(name, case_name):
    CASES[case_name].run(name)
