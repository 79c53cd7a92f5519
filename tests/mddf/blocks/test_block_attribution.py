"""A block's members explained: the rules that carry attributions through a map keep their sum, an XGBoost member's
attributions add up to its probabilities (or predictions), and a member that cannot be explained is named."""

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.linear_model import LogisticRegression

from mddf.blocks.attribution import check_explainable, model_attributions, rescaled, through_softmax
from mddf.blocks.members import fit_member
from mddf.forests import make_gbdt


def _attributions(rng, n=40, d=5, k=3, scale=1.0):
    """Logits about a base, and attributions of them that add up to their change."""
    base = rng.normal(size=k)
    values = scale * rng.normal(size=(n, d, k))
    return base + values.sum(axis=1), base, values


def test_the_softmax_rule_adds_up_to_the_change_of_the_probabilities_and_its_base_is_the_bases_softmax():
    rng = np.random.default_rng(0)
    logits, base, values = _attributions(rng)
    out_base, out = through_softmax(logits, base, values)
    assert np.allclose(out_base, softmax(base))
    assert np.abs(out_base + out.sum(axis=1) - softmax(logits, axis=1)).max() < 1e-14
    big = 100.0 * values  # far from the base: logits of hundreds, whose exponentials overflow unshifted
    out_base, out = through_softmax(base + big.sum(axis=1), base, big)
    assert np.isfinite(out).all()
    assert np.abs(out_base + out.sum(axis=1) - softmax(base + big.sum(axis=1), axis=1)).max() < 1e-12


def test_the_softmax_rule_gives_nothing_to_a_column_that_moves_no_logit_and_is_linear_near_the_base():
    rng = np.random.default_rng(1)
    logits, base, values = _attributions(rng, scale=1e-7)
    values[:, 2] = 0.0
    logits = base + values.sum(axis=1)
    _, out = through_softmax(logits, base, values)
    assert np.all(out[:, 2] == 0.0)
    p = softmax(base)
    jacobian = np.diag(p) - np.outer(p, p)  # the softmax's derivative at the base
    assert np.allclose(out, values @ jacobian.T, atol=1e-12)


def test_the_rescale_rule_scales_the_attributions_to_the_change_and_uses_the_derivative_where_they_cancel():
    values = np.array([[[1.0], [3.0]], [[2.0], [-2.0]]])  # row 0 moves by 4, row 1 by 0
    change = np.array([[2.0], [0.0]])
    out = rescaled(values, change, np.array([[10.0], [0.5]]))
    assert np.allclose(out[0, :, 0], [0.5, 1.5])
    assert np.allclose(out[1, :, 0], [1.0, -1.0])  # the derivative 0.5


@pytest.mark.parametrize("n_classes", [2, 3])
def test_an_xgboost_members_attributions_add_up_to_its_probabilities_in_the_blocks_columns(n_classes):
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(200, 4)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.digitize(np.nan_to_num(X[:, 0] + X[:, 1] * X[:, 2]), np.linspace(-1, 1, n_classes - 1)[: n_classes - 1])
    y = np.where(y >= 1, y + 1, y)  # the member never sees block column 1
    model = fit_member(make_gbdt(random_state=0), X, y, n_classes + 1, where="forest_types[4]")
    for fast in (False, True):
        base, values = model_attributions(model, X, None, True, fast, n_classes + 1)
        assert values.shape == (200, 4, n_classes + 1) and np.all(values[:, :, 1] == 0) and base[1] == 0
        assert np.abs(base + values.sum(axis=1) - model.predict_proba(X)).max() < 1e-6


def test_an_xgboost_regressors_attributions_add_up_to_its_predictions():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 4)).astype(np.float32)
    y = 100 * X[:, 0] + X[:, 1] ** 2
    model = fit_member(make_gbdt(random_state=0, task="regression"), X, y, None)
    base, values = model_attributions(model, X, None, True, False, 1)
    assert np.abs(base + values.sum(axis=1)[:, 0] - model.predict(X)).max() < 1e-9  # float32's rounding, spread


def test_a_fold_model_of_one_class_predicts_it_with_no_attribution():
    X = np.zeros((10, 3), dtype=np.float32)
    model = fit_member(make_gbdt(), X, np.full(10, 2), 4)
    base, values = model_attributions(model, X, None, False, False, 4)
    assert base.tolist() == [0, 0, 1, 0] and not values.any()


def test_a_member_that_cannot_be_explained_exactly_is_named():
    model = fit_member(LogisticRegression(), np.eye(4), np.array([0, 1, 0, 1]), 2, where="forest_types[2]")
    with pytest.raises(
        ValueError, match=r"forest_types\[2\] \(LogisticRegression\).*random forests and XGBoost models only"
    ):
        check_explainable(model, "forest_types[2]")
