"""CascadeForestRegressor: the cascade, its early stopping, the regressor contract, weights, NaN and errors."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mddf import CascadeForestRegressor

#: gcForest's four forests a layer, each with every tree, and the last layer's mean predicting: the cascade these
#: tests read (the defaults add LightGBM, halve the later layers' trees and predict by ensemble selection).
FORESTS = {"forest_types": ("rf", "rf", "crf", "crf"), "later_layer_trees": None, "final_mixture": "cascade"}


def _small(**params):
    # no pair search: these tests read the layers' inputs, x and the previous layers' outputs; every layer grown
    # in full (no probes), as they count and read the layers grown
    settings = {"n_estimators": 10, "max_layers": 3, "pair_features": None, "probe_trees": None, "random_state": 0}
    return CascadeForestRegressor(**{**settings, **FORESTS, **params})


def _friedman(n=500, seed=0):
    X, y = make_friedman1(n, noise=1.0, random_state=seed)
    return X.astype(np.float32), y


def _noise(n=300, d=5, seed=0):
    rng = np.random.RandomState(seed)
    return rng.rand(n, d), rng.standard_normal(n)


# ---------------------------------------------------------------- the cascade
def test_the_default_layer_holds_four_forests_and_lightgbm_stopped_early_and_selection_predicts():
    # the defaults chosen by the rule of docs/benchmarks/ahead.md: four forests and "lgbm_es" a layer, half the
    # trees after the first layer, ensemble selection's mixture of the kept layers' members as the prediction
    X, y = _friedman(300)
    model = CascadeForestRegressor(n_estimators=10, max_layers=3, n_tolerant_layers=3, random_state=0).fit(X, y)
    assert model.forest_types == ("rf", "rf", "crf", "crf", "lgbm_es") and model.final_mixture == "auto"
    assert [f.shape for f in model.oof_features_] == [(300, 5)] * model.n_layers_
    assert [block.n_estimators for block in model.layers_] == [10, 5, 5][: model.n_layers_]
    weights = model.selection_weights_
    assert weights.shape == (model.n_layers_, 5) and weights.min() >= 0 and weights.sum() == pytest.approx(1.0)
    members = np.stack([model.transform(X, layer=t).astype(np.float64) for t in range(1, model.n_layers_ + 1)])
    np.testing.assert_allclose(model.predict(X), np.einsum("tnm,tm->n", members, weights), rtol=1e-5)


def test_layers_pass_out_of_fold_predictions_and_the_cascade_learns():
    X, y = _friedman(600)
    X_test, y_test = _friedman(400, seed=1)
    model = _small(max_layers=4, n_tolerant_layers=4).fit(X, y)
    assert model.n_layers_ == int(np.argmin([h["oof_mse"] for h in model.train_history_])) + 1
    assert model.score(X_test, y_test) > 0.75
    assert [f.shape for f in model.oof_features_] == [(600, 4)] * model.n_layers_
    first = model.layers_[0]
    assert first.importances_.shape == (10,)  # the raw input
    if model.n_layers_ > 1:
        assert model.layers_[1].importances_.shape == (14,)  # [x, h_1]: one column per forest
    history = model.train_history_[0]
    assert set(history) == {"layer", "oof_mse", "oof_r2", "forest_oof_mse", "max_depth", "model_bytes", "fit_seconds"}
    prediction = model.oof_features_[0].astype(np.float64).mean(axis=1)
    assert history["oof_mse"] == pytest.approx(np.mean((y - prediction) ** 2), rel=1e-5)
    assert history["oof_r2"] == pytest.approx(1 - history["oof_mse"] / np.var(y), rel=1e-6)


def test_augmented_features_never_come_from_a_model_that_saw_the_row():
    X, y = _noise(400)
    model = _small(max_layers=1).fit(X, y)
    oof = model.oof_features_[0]
    seen = model.transform(X)
    for j in range(4):
        assert abs(np.corrcoef(oof[:, j], y)[0, 1]) < 0.2
        assert np.corrcoef(seen[:, j], y)[0, 1] > 0.5


def test_early_stopping_keeps_the_best_prefix():
    # a noise target: no layer can improve much on the first, so growth stops after n_tolerant_layers
    # layers without improvement, and the layer of lowest out-of-fold error is kept
    X, y = _noise(300)
    model = _small(max_layers=10, n_tolerant_layers=2).fit(X, y)
    errors = [h["oof_mse"] for h in model.train_history_]
    best = int(np.argmin(errors))
    assert model.n_layers_ == best + 1 and len(model.layers_) == best + 1
    assert len(errors) == best + 1 + 2 < 10
    assert "did not improve for 2 layers" in model.stop_reason_
    # a tolerance larger than any gain stops after the first layer's successors
    strict = _small(max_layers=10, n_tolerant_layers=1, tol=1.0).fit(X, y)
    assert len(strict.train_history_) == 2
    assert _small(max_layers=2, n_tolerant_layers=5).fit(X, y).stop_reason_ == "reached max_layers=2"


def test_depth_options():
    X, y = _friedman(200)
    depths = lambda model: [  # noqa: E731
        max(f.depths.max() for fold in block.forests_ for f in fold) for block in model.layers_
    ]
    assert depths(_small(max_depth=3, max_layers=2, n_tolerant_layers=2).fit(X, y)) == [3, 3]
    model = _small(max_depth_factor=1, max_layers=2, n_tolerant_layers=2).fit(X, y)
    assert [h["max_depth"] for h in model.train_history_] == [2, 3]
    model = _small(max_depth_factor=2, max_depth=5, max_layers=2, n_tolerant_layers=2).fit(X, y)
    assert [h["max_depth"] for h in model.train_history_] == [4, 5]


def test_results_are_bit_identical_for_any_n_jobs():
    X, y = _friedman(300)
    X[np.random.RandomState(0).rand(*X.shape) < 0.05] = np.nan
    fits = [_small(n_jobs=n_jobs, forest_types=("rf", "crf", "et")).fit(X, y) for n_jobs in (1, 2)]
    assert [h["oof_mse"] for h in fits[0].train_history_] == [h["oof_mse"] for h in fits[1].train_history_]
    for a, b in zip(fits[0].oof_features_, fits[1].oof_features_):
        assert np.array_equal(a, b)
    assert np.array_equal(fits[0].predict(X), fits[1].predict(X))


def test_staged_predict_transform_and_fit_transform():
    X, y = _friedman(300)
    model = _small(max_layers=3, n_tolerant_layers=3).fit(X, y)
    stages = list(model.staged_predict(X))
    assert len(stages) == model.n_layers_
    assert np.array_equal(stages[-1], model.predict(X))
    for t in range(1, model.n_layers_ + 1):
        features = model.transform(X, layer=t)
        assert features.dtype == np.float32 and features.shape == (300, 4)
        assert features.astype(np.float64).mean(axis=1) == pytest.approx(stages[t - 1], rel=1e-6)
    assert np.array_equal(model.transform(X), model.transform(X, layer=model.n_layers_))
    oof = _small(max_layers=3, n_tolerant_layers=3).fit_transform(X, y, layer=1)
    assert np.array_equal(oof, model.oof_features_[0])
    assert not np.allclose(oof, model.transform(X, layer=1))  # out-of-fold, not refitted predictions
    with pytest.raises(ValueError, match="layer must be an integer"):
        model.transform(X, layer=model.n_layers_ + 1)


def test_pickling_pipeline_and_grid_search():
    X, y = _friedman(200)
    model = _small(max_layers=2).fit(X, y)
    restored = pickle.loads(pickle.dumps(model))
    assert np.array_equal(restored.predict(X), model.predict(X))
    search = GridSearchCV(
        make_pipeline(StandardScaler(), _small(max_layers=1)), {"cascadeforestregressor__max_depth": [2, None]}, cv=2
    ).fit(X, y)
    assert search.best_params_["cascadeforestregressor__max_depth"] is None
    assert search.predict(X).shape == (200,)


def test_feature_importances_rank_the_informative_features():
    X, y = _friedman(500)  # features 0-4 are informative, 5-9 noise
    model = _small(max_layers=2, forest_types=("rf", "rf")).fit(X, y)
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    assert set(np.argsort(model.feature_importances_)[-4:]) <= {0, 1, 2, 3, 4}
    assert model.layer_importances_.sum(axis=1) == pytest.approx(np.ones(model.n_layers_))
    assert 0 <= model.augmented_feature_importance_ <= 1


def test_verbose_prints_one_line_per_layer(capsys):
    X, y = _friedman(100)
    model = _small(max_layers=2, n_tolerant_layers=2, verbose=1).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(model.train_history_) == 2
    assert lines[0].startswith("[CascadeForestRegressor] layer  1  oof_mse=") and "oof_r2=" in lines[0]


# ---------------------------------------------------------------- missing values and categories
@pytest.mark.slow
def test_missing_values_are_used_and_never_predicted_as_nan():
    rng = np.random.RandomState(1)
    X = rng.rand(600, 3)
    y = 3 * X[:, 0] + rng.standard_normal(600) * 0.1
    missing = rng.rand(600) < 0.3
    X[missing, 0] = np.nan
    y[missing] = 10.0  # missingness carries the target
    # every column a candidate at each split, so that every one of the 10 trees can split on x0's missingness
    model = _small(max_layers=2, max_features=1.0).fit(X, y)
    X_new = rng.rand(200, 3)
    X_new[:100, 0] = np.nan
    X_new[150:, 2] = np.nan  # NaN where training had none
    prediction = model.predict(X_new)
    assert np.isfinite(prediction).all()
    assert prediction[:100] == pytest.approx(10.0, abs=0.5)
    assert np.isfinite(model.transform(X_new)).all()


def test_categorical_columns_of_a_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(2)
    colour = rng.choice(["red", "green", "blue"], 400)
    frame = pd.DataFrame({"x": rng.rand(400), "colour": colour})
    y = frame["x"].to_numpy() + np.select([colour == "red", colour == "green"], [5.0, -5.0], 0.0)
    model = _small(max_layers=2).fit(frame, y)
    assert model.is_categorical_.tolist() == [False, True]
    assert model.score(frame, y) > 0.95
    unseen = pd.DataFrame({"x": [0.5], "colour": ["purple"]})  # an unseen category is a missing value
    assert np.isfinite(model.predict(unseen)).all()


# ---------------------------------------------------------------- sample weights
def test_unit_weights_are_no_weights_and_zero_weight_rows_never_train():
    X, y = _friedman(300)
    plain = _small(max_layers=2).fit(X, y)
    ones = _small(max_layers=2).fit(X, y, sample_weight=np.ones(300))
    assert np.array_equal(plain.predict(X), ones.predict(X))
    y_bad, w = y.copy(), np.ones(300)
    y_bad[:100], w[:100] = 1e6, 0.0
    model = _small(max_layers=2).fit(X, y_bad, sample_weight=w)
    assert np.all(np.abs(model.predict(X)) < 100)
    assert model.oof_features_[0].shape == (300, 4)  # zero-weight rows get features too
    assert np.all(np.abs(model.oof_features_[0]) < 100)
    # the monitored error counts the positive-weight rows only
    prediction = model.oof_features_[0].astype(np.float64).mean(axis=1)
    assert model.train_history_[0]["oof_mse"] == pytest.approx(np.mean((y[100:] - prediction[100:]) ** 2), rel=1e-5)


def test_integer_weights_act_as_repeated_rows():
    # exact for one tree (tests/mddf/trees/test_regression_trees.py); the folds and bootstraps draw rows,
    # so the cascades agree in expectation. Every point appears twice, with targets f(x) and f(x) + 10:
    # no tree separates them, so a leaf predicts their weighted mean, f(x) + 7.5 with weights 1 and 3
    # (or with three copies of the second row), f(x) + 5 without weights. Shallow trees keep many rows
    # in a leaf: a leaf of one row predicts its target whatever its weight, and a fold model sees a
    # weighted row or not, where it sees some of its copies almost always
    rng = np.random.RandomState(4)
    X = rng.rand(200, 3)
    f = 5 * X[:, 0] + 3 * X[:, 1]
    X2, y2 = np.vstack([X, X]), np.concatenate([f, f + 10])
    w = np.repeat([1.0, 3.0], 200)
    copies = np.repeat(np.arange(400), w.astype(int))
    shift = {
        name: np.mean(model.fit(X_fit, y_fit, **fit_params).predict(X) - f)
        for name, model, X_fit, y_fit, fit_params in (
            ("weighted", _small(max_layers=2, max_depth=2), X2, y2, {"sample_weight": w}),
            ("repeated", _small(max_layers=2, max_depth=2), X2[copies], y2[copies], {}),
            ("plain", _small(max_layers=2, max_depth=2), X2, y2, {}),
        )
    }
    assert shift["weighted"] == pytest.approx(7.5, abs=0.3)
    assert shift["repeated"] == pytest.approx(7.5, abs=0.3)
    assert shift["plain"] == pytest.approx(5.0, abs=0.3)


def test_the_fit_does_not_depend_on_the_unit_of_the_target():
    # targets of 1e-10 were one leaf per tree (an absolute variance threshold), a constant model; the
    # trees now grow small targets scaled by a power of two, so that y * 2**-40 gives the model of y
    X, y = _friedman(300)
    y = y / 2.0 ** np.ceil(np.log2(np.abs(y).max()))  # largest magnitude in [0.5, 1)
    reference = _small(max_layers=2).fit(X, y)
    tiny = _small(max_layers=2).fit(X, np.ldexp(y, -40))
    np.testing.assert_array_equal(tiny.predict(X), np.ldexp(reference.predict(X), -40))
    decimal = _small(max_layers=2).fit(X, y * 1e-10)
    assert decimal.score(X, y * 1e-10) == pytest.approx(reference.score(X, y), abs=0.01)
    assert reference.score(X, y) > 0.8


# ---------------------------------------------------------------- errors
def test_targets_beyond_the_largest_float32_are_refused_naming_y():
    # the layers pass their predictions on as float32 features: beyond 3.4e38 they were infinite (in
    # transform, and in the predictor's input, whose error blamed X)
    X, y = _friedman(90)
    y = y / np.abs(y).max()
    for predictor in (None, "forest"):
        with pytest.raises(ValueError, match=r"\|y\| reaches 1e\+40, beyond 3\.4e\+38, the largest float32"):
            _small(max_layers=1, predictor=predictor).fit(X, y * 1e40)
    # a residual cascade passes on predictions somewhat beyond its targets (here on its training rows,
    # which its fold models saw): an error as they reach the limit, not an infinite feature
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(200, 4))
    z = Z[:, 0] + 0.5 * Z[:, 1] ** 2
    near = _small(max_layers=3).fit(Z, z / np.abs(z).max() * 3.3e38)
    with pytest.raises(ValueError, match=r"prediction a layer passes on, \|h_t\|, reaches .* beyond 3\.4e\+38"):
        near.transform(Z)
    model = _small(max_layers=2, predictor="forest").fit(X, y * 1e37)
    assert np.all(np.isfinite(model.transform(X))) and model.score(X, y * 1e37) > 0.5


def test_clear_errors():
    X, y = _friedman(60)
    model = _small(max_layers=1)
    bad = X.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.fit(bad, y)
    with pytest.raises(ValueError, match="numeric target"):
        model.fit(X, np.where(y > 10, "high", "low"))
    with pytest.raises(ValueError, match="numeric target"):
        model.fit(X, np.array(["a"] * 60, dtype=object))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model.fit(X, y[:-1])
    with pytest.raises(ValueError, match="Input y contains NaN"):
        model.fit(X, np.where(np.arange(60) == 3, np.nan, y))
    with pytest.raises(ValueError, match="n_samples=2, fewer than n_folds=3"):
        model.fit(X[:2], y[:2])
    with pytest.raises(ValueError, match="forest_types must be a non-empty sequence"):
        _small(forest_types=()).fit(X, y)
    with pytest.raises(ValueError, match=r"forest_types\[1\]: unknown kind 'xgb'"):
        _small(forest_types=("rf", "xgb")).fit(X, y)
    with pytest.raises(ValueError, match="non-zero|no positive"):
        model.fit(X, y, sample_weight=np.zeros(60))
    with pytest.raises(ValueError, match="max_features"):
        _small(max_features=1.5).fit(X, y)
    model.fit(X, y)
    with pytest.raises(ValueError, match="X has 9 features"):
        model.predict(X[:, :9])
    with pytest.raises(ValueError, match="infinity"):
        model.predict(bad)
