"""Layer weights: the exact and SGD minimisers of the mean margin-distribution loss."""

import numpy as np
import pytest
from margin_objective import alpha_objective

from mddf.margin.alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from mddf.margin.loss import MarginDistributionLoss

LOSS = MarginDistributionLoss(0.8, 0.05)

SETTINGS = [(0.7, 0.01), (0.8, 0.05), (0.9, 0.1), (0.95, 0.05)]


def _brute_force(objective, hi, n=40001):
    grid = np.linspace(0, hi, n)
    values = np.array([objective(a) for a in grid])
    return grid[np.argmin(values)], hi / (n - 1)


def _margins(seed, m=2000):
    rng = np.random.RandomState(seed)
    F = rng.uniform(0, 1.5, m) * (seed % 3)  # seed 0: first layer (F = 0)
    gamma = np.clip(rng.normal(0.5, 0.4, m), -1, 1)
    return F, gamma


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("g,mu", SETTINGS)
@pytest.mark.slow
def test_exact_solver_is_the_minimiser(seed, g, mu):
    loss = MarginDistributionLoss(g, mu)
    F, gamma = _margins(seed)
    alpha = solve_alpha_exact(F, gamma, loss)
    best, step = _brute_force(lambda a: alpha_objective(a, F, gamma, loss), hi=4.0)
    assert alpha == pytest.approx(best, abs=step)
    assert alpha_objective(alpha, F, gamma, loss) <= alpha_objective(best, F, gamma, loss) + 1e-12


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("g,mu", SETTINGS)
def test_sgd_lands_within_1e_3_of_the_exact_solver(seed, g, mu):
    loss = MarginDistributionLoss(g, mu)
    F, gamma = _margins(seed)
    exact = solve_alpha_exact(F, gamma, loss)
    sgd = solve_alpha_sgd(F, gamma, loss, random_state=seed)
    assert abs(sgd - exact) < 1e-3


def test_alpha_is_zero_when_no_positive_step_helps():
    # every sample already at the margin mean, and the new layer only adds noise
    F = np.full(100, 0.8)
    gamma = np.tile([0.5, -0.5], 50)
    assert solve_alpha_exact(F, gamma, LOSS) == 0.0
    assert solve_alpha_sgd(F, gamma, LOSS, random_state=0) == pytest.approx(0.0, abs=1e-3)
    # a layer that gets everything wrong is never added
    assert solve_alpha_exact(np.zeros(10), -np.ones(10), LOSS) == 0.0
    assert solve_alpha_exact(np.zeros(10), np.zeros(10), LOSS) == 0.0


def test_first_layer_alpha_scales_uniform_margins_to_the_margin_mean():
    # with gamma = 0.5 everywhere, F = alpha * 0.5 hits the mean g at alpha = 2 g
    assert solve_alpha_exact(np.zeros(50), np.full(50, 0.5), LOSS) == pytest.approx(1.6)


def test_upper_bound_is_respected():
    assert solve_alpha_exact(np.zeros(50), np.full(50, 0.5), LOSS, upper=1.0) == 1.0
    assert solve_alpha_sgd(np.zeros(50), np.full(50, 0.5), LOSS, upper=1.0, random_state=0) <= 1.0


@pytest.mark.parametrize("seed", range(3))
def test_layer_share_minimises_the_mean_loss_of_the_mixture_margin(seed):
    rng = np.random.RandomState(seed)
    mixture = np.clip(rng.normal(0.5, 0.3, 1500), -1, 1)
    gamma = np.clip(rng.normal(0.65, 0.25, 1500), -1, 1)

    def objective(beta):
        return alpha_objective(0.0, (1 - beta) * mixture + beta * gamma, np.zeros_like(mixture), LOSS)

    exact = solve_layer_share(mixture, gamma, LOSS)
    best, step = _brute_force(objective, hi=1.0, n=10001)
    assert 0 < exact < 1
    assert objective(exact) <= objective(best) + 1e-12
    assert exact == pytest.approx(best, abs=step)
    assert abs(solve_layer_share(mixture, gamma, LOSS, solver="sgd", random_state=seed) - exact) < 1e-3


def test_layer_share_bounds():
    mixture = np.full(100, 0.8)  # previous mixture exactly at the margin mean
    assert solve_layer_share(mixture, np.full(100, -0.5), LOSS) == 0.0  # worse layer: no share
    assert solve_layer_share(np.full(100, 0.2), np.full(100, 0.8), LOSS) == 1.0  # perfect layer: all
