"""Category subsets in the cascades' binned trees (``categorical_splits="subset"``)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import r2_score

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.baselines import GCForestClassifier
from mddf.forests import BinnedInput, make_gbdt, make_hgb

SET = ["c1", "c4", "c6"]  # no threshold on the codes of c0 .. c7 isolates these three


def _data(n, seed, regression=False):
    rng = np.random.RandomState(seed)
    category = rng.randint(0, 8, n)
    X = pd.DataFrame({"category": pd.Categorical([f"c{c}" for c in category], categories=[f"c{c}" for c in range(8)])})
    inside = np.isin(X["category"].astype(str), SET)
    if regression:
        return X, 3.0 * inside + 0.1 * rng.standard_normal(n)
    return X, np.where(inside, "in", "out")


SMALL = dict(n_estimators=5, max_layers=1, max_depth_factor=1, random_state=0)  # depth-2 trees


def test_a_category_set_is_learned_by_shallow_trees_with_subsets_and_not_with_thresholds():
    X, y = _data(600, 0)
    X_test, y_test = _data(400, 1)
    kw = dict(forest_types=("rf", "rf"), **SMALL)
    subset = MDDFClassifier(categorical_splits="subset", **kw).fit(X, y)
    ordinal = MDDFClassifier(categorical_splits="ordinal", **kw).fit(X, y)
    assert subset.score(X_test, y_test) == 1.0
    assert ordinal.score(X_test, y_test) < 0.9


def test_the_classifier_splits_categories_into_subsets_by_default():
    X, y = _data(600, 0)
    kw = dict(forest_types=("rf", "crf"), **SMALL)
    default = MDDFClassifier(**kw).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(default, MDDFClassifier(categorical_splits="subset", **kw).fit(X, y).predict_proba(X))


def test_the_regressor_splits_categories_into_subsets_by_default():
    X, y = _data(600, 2, regression=True)
    kw = dict(forest_types=("rf", "crf"), **SMALL)
    default = CascadeForestRegressor(**kw).fit(X, y).predict(X)
    subset = CascadeForestRegressor(categorical_splits="subset", **kw).fit(X, y).predict(X)
    ordinal = CascadeForestRegressor(categorical_splits="ordinal", **kw).fit(X, y).predict(X)
    np.testing.assert_array_equal(default, subset)
    assert not np.array_equal(default, ordinal)


def test_the_regression_cascade_learns_it_too():
    X, y = _data(600, 2, regression=True)
    X_test, y_test = _data(400, 3, regression=True)
    kw = dict(forest_types=("rf", "rf"), **SMALL)
    subset = CascadeForestRegressor(categorical_splits="subset", **kw).fit(X, y)
    ordinal = CascadeForestRegressor(categorical_splits="ordinal", **kw).fit(X, y)
    assert r2_score(y_test, subset.predict(X_test)) > 0.99 > r2_score(y_test, ordinal.predict(X_test)) + 0.1


def test_gcforest_passes_its_categorical_columns_to_the_cascade():
    X, y = _data(600, 4)
    X_test, y_test = _data(400, 5)
    model = GCForestClassifier(categorical_splits="subset", n_estimators=5, max_layers=1, random_state=0)
    assert model.fit(X, y).score(X_test, y_test) == 1.0


@pytest.mark.parametrize("params", [{}, {"tree_method": "exact"}])
def test_without_subset_splits_to_make_the_predictions_do_not_change(params):
    # numeric columns only, or scikit-learn's trees (which split codes): "subset" changes nothing
    rng = np.random.RandomState(6)
    X = rng.standard_normal((300, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    if params:
        X = pd.DataFrame(X, columns=list("abcd")).assign(d=pd.Categorical(rng.randint(0, 4, 300)))
    # the four forests: the boosted member follows categorical_splits with XGBoost's own categorical splits
    kw = dict(n_estimators=5, max_layers=2, forest_types=("rf", "rf", "crf", "crf"), random_state=0, **params)
    a = MDDFClassifier(categorical_splits="subset", **kw).fit(X, y).predict_proba(X)
    b = MDDFClassifier(categorical_splits="ordinal", **kw).fit(X, y).predict_proba(X)
    assert np.array_equal(a, b)


def test_a_column_of_more_than_255_categories_is_split_at_thresholds():
    rng = np.random.RandomState(7)
    X = np.column_stack([rng.randint(0, 300, 2000), rng.randint(0, 20, 2000)]).astype(np.float32)
    binned = BinnedInput(X, categorical=np.array([True, True]))
    assert binned.categorical.tolist() == [0, 1]
    X[rng.rand(2000) < 0.1, 1] = np.nan  # 20 categories and missing values: still a set of codes
    assert BinnedInput(X, categorical=np.array([True, True])).categorical.tolist() == [0, 1]


# ---------------------------------------------------------------- the XGBoost members and predictors
def test_gbdt_is_given_the_columns_to_split_into_category_subsets():
    gbdt = make_gbdt(3, categorical=[True, False, False])
    assert gbdt.get_params()["enable_categorical"] and gbdt.get_params()["feature_types"] == ["c", "q", "q"]
    regressor = make_gbdt(3, "regression", categorical=np.array([False, True]))
    assert regressor.get_params()["feature_types"] == ["q", "c"]
    # no categorical column: the model of old, every column a number
    assert make_gbdt(3, categorical=[False, False]).get_params() == make_gbdt(3).get_params()
    assert make_gbdt(3).get_params()["feature_types"] is None


def test_hgb_is_given_the_columns_to_split_into_category_subsets():
    hgb = make_hgb(3, categorical=[True, False])
    assert hgb.categorical_features.tolist() == [True, False] and hgb.random_state == 3
    assert type(make_hgb(task="regression")).__name__ == "HistGradientBoostingRegressor"
    assert make_hgb().categorical_features == "from_dtype"  # no mask: no category in a numeric array
    assert make_hgb(3, categorical=[False, False]).get_params() == make_hgb(3).get_params()  # as make_gbdt


def _with_numbers(X, seed):
    noise = np.random.RandomState(seed).standard_normal(len(X))
    return X.assign(noise=noise)


@pytest.mark.parametrize("splits, expected", [("subset", ["c", "q"]), ("ordinal", None)])
def test_the_gbdt_members_split_the_categorical_columns_as_the_trees_do(splits, expected):
    X, y = _data(300, 8)
    X = _with_numbers(X, 8)
    model = MDDFClassifier(forest_types=("rf", "gbdt"), categorical_splits=splits, **SMALL).fit(X, y)
    for fold_model in model.layers_[0].models_[1]:
        assert fold_model.estimator.get_params()["feature_types"] == expected


@pytest.mark.parametrize("make", [MDDFClassifier, CascadeForestRegressor])
def test_the_xgboost_predictor_splits_the_categorical_columns_of_x_and_takes_unseen_ones(make):
    regression = make is CascadeForestRegressor
    X, y = _data(300, 9, regression=regression)
    X = _with_numbers(X, 9)
    kw = dict(forest_types=("rf", "crf"), predictor="xgboost", categorical_splits="subset", **SMALL)
    model = make(**kw).fit(X, y)
    passed = model.oof_features_[-1].shape[1]  # the columns of f_T (h_T) after x's
    assert model.predictor_.get_params()["feature_types"] == ["c", "q"] + ["q"] * passed
    ordinal = make(**dict(kw, categorical_splits="ordinal")).fit(X, y)
    assert ordinal.predictor_.get_params()["feature_types"] is None
    unseen = X.head(5).assign(category=pd.Categorical(["c9"] * 5))  # unseen at fit: NaN, the learned missing side
    assert np.all(np.isfinite(model.predict_proba(unseen) if not regression else model.predict(unseen)))


@pytest.mark.parametrize("make", [MDDFClassifier, CascadeForestRegressor])
def test_the_hgb_predictor_splits_them_too(make):
    X, y = _data(300, 10, regression=make is CascadeForestRegressor)
    X = _with_numbers(X, 10)
    kw = dict(forest_types=("rf",), predictor="hgb", **SMALL)
    subset = make(categorical_splits="subset", **kw).fit(X, y)
    passed = subset.oof_features_[-1].shape[1]
    assert subset.predictor_.get_params()["categorical_features"].tolist() == [True, False] + [False] * passed
    assert subset.predictor_.is_categorical_.tolist() == [True, False] + [False] * passed
    ordinal = make(categorical_splits="ordinal", **kw).fit(X, y)
    assert ordinal.predictor_.get_params()["categorical_features"] == "from_dtype"  # its default: none on numpy
