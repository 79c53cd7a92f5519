"""QuadBoost (Roy, Marchand and Laviolette): update rules of eq. 6-9, Section 3.1 re-weighting, the stump set of
Section 4, and the scikit-learn contract of QuadBoostClassifier.

Expected values in the update-rule tests are computed in the test from the paper's definitions (eq. 3-5), never
by calling the implementation.
"""

import pickle
import re
import warnings

import numpy as np
import pytest
from estimator_checks_table import expected_failed_checks
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_iris, make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf.baselines import QuadBoostClassifier
from mddf.baselines._quadboost_solver import quadboost_path
from mddf.baselines._quadboost_voters import fit_stump_pool


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


# ---------------------------------------------------------------- update rules (eq. 6, 7, 8, 9, Section 3.1)


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


# ---------------------------------------------------------------- selection equals brute force


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


# ---------------------------------------------------------------- objective along the iterations


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


# ---------------------------------------------------------------- the stumps of Section 4


def test_stump_thresholds_are_evenly_spaced_inside_the_tanh_normalised_range():
    rng = np.random.default_rng(0)
    x = rng.exponential(size=(400, 1))
    pool = fit_stump_pool(x, n_thresholds=10, placement="range", normalization="tanh")
    z = np.tanh((x[:, 0] - x[:, 0].mean()) / x[:, 0].std())
    expected = z.min() + (z.max() - z.min()) * np.arange(1, 11) / 11
    assert np.allclose(np.sort(pool.thresholds), expected)
    assert np.all(pool.features == 0)


def test_stumps_splitting_the_training_set_identically_are_merged_and_constant_features_dropped():
    X = np.column_stack([np.repeat([0.0, 1.0], 10), np.full(20, 3.0)])  # binary and constant attributes
    pool = fit_stump_pool(X, n_thresholds=10)
    assert pool.n_voters == 1 and pool.features[0] == 0
    H = pool.voter_matrix(pool.normalize(X))
    assert np.array_equal(H[:, 0], np.where(X[:, 0] > 0.5, 1, -1))


def test_voter_report_reproduces_the_decision_function_on_the_original_scale():
    X, y = make_classification(n_samples=100, n_features=5, random_state=7)
    clf = QuadBoostClassifier(n_iter=25, regularization="l1", lam=0.01, random_state=0).fit(X, y)
    v = clf.voters_
    assert len(v) == clf.n_voters_ and np.all(v["weight"] > 0) and set(v["sign"]) <= {-1, 1}
    outputs = np.where(X[:, v["feature"]] > v["raw_threshold"], 1.0, -1.0) * v["sign"]
    assert np.allclose(outputs @ v["weight"], clf.decision_function(X))
    assert np.array_equal(clf.voter_weights_, v["weight"])


# ---------------------------------------------------------------- estimator behaviour


@parametrize_with_checks(
    [
        QuadBoostClassifier(n_iter=20, regularization=None, random_state=0),
        QuadBoostClassifier(n_iter=20, regularization="l1", lam=0.01, random_state=0),
        QuadBoostClassifier(n_iter=20, regularization="l2", lam=1.0, random_state=0),
        QuadBoostClassifier(n_iter=20, regularization="linf", alpha_max=0.1, random_state=0),
    ],
    expected_failed_checks=expected_failed_checks,  # docs/user_guide/scikit_learn.md lists them
    xfail_strict=True,
)
@pytest.mark.slow
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_any_two_labels_are_accepted_and_mapped_to_minus_plus_one():
    X, y01 = make_classification(n_samples=80, n_features=4, random_state=0)
    labels = np.array(["spam", "ham"])[y01]
    clf = QuadBoostClassifier(n_iter=20, random_state=0).fit(X, labels)
    ref = QuadBoostClassifier(n_iter=20, random_state=0).fit(X, np.where(labels == "spam", 1, -1))
    assert list(clf.classes_) == ["ham", "spam"]  # "ham" -> -1, "spam" -> +1
    assert np.allclose(clf.decision_function(X), ref.decision_function(X))
    assert set(clf.predict(X)) <= {"ham", "spam"}


def test_multiclass_is_one_vs_rest_on_shared_stumps():
    X, y = load_iris(return_X_y=True)
    clf = QuadBoostClassifier(n_iter=30, regularization="l1", lam=0.01, random_state=0).fit(X, y)
    assert len(clf.ensembles_) == 3 and clf.decision_function(X).shape == (150, 3)
    for k in range(3):
        binary = QuadBoostClassifier(n_iter=30, regularization="l1", lam=0.01, random_state=0).fit(X, y == k)
        assert np.allclose(clf.decision_function(X)[:, k], binary.decision_function(X))
    assert np.array_equal(clf.predict(X), np.argmax(clf.decision_function(X), axis=1))
    assert np.allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert clf.score(X, y) > 0.9


def test_probabilities_follow_the_quadratic_loss_estimate():
    X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    clf = QuadBoostClassifier(n_iter=20, regularization=None, random_state=0).fit(X, y)
    F = clf.decision_function(X)
    assert np.allclose(clf.predict_proba(X)[:, 1], np.clip((1 + F) / 2, 0, 1))


@pytest.mark.parametrize("reg", [None, "l1", "l2", "linf"])
def test_staged_decision_function_matches_fits_with_fewer_iterations(reg):
    X, y = load_iris(return_X_y=True)
    kw = dict(regularization=reg, lam=0.01 if reg == "l1" else 1.0, alpha_max=0.05, random_state=0)
    full = QuadBoostClassifier(n_iter=15, **kw).fit(X, y)
    stages = list(full.staged_decision_function(X))
    assert len(stages) == full.n_iter_
    assert np.allclose(stages[-1], full.decision_function(X))
    for t in (1, 7):
        short = QuadBoostClassifier(n_iter=t, **kw).fit(X, y)
        assert np.allclose(stages[t - 1], short.decision_function(X))
        assert np.allclose(full._decision_at(X, [t])[0], short.decision_function(X))
    assert np.array_equal(list(full.staged_predict(X))[-1], full.predict(X))


def test_random_state_makes_fits_bit_identical_and_pickle_preserves_them():
    X, y = make_classification(n_samples=100, n_features=6, random_state=0)
    a = QuadBoostClassifier(n_iter=50, regularization="l2", lam=1.0, random_state=42).fit(X, y)
    b = QuadBoostClassifier(n_iter=50, regularization="l2", lam=1.0, random_state=42).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.pool_.features, b.pool_.features)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.decision_function(X), a.decision_function(X))


def test_works_inside_pipeline_and_grid_search():
    X, y = make_classification(n_samples=90, n_features=4, random_state=0)
    search = GridSearchCV(
        make_pipeline(StandardScaler(), QuadBoostClassifier(n_iter=10, random_state=0)),
        {"quadboostclassifier__lam": [0.001, 0.1]},
        cv=3,
    ).fit(X, y)
    assert search.best_params_["quadboostclassifier__lam"] in (0.001, 0.1)


def test_verbose_prints_progress(capsys):
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    QuadBoostClassifier(n_iter=20, regularization=None, verbose=1, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert "iter" in out and "risk" in out
    QuadBoostClassifier(n_iter=20, regularization=None, random_state=0).fit(X, y)
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------- errors


@pytest.fixture
def data():
    return make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=0, random_state=0)


def test_one_class_is_rejected_naming_the_label_as_python_prints_it(data):
    X, _ = data
    with pytest.raises(ValueError, match=r"at least two classes in y; got one class: 0$"):
        QuadBoostClassifier().fit(X, np.zeros(len(X), dtype=np.int64))
    with pytest.raises(ValueError, match=r"got one class: 'a'$"):
        QuadBoostClassifier().fit(X, np.array(["a"] * len(X)))


def test_verbose_one_vs_rest_lines_name_the_class_as_python_prints_it(capsys):
    X, y = load_iris(return_X_y=True)
    QuadBoostClassifier(n_iter=10, regularization=None, verbose=1, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert "[QuadBoost] class 2 vs rest:" in out and "np.int64" not in out


@pytest.mark.parametrize("scale", [1e300, -1e300])
def test_values_whose_normalisation_overflows_are_rejected_with_a_clear_error(data, scale):
    X, y = data
    largest = re.escape(f"{np.abs(X * scale).max():.3g}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning on the way to the error
        with pytest.raises(ValueError, match=rf"too large for QuadBoostClassifier \(largest magnitude {largest}\)"):
            QuadBoostClassifier().fit(X * scale, y)


@pytest.mark.parametrize("normalization", ["tanh", None])
def test_weights_of_any_magnitude_give_the_model_of_their_ratios(data, normalization):
    # weights near 1e308 overflowed the weighted sums, and the error blamed X
    X, y = data
    weight = np.random.RandomState(1).randint(1, 4, size=len(y)).astype(float)
    model = QuadBoostClassifier(normalization=normalization, n_iter=20, random_state=0)
    reference = model.fit(X, y, sample_weight=weight).decision_function(X)
    for scale in (2.0**1000, 2.0**-100):  # a power of two: the same model to the bit
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            scaled = model.fit(X, y, sample_weight=weight * scale).decision_function(X)
        np.testing.assert_array_equal(scaled, reference)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for scale in (1e300, 5e307):
            model.fit(X, y, sample_weight=weight * scale)
            np.testing.assert_allclose(model.decision_function(X), reference, rtol=1e-9, atol=1e-12)


def test_a_threshold_grid_that_overflows_is_rejected_without_normalisation(data):
    X, y = data
    X = X.copy()
    X[0, 0], X[1, 0] = 1.5e308, -1.5e308  # finite, but their range is not
    with pytest.raises(ValueError, match="too large for QuadBoostClassifier"):
        QuadBoostClassifier(normalization=None).fit(X, y)


def test_huge_but_representable_values_still_fit_without_normalisation(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = QuadBoostClassifier(normalization=None, n_iter=20, random_state=0).fit(X * 1e300, y)
    small = QuadBoostClassifier(normalization=None, n_iter=20, random_state=0).fit(X, y)
    # stumps on raw attributes only compare values: the same voters and predictions at any scale
    np.testing.assert_array_equal(big.predict(X * 1e300), small.predict(X))


def test_prediction_on_huge_values_after_a_normal_fit_saturates_instead_of_failing(data):
    X, y = data
    clf = QuadBoostClassifier(n_iter=20, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pred = clf.predict(X * 1e300)
    assert set(pred) <= set(clf.classes_)


def test_infinity_is_rejected(data):
    X, y = data
    X = X.copy()
    X[2, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        QuadBoostClassifier().fit(X, y)


def test_nan_is_accepted_but_infinity_is_rejected(data):
    X, y = data
    X = X.copy()
    X[3, 1] = np.nan
    QuadBoostClassifier(n_iter=5).fit(X, y)  # missing values: see test_stumps_abstain_on_missing_values
    X[3, 1] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        QuadBoostClassifier().fit(X, y)


def test_wrong_shapes_are_rejected(data):
    X, y = data
    with pytest.raises(ValueError, match="2D array"):
        QuadBoostClassifier().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        QuadBoostClassifier().fit(X, y[:-1])
    clf = QuadBoostClassifier(n_iter=5).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :2])


@pytest.mark.parametrize(
    "params, name",
    [
        (dict(regularization="l3"), "regularization"),
        (dict(lam=-0.1), "lam"),
        (dict(alpha_max=0.0), "alpha_max"),
        (dict(n_iter=0), "n_iter"),
        (dict(threshold_placement="median"), "threshold_placement"),
    ],
)
def test_bad_parameters_are_named(data, params, name):
    X, y = data
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        QuadBoostClassifier(**params).fit(X, y)


def test_continuous_targets_are_rejected(data):
    X, _ = data
    with pytest.raises(ValueError, match="Unknown label type"):
        QuadBoostClassifier().fit(X, np.linspace(0, 1, len(X)))


# ---------------------------------------------------------------- sample_weight


WEIGHTED_QB = [
    dict(regularization=None),
    dict(regularization="l1", lam=0.01),
    dict(regularization="l2", lam=0.5),
    dict(regularization="l1", lam=0.005, threshold_placement="quantile"),
    dict(regularization="l1", lam=0.005, reweight_voters=False),
]


@pytest.mark.parametrize("params", WEIGHTED_QB)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_integer_weights_are_repeated_rows(params, n_classes):
    X, y = make_classification(
        n_samples=150, n_features=6, n_informative=4, n_classes=n_classes, random_state=n_classes
    )
    w = np.random.RandomState(1).randint(0, 4, len(y))
    weighted = QuadBoostClassifier(n_iter=60, random_state=0, **params).fit(X, y, sample_weight=w)
    repeated = QuadBoostClassifier(n_iter=60, random_state=0, **params).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.pool_.thresholds, repeated.pool_.thresholds, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weighted.pool_.offset, repeated.pool_.offset, rtol=1e-12)
    np.testing.assert_allclose(weighted.pool_.scale, repeated.pool_.scale, rtol=1e-12)
    for a, b in zip(weighted.ensembles_, repeated.ensembles_):
        assert np.array_equal(a.path_voters, b.path_voters)
        np.testing.assert_allclose(a.path_deltas, b.path_deltas, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(a.objective, b.objective, rtol=1e-9)
    X_new = np.random.RandomState(2).normal(size=(60, X.shape[1]))
    for Z in (X, X_new):
        np.testing.assert_allclose(weighted.decision_function(Z), repeated.decision_function(Z), atol=1e-9)


def test_weighted_risk_is_the_weighted_mean_of_the_squared_residual():
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    w = np.random.RandomState(0).uniform(0.2, 3.0, len(y))
    clf = QuadBoostClassifier(n_iter=30, regularization=None, random_state=0).fit(X, y, sample_weight=w)
    y_pm = np.where(y == 1, 1.0, -1.0)
    p = w / w.sum()
    assert clf.train_risk_[-1] == pytest.approx(float(p @ (y_pm - clf.decision_function(X)) ** 2), rel=1e-10)
    # eq. 6 under the weighted inner product: the first voter's weight is mu_j = <y, h_j>_p (eta_j = 1)
    path = clf.ensembles_[0]
    h = clf.pool_.voter_matrix(clf.pool_.normalize(X), path.path_voters[:1])[:, 0].astype(np.float64)
    assert path.path_deltas[0] == pytest.approx(float(p @ (y_pm * h)), rel=1e-6)
    # the tanh normalisation uses the weighted mean and standard deviation
    mean = p @ X
    np.testing.assert_allclose(clf.pool_.offset, mean, rtol=1e-12)
    np.testing.assert_allclose(clf.pool_.scale, np.sqrt(p @ (X - mean) ** 2), rtol=1e-12)


def test_unit_zero_and_rescaled_weights():
    X, y = make_classification(n_samples=120, n_features=5, random_state=1)
    ref = QuadBoostClassifier(n_iter=40, random_state=0).fit(X, y)
    ones = QuadBoostClassifier(n_iter=40, random_state=0).fit(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(ones.decision_function(X), ref.decision_function(X))
    X_extra = np.vstack([X, X[:30] * 3.0 + 1.0])
    w = np.r_[np.ones(len(y)), np.zeros(30)]
    zero = QuadBoostClassifier(n_iter=40, random_state=0).fit(X_extra, np.r_[y, 1 - y[:30]], sample_weight=w)
    np.testing.assert_allclose(zero.decision_function(X_extra), ref.decision_function(X_extra), atol=1e-10)
    w = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    a = QuadBoostClassifier(n_iter=40, random_state=0).fit(X, y, sample_weight=w)
    b = QuadBoostClassifier(n_iter=40, random_state=0).fit(X, y, sample_weight=w * 1e-4)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-10)


@pytest.mark.parametrize(
    "weights, match",
    [
        (lambda n: -np.ones(n), "(?i)negative"),
        (lambda n: np.r_[np.nan, np.ones(n - 1)], "finite"),
        (lambda n: np.zeros(n), "non-zero|no positive entry"),
        (lambda n: np.ones(n - 1), "sample_weight"),
    ],
)
def test_bad_sample_weights_are_rejected(weights, match):
    X, y = make_classification(n_samples=30, n_features=4, random_state=0)
    with pytest.raises(ValueError, match=match):
        QuadBoostClassifier(n_iter=3).fit(X, y, sample_weight=weights(len(y)))


def test_linf_weighted_path_is_a_greedy_path_on_the_repeated_rows():
    """With eq. 9 every step is +-alpha_max until late, so residuals sit on a lattice and two stumps often tie
    exactly; float rounding (which differs between weights and repeated rows) then picks one of them. The exact
    property left: each update of the weighted fit is a best update (up to rounding) for the repeated rows."""
    from mddf.baselines._quadboost_solver import objective_decrease, optimal_weight

    X, y = make_classification(n_samples=150, n_features=6, n_informative=4, random_state=2)
    w = np.random.RandomState(1).randint(0, 4, len(y))
    clf = QuadBoostClassifier(n_iter=60, regularization="linf", alpha_max=0.1, random_state=0)
    clf.fit(X, y, sample_weight=w)
    X_rep, y_rep = np.repeat(X, w, axis=0), np.where(np.repeat(y, w) == 1, 1.0, -1.0)
    H = clf.pool_.voter_matrix(clf.pool_.normalize(X_rep)).astype(np.float64)
    alpha, r = np.zeros(H.shape[1]), y_rep.copy()
    path = clf.ensembles_[0]
    for j, delta in zip(path.path_voters, path.path_deltas):
        g = H.T @ r / len(r)
        dec = objective_decrease(g, alpha, 1.0, "linf", 0.0, 0.1)
        assert dec[j] >= dec.max() - 1e-12
        assert alpha[j] + delta == pytest.approx(optimal_weight(g[j] + alpha[j], 1.0, "linf", 0.0, 0.1), abs=1e-12)
        alpha[j] += delta
        r -= delta * H[:, j]


# ---------------------------------------------------------------- missing values


def _with_missing(seed=0, rate=0.2):
    X, y = make_classification(n_samples=200, n_features=5, n_informative=3, random_state=seed)
    Xn = X.copy()
    Xn[np.random.RandomState(seed).rand(*X.shape) < rate] = np.nan
    return X, Xn, y


def test_stumps_abstain_on_missing_values():
    _, Xn, y = _with_missing()
    Xn[:, 4] = np.nan  # no value at all: no stumps on it
    clf = QuadBoostClassifier(n_iter=40, regularization=None, random_state=0).fit(Xn, y)
    assert 4 not in set(clf.pool_.features.tolist())
    H = clf.pool_.voter_matrix(clf.pool_.normalize(Xn))
    missing = np.isnan(Xn[:, clf.pool_.features])
    assert np.all(H[missing] == 0) and np.all(np.abs(H[~missing]) == 1)
    # the decision is the weighted vote of the stumps whose attribute is present
    coef = clf.coef_[0]
    np.testing.assert_allclose(clf.decision_function(Xn), H.astype(np.float64) @ coef, atol=1e-12)
    assert np.all(clf.decision_function(np.full((3, 5), np.nan)) == 0)
    # eq. 6 with eta_j = <h_j, h_j> < 1: the first voter's weight is mu_j / eta_j
    y_pm = np.where(y == 1, 1.0, -1.0)
    j = clf.ensembles_[0].path_voters[0]
    h = H[:, j].astype(np.float64)
    assert clf.ensembles_[0].path_deltas[0] == pytest.approx(np.mean(y_pm * h) / np.mean(h * h), rel=1e-6)
    # statistics over the present values
    np.testing.assert_allclose(clf.pool_.offset[:4], np.nanmean(Xn[:, :4], axis=0), rtol=1e-12)
    np.testing.assert_allclose(clf.pool_.scale[:4], np.nanstd(Xn[:, :4], axis=0), rtol=1e-12)


@pytest.mark.parametrize("placement", ["range", "quantile"])
def test_missing_values_fit_and_predict(placement):
    X, Xn, y = _with_missing(1)
    clf = QuadBoostClassifier(n_iter=60, threshold_placement=placement, random_state=0).fit(Xn, y)
    assert clf.score(Xn, y) > 0.7 and clf.score(X, y) > 0.7
    # weighted fit with missing values: integer weights still act as repeated rows
    w = np.random.RandomState(0).randint(0, 3, len(y))
    a = QuadBoostClassifier(n_iter=30, threshold_placement=placement, random_state=0).fit(Xn, y, sample_weight=w)
    b = QuadBoostClassifier(n_iter=30, threshold_placement=placement, random_state=0)
    b.fit(np.repeat(Xn, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.decision_function(Xn), b.decision_function(Xn), atol=1e-9)


def test_infinity_is_still_rejected():
    X, y = make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=0, random_state=0)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        QuadBoostClassifier().fit(X, y)
    clf = QuadBoostClassifier(n_iter=5).fit(np.nan_to_num(X, posinf=0.0), y)
    with pytest.raises(ValueError, match="infinity"):
        clf.predict(X)


# ---------------------------------------------------------------- feature_importances_


def test_feature_importances_are_objective_decreases_per_attribute():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 2] + 0.3 * rng.normal(size=300) > 0).astype(int)
    clf = QuadBoostClassifier(n_iter=50, random_state=0).fit(X, y)
    imp = clf.feature_importances_
    assert imp.shape == (5,) and np.all(imp >= 0) and imp.sum() == pytest.approx(1.0)
    assert np.argmax(imp) == 2 and imp[2] > 0.5
    path = clf.ensembles_[0]
    expected = np.zeros(5)
    for t, j in enumerate(path.path_voters):
        expected[clf.pool_.features[j]] += path.objective[t] - path.objective[t + 1]
    np.testing.assert_allclose(imp, expected / expected.sum(), rtol=1e-12)


def test_feature_importances_one_vs_rest_and_permutation_importance():
    from sklearn.inspection import permutation_importance

    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::9, 1] = np.nan
    clf = QuadBoostClassifier(n_iter=40, random_state=0).fit(X, y)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    one_class = QuadBoostClassifier(n_iter=40, random_state=0).fit(X, y == 0)
    assert one_class.feature_importances_.sum() == pytest.approx(1.0)
    result = permutation_importance(clf, X, y, n_repeats=3, random_state=0)
    assert result.importances_mean.shape == (4,) and np.all(np.isfinite(result.importances_mean))
