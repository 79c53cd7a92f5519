"""Bad input, as a specification: sample weights (negative, NaN, of the wrong length, all zero, at extreme scales,
zeroing out a class), for each of the six estimators."""

from __future__ import annotations

import numpy as np
import pytest
from bad_input import ALL, BOOSTERS, CLASSIFIERS, Cases, assert_learned, data, make, raises
from sklearn.metrics import r2_score

CASES = Cases()


# sample weights


@CASES.add(ALL, "error")
def negative_weight(name):
    X, y = data(name)
    weight = np.ones(len(y))
    weight[0] = -1.0
    with raises(ValueError, "Negative values in data passed to `sample_weight`"):
        make(name).fit(X, y, sample_weight=weight)


@CASES.add(ALL, "error")
def nan_weight(name):
    X, y = data(name)
    weight = np.ones(len(y))
    weight[0] = np.nan
    with raises(ValueError, "sample_weight must be finite"):
        make(name).fit(X, y, sample_weight=weight)


@CASES.add(ALL, "error")
def weights_of_wrong_length(name):
    X, y = data(name)
    with raises(ValueError, "sample_weight.shape =="):
        make(name).fit(X, y, sample_weight=np.ones(len(y) - 1))


@CASES.add(ALL, "error")
def all_weights_zero(name):
    X, y = data(name)
    with raises(ValueError, "Sample weights must contain at least one non-zero number"):
        make(name).fit(X, y, sample_weight=np.zeros(len(y)))


def _scaled_weights_predict_alike(name, scale):
    """Weights are relative: multiplying them all by ``scale`` gives the model of the weights themselves.

    The boosters quantise the weights by their ratios, so they give the same predictions. The forests
    get the same model up to the rounding of the scaled weights, which can flip a weighted draw or a
    near tie between splits; their predictions must agree on nearly every row.
    """
    X, y = data(name)
    weight = np.random.RandomState(1).randint(1, 4, size=len(y)).astype(float)
    reference = make(name).fit(X, y, sample_weight=weight).predict(X)
    scaled = make(name).fit(X, y, sample_weight=weight * scale)
    assert_learned(name, scaled, X, y)
    if name in BOOSTERS:
        np.testing.assert_array_equal(scaled.predict(X), reference)
    elif name == "regressor":
        assert r2_score(reference, scaled.predict(X)) >= 0.9
    else:
        assert np.mean(scaled.predict(X) == reference) >= 0.9


@CASES.add(tuple(n for n in ALL if n != "deepboost"), "result")
def weights_times_1e17(name):
    _scaled_weights_predict_alike(name, 1e17)


@CASES.add(tuple(n for n in ALL if n != "deepboost"), "result")
def weights_times_1e20(name):
    _scaled_weights_predict_alike(name, 1e20)


@CASES.add(tuple(n for n in ALL if n != "deepboost"), "result")
def weights_times_1e_minus_20(name):
    _scaled_weights_predict_alike(name, 1e-20)


@CASES.add(("deepboost",), "result")
def huge_weights_with_complexity_penalty(name):
    # With lam > 0 the total weight is the m of the complexity penalty: multiplying the weights by 1e17
    # or 1e20 is the fit on that many repeated rows, whose penalty vanishes; the model must stay sound.
    X, y = data(name)
    for scale in (1e17, 1e20):
        assert_learned(name, make(name).fit(X, y, sample_weight=np.full(len(y), scale)), X, y)


@CASES.add(("deepboost",), "error")
def tiny_weights_with_complexity_penalty(name):
    X, y = data(name)
    with raises(ValueError, "the total sample weight is the m of eqs. 7-9 and must be at least 1"):
        make(name).fit(X, y, sample_weight=np.full(len(y), 1e-20))


@CASES.add(BOOSTERS, "error")
def weights_zero_out_a_class(name):
    X, y = data(name)
    with raises(ValueError, "sample_weight is positive on samples of one class only (1)"):
        make(name).fit(X, y, sample_weight=(y == 1).astype(float))


@CASES.add(("mddf", "gcforest"), "result")
def weights_zero_out_a_class_forests(name):
    # The forests never see the rows of weight 0: the weighted training set has one class, the only
    # one predicted (scikit-learn's forests do the same).
    X, y = data(name)
    model = make(name).fit(X, y, sample_weight=(y == 1).astype(float))
    np.testing.assert_array_equal(model.predict(X), np.ones(len(y)))


@CASES.add(CLASSIFIERS, "result")
def weights_zero_out_one_class_of_three(name):
    # two classes keep a positive weight: the fit goes on, and the class of weight 0 is never predicted
    X, y = data(name, n=60)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    model = make(name).fit(X, y, sample_weight=(y != 2).astype(float))
    predicted = model.predict(X)
    assert not np.any(predicted == 2)
    assert np.mean(predicted[y != 2] == y[y != 2]) >= 0.8


@pytest.mark.parametrize("name, case_name", CASES.matrix, ids=[f"{n}-{c}" for n, c in CASES.matrix])
def test_bad_input(name, case_name):
    CASES[case_name].run(name)
