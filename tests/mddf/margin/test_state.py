"""The per-layer state of Algorithm 2: cumulative margin, class-vector mixture, early stopping."""

import numpy as np
import pytest

from mddf.margin.alpha import solve_alpha_exact
from mddf.margin.distribution import sample_distribution
from mddf.margin.loss import MarginDistributionLoss, margin_distribution_loss
from mddf.margin.margins import margins
from mddf.margin.state import ClassVectorMixture, CumulativeMargin
from mddf.utils._stopping import EarlyStopping

LOSS = MarginDistributionLoss(0.8, 0.05)


def _per_forest(rng, n=50, n_forests=4, n_classes=3, y=None):
    """Random class vectors (n, n_forests, n_classes), leaning towards class y when given."""
    p = rng.rand(n, n_forests, n_classes)
    if y is not None:
        p[np.arange(n), :, y] += 1.0
    return p / p.sum(axis=2, keepdims=True)


def test_class_vector_mixture_is_the_share_recursion():
    rng = np.random.RandomState(0)
    layers = [_per_forest(rng) for _ in range(3)]
    shares = [1.0, 0.4, 0.25]
    mixture = ClassVectorMixture("mean")
    assert mixture.passed is None  # f_0 is empty
    expected = None
    for per_forest, share in zip(layers, shares):
        mixture.add_layer(per_forest, share)
        h = per_forest.mean(axis=1)
        expected = h if expected is None else (1 - share) * expected + share * h
        assert mixture.proba == pytest.approx(expected)
        assert mixture.passed == pytest.approx(expected)
    y = expected.argmax(axis=1)
    assert mixture.correct(y).all()


@pytest.mark.parametrize("share", [0.4, 1.0])
def test_a_layer_through_some_rows_mixes_into_those_rows_only(share):
    rng = np.random.RandomState(0)
    first, later = _per_forest(rng), _per_forest(rng, n=20)
    rows = np.sort(rng.choice(50, 20, replace=False))
    mixture, everyone = ClassVectorMixture("per_forest"), ClassVectorMixture("per_forest")
    mixture.add_layer(first, 1.0)
    everyone.add_layer(first, 1.0)
    before = mixture.passed
    full = first.copy()
    full[rows] = later
    mixture.add_layer(later, share, rows)
    everyone.add_layer(full, share)
    others = np.setdiff1d(np.arange(50), rows)
    assert np.array_equal(mixture.passed[others], first.reshape(50, -1)[others])
    assert np.array_equal(mixture.proba[others], first.mean(axis=1)[others])
    assert np.allclose(mixture.passed[rows], everyone.passed[rows])
    assert np.allclose(mixture.proba[rows], everyone.proba[rows])
    assert np.array_equal(before, first.reshape(50, -1))  # the arrays handed out before stay as they were


def test_keeping_rows_keeps_their_margins_and_renormalises_the_distribution():
    rng = np.random.RandomState(0)
    y = rng.randint(3, size=50)
    weight = rng.rand(50)
    state = CumulativeMargin(50, sample_weight=weight)
    gamma = margins(_per_forest(rng, y=y).mean(axis=1), y)
    state.add_layer(gamma, *state.solve_weight(gamma, rng))
    state.reweight()
    rows = np.flatnonzero(rng.rand(50) < 0.5)
    mixture_margin, distribution = state.mixture_margin.copy(), state.distribution.copy()
    state.keep_rows(rows)
    assert np.array_equal(state.mixture_margin, mixture_margin[rows])
    assert np.allclose(state.sample_weight, weight[rows] / weight.max())
    assert np.allclose(state.distribution, distribution[rows] / distribution[rows].sum())
    # what eq. 47 gives on the rows kept
    assert np.allclose(state.distribution, sample_distribution(state.cumulative, LOSS, state.sample_weight))


def test_per_forest_passed_feature_keeps_every_forest():
    rng = np.random.RandomState(1)
    per_forest = _per_forest(rng, n=10)
    mixture = ClassVectorMixture("per_forest")
    mixture.add_layer(per_forest, 1.0)
    assert mixture.passed.shape == (10, 12) and mixture.proba.shape == (10, 3)
    np.testing.assert_array_equal(mixture.passed, per_forest.reshape(10, 12))  # forest by forest, side by side


def test_additive_reading_adds_alpha_gamma_and_reweights_by_the_loss():
    rng = np.random.RandomState(2)
    y = rng.randint(0, 3, 50)
    state = CumulativeMargin(50, cumulative_margin="additive", alpha_solver="exact", margin_mean=0.8)
    assert state.distribution == pytest.approx(np.full(50, 1 / 50))  # D_1 (line 2)
    gammas = [margins(_per_forest(rng, y=y).mean(axis=1), y) for _ in range(2)]
    F = np.zeros(50)
    for gamma in gammas:
        alpha, share = state.solve_weight(gamma, rng)
        assert alpha > 0 and alpha == pytest.approx(solve_alpha_exact(F, gamma, LOSS))  # line 6
        state.add_layer(gamma, alpha, share)
        F = F + alpha * gamma
        state.reweight()
        assert state.cumulative == pytest.approx(F)
        assert state.distribution == pytest.approx(sample_distribution(F, LOSS))  # eq. 47
        assert state.loss() == pytest.approx(margin_distribution_loss(F, 0.8, 0.05).mean())
    alphas, shares = state.layer_weights(2)
    assert alphas == pytest.approx(state.alphas)
    assert shares == pytest.approx(alphas / np.cumsum(alphas))


def test_normalized_reading_gives_simplex_weights():
    rng = np.random.RandomState(3)
    y = rng.randint(0, 3, 50)
    state = CumulativeMargin(50, alpha_solver="exact")
    for _ in range(3):
        gamma = margins(_per_forest(rng, y=y).mean(axis=1), y)
        state.add_layer(gamma, *state.solve_weight(gamma, rng))
        state.reweight()
    assert state.shares[0] == 1.0
    alphas, shares = state.layer_weights(3)
    assert alphas.sum() == pytest.approx(1.0)
    assert alphas[-1] == pytest.approx(shares[-1])
    assert state.layer_weights(2)[0].sum() == pytest.approx(1.0)


def test_gcforest_cascade_keeps_weights_one_and_the_distribution_uniform():
    rng = np.random.RandomState(4)
    y = rng.randint(0, 3, 50)
    state = CumulativeMargin(50, margin_optimization=False)
    solver_rng = np.random.RandomState(0)
    for _ in range(2):
        gamma = margins(_per_forest(rng).mean(axis=1), y)
        assert state.solve_weight(gamma, solver_rng) == (1.0, 1.0)
        state.add_layer(gamma, 1.0, 1.0)
        state.reweight()
        assert state.distribution == pytest.approx(np.full(50, 1 / 50))
        assert state.mixture_margin == pytest.approx(gamma)  # f_t = h_t
    alphas, shares = state.layer_weights(2)
    assert np.all(alphas == 1.0) and np.all(shares == 1.0)
    assert solver_rng.randint(1000) == np.random.RandomState(0).randint(1000)  # no seed drawn


def test_early_stopping_counts_layers_without_improvement_and_keeps_the_most_accurate_prefix():
    stopping = EarlyStopping(2, monitored="validation")
    rows = np.zeros((4, 10), dtype=bool)
    rows[0, :6] = rows[1, :8] = rows[2, :7] = rows[3, :7] = True
    assert [stopping.update(r, r.mean()) for r in rows[:3]] == [False, False, False]
    assert stopping.reason is None
    assert stopping.update(rows[3], rows[3].mean())
    assert stopping.best_layer == 2 and stopping.n_kept == 2
    assert stopping.reason == "validation accuracy did not improve for 2 layers (best 0.8000 at layer 2)"
