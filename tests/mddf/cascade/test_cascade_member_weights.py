"""member_weights: a layer's output is its members' mean weighted by their out-of-fold loss ("loss"), fitted on the
training rows' out-of-fold outputs, kept in the fitted cascade and replayed on new rows; "equal" (the default) is the
plain mean."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.blocks.member_weights import layer_loss

#: Three informative columns among forty: a completely-random forest (one random column a split) is much worse
#: than a random forest there.
N_COLUMNS, N_INFORMATIVE = 40, 3


@pytest.fixture(scope="module")
def classification():
    return make_classification(400, N_COLUMNS, n_informative=N_INFORMATIVE, n_redundant=0, random_state=0)


@pytest.fixture(scope="module")
def regression():
    return make_regression(400, N_COLUMNS, n_informative=N_INFORMATIVE, noise=1.0, random_state=0)


def _classifier(**params):
    settings = dict(n_estimators=16, forest_types=("rf", "crf"), max_layers=1, calibration=None, random_state=0)
    return MDDFClassifier(**{**settings, **params})


def _regressor(**params):
    settings = dict(n_estimators=16, forest_types=("rf", "crf"), max_layers=1, pair_features=None, random_state=0)
    return CascadeForestRegressor(**{**settings, **params})


def test_the_classifier_weights_favour_the_better_member_and_its_out_of_fold_loss_is_no_higher(classification):
    X, y = classification
    model = _classifier(member_weights="loss", passed_features="per_forest").fit(X, y)
    weights = model.layers_[0].member_weights_
    assert weights.shape == (2,) and np.all(weights >= 0) and weights.sum() == pytest.approx(1.0)
    assert weights[0] > weights[1]  # the random forest over the completely-random one
    per_member = model.oof_features_[0].reshape(len(y), 2, 2).astype(np.float64)  # each member's out-of-fold h_1
    assert layer_loss(per_member, y, weights) <= layer_loss(per_member, y)  # the tempered log-loss


def test_the_classifier_predicts_with_the_weights_it_fitted(classification):
    X, y = classification
    model = _classifier(member_weights="loss").fit(X, y)
    block = model.layers_[0]
    expected = np.average(
        block.predict_proba(np.ascontiguousarray(X, dtype=np.float32)), axis=1, weights=block.member_weights_
    )
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-12)
    np.testing.assert_allclose(model.transform(X), expected, rtol=1e-6)  # what the layer passes on
    assert not np.allclose(expected, block.predict_proba(np.ascontiguousarray(X, dtype=np.float32)).mean(axis=1))


def test_the_regressor_weights_favour_the_better_member_and_its_out_of_fold_error_is_no_higher(regression):
    X, y = regression
    model = _regressor(member_weights="loss").fit(X, y)
    weights = model.layers_[0].member_weights_
    assert np.all(weights >= 0) and weights.sum() == pytest.approx(1.0) and weights[0] > weights[1]
    oof = model.oof_features_[0].astype(np.float64)  # each member's out-of-fold prediction of y
    mse = [np.mean((np.average(oof, axis=1, weights=w) - y) ** 2) for w in (weights, None)]
    assert mse[0] <= mse[1]
    assert model.train_history_[0]["oof_mse"] == pytest.approx(mse[0], rel=1e-5)


def test_the_regressor_predicts_with_the_weights_it_fitted_and_its_residual_layers_read_them(regression):
    """Layer 2 fits what layer 1's weighted prediction left; a new row's prediction is layer 2's weighted mean of
    its members' outputs plus layer 1's weighted prediction."""
    X, y = regression
    model = _regressor(member_weights="loss", max_layers=2, probe_trees=None).fit(X, y)
    assert model.n_layers_ == 2
    first, second = model.layers_
    x = np.ascontiguousarray(X, dtype=np.float32)
    passed = first.predict(x)
    prediction = np.average(passed, axis=1, weights=first.member_weights_)
    passed_on = second.predict(np.hstack([x, passed.astype(np.float32)])) + prediction[:, None]
    expected = np.average(passed_on, axis=1, weights=second.member_weights_)
    np.testing.assert_allclose(model.predict(X), expected, rtol=1e-10)
    np.testing.assert_allclose(next(model.staged_predict(X)), prediction, rtol=1e-10)


def test_layer_probes_leave_each_kept_layer_the_weights_of_its_full_outputs(regression):
    """A probed layer's weights are fitted on the outputs it is added with: those of every tree once grown in full."""
    X, y = regression
    model = _regressor(member_weights="loss", max_layers=4, n_tolerant_layers=2, probe_trees=0.25).fit(X, y)
    assert any("probe_trees" in record for record in model.train_history_)
    for block, oof, record in zip(model.layers_, model.oof_features_, model.train_history_):
        prediction = np.average(oof.astype(np.float64), axis=1, weights=block.member_weights_)
        assert record["oof_mse"] == pytest.approx(np.mean((prediction - y) ** 2), rel=1e-5)


def test_the_default_is_the_equal_mean_and_sets_no_weights(classification, regression):
    X, y = classification
    model = _classifier().fit(X, y)
    assert model.member_weights == "equal" and model.layers_[0].member_weights_ is None
    Xr, yr = regression
    assert _regressor().fit(Xr, yr).layers_[0].member_weights_ is None


@pytest.mark.slow
def test_explain_adds_up_to_the_weighted_prediction(classification, regression):
    X, y = classification
    model = _classifier(member_weights="loss", n_estimators=4).fit(X[:200], y[:200])
    explained = model.explain(X[:5])
    total = explained.base_values + explained.values.sum(axis=1)
    np.testing.assert_allclose(total, model.predict_proba(X[:5]), atol=1e-6)
    Xr, yr = regression
    regressor = _regressor(member_weights="loss", n_estimators=4, max_layers=2, probe_trees=None).fit(
        Xr[:200], yr[:200]
    )
    explained = regressor.explain(Xr[:5])
    total = explained.base_values + explained.values.sum(axis=1)
    np.testing.assert_allclose(total, regressor.predict(Xr[:5]), rtol=1e-5, atol=1e-6)


def test_an_unknown_member_weights_is_refused():
    from sklearn.utils._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="member_weights"):
        _classifier(member_weights="accuracy").fit(np.random.RandomState(0).rand(30, 2), np.arange(30) % 2)
