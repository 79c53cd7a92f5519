"""The margin-distribution loss l_md (eq. 48) as one object: its value, gradient and curvatures, and its use by the
layer-weight solvers (Algorithm 2, line 6) and the reweighting (eq. 47).

The small numbers use g = 0.8 and mu = 0.05: the curvatures are 1 / 0.64 = 1.5625 below the mean and
0.05 / 0.04 = 1.25 above it.
"""

import numpy as np
import pytest
from margin_objective import alpha_objective

import mddf
from mddf.margin.alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from mddf.margin.distribution import sample_distribution
from mddf.margin.loss import MarginDistributionLoss, margin_distribution_loss

LOSS = MarginDistributionLoss(0.8, 0.05)


def test_the_curvatures_are_those_of_eq_48():
    assert LOSS.curvature_below == pytest.approx(1.5625)  # 1 / g^2
    assert LOSS.curvature_above == pytest.approx(1.25)  # mu / (1 - g)^2
    # the branch at the mean itself is the one below
    assert list(LOSS.curvature(np.array([-0.1, 0.0, 0.1]))) == [LOSS.curvature_below] * 2 + [LOSS.curvature_above]


def test_the_loss_is_eq_48_on_small_numbers():
    z = np.array([0.4, 0.9, 0.8, -0.2])
    # (0.4 - 0.8)^2 / 0.64, 0.05 (0.1)^2 / 0.04, 0 at the mean, (1.0)^2 / 0.64
    assert LOSS.loss(z) == pytest.approx([0.25, 0.0125, 0.0, 1.5625])
    assert LOSS.loss(0.8) == 0.0
    # a misclassified margin costs more than a correct one the same distance away (mu < ((1 - g) / g)^2)
    assert LOSS.loss(0.7) > LOSS.loss(0.9)


@pytest.mark.parametrize("g, mu", [(0.7, 0.01), (0.8, 0.05), (0.9, 0.1), (0.75, 0.05)])
def test_the_loss_is_the_two_branches_of_eq_48(g, mu):
    z = np.linspace(-1.5, 2.0, 71)
    branches = np.where(z <= g, (z - g) ** 2 / g**2, mu * (z - g) ** 2 / (1 - g) ** 2)
    assert MarginDistributionLoss(g, mu).loss(z) == pytest.approx(branches, rel=1e-14, abs=1e-15)


def test_the_gradient_on_small_numbers_and_at_the_mean():
    # 2 c (z - g): 2 * 1.5625 * (-0.4), 2 * 1.25 * 0.1, 0 at the mean (both branches meet: C^1)
    assert LOSS.gradient(np.array([0.4, 0.9, 0.8])) == pytest.approx([-1.25, 0.25, 0.0])


@pytest.mark.parametrize("g, mu", [(0.7, 0.01), (0.9, 0.1), (0.75, 0.05)])
def test_the_gradient_matches_finite_differences(g, mu):
    loss = MarginDistributionLoss(g, mu)
    z, eps = np.linspace(-1.5, 2.0, 71), 1e-6
    numeric = (loss.loss(z + eps) - loss.loss(z - eps)) / (2 * eps)
    assert loss.gradient(z) == pytest.approx(numeric, abs=1e-5)


def test_the_mean_loss_is_weighted_and_leaves_out_rows_of_weight_0():
    z = np.array([0.4, 0.9, -0.2])
    assert LOSS.mean(z) == pytest.approx((0.25 + 0.0125 + 1.5625) / 3)
    assert LOSS.mean(z, np.array([1.0, 2.0, 0.0])) == pytest.approx((0.25 + 2 * 0.0125) / 3)
    assert isinstance(LOSS.mean(z), float)


def test_the_function_form_is_the_objects_loss():
    z = np.linspace(-1, 1, 21)
    assert np.array_equal(margin_distribution_loss(z, 0.8, 0.05), LOSS.loss(z))
    assert mddf.MarginDistributionLoss is MarginDistributionLoss
    assert repr(LOSS) == "MarginDistributionLoss(margin_mean=0.8, margin_tradeoff=0.05)"


def test_the_exact_solver_takes_the_loss_and_finds_the_root_of_its_gradient():
    # F = 0, gamma = (0.5, 1): for alpha in [0.8, 1.6] the first row is below the mean and the second above, so
    # d/dalpha mean l_md = (1.5625 * 0.5 (0.5 alpha - 0.8) + 1.25 (alpha - 0.8)) = 0 at alpha = 3.25 / 3.28125
    F, gamma = np.zeros(2), np.array([0.5, 1.0])
    alpha = solve_alpha_exact(F, gamma, LOSS)
    assert alpha == pytest.approx(3.25 / 3.28125, rel=1e-12)
    assert np.mean(LOSS.gradient(F + alpha * gamma) * gamma) == pytest.approx(0.0, abs=1e-12)
    assert alpha_objective(alpha, F, gamma, LOSS) == pytest.approx(LOSS.mean(F + alpha * gamma))
    # the SGD solver minimises the same loss
    assert solve_alpha_sgd(F, gamma, LOSS, random_state=0) == pytest.approx(alpha, abs=1e-3)


def test_the_solvers_follow_the_loss_they_are_given():
    # with gamma = 0.5 everywhere, F = alpha gamma reaches the loss's mean g at alpha = 2 g
    F, gamma = np.zeros(50), np.full(50, 0.5)
    assert solve_alpha_exact(F, gamma, MarginDistributionLoss(0.8, 0.05)) == pytest.approx(1.6)
    assert solve_alpha_exact(F, gamma, MarginDistributionLoss(0.6, 0.05)) == pytest.approx(1.2)
    # the share of a layer whose margins are all at the mean is 1 (it alone has loss 0)
    assert solve_layer_share(np.full(10, 0.2), np.full(10, 0.6), MarginDistributionLoss(0.6, 0.05)) == 1.0


def test_the_reweighting_takes_the_loss_and_is_proportional_to_it():
    F = np.array([0.4, 0.9, 0.8, -0.2])
    total = 0.25 + 0.0125 + 1.5625
    assert sample_distribution(F, LOSS) == pytest.approx(np.array([0.25, 0.0125, 0.0, 1.5625]) / total)
    w = np.array([2.0, 0.0, 1.0, 1.0])
    assert sample_distribution(F, LOSS, w) == pytest.approx(np.array([0.5, 0.0, 0.0, 1.5625]) / 2.0625)


@pytest.mark.parametrize(
    "call",
    [
        lambda: solve_alpha_exact(np.zeros(3), np.ones(3), 0.8),
        lambda: solve_alpha_sgd(np.zeros(3), np.ones(3), 0.8),
        lambda: solve_layer_share(np.zeros(3), np.ones(3), 0.8),
        lambda: sample_distribution(np.zeros(3), 0.8),
    ],
)
def test_a_margin_mean_where_the_loss_belongs_is_refused_by_name(call):
    with pytest.raises(TypeError, match=r"loss must be a MarginDistributionLoss .*got 0\.8"):
        call()
