"""``monotonic_cst`` of both cascades: the predictions never move the wrong way along a constrained column, at any kept
layer, and every setting that would break the composition is refused in one line."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestRegressor

import mddf
from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.margin.alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from mddf.margin.calibration import TemperatureCalibration
from mddf.margin.loss import MarginDistributionLoss

BOOSTED = ("gbdt", "lgbm")
CONSTRAINT = [1, -1, 0, 0]


def _data(n=400, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 4)
    # column 2's effect flips with column 3: a smooth target whose layers keep improving on one another
    z = 3 * X[:, 0] - 2 * X[:, 1] + np.sin(6 * X[:, 2]) * X[:, 3]
    return X, z, rng


def _worst_moves(stages_of, constraint, seed=1, n_rows=200, n_grid=25):
    """Per constrained column, the most negative ``sign * step`` of any stage's prediction between neighbouring
    values of a grid over that column (other columns of ``n_rows`` random rows fixed): >= 0 means monotone."""
    rng = np.random.RandomState(seed)
    rows = rng.rand(n_rows, len(constraint))
    grid = np.linspace(-0.1, 1.1, n_grid)  # beyond the training range too
    worst = {}
    for j in np.flatnonzero(constraint):
        along = []
        for value in grid:
            X = rows.copy()
            X[:, j] = value
            along.append(np.stack(stages_of(X)))  # (n_stages, n_rows)
        steps = np.diff(np.stack(along, axis=-1), axis=-1)
        worst[int(j)] = float((constraint[j] * steps).min())
    return worst


def _regressor(**params):
    settings = {"forest_types": BOOSTED, "pair_features": None, "max_layers": 4, "n_tolerant_layers": 4}
    return CascadeForestRegressor(**{**settings, **params}, random_state=0)


def test_a_constrained_regressor_never_moves_the_wrong_way_at_any_layer():
    X, z, rng = _data()
    model = _regressor(monotonic_cst=CONSTRAINT, forest_types=("gbdt", "lgbm_es")).fit(X, z)
    assert model.n_layers_ >= 2  # the passed predictions are part of what is checked
    worst = _worst_moves(lambda X: list(model.staged_predict(X)), CONSTRAINT)
    assert min(worst.values()) >= 0.0, worst


def test_without_the_constraint_the_same_regressor_moves_the_wrong_way():
    X, z, rng = _data()
    model = _regressor(forest_types=("gbdt", "lgbm_es")).fit(X, z + 0.3 * rng.randn(len(z)))
    assert min(_worst_moves(lambda X: list(model.staged_predict(X)), CONSTRAINT).values()) < -1e-3


def test_a_constrained_binary_classifier_never_moves_the_wrong_way_at_any_layer():
    X, z, rng = _data(600)
    y = (z + 0.2 * rng.randn(len(z)) > np.median(z)).astype(int)
    settings = {"max_layers": 3, "n_tolerant_layers": 3, "min_error_reduction": 0.0, "random_state": 0}
    model = MDDFClassifier(forest_types=BOOSTED, monotonic_cst=CONSTRAINT, **settings).fit(X, y)
    # the passed class vectors, the layer weights and the temperature are all part of what is checked
    assert model.n_layers_ >= 2 and model.calibration_ is not None
    worst = _worst_moves(lambda X: [p[:, 1] for p in model.staged_predict_proba(X)], CONSTRAINT)
    assert min(worst.values()) >= 0.0, worst


def test_a_dict_names_the_columns_of_a_dataframe():
    X, z, _ = _data(200)
    frame = pd.DataFrame(X, columns=["income", "debt", "a", "b"])
    model = _regressor(monotonic_cst={"income": 1, "debt": -1}, max_layers=2).fit(frame, z)
    worst = _worst_moves(lambda X: [model.predict(pd.DataFrame(X, columns=frame.columns))], CONSTRAINT)
    assert min(worst.values()) >= 0.0, worst


@pytest.mark.parametrize(
    "params, match",
    [
        ({"forest_types": ("rf", RandomForestRegressor(monotonic_cst=[1, -1, 0, 0]))}, "honoured by the members"),
        ({"predictor": "hgb"}, "cannot be combined with predictor"),
        ({"monotonic_cst": [1, 0]}, "one entry per column"),
        ({"monotonic_cst": [2, 0, 0, 0]}, "must be -1, 0 or 1"),
    ],
)
def test_the_regressor_refuses_what_would_break_monotonicity(params, match):
    X, z, _ = _data(60)
    with pytest.raises(ValueError, match=match):
        _regressor(**{"monotonic_cst": CONSTRAINT, **params}).fit(X, z)


@pytest.mark.slow
def test_the_default_regressor_never_moves_the_wrong_way_at_any_layer():
    X, z, rng = _data(500)
    frame = pd.DataFrame(X, columns=["income", "debt", "a", "b"])
    settings = {"max_layers": 3, "n_tolerant_layers": 3, "n_estimators": 30}  # the default forests, fewer trees
    model = CascadeForestRegressor(monotonic_cst={"income": 1, "debt": -1}, random_state=0, **settings)
    model.fit(frame, z + 0.3 * rng.randn(len(z)))
    assert model.n_layers_ >= 2
    worst = _worst_moves(lambda X: list(model.staged_predict(pd.DataFrame(X, columns=frame.columns))), CONSTRAINT)
    assert min(worst.values()) >= 0.0, worst
    # the default pair features pair the unconstrained columns only
    assert all(a not in (0, 1) and b not in (0, 1) for a, b, _ in model.pair_features_.pairs_)


@pytest.mark.slow
def test_the_default_classifier_never_moves_the_wrong_way_at_any_layer():
    X, z, rng = _data(500)
    y = (z + 0.3 * rng.randn(len(z)) > np.median(z)).astype(int)
    settings = {"max_layers": 3, "n_tolerant_layers": 3, "min_error_reduction": 0.0, "n_estimators": 30}
    model = MDDFClassifier(monotonic_cst=CONSTRAINT, random_state=0, **settings).fit(X, y)
    assert model.forest_types == ("rf", "rf", "crf", "crf", "gbdt")  # the default members
    assert model.n_layers_ >= 2 and model.calibration_ is not None and (model.alphas_ >= 0).all()
    worst = _worst_moves(lambda X: [p[:, 1] for p in model.staged_predict_proba(X)], CONSTRAINT)
    assert min(worst.values()) >= 0.0, worst


def test_pair_features_never_pair_a_constrained_column():
    X, z, _ = _data(300)
    z = z + 4 * X[:, 0] * X[:, 2] + 4 * X[:, 1] * X[:, 3]  # products of constrained columns would help
    settings = {"max_layers": 1, "pair_features": "all_operations", "forest_types": ("rf",), "n_estimators": 20}
    free = CascadeForestRegressor(random_state=0, **settings).fit(X, z)
    assert any(a in (0, 1) or b in (0, 1) for a, b, _ in free.pair_features_.pairs_)  # so the check can fail
    model = CascadeForestRegressor(monotonic_cst=CONSTRAINT, random_state=0, **settings).fit(X, z)
    assert all(a not in (0, 1) and b not in (0, 1) for a, b, _ in model.pair_features_.pairs_)


def test_the_classifier_refuses_scikit_learn_trees():
    X, z, _ = _data(60)
    with pytest.raises(ValueError, match="set tree_method='hist'"):
        MDDFClassifier(monotonic_cst=CONSTRAINT, tree_method="exact").fit(X, (z > np.median(z)).astype(int))


def test_names_need_a_dataframe_and_must_exist():
    X, z, _ = _data(60)
    with pytest.raises(ValueError, match="needs X with column names"):
        _regressor(monotonic_cst={"income": 1}).fit(X, z)
    with pytest.raises(ValueError, match="'wealth', which is not a column"):
        _regressor(monotonic_cst={"wealth": 1}).fit(pd.DataFrame(X, columns=list("abcd")), z)


def test_a_categorical_column_cannot_be_constrained():
    X, z, _ = _data(60)
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["a"] = pd.Categorical(np.where(X[:, 0] > 0.5, "high", "low"))
    with pytest.raises(ValueError, match="constrains a categorical column"):
        _regressor(monotonic_cst={"a": 1}).fit(frame, z)


def test_the_classifier_refuses_multi_class_and_multi_label_y():
    X, z, _ = _data(90)
    classifier = MDDFClassifier(forest_types=BOOSTED, monotonic_cst=CONSTRAINT)
    with pytest.raises(ValueError, match="not a multi-class or multi-label y"):
        classifier.fit(X, np.arange(90) % 3)
    with pytest.raises(ValueError, match="not a multi-class or multi-label y"):
        classifier.fit(X, np.column_stack([np.arange(90) % 2, np.arange(90) // 45]))


def test_the_layer_weights_are_never_negative_even_when_a_layer_is_wrong_everywhere():
    loss = MarginDistributionLoss()
    previous, wrong = np.full(50, 0.6), np.full(50, -0.9)
    assert solve_alpha_exact(previous, wrong, loss) == 0.0
    assert solve_alpha_sgd(previous, wrong, loss, random_state=0) >= 0.0
    assert 0.0 <= solve_layer_share(previous, wrong, loss) <= 1.0


def test_temperature_scaling_of_a_binary_probability_is_increasing():
    p = np.linspace(0.0, 1.0, 1001)
    for temperature in (0.05, 0.7, 1.0, 3.0, 20.0):
        calibrated = TemperatureCalibration(temperature, 1e-6, 0.0, 0.0).apply(np.column_stack([1 - p, p]))[:, 1]
        assert (np.diff(calibrated) >= 0.0).all()


def test_a_saved_constrained_model_predicts_the_same(tmp_path):
    X, z, _ = _data(150)
    model = _regressor(monotonic_cst=np.array(CONSTRAINT), max_layers=2).fit(X, z)
    model.save(tmp_path / "model")
    loaded = mddf.load(tmp_path / "model")
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert list(loaded.monotonic_cst) == CONSTRAINT
