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


@CASES.add(CLASSIFIERS, "error")
def weights_zero_out_a_class(name):
    X, y = data(name)
    with raises(ValueError, "every sample of class 0 has sample_weight 0, so no model can learn it"):
        make(name).fit(X, y, sample_weight=(y == 1).astype(float))


@CASES.add(CLASSIFIERS, "error")
def weights_zero_out_one_class_of_three(name):
    # two classes keep a positive weight, but the third would be a class of classes_ that nothing learned
    X, y = data(name, n=60)
    y = np.array(["low", "mid", "high"])[np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])]
    with raises(ValueError, "every sample of class 'high' has sample_weight 0"):
        make(name).fit(X, y, sample_weight=(y != "high").astype(float))


@CASES.add(("mddf", "regressor", "gcforest"), "result")
def uniformly_scaled_weights_fit_as_unit_weights(name):
    # the cascades rescale the weights to a mean near 1 before any use: equal weights of any scale are unit weights, bit
    # for bit, layer probes included (eight trees a forest: the layers after the first are probed)
    X, y = data(name, n=60)
    params = dict(n_estimators=8, max_layers=3, **({} if name == "gcforest" else {"probe_trees": 0.25}))
    predict = "predict" if name == "regressor" else "predict_proba"
    reference = getattr(make(name).set_params(**params).fit(X, y, sample_weight=np.ones(len(y))), predict)(X)
    for scale in (1e300, 1e-300):
        scaled = make(name).set_params(**params).fit(X, y, sample_weight=np.full(len(y), scale))
        np.testing.assert_array_equal(getattr(scaled, predict)(X), reference)


@CASES.add(("mddf", "regressor", "gcforest"), "result")
def weights_times_1e300(name):
    _scaled_weights_predict_alike(name, 1e300)


@CASES.add(("mddf", "regressor", "gcforest"), "result")
def weights_times_1e_minus_300(name):
    _scaled_weights_predict_alike(name, 1e-300)


@pytest.mark.parametrize("name, case_name", CASES.matrix, ids=[f"{n}-{c}" for n, c in CASES.matrix])
def test_bad_input(name, case_name):
    CASES[case_name].run(name)
