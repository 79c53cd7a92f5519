"""QuadBoost's coordinate descent (Roy, Marchand and Laviolette): the update rules of eq. 6-9, Section 3.1's
re-weighting, the selection against brute force and the objective along the iterations.

Expected values in the update-rule tests are computed in the test from the paper's definitions (eq. 3-5), never
by calling the implementation.
"""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.datasets import make_classification

from mddf.baselines import QuadBoostClassifier
from mddf.baselines._quadboost_solver import quadboost_path


def _inner(a, b):
    """<a, b> = (1/m) sum_k a_k b_k, the average used throughout Section 3."""
    return float(np.mean(a * b))


def _matrix(*columns):
    return np.asfortranarray(np.column_stack(columns).astype(np.float32))


# A tiny problem: |mu_1| = 0.6 > |mu_2| = 0.2, <h1, h2> = -0.2, eta_1 = eta_2 = 1.
Y = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
H1 = np.array([1.0, 1.0, 1.0, 1.0, -1.0])
H2 = np.array([1.0, -1.0, -1.0, -1.0, -1.0])
MU1, MU2 = _inner(Y, H1), _inner(Y, H2)  # eq. 3
ETA = _inner(H1, H1)  # eq. 5; = 1 for +-1 voters
H12 = _inner(H1, H2)


def _run(y=Y, n_iter=2, **kw):
    return quadboost_path(_matrix(H1, H2), y, n_iter=n_iter, **kw)


def test_vanilla_eq6_first_voter_maximises_margin_and_gets_mu_over_eta():
    path = _run(n_iter=1)
    assert path.path_voters.tolist() == [0]  # |mu1 - 0| > |mu2 - 0|; M_1 = 0 (eq. 4)
    assert path.coef[0] == pytest.approx(MU1 / ETA)  # 0.6


def test_vanilla_eq6_second_voter_uses_correlation_with_previous_voters():
    path = _run(n_iter=2)
    alpha1 = MU1 / ETA
    m2 = alpha1 * H12  # eq. 4: <h2, alpha1 h1>
    assert path.path_voters.tolist() == [0, 1]
    assert path.coef[1] == pytest.approx((MU2 - m2) / ETA)  # 0.2 + 0.12 = 0.32


def test_vanilla_risk_decreases_by_squared_gap_over_eta():
    path = _run(n_iter=2)
    alpha1 = MU1 / ETA
    gap2 = MU2 - alpha1 * H12
    assert path.risk[0] == pytest.approx(1.0)  # F = 0: (1/m) sum y^2
    assert path.risk[1] == pytest.approx(1.0 - MU1**2 / ETA)  # Section 3: decrease (mu - M)^2 / eta
    assert path.risk[2] == pytest.approx(1.0 - MU1**2 / ETA - gap2**2 / ETA)


def test_section_3_1_reweighting_uses_correlation_with_the_other_voters():
    path = _run(n_iter=3)
    alpha1 = MU1 / ETA
    alpha2 = (MU2 - alpha1 * H12) / ETA
    # voter 1 again: M_1 is now its correlation with alpha' . h = alpha2 h2 (eq. 10)
    assert path.path_voters.tolist() == [0, 1, 0]
    assert path.coef[0] == pytest.approx((MU1 - alpha2 * H12) / ETA)  # 0.6 + 0.064


def test_eta_other_than_one_divides_the_step():
    h = 0.5 * H1
    path = quadboost_path(_matrix(h), Y, n_iter=1)
    assert path.coef[0] == pytest.approx(_inner(Y, h) / _inner(h, h))  # eq. 6 with eta = 0.25


def test_l1_eq7_soft_thresholds_positive_gap():
    lam = 0.1
    path = _run(n_iter=2, regularization="l1", lam=lam)
    alpha1 = (MU1 - 0.0 - lam) / ETA  # mu_1 - M_1 > lambda branch
    assert path.coef[0] == pytest.approx(alpha1)  # 0.5
    assert path.coef[1] == pytest.approx((MU2 - alpha1 * H12 - lam) / ETA)  # (0.3 - 0.1)


def test_l1_eq7_negative_branch_gives_negative_weight():
    lam = 0.1
    path = _run(y=-Y, n_iter=1, regularization="l1", lam=lam)
    mu1 = _inner(-Y, H1)  # -0.6: M_1 - mu_1 > lambda
    assert path.coef[0] == pytest.approx(-(0.0 - mu1 - lam) / ETA)  # -0.5


def test_l2_eq8_shrinks_by_eta_plus_lambda():
    lam = 0.5
    path = _run(n_iter=2, regularization="l2", lam=lam)
    alpha1 = MU1 / (ETA + lam)  # 0.4
    assert path.coef[0] == pytest.approx(alpha1)
    assert path.coef[1] == pytest.approx((MU2 - alpha1 * H12) / (ETA + lam))  # 0.28 / 1.5
    objective = path.risk[2] + lam * (path.coef**2).sum()
    assert path.objective[2] == pytest.approx(objective)


def test_linf_eq9_clips_large_steps_and_keeps_small_ones():
    alpha_max = 0.3
    path = _run(n_iter=10, regularization="linf", alpha_max=alpha_max)
    assert path.coef[0] == pytest.approx(alpha_max)  # |mu_1| / eta = 0.6 > alpha_max: alpha_max sgn(0.6)
    gap2 = MU2 - alpha_max * H12  # 0.26 <= alpha_max: unclipped
    assert path.coef[1] == pytest.approx(gap2 / ETA)
    # voter 1's unconstrained re-weight (0.664) is clipped back to alpha_max: nothing left to improve
    assert path.n_iter == 2
    assert path.stop_reason == "converged"


def test_l1_stops_by_itself_when_no_voter_exceeds_lambda():
    lam = 0.3
    path = _run(n_iter=50, regularization="l1", lam=lam)
    assert path.path_voters.tolist() == [0]  # mu_1 = 0.6 > lambda
    assert abs(MU2 - (MU1 - lam) * H12) <= lam  # 0.26: h2 never exceeds lambda
    assert path.stop_reason == "converged"


def test_l1_with_lambda_above_every_margin_learns_nothing():
    path = _run(n_iter=50, regularization="l1", lam=max(abs(MU1), abs(MU2)))
    assert path.n_iter == 0
    assert path.stop_reason == "converged"
    assert np.all(path.coef == 0)


def test_l1_stopping_point_satisfies_the_paper_condition_on_stumps():
    X, y = make_classification(n_samples=120, n_features=6, random_state=3)
    lam = 0.05
    clf = QuadBoostClassifier(n_iter=5000, regularization="l1", lam=lam, random_state=0).fit(X, y)
    path = clf.ensembles_[0]
    assert path.stop_reason == "converged" and clf.n_iter_ < 5000
    H = clf.pool_.voter_matrix(clf.pool_.normalize(X)).astype(np.float64)
    target = np.where(y == clf.classes_[1], 1.0, -1.0)
    alpha = path.coef
    mu = H.T @ target / len(y)  # eq. 3
    m_excl = H.T @ (H @ alpha) / len(y) - alpha  # eq. 4 / 10: correlation with the other voters (eta = 1)
    gap = mu - m_excl
    assert np.all(np.abs(gap[alpha == 0]) <= lam + 1e-6)  # no new voter exceeds lambda
    # voters in the ensemble sit at their eq. 7 value
    nz = alpha != 0
    assert np.allclose(alpha[nz], np.sign(gap[nz]) * (np.abs(gap[nz]) - lam), atol=1e-6)


# Four +-1 voters on ten examples where L1 coordinate descent selects h_0 first and later sets it to exactly 0.
ZERO_H = _matrix(
    [-1, 1, -1, -1, 1, -1, 1, -1, 1, 1],
    [-1, 1, 1, -1, -1, 1, -1, 1, -1, 1],
    [-1, 1, -1, -1, 1, -1, 1, -1, -1, -1],
    [1, -1, -1, 1, 1, 1, -1, 1, -1, -1],
)
ZERO_Y = np.array([1.0, -1, -1, -1, -1, 1, -1, -1, -1, 1])


def test_l1_reweighting_drives_a_weight_to_exactly_zero():
    lam = 0.05
    path = quadboost_path(ZERO_H, ZERO_Y, n_iter=200, regularization="l1", lam=lam)
    assert path.path_voters[0] == 0 and path.path_deltas[0] != 0
    assert path.stop_reason == "converged"
    assert path.coef[0] == 0.0  # exactly, not merely small
    last = np.flatnonzero(path.path_voters == 0)[-1]
    before = path.coef_at(last)
    assert before[0] != 0
    h = ZERO_H.astype(np.float64)
    others = h @ before - before[0] * h[:, 0]
    gap = _inner(ZERO_Y, h[:, 0]) - _inner(others, h[:, 0])  # mu_0 - M_0 (Section 3.1)
    assert abs(gap) <= lam  # third branch of eq. 7


def test_without_reweighting_each_voter_enters_once_and_keeps_its_weight():
    X, y = make_classification(n_samples=80, n_features=4, random_state=1)
    clf = QuadBoostClassifier(n_iter=30, regularization=None, reweight_voters=False, random_state=0).fit(X, y)
    path = clf.ensembles_[0]
    assert len(np.unique(path.path_voters)) == path.n_iter
    assert np.allclose(path.coef[path.path_voters], path.path_deltas)


def _brute_force_step(H, y, alpha, regularization, lam, alpha_max):
    """For every voter: minimise the objective over its weight numerically; return (objective, weight) per voter."""
    H = H.astype(np.float64)
    F = H @ alpha
    results = []
    for j in range(H.shape[1]):
        rest = F - alpha[j] * H[:, j]

        def objective(x, j=j, rest=rest):
            a = alpha.copy()
            a[j] = x
            risk = np.mean((y - rest - x * H[:, j]) ** 2)
            if regularization == "l1":
                risk += 2 * lam * np.abs(a).sum()
            elif regularization == "l2":
                risk += lam * (a**2).sum()
            return risk

        bound = alpha_max if regularization == "linf" else 50.0
        res = minimize_scalar(objective, bounds=(-bound, bound), method="bounded", options={"xatol": 1e-11})
        results.append((res.fun, res.x))
    return np.array(results)


@pytest.mark.parametrize(
    "regularization, lam, alpha_max", [(None, 0, None), ("l1", 0.02, None), ("l2", 0.3, None), ("linf", 0, 0.05)]
)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("voters", ["real", "pm1"])
def test_selection_equals_brute_force(regularization, lam, alpha_max, seed, voters):
    rng = np.random.default_rng(seed)
    if voters == "real":  # eta_j differ between voters
        H = np.asfortranarray(rng.normal(size=(25, 8)).astype(np.float32))
    else:  # +-1 voters like stumps: all eta_j = 1
        H = np.asfortranarray(rng.choice([-1.0, 1.0], size=(25, 8)).astype(np.float32))
    y = rng.choice([-1.0, 1.0], size=25)
    path = quadboost_path(H, y, n_iter=12, regularization=regularization, lam=lam, alpha_max=alpha_max)
    assert path.n_iter >= 5
    for t in range(path.n_iter):
        state = path.coef_at(t)
        brute = _brute_force_step(H, y, state, regularization, lam, alpha_max)
        best = np.argmin(brute[:, 0])
        j = path.path_voters[t]
        assert path.objective[t + 1] == pytest.approx(brute[best, 0], rel=1e-7, abs=1e-9)
        runner_up = np.partition(brute[:, 0], 1)[1]
        if runner_up - brute[best, 0] > 1e-6:
            assert j == best
            assert state[j] + path.path_deltas[t] == pytest.approx(brute[best, 1], abs=1e-5)
    if path.stop_reason == "converged":  # nothing left that lowers the objective
        brute = _brute_force_step(H, y, path.coef, regularization, lam, alpha_max)
        assert brute[:, 0].min() >= path.objective[-1] - 1e-9


def test_stump_selection_equals_brute_force_over_stumps_and_complements():
    X, y = make_classification(n_samples=60, n_features=3, n_informative=2, n_redundant=0, random_state=4)
    clf = QuadBoostClassifier(n_iter=8, regularization=None, random_state=0).fit(X, y)
    H = clf.pool_.voter_matrix(clf.pool_.normalize(X)).astype(np.float64)
    target = np.where(y == clf.classes_[1], 1.0, -1.0)
    path = clf.ensembles_[0]
    voters = np.hstack([H, -H])  # every stump and its complement, explicitly
    for t in range(path.n_iter):
        F = H @ path.coef_at(t)
        best = np.inf
        for j in range(voters.shape[1]):
            h = voters[:, j]
            # the ensemble with h_j at its best weight: least squares along h_j (re-weights it if present)
            in_ens = path.coef_at(t)[j % H.shape[1]] * (1 if j < H.shape[1] else -1)
            rest = F - in_ens * h
            x = np.dot(target - rest, h) / np.dot(h, h)
            best = min(best, np.mean((target - rest - x * h) ** 2))
        assert path.risk[t + 1] == pytest.approx(best, rel=1e-9, abs=1e-12)


def test_vanilla_quadratic_risk_is_non_increasing():
    X, y = make_classification(n_samples=150, n_features=8, flip_y=0.1, random_state=2)
    clf = QuadBoostClassifier(n_iter=300, regularization=None, random_state=0).fit(X, y)
    assert clf.n_iter_ > 50
    assert np.all(np.diff(clf.train_risk_) <= 1e-15)
    assert clf.train_risk_[-1] < clf.train_risk_[0]


@pytest.mark.parametrize(
    "kw",
    [
        dict(regularization="l1", lam=0.01),
        dict(regularization="l2", lam=2.0),
        dict(regularization="linf", alpha_max=0.02),
    ],
)
def test_regularised_objective_is_non_increasing(kw):
    X, y = make_classification(n_samples=150, n_features=8, flip_y=0.1, random_state=2)
    clf = QuadBoostClassifier(n_iter=300, random_state=0, **kw).fit(X, y)
    assert np.all(np.diff(clf.train_objective_) <= 1e-12)


def test_reported_objective_is_risk_plus_penalty():
    X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    lam = 0.02
    clf = QuadBoostClassifier(n_iter=40, regularization="l1", lam=lam, random_state=0).fit(X, y)
    F = clf.decision_function(X)
    target = np.where(y == clf.classes_[1], 1.0, -1.0)
    assert clf.train_risk_[-1] == pytest.approx(np.mean((target - F) ** 2))
    assert clf.train_objective_[-1] == pytest.approx(clf.train_risk_[-1] + 2 * lam * np.abs(clf.coef_).sum())


def test_linf_weights_never_exceed_alpha_max():
    X, y = make_classification(n_samples=150, n_features=8, random_state=5)
    alpha_max = 0.01
    clf = QuadBoostClassifier(n_iter=500, regularization="linf", alpha_max=alpha_max, random_state=0).fit(X, y)
    path = clf.ensembles_[0]
    assert np.abs(clf.coef_).max() == pytest.approx(alpha_max)  # the bound is reached...
    for t in range(0, path.n_iter + 1, 25):
        assert np.abs(path.coef_at(t)).max() <= alpha_max  # ...and never exceeded along the way
