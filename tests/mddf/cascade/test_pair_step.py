"""The cascades' pair_features step: the pair search on the training rows before the first layer, its features
appended to x at fit and prediction, named, credited in the importances, and kept by pickles and model_dir."""

import pickle

import numpy as np
import pytest
from loan_table import loan_table

from mddf import CascadeForestRegressor, MDDFClassifier, PairFeatures

SMALL = dict(n_estimators=10, max_layers=3, random_state=0, n_jobs=1)


def loans(n=900, seed=0):
    """The label is the rate instalment / amount; a category column and a noise column beside them."""
    X, rate = loan_table(n, seed)
    return X, np.where(rate > 0.04, "high", "low"), rate


def test_the_classifier_appends_the_ratio_names_it_and_credits_its_columns():
    X, y, _ = loans()
    model = MDDFClassifier(pair_features="auto", **SMALL).fit(X, y)
    assert list(model.pair_feature_names_) == ["log(amount/instalment)"]
    assert model.pair_features_.pairs_ == [(0, 3, "log_ratio")]
    assert model.n_features_in_ == 4 and model.feature_importances_.shape == (4,)
    assert model.layer_importances_.shape == (model.n_layers_, 5)
    assert model.pair_importances_.shape == (1,) and model.pair_importances_[0] > 0.3
    assert model.feature_importances_[[0, 3]].sum() > 0.8  # the ratio's share went to amount and instalment
    np.testing.assert_allclose(model.layer_importances_.sum(axis=1), 1.0)
    plain = MDDFClassifier(**SMALL).fit(X, y)
    assert plain.pair_features_ is None and plain.pair_feature_names_ is None and plain.pair_importances_ is None
    X_new, y_new, _ = loans(400, seed=1)
    assert model.score(X_new, y_new) > plain.score(X_new, y_new) + 0.03


def test_a_search_that_appends_nothing_leaves_the_cascade_bit_for_bit_as_without_it():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 4))
    y = (X[:, 0] > 0).astype(int)  # one column carries the label: no pair helps
    searched = MDDFClassifier(pair_features="auto", **SMALL).fit(X, y)
    assert searched.pair_features_.pairs_ == [] and len(searched.pair_feature_names_) == 0
    plain = MDDFClassifier(**SMALL).fit(X, y)
    np.testing.assert_array_equal(searched.predict_proba(X), plain.predict_proba(X))
    np.testing.assert_array_equal(searched.oof_features_[-1], plain.oof_features_[-1])


def test_prediction_transform_pickles_and_model_dir_carry_the_appended_features(tmp_path):
    X, y, _ = loans(600)
    model = MDDFClassifier(pair_features="auto", model_dir=str(tmp_path / "m"), **SMALL).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(again.transform(X), model.transform(X))
    with pytest.raises(ValueError, match="expecting 4 features"):  # checked before the pairs are appended
        model.predict(X.drop(columns="noise"))


def test_a_pairfeatures_instance_sets_the_search_and_the_cascade_sets_its_seed_threads_and_categories():
    X, y, _ = loans(600)
    template = PairFeatures(operations=("difference",), max_features=1, random_state=123, n_jobs=7)
    model = MDDFClassifier(pair_features=template, **SMALL).fit(X, y)
    assert template.random_state == 123 and not hasattr(template, "pairs_")  # the instance is never fitted
    search = model.pair_features_
    assert search.operations == ("difference",) and search.n_jobs == 1 and search.random_state != 123
    assert list(search.columns_) == [0, 2, 3]  # the category column is never paired
    assert all(name.count("-") == 1 for name in model.pair_feature_names_)
    with pytest.raises(ValueError, match="pair_features"):
        MDDFClassifier(pair_features="yes", **SMALL).fit(X, y)


def test_the_regressor_appends_a_product_its_target_read_as_values():
    rng = np.random.default_rng(3)
    X = rng.uniform(1, 3, (600, 3))
    y = np.round(10 * X[:, 0] * X[:, 1])  # integer values: a continuous target all the same
    model = CascadeForestRegressor(pair_features="auto", **SMALL).fit(X, y)
    assert ("x0*x1" in model.pair_feature_names_) or ("log(x0/x1)" in model.pair_feature_names_)
    assert model.feature_importances_.shape == (3,) and model.pair_importances_.shape == (
        len(model.pair_feature_names_),
    )
    plain = CascadeForestRegressor(pair_features=None, **SMALL).fit(X, y)
    X_new = rng.uniform(1, 3, (300, 3))
    y_new = np.round(10 * X_new[:, 0] * X_new[:, 1])
    assert model.score(X_new, y_new) > plain.score(X_new, y_new)


def test_rows_of_weight_zero_and_held_out_rows_do_not_reach_the_search(monkeypatch):
    searched = []
    fit_task = PairFeatures.fit_task
    monkeypatch.setattr(
        PairFeatures, "fit_task", lambda self, X, y, **kw: searched.append(len(y)) or fit_task(self, X, y, **kw)
    )
    X, y, _ = loans(600)
    weight = np.ones(len(y))
    weight[:200] = 0.0
    MDDFClassifier(pair_features="auto", **SMALL).fit(X, y, sample_weight=weight)
    MDDFClassifier(pair_features="auto", validation_fraction=0.25, **SMALL).fit(X, y)
    assert searched == [400, 450]
