"""CascadeForestRegressor: model_dir, min_gain_se, validation_fraction and predictor, as the classifier has them;
members other than the forests, and the residual target."""

import os
import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.datasets import make_friedman1
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mddf import CascadeForestRegressor
from mddf.storage import StoredModel
from mddf.utils._stopping import improves_mse

#: gcForest's four forests a layer, each with every tree, and the last layer's mean predicting: the cascade these
#: tests read (the defaults add LightGBM, halve the later layers' trees and predict by ensemble selection).
FORESTS = {"forest_types": ("rf", "rf", "crf", "crf"), "later_layer_trees": None, "final_mixture": "cascade"}


def _small(**params):
    # no pair search: these tests read the layers' inputs, x and the previous layers' outputs
    return CascadeForestRegressor(
        **{"n_estimators": 8, "max_layers": 3, "pair_features": None, "random_state": 0, **FORESTS, **params}
    )


def _friedman(n=300, seed=0):
    X, y = make_friedman1(n, noise=1.0, random_state=seed)
    return X.astype(np.float32), y


# ---------------------------------------------------------------- model_dir
@pytest.mark.parametrize("where", ["folder", "auto"])
def test_model_dir_keeps_the_forests_on_disk_with_bit_identical_results(tmp_path, where):
    X, y = _friedman()
    memory = _small().fit(X, y)
    model_dir = str(tmp_path / "models") if where == "folder" else "auto"
    disk = _small(model_dir=model_dir).fit(X, y)
    stored = [m for block in disk.layers_ for models in block.models_ for m in models]
    assert stored and all(isinstance(m, StoredModel) for m in stored)
    assert os.path.isdir(disk.model_dir_) and memory.model_dir_ is None
    np.testing.assert_array_equal(disk.predict(X), memory.predict(X))
    for a, b in zip(disk.oof_features_, memory.oof_features_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(disk.feature_importances_, memory.feature_importances_)
    kept = sorted(e for e in os.listdir(disk.model_dir_) if e.startswith("layer-"))
    assert kept == [f"layer-{t:03d}" for t in range(1, disk.n_layers_ + 1)]  # discarded layers are deleted
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(disk)).predict(X), memory.predict(X))
    disk.to_memory()
    assert disk.model_dir_ is None
    np.testing.assert_array_equal(disk.predict(X), memory.predict(X))


def test_a_moved_model_dir_is_relocated(tmp_path):
    X, y = _friedman()
    model = _small(model_dir=str(tmp_path / "a")).fit(X, y)
    expected = model.predict(X)
    os.rename(tmp_path / "a", tmp_path / "b")
    with pytest.raises(FileNotFoundError, match="relocate_model_dir"):
        model.predict(X)
    np.testing.assert_array_equal(model.relocate_model_dir(tmp_path / "b").predict(X), expected)
    with pytest.raises(ValueError, match="in memory"):
        _small(max_layers=1).fit(X, y).relocate_model_dir(tmp_path / "b")


# ---------------------------------------------------------------- min_gain_se
def test_min_gain_se_of_zero_is_the_default_and_a_large_one_stops_after_the_first_layers():
    X, y = _friedman()
    default = _small(max_layers=4, n_tolerant_layers=1).fit(X, y)
    zero = _small(max_layers=4, n_tolerant_layers=1, min_gain_se=0.0).fit(X, y)
    np.testing.assert_array_equal(zero.predict(X), default.predict(X))
    strict = _small(max_layers=4, n_tolerant_layers=1, min_gain_se=1e6).fit(X, y)
    assert len(strict.train_history_) == 2 and strict.n_layers_ <= 2
    assert "out-of-fold MSE did not improve for 1 layers" in strict.stop_reason_


def test_improves_mse_asks_for_a_gain_of_min_gain_se_standard_errors():
    best = np.array([1.0, 1.0, 1.0, 1.0])
    errors = np.array([0.0, 0.5, 1.0, 0.9])  # d = [1, 0.5, 0, 0.1]: mean 0.4, std 0.39, se 0.196
    score, best_score = -errors.mean(), -best.mean()
    assert improves_mse(errors, None, score, -np.inf, min_gain_se=5.0)  # the first layer always counts
    assert improves_mse(errors, best, score, best_score, min_gain_se=2.0)
    assert not improves_mse(errors, best, score, best_score, min_gain_se=2.1)
    assert not improves_mse(errors, best, score, best_score, tol=0.5)
    assert not improves_mse(best, errors, best_score, score)
    # frequency weights: a weight of 2 counts as the row twice
    weights = np.array([2.0, 1.0, 1.0, 1.0])
    repeated = [np.r_[e[:1], e] for e in (errors, best)]
    for k in (1.0, 2.0, 2.5):
        assert improves_mse(
            errors,
            best,
            -np.average(errors, weights=weights),
            -np.average(best, weights=weights),
            min_gain_se=k,
            sample_weight=weights,
        ) == improves_mse(*repeated, -repeated[0].mean(), -repeated[1].mean(), min_gain_se=k)


# ---------------------------------------------------------------- validation_fraction
def test_validation_fraction_monitors_the_held_out_mse():
    X, y = _friedman(400)
    model = _small(validation_fraction=0.25, max_layers=4, n_tolerant_layers=1).fit(X, y)
    assert all({"val_mse", "val_r2"} <= set(record) for record in model.train_history_)
    assert model.n_layers_ == int(np.argmin([r["val_mse"] for r in model.train_history_])) + 1
    assert [f.shape for f in model.oof_features_] == [(300, 4)] * model.n_layers_
    assert model.stop_reason_.startswith("validation MSE") or model.stop_reason_ == "reached max_layers=4"
    weighted = _small(validation_fraction=0.25).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(weighted.predict(X), _small(validation_fraction=0.25).fit(X, y).predict(X))


def test_validation_fraction_needs_a_positive_weight_in_each_part():
    X, y = _friedman(40)
    weights = np.zeros(len(y))
    weights[0] = 1.0
    with pytest.raises(ValueError, match="validation_fraction split has sample weight zero"):
        _small(validation_fraction=0.5).fit(X, y, sample_weight=weights)


# ---------------------------------------------------------------- predictor
@pytest.mark.parametrize("predictor", ["forest", LinearRegression(), make_pipeline(StandardScaler(), Ridge())])
@pytest.mark.slow
def test_predictor_is_trained_on_x_and_the_out_of_fold_predictions(predictor):
    X, y = _friedman()
    X_test, _ = _friedman(100, seed=1)
    model = _small(predictor=predictor).fit(X, y)
    cascade = _small().fit(X, y)
    inputs = np.hstack([X_test, model.transform(X_test)])
    np.testing.assert_array_equal(model.predict(X_test), model.predictor_.predict(inputs))
    stages, own = list(model.staged_predict(X_test)), list(cascade.staged_predict(X_test))
    np.testing.assert_array_equal(stages[-1], model.predict(X_test))  # the last stage is the predictor's
    np.testing.assert_array_equal(np.array(stages[:-1]), np.array(own[:-1]))  # the stages before: the cascade's
    np.testing.assert_array_equal(model.oof_features_[-1], cascade.oof_features_[-1])
    again = _small(predictor=predictor).fit(X, y)
    np.testing.assert_array_equal(again.predict(X_test), model.predict(X_test))  # seeded from random_state
    assert cascade.predictor_ is None


def test_xgboost_predictor():
    pytest.importorskip("xgboost")
    X, y = _friedman()
    model = _small(predictor="xgboost", max_layers=1).fit(X, y)
    assert type(model.predictor_).__name__ == "XGBRegressor"
    assert np.all(np.isfinite(model.predict(X)))


def test_predictor_errors():
    X, y = _friedman(100)
    with pytest.raises(TypeError, match="is a class"):
        _small(predictor=LinearRegression).fit(X, y)

    class NoWeights(LinearRegression):
        def fit(self, X, y):
            return super().fit(X, y)

    weights = np.r_[np.ones(50), 2 * np.ones(50)]
    with pytest.raises(ValueError, match="takes no sample_weight"):
        _small(predictor=NoWeights(), max_layers=1).fit(X, y, sample_weight=weights)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="does not accept missing values"):
        _small(predictor=LinearRegression(), max_layers=1).fit(X_nan, y)


def test_hgb_predictor():
    X, y = _friedman()
    model = _small(predictor="hgb", max_layers=1).fit(X, y)
    assert type(model.predictor_).__name__ == "HistGradientBoostingRegressor"
    assert isinstance(model.predictor_.random_state, int)  # seeded from random_state
    np.testing.assert_array_equal(model.predict(X), model.predictor_.predict(np.hstack([X, model.transform(X)])))


# ---------------------------------------------------------------- members and the residual target
class TargetSpy(RegressorMixin, BaseEstimator):
    """Predicts the mean of its training targets; keeps its training rows and targets."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self.rows_, self.y_ = np.asarray(X).copy(), np.asarray(y).copy()
        return self

    def predict(self, X):
        return np.full(len(X), self.y_.mean())


@pytest.mark.slow
def test_members_other_than_forests_join_the_layers_and_name_their_columns():
    pytest.importorskip("xgboost")
    X, y = _friedman()
    model = _small(forest_types=("rf", "gbdt", Ridge())).fit(X, y)
    assert [type(m.estimator).__name__ for m in model.layers_[0].models_[1]] == ["XGBRegressor"] * 3
    assert list(model.get_feature_names_out(layer=1)) == [
        "layer1_rf0_prediction",
        "layer1_gbdt1_prediction",
        "layer1_ridge2_prediction",
    ]
    assert model.transform(X[:5]).shape == (5, 3) and model.feature_importances_.sum() == pytest.approx(1.0)


def test_residual_layers_fit_what_the_previous_layers_left_and_pass_predictions_of_y_on():
    X, y = _friedman(n=150)
    row_of = {row.tobytes(): i for i, row in enumerate(X)}
    plain = _small(forest_types=("rf", TargetSpy()), target="y").fit(X, y)
    residual = _small(forest_types=("rf", TargetSpy()), target="residual", max_layers=2, n_tolerant_layers=2).fit(X, y)
    # layer 1 fits y in both: the "y" cascade fits y less its mean (target_offset_), which it adds back
    centred = _small(forest_types=("rf", TargetSpy()), target="residual", max_layers=1).fit(X, y - y.mean())
    shown = (centred.oof_features_[0] + plain.target_offset_).astype(np.float32)
    np.testing.assert_array_equal(shown, plain.oof_features_[0])
    layer1 = residual.oof_features_[0].astype(np.float64).mean(axis=1)
    for spy in (m.estimator for m in residual.layers_[1].models_[1]):
        rows = [row_of[row[: X.shape[1]].tobytes()] for row in spy.rows_]
        np.testing.assert_allclose(spy.y_, y[rows] - layer1[rows], rtol=1e-5, atol=1e-5)
    # a layer's columns are each member's prediction of y: the layer before's plus its correction
    stages = list(residual.staged_predict(X))
    h1, h2 = residual.transform(X, layer=1), residual.transform(X, layer=2)
    corrections = residual.layers_[1].predict(np.hstack([X, h1]))
    np.testing.assert_allclose(h2, stages[0][:, None] + corrections, rtol=1e-6)
    np.testing.assert_allclose(stages[1], h2.astype(np.float64).mean(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(residual.predict(X), stages[1])


def test_target_residual_is_the_default_and_grows_a_lower_bias_cascade_than_y():
    X, y = _friedman(n=600)
    X_test, y_test = _friedman(n=600, seed=1)
    plain = _small(max_layers=3, target="y").fit(X, y)
    residual = _small(max_layers=3).fit(X, y)
    np.testing.assert_array_equal(
        _small(max_layers=3, target="residual").fit(X, y).predict(X_test), residual.predict(X_test)
    )
    assert residual.score(X_test, y_test) > plain.score(X_test, y_test)
    with pytest.raises(ValueError, match="target"):
        _small(target="gradient").fit(X, y)


@pytest.mark.parametrize("offset", [1e8, 1e12])
def test_target_y_keeps_full_precision_under_an_offset_of_the_target(offset):
    # the layers fitted y itself: on y + 1e12 the trees' squared errors and the float32 features they pass on kept
    # no digit of its spread, and the training R^2 fell from 0.97 to 0.3, without a word
    X, y = _friedman(n=300)
    plain = _small(target="y").fit(X, y)
    shifted = _small(target="y").fit(X, y + offset)
    assert plain.target_offset_ == pytest.approx(y.mean())
    assert shifted.target_offset_ == pytest.approx(y.mean() + offset)
    # the same model but for the rounding of y + offset in float64, which breaks some ties between splits otherwise
    assert shifted.score(X, y + offset) == pytest.approx(plain.score(X, y), abs=0.01)
    assert np.abs(shifted.predict(X) - offset - plain.predict(X)).mean() < 0.1 * y.std()
    stages = list(shifted.staged_predict(X))
    np.testing.assert_array_equal(stages[-1], shifted.predict(X))
    assert stages[0].mean() == pytest.approx(y.mean() + offset, rel=1e-6)
    for layer, oof in enumerate(shifted.oof_features_, start=1):  # predictions of y, as float32 holds them
        assert oof.dtype == np.float32 and shifted.transform(X, layer=layer).dtype == np.float32
        assert np.abs(oof.astype(np.float64).mean() - (y.mean() + offset)) < 1e-3 * offset
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(shifted)).predict(X), shifted.predict(X))


def test_target_y_is_fitted_on_y_less_its_mean_and_shows_predictions_of_y():
    X, y = _friedman(n=200)
    Y = np.column_stack([y + 1e9, -y])
    model = _small(target="y").fit(X, Y)
    np.testing.assert_allclose(model.target_offset_, Y.mean(axis=0))
    assert model.oof_features_[0].shape == (200, 8) and model.transform(X, layer=1).shape == (200, 8)
    first = model.oof_features_[0].astype(np.float64)  # member by member, each member's two outputs side by side
    np.testing.assert_allclose(first[:, 0::2].mean(), Y[:, 0].mean(), rtol=1e-6)
    np.testing.assert_allclose(first[:, 1::2].mean(), Y[:, 1].mean(), atol=0.1 * y.std())
    assert np.abs(model.predict(X) - Y).mean(axis=0).max() < y.std()
    assert _small().fit(X, y).target_offset_ == 0.0  # the residual target: nothing to add back


@pytest.mark.parametrize("where", [None, "auto"])
@pytest.mark.slow
def test_residual_cascades_with_members_are_bit_identical_for_any_n_jobs(where):
    pytest.importorskip("xgboost")
    X, y = _friedman(n=200)
    X[::9, 3] = np.nan
    params = dict(forest_types=("rf", "crf", "gbdt"), target="residual", model_dir=where)
    one, two = _small(n_jobs=1, **params).fit(X, y), _small(n_jobs=2, **params).fit(X, y)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))
    for a, b in zip(one.oof_features_, two.oof_features_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(one)).predict(X), one.predict(X))
