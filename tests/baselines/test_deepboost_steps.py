"""DeepBoost's coordinate descent by hand (Figure 2): the direction (lines 5-9), the step (lines 12-16), the first
round, and the Rademacher proxies of eqs. 7-9."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from mddf.baselines import DeepBoostClassifier
from mddf.baselines._deepboost_steps import (
    direction,
    rademacher_stump,
    rademacher_stump2,
    rademacher_tree,
    step_size,
)


def test_direction_rule_by_hand():
    # alpha != 0: (eps - 1/2) + sgn(alpha) * penalty
    assert direction(0.3, 0.7, 0.05) == pytest.approx(-0.2 + 0.05)
    assert direction(0.3, -0.7, 0.05) == pytest.approx(-0.2 - 0.05)
    # alpha == 0 and |eps - 1/2| <= penalty: the sparsity case, d = 0 exactly
    assert direction(0.46, 0.0, 0.05) == 0.0
    assert direction(0.54, 0.0, 0.05) == 0.0
    # alpha == 0 otherwise: (eps - 1/2) - sgn(eps - 1/2) * penalty
    assert direction(0.3, 0.0, 0.05) == pytest.approx(-0.2 + 0.05)
    assert direction(0.8, 0.0, 0.05) == pytest.approx(0.3 - 0.05)
    np.testing.assert_allclose(direction([0.3, 0.46], [0.0, 0.0], [0.05, 0.05]), [-0.15, 0.0])


def test_step_rule_by_hand():
    # No penalty: AdaBoost's step log sqrt((1 - eps) / eps).
    assert step_size(0.2, 0.0, 0.0) == pytest.approx(0.5 * np.log(4.0))
    # Line 15: (1 - eps) - eps = 0.6 > Lambda m / S = 0.2, c = 0.2 / 0.4 = 0.5.
    assert step_size(0.2, 0.0, 0.2) == pytest.approx(np.log(-0.5 + np.sqrt(0.25 + 4.0)))
    # Line 16: an old hypothesis with eps > 1/2 is pushed back: A = 0.3 e^0.1 - 0.7 e^-0.1 < -0.2.
    c = 0.2 / (2 * 0.7)
    assert step_size(0.7, 0.1, 0.2) == pytest.approx(np.log(c + np.sqrt(c * c + 0.3 / 0.7)))
    # Line 13: |A| = |0.52 e^0.3 - 0.48 e^-0.3| = 0.346 <= 0.4, so the weight is set to exactly 0.
    alpha = 0.3
    eta = step_size(0.48, alpha, 0.4)
    assert eta == -alpha and alpha + eta == 0.0


@pytest.mark.parametrize(
    "eps,alpha,lam_ms",
    [(0.2, 0.0, 0.2), (0.35, 0.4, 0.05), (0.7, 0.1, 0.2), (0.45, -0.3, 0.1), (0.48, 0.3, 0.4)],
)
def test_step_is_the_exact_coordinate_minimiser_for_the_exponential_loss(eps, alpha, lam_ms):
    # F(alpha + eta) restricted to one coordinate, up to constants and the factor S/m:
    # (1 - eps) e^-eta + eps e^eta + (Lambda m / S) |alpha + eta|.
    def F(eta):
        return (1 - eps) * np.exp(-eta) + eps * np.exp(eta) + lam_ms * abs(alpha + eta)

    res = minimize_scalar(F, bounds=(-5, 5), method="bounded", options={"xatol": 1e-10})
    eta = step_size(eps, alpha, lam_ms)
    assert F(eta) <= F(res.x) + 1e-12
    assert eta == pytest.approx(res.x, abs=1e-5)


def test_first_round_by_hand_on_six_points():
    # x = 0..5 with labels - - - + + -: the unique best stump is x <= 2 (leaves -1 | +1); it errs
    # on x = 5 only, so eps_1 = 1/6 under D_1 = 1/6. S_1 = 6 e (Phi'(1) = e), Lambda = beta.
    X = np.arange(6.0).reshape(-1, 1)
    y = np.array([-1, -1, -1, 1, 1, -1])
    beta = 0.1
    est = DeepBoostClassifier(n_iter=1, max_depth=1, lam=0.0, beta=beta).fit(X, y)
    m, S, eps = 6, 6 * np.e, 1 / 6
    assert est.normalizers_[0] == pytest.approx(S)
    assert est.errors_[0] == pytest.approx(eps)
    c = beta * m / (2 * eps * S)
    assert est.steps_[0] == pytest.approx(np.log(-c + np.sqrt(c * c + 5.0)))
    tree = est.hypotheses_[0]
    assert tree.feature[0] == 0 and tree.threshold[0] == 2.0
    f = est.decision_function(X)
    np.testing.assert_allclose(f, est.steps_[0] * np.array([-1, -1, -1, 1, 1, 1]))
    # Objective (eq. 4) after the round: mean exp(1 - y f) + beta |alpha|.
    expected = np.mean(np.exp(1 - y * f)) + beta * abs(est.steps_[0])
    assert est.objective_[0] == pytest.approx(expected)


def test_rademacher_proxies_match_equations_7_to_9():
    m, d = 500, 10
    assert rademacher_stump(m, d) == pytest.approx(np.sqrt(2 * np.log(2 * m * d) / m))
    assert rademacher_stump2(m, d) == pytest.approx(np.sqrt(2 * np.log(2 * m**2 * d * (d - 1)) / m))
    n = 3  # internal nodes
    assert rademacher_tree(n, m, d, "paper") == pytest.approx(np.sqrt((4 * n + 2) * np.log2(d + 2) * np.log(m + 1) / m))
    s = 2 * n + 1  # all nodes, as in the C++ reference
    assert rademacher_tree(n, m, d, "reference") == pytest.approx(np.sqrt((2 * s + 1) * np.log2(d + 2) * np.log(m) / m))
