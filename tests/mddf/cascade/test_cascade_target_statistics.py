"""The cascades' ``target_statistics``: the first layer's fold models read target statistics of the categorical
columns (and their pairs) from their own training rows; both cascades fit, predict, explain (a statistic's share to
its columns), pickle and save; the same bits for a fixed random_state; nothing changes without a categorical column;
out-of-bag class vectors are refused."""

import pickle

import numpy as np
import pandas as pd
import pytest

import mddf
from mddf import CascadeForestRegressor, MDDFClassifier

SMALL = dict(n_estimators=10, max_layers=2, random_state=0, n_jobs=1)


def survey(n=400, seed=0):
    """Two categorical columns whose combination sets the label, and a noise column."""
    rng = np.random.RandomState(seed)
    a, b = rng.randint(12, size=n), rng.randint(4, size=n)
    X = pd.DataFrame(
        {
            "a": pd.Categorical([f"a{v}" for v in a]),
            "b": pd.Categorical([f"b{v}" for v in b]),
            "noise": rng.randn(n),
        }
    )
    y = np.where((a % 3 == 0) ^ (b == 1), "yes", "no")
    return X, y, a + 0.5 * b + 0.1 * rng.randn(n)


@pytest.mark.parametrize("kind", ["columns", "pairs"])
def test_the_classifier_reads_statistics_in_its_first_layer_only(kind):
    X, y, _ = survey()
    model = MDDFClassifier(target_statistics=kind, **SMALL).fit(X, y)
    first = model.layers_[0]
    assert len(first.statistics_) == 3 and first.statistics_[0].width == (3 if kind == "pairs" else 2)
    assert all(not layer.statistics_ for layer in model.layers_[1:])
    assert model.feature_importances_.shape == (3,) and model.feature_importances_[2] < 0.2
    X_new, y_new, _ = survey(300, seed=1)
    assert model.score(X_new, y_new) > 0.9
    again = MDDFClassifier(target_statistics=kind, **SMALL).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X_new), model.predict_proba(X_new))


def test_the_regressor_reads_statistics_of_its_residual_target():
    X, _, target = survey()
    model = CascadeForestRegressor(target_statistics="pairs", **SMALL).fit(X, target)
    assert len(model.layers_[0].statistics_) == 3 and model.layers_[0].statistics_[0].width == 3
    X_new, _, target_new = survey(300, seed=1)
    assert model.score(X_new, target_new) > 0.8


def test_without_a_categorical_column_the_model_is_bit_for_bit_the_one_without():
    rng = np.random.RandomState(3)
    X = rng.randn(200, 3)
    y = (X[:, 0] > 0).astype(int)
    plain = MDDFClassifier(**SMALL).fit(X, y)
    asked = MDDFClassifier(target_statistics="pairs", **SMALL).fit(X, y)
    assert asked.layers_[0].statistics_ is None
    np.testing.assert_array_equal(asked.predict_proba(X), plain.predict_proba(X))


def test_unseen_and_missing_categories_are_predicted():
    X, y, _ = survey()
    model = MDDFClassifier(target_statistics="pairs", **SMALL).fit(X, y)
    new = X.iloc[:4].copy()
    new["a"] = pd.Categorical(["never seen", None, "a1", "a2"])
    proba = model.predict_proba(new)
    assert proba.shape == (4, 2) and np.isfinite(proba).all()


@pytest.mark.parametrize("estimator", [MDDFClassifier, CascadeForestRegressor])
def test_explain_gives_a_statistic_to_its_columns_and_adds_up(estimator):
    X, y, target = survey(300)
    model = estimator(target_statistics="pairs", **SMALL).fit(X, target if estimator is CascadeForestRegressor else y)
    found = model.explain(X.iloc[:20])
    predicted = model.predict_proba(X.iloc[:20]) if estimator is MDDFClassifier else model.predict(X.iloc[:20])
    assert found.values.shape[1] == 3
    np.testing.assert_allclose(found.base_values + found.values.sum(axis=1), predicted, atol=1e-6)


def test_pickles_save_and_model_dir_keep_each_folds_statistics(tmp_path):
    X, y, _ = survey(300)
    model = MDDFClassifier(target_statistics="pairs", model_dir=str(tmp_path / "models"), **SMALL).fit(X, y)
    expected = model.predict_proba(X)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict_proba(X), expected)
    model.save(tmp_path / "model.mddf")
    np.testing.assert_array_equal(mddf.load(tmp_path / "model.mddf").predict_proba(X), expected)


def test_out_of_bag_class_vectors_are_refused_in_one_line():
    X, y, _ = survey(100)
    with pytest.raises(ValueError, match="MDDFClassifier: target_statistics needs class_vectors='kfold'"):
        MDDFClassifier(target_statistics="columns", class_vectors="oob", **SMALL).fit(X, y)
    with pytest.raises(ValueError, match="target_statistics"):
        MDDFClassifier(target_statistics="every").fit(X, y)


@pytest.mark.parametrize("setting", [{"probe_trees": 0.5}, {"fold_trees": "share"}])
def test_layer_probes_and_shared_fold_trees_keep_each_folds_statistics(setting):
    X, y, _ = survey(300)
    plain = MDDFClassifier(target_statistics="columns", **SMALL).fit(X, y)
    model = MDDFClassifier(target_statistics="columns", **setting, **SMALL).fit(X, y)
    assert len(model.layers_[0].statistics_) == 3
    if "probe_trees" in setting:  # a probe grows the same trees as the fit without it
        np.testing.assert_array_equal(model.predict_proba(X), plain.predict_proba(X))
    else:
        assert model.score(X, y) > 0.9
