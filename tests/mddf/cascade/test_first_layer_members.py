"""first_layer_members: members fitted in the first layer only, after forest_types (a richer first layer), in both
cascades; the later layers are those of forest_types, ensemble selection and explain() read each layer's own members,
and a member that cannot serve is named by its place in first_layer_members."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import Ridge

from mddf import CascadeForestRegressor, MDDFClassifier

FAST = dict(n_estimators=6, max_layers=3, n_tolerant_layers=3, min_error_reduction=0.0, random_state=0, n_jobs=1)


@pytest.fixture(scope="module")
def table():
    X, y = make_classification(n_samples=240, n_features=6, n_informative=4, n_classes=3, random_state=0)
    return X, y


@pytest.fixture(scope="module")
def richer(table):
    X, y = table
    params = dict(forest_types=("rf", "crf"), first_layer_members=("gbdt_es",), calibration=None, **FAST)
    return MDDFClassifier(final_mixture="selection", **params).fit(X, y)


def test_the_first_layer_holds_the_extra_members_and_the_later_layers_those_of_forest_types(richer):
    assert richer.n_layers_ >= 2
    assert richer.layers_[0].forest_types == ("rf", "crf", "gbdt_es")
    assert all(block.forest_types == ("rf", "crf") for block in richer.layers_[1:])
    lengths = [len(record["forest_oof_accuracy"]) for record in richer.train_history_]
    assert lengths[0] == 3 and set(lengths[1:]) == {2}


def test_selection_weighs_each_layers_own_members_and_explain_still_adds_up(richer, table):
    X, _ = table
    weights = richer.selection_weights_
    assert weights.shape == (richer.n_layers_, 3) and np.isclose(weights.sum(), 1.0)
    assert not weights[1:, 2].any()  # the later layers have no third member
    explanation = richer.explain(X[:20])
    assert np.abs(explanation.base_values + explanation.values.sum(axis=1) - richer.predict_proba(X[:20])).max() < 1e-6
    again = pickle.loads(pickle.dumps(richer))
    np.testing.assert_array_equal(again.predict_proba(X), richer.predict_proba(X))


def test_no_first_layer_members_is_the_cascade_of_forest_types_bit_for_bit(table):
    X, y = table
    plain = MDDFClassifier(forest_types=("rf", "crf"), **FAST).fit(X, y)
    empty = MDDFClassifier(forest_types=("rf", "crf"), first_layer_members=(), **FAST).fit(X, y)
    np.testing.assert_array_equal(empty.predict_proba(X), plain.predict_proba(X))


def test_the_regressor_takes_them_too():
    X, y = make_regression(n_samples=200, n_features=5, noise=5.0, random_state=0)
    reg = CascadeForestRegressor(forest_types=("rf", "crf"), first_layer_members=("gbdt_es",), **FAST).fit(X, y)
    assert len(reg.layers_[0].forest_types) == 3 and all(len(b.forest_types) == 2 for b in reg.layers_[1:])
    assert reg.selection_weights_.shape[1] == 3 and not reg.selection_weights_[1:, 2].any()
    explanation = reg.explain(X[:10])
    assert np.abs(explanation.base_values + explanation.values.sum(axis=1) - reg.predict(X[:10])).max() < 1e-6


def test_a_member_that_cannot_serve_is_named_by_its_place_in_first_layer_members(table):
    X, y = table
    with pytest.raises(ValueError, match=r"first_layer_members\[1\]: unknown kind 'boost'"):
        MDDFClassifier(first_layer_members=("rf", "boost"), **FAST).fit(X, y)
    with pytest.raises(TypeError, match=r"first_layer_members\[0\]: Ridge has no predict_proba"):
        MDDFClassifier(first_layer_members=(Ridge(),), **FAST).fit(X, y)
    Xr, yr = make_regression(n_samples=60, n_features=3, random_state=0)
    with pytest.raises(ValueError, match="monotonic_cst is honoured by the members .* not Ridge"):
        CascadeForestRegressor(first_layer_members=(Ridge(),), monotonic_cst=[1, 0, 0], **FAST).fit(Xr, yr)
