"""``final_mixture="selection"``: ensemble selection (Caruana et al. 2004) over every kept layer's members makes the
final mixture; its weights are non-negative and sum to 1, its out-of-fold loss is no higher than any member's, layer's
or the cascade's own, and prediction, staged outputs, explanations and pickles read them."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.utils._param_validation import InvalidParameterError

import mddf
from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.cascade.base import begin_growth
from mddf.cascade.fitted import FittedCascade
from mddf.cascade.replay import FinalOutput, Visits
from mddf.cascade.selection import SELECTION_ROUNDS, greedy_selection, library, mixture_weights
from mddf.cascade.versions import LAYOUT

# enough layers to choose from: no relative gain needed, three tolerant layers
GROWN = dict(n_estimators=8, max_layers=4, n_tolerant_layers=3, min_error_reduction=0.0, random_state=0)
CLASSIFIER = dict(GROWN, forest_types=("rf", "crf", "gbdt"))


@pytest.fixture(scope="module")
def table():
    return make_classification(240, 8, n_informative=5, n_classes=3, random_state=0)


@pytest.fixture(scope="module")
def regression_table():
    return make_regression(240, 6, n_informative=4, noise=10.0, random_state=0)


@pytest.fixture(scope="module")
def selected(table):
    X, y = table
    return MDDFClassifier(**CLASSIFIER, final_mixture="selection").fit(X, y)


@pytest.fixture(scope="module")
def cascade(table):
    X, y = table
    return MDDFClassifier(**CLASSIFIER).fit(X, y)


@pytest.fixture(scope="module")
def selected_regressor(regression_table):
    X, y = regression_table
    return CascadeForestRegressor(**GROWN, final_mixture="selection").fit(X, y)


def _grown(model, X, y):
    """The growth engine of a fit of ``model`` once it has stopped, and its fitted cascade."""
    growth = begin_growth(model, X, y)
    for t in range(1, model.max_layers + 1):
        if growth.grow(t):
            break
    return growth.state, growth.finish()


def _log_loss(proba, y):
    return -np.mean(np.log(np.clip(proba[np.arange(len(y)), y], np.finfo(np.float64).eps, 1.0)))


def _error_then_log_loss(proba, y):
    return np.mean(proba.argmax(axis=1) != y), _log_loss(proba, y)


def _no_worse(first, second):
    """``first`` (error, log-loss) no worse than ``second``: a lower error, or the same and a log-loss no higher."""
    return first[0] < second[0] or (first[0] == second[0] and first[1] <= second[1] + 1e-12)


def _mixed(members, weights):
    """``sum_{t, j} w_tj h_tj``, written out."""
    return sum(weights[t, j] * layer[:, j] for t, layer in enumerate(members) for j in range(layer.shape[1]))


# ---------------------------------------------------------------------------------------------------- the weights
@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_the_weights_are_one_per_member_of_every_kept_layer_non_negative_and_summing_to_one(
    task, selected, selected_regressor
):
    model = selected if task == "classifier" else selected_regressor
    weights = model.selection_weights_
    assert model.n_layers_ >= 2  # a choice among layers
    assert weights.shape == (model.n_layers_, len(model.layers_[0].forest_types))
    assert (weights >= 0).all() and np.isclose(weights.sum(), 1.0)
    assert model.fitted_cascade_.selection_weights is weights


def test_the_cascade_default_has_no_selection_weights(cascade):
    assert cascade.final_mixture == "cascade" and cascade.selection_weights_ is None


@pytest.mark.slow
def test_the_selected_mixture_has_the_lowest_out_of_fold_error_then_log_loss_of_the_library(table):
    X, y = table
    state, fitted = _grown(MDDFClassifier(**CLASSIFIER, final_mixture="selection"), X, y)
    kept = len(fitted.layers)
    members = state.oof_members[:kept]
    assert members[0].shape == (len(y), 3, 3)  # every training row, each member's class vector
    selected = _error_then_log_loss(_mixed(members, fitted.selection_weights), y)
    singles = [layer[:, j] for layer in members for j in range(layer.shape[1])]
    layer_means = [layer.mean(axis=1) for layer in members]
    cascade = state.oof_outputs[kept - 1]  # the cascade's own mixture (eq. 9)
    assert all(_no_worse(selected, _error_then_log_loss(entry, y)) for entry in [*singles, *layer_means, cascade])
    assert selected[0] < min(_error_then_log_loss(mean, y)[0] for mean in layer_means)  # here: fewer errors


@pytest.mark.slow
def test_with_members_weighted_by_their_loss_the_library_holds_the_weighted_layers(table):
    X, y = table
    state, fitted = _grown(MDDFClassifier(**CLASSIFIER, member_weights="loss", final_mixture="selection"), X, y)
    kept = len(fitted.layers)
    members = state.oof_members[:kept]
    selected = _error_then_log_loss(_mixed(members, fitted.selection_weights), y)
    layers = [np.average(layer, axis=1, weights=block.member_weights_) for layer, block in zip(members, fitted.layers)]
    assert all(block.member_weights_ is not None for block in fitted.layers)
    cascade = state.oof_outputs[kept - 1]  # the weighted layers' mixture
    assert all(_no_worse(selected, _error_then_log_loss(entry, y)) for entry in [*layers, cascade])


@pytest.mark.slow
def test_the_regressors_selected_mixture_has_the_lowest_out_of_fold_squared_error_of_the_library(regression_table):
    X, y = regression_table
    state, fitted = _grown(CascadeForestRegressor(**GROWN, final_mixture="selection"), X, y)
    members = state.oof_members[: len(fitted.layers)]
    assert members[0].shape == (len(y), 5)  # each member's prediction of y: four forests and LightGBM
    mse = lambda prediction: np.mean((prediction - y) ** 2)  # noqa: E731
    selected = mse(_mixed(members, fitted.selection_weights))
    assert selected <= min(mse(layer[:, j]) for layer in members for j in range(layer.shape[1]))
    assert selected <= min(mse(layer.mean(axis=1)) for layer in members)


def test_greedy_selection_adds_with_replacement_and_stops_at_the_first_round_of_lowest_loss():
    y = np.array([0.0, 1.0, 2.0, 3.0])
    outputs = [y + 1.0, y - 1.0, y + 3.0, y + 1.0]  # the mean of entries 0 and 1 is exact
    squared = lambda averaged: (np.mean((averaged - y) ** 2),)  # noqa: E731
    chosen, losses = greedy_selection(outputs, squared, rounds=10)
    assert chosen == [0, 1] and losses == [(1.0,), (0.0,)]  # ties go to the first; the rounds after add nothing
    chosen, _ = greedy_selection([y + 1.0, y - 3.0], squared, rounds=4)
    assert chosen == [0, 0, 1, 0]  # with replacement: 3/4 of one and 1/4 of the other is exact
    assert SELECTION_ROUNDS == 25


def test_the_library_is_the_members_each_layers_mean_and_the_cascades_output():
    shares = [1.0, 0.5, 0.25]  # the classifier's beta_t: weights 1/2 * 3/4, 1/2 * 3/4, 1/4
    assert np.allclose(mixture_weights(shares, 3), [0.375, 0.375, 0.25])
    assert np.array_equal(mixture_weights(None, 3), [0.0, 0.0, 1.0])  # the regressor's last layer
    entries = library(np.full((2, 2), 0.5), [0.25, 0.75], [2, 2])
    assert np.allclose(entries, [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]] + [
        [0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5], [0.125, 0.125, 0.375, 0.375]])  # fmt: skip
    assert np.allclose(entries.sum(axis=1), 1.0)
    weighted = library(np.array([[0.2, 0.8], [1.0, 0.0]]), [0.5, 0.5], [2, 2])  # member_weights="loss"
    assert np.allclose(weighted[4:], [[0.2, 0.8, 0, 0], [0, 0, 1.0, 0], [0.1, 0.4, 0.5, 0]])
    # a first layer of three members, a second of two (first_layer_members): no entry for the absent third
    ragged = library(np.array([[1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0.0]]), [0.5, 0.5], [3, 2])
    assert ragged.shape == (5 + 2 + 1, 6) and not ragged[:, 5].any()
    assert np.allclose(ragged[:5], np.eye(6)[[0, 1, 2, 3, 4]]) and np.allclose(ragged.sum(axis=1), 1.0)


# ---------------------------------------------------------------------------------------------------- prediction
def test_selection_changes_only_the_final_mixture_the_layers_are_those_of_the_default(table, selected, cascade):
    X, _ = table
    assert selected.n_layers_ == cascade.n_layers_
    for t in range(1, cascade.n_layers_ + 1):  # no draw of random_state: the same layers, bit for bit
        assert np.array_equal(selected.transform(X, layer=t), cascade.transform(X, layer=t))
    differs = np.abs(selected.predict_proba(X) - cascade.predict_proba(X)).max(axis=1) > 1e-6
    assert differs.any()


@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_predict_is_the_weighted_average_of_the_members_outputs(
    task, table, regression_table, selected, selected_regressor
):
    model = selected if task == "classifier" else selected_regressor
    X = (table if task == "classifier" else regression_table)[0][:50]
    fitted = model.fitted_cascade_
    visits = fitted.replay(model._validated(X), Visits())
    members = [visit.members.value for visit in visits]
    assert len(members) == model.n_layers_  # every kept layer is replayed: each reads the one before
    manual = _mixed(members, model.selection_weights_)
    if task == "classifier":
        calibrated = manual if model.calibration_ is None else model.calibration_.apply(manual)
        assert np.allclose(model.predict_proba(X), calibrated, rtol=0, atol=1e-12)
        assert np.array_equal(model.predict(X), model.classes_[calibrated.argmax(axis=1)])
        assert np.array_equal(list(model.staged_predict_proba(X))[-1], model.predict_proba(X))
    else:
        assert np.allclose(model.predict(X), manual, rtol=1e-12, atol=1e-9)
        assert np.array_equal(list(model.staged_predict(X))[-1], model.predict(X))


def test_calibration_is_fitted_on_the_selected_mixture(table):
    X, y = table
    state, fitted = _grown(MDDFClassifier(**CLASSIFIER, final_mixture="selection"), X, y)
    output = _mixed(state.oof_members[: len(fitted.layers)], fitted.selection_weights)
    calibration = fitted.attributes()["calibration_"]
    assert calibration is not None  # it lowers the selected mixture's log-loss on this table
    assert np.isclose(calibration.log_loss_before, _log_loss(output, y))
    assert calibration.log_loss_after < _log_loss(output, y)


@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_the_same_random_state_gives_the_same_weights_and_predictions(task, table, regression_table):
    X, y = table if task == "classifier" else regression_table
    make = MDDFClassifier if task == "classifier" else CascadeForestRegressor
    params = CLASSIFIER if task == "classifier" else GROWN
    first, second = (make(**params, final_mixture="selection").fit(X, y) for _ in range(2))
    assert np.array_equal(first.selection_weights_, second.selection_weights_)
    predict = "predict_proba" if task == "classifier" else "predict"
    assert np.array_equal(getattr(first, predict)(X), getattr(second, predict)(X))


@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_the_weights_survive_a_pickle_and_a_save_and_load(task, table, regression_table, selected, selected_regressor,
                                                          tmp_path):  # fmt: skip
    model = selected if task == "classifier" else selected_regressor
    X = (table if task == "classifier" else regression_table)[0]
    predict = "predict_proba" if task == "classifier" else "predict"
    expected = getattr(model, predict)(X)
    model.save(tmp_path / "model.mddf")
    for copy in (pickle.loads(pickle.dumps(model)), mddf.load(tmp_path / "model.mddf")):
        assert np.array_equal(copy.selection_weights_, model.selection_weights_)
        assert np.array_equal(getattr(copy, predict)(X), expected)


def test_a_fitted_cascade_pickled_before_the_selection_reads_as_the_cascades_own_mixture(cascade, table):
    fitted = cascade.fitted_cascade_
    state = {k: v for k, v in fitted.__dict__.items() if k not in ("head", "selection", "predictor", "calibration")}
    head = fitted.head  # layout 1 (before the heads and steps), pickled before final_mixture: no selection_weights
    state.update(layout=1, classes=head.classes, shares=head.shares, alphas=head.alphas, thresholds=head.thresholds)
    state.update(passed_features=head.passed_features, residual=False, calibration=cascade.calibration_)
    state.update(predictor_model=None, predictor=None, predictor_input=None, predictor_weight=1.0)
    old = FittedCascade.__new__(FittedCascade)
    old.__setstate__(state)
    assert old.layout == LAYOUT and old.selection is None and old.selection_weights is None
    X = table[0].astype(np.float32)
    np.testing.assert_array_equal(old.replay(X, FinalOutput()).value, cascade.predict_proba(X))


# ---------------------------------------------------------------------------------------------------- explain
@pytest.mark.slow
@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_explain_adds_up_to_the_selected_prediction(task, table, regression_table, selected, selected_regressor):
    model = selected if task == "classifier" else selected_regressor
    X = (table if task == "classifier" else regression_table)[0][:10]
    found = model.explain(X, fast=True)
    expected = model.predict_proba(X) if task == "classifier" else model.predict(X)
    assert np.allclose(found.base_values + found.values.sum(axis=1), expected, atol=1e-6 * max(1, abs(expected).max()))


# ---------------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    "make, params, named",
    [
        (MDDFClassifier, {"predictor": "forest"}, "predictor"),
        (MDDFClassifier, {"screening_accuracy": 0.9}, "screening_accuracy"),
        (CascadeForestRegressor, {"predictor": "forest"}, "predictor"),
    ],
)
def test_selection_with_a_predictor_or_screening_is_refused_in_one_line(table, make, params, named):
    X, y = table
    with pytest.raises(ValueError, match=f"final_mixture='selection' cannot be combined with {named}") as error:
        make(n_estimators=2, max_layers=1, final_mixture="selection", **params).fit(X, y)
    assert "\n" not in str(error.value)


def test_an_unknown_final_mixture_is_refused(table):
    X, y = table
    with pytest.raises(InvalidParameterError, match="final_mixture"):
        MDDFClassifier(final_mixture="alpha").fit(X, y)


# ---------------------------------------------------------------------------------------------------- "auto"
def test_auto_is_the_selection_without_a_predictor(regression_table, selected_regressor):
    # the regressor's default: the same layers, weights and predictions as final_mixture="selection"
    X, y = regression_table
    auto = CascadeForestRegressor(**GROWN).fit(X, y)
    assert CascadeForestRegressor().final_mixture == "auto"
    np.testing.assert_array_equal(auto.selection_weights_, selected_regressor.selection_weights_)
    np.testing.assert_array_equal(auto.predict(X), selected_regressor.predict(X))


@pytest.mark.parametrize(
    "make, params",
    [
        (MDDFClassifier, {"predictor": "forest"}),
        (MDDFClassifier, {"screening_accuracy": 0.9}),
        (CascadeForestRegressor, {"predictor": "forest"}),
    ],
)
def test_auto_with_a_predictor_or_screening_is_the_cascades_own_mixture(table, make, params):
    # where "selection" is refused, "auto" reads "cascade": the fit is that of final_mixture="cascade"
    X, y = table
    settings = dict(n_estimators=4, max_layers=2, random_state=0, **params)
    auto = make(**settings, final_mixture="auto").fit(X, y)
    own = make(**settings, final_mixture="cascade").fit(X, y)
    assert auto.selection_weights_ is None
    np.testing.assert_array_equal(auto.predict(X), own.predict(X))
