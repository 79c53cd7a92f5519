"""DeepBoost (Cortes, Mohri and Syed 2014), whole fits: Figure 2's descent round by round, sample weights, missing
values, feature importances, and the scikit-learn estimator (its steps: test_deepboost_steps.py; its weak learners:
test_weak_learners.py)."""

import pickle

import numpy as np
import pytest
from estimator_checks_table import expected_failed_checks
from scipy.optimize import minimize_scalar
from scipy.special import expit
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf.baselines import AdaBoostClassifier, DeepBoostClassifier
from mddf.baselines._binned_features import BinnedFeatures
from mddf.baselines._deepboost_steps import (
    direction,
    loss_derivative_weights,
)
from mddf.baselines._split_search import SplitSearch
from mddf.baselines._tree_growth import grow_tree_candidates

# ----------------------------------------------------------------------------------------------
# Brute-force references for the weak learner
# ----------------------------------------------------------------------------------------------


# ----------------------------------------------------------------------------------------------
# Weak learner: exhaustive stumps and layer-wise trees (Section 4)
# ----------------------------------------------------------------------------------------------


# ----------------------------------------------------------------------------------------------
# Figure 2: direction (lines 5-9) and step (lines 12-16), by hand
# ----------------------------------------------------------------------------------------------


# ----------------------------------------------------------------------------------------------
# Whole fits
# ----------------------------------------------------------------------------------------------


def phi_prime(z, loss):
    return np.exp(z) if loss == "exponential" else expit(z) / np.log(2)


def phi(z, loss):
    return np.exp(z) if loss == "exponential" else np.logaddexp(0, z) / np.log(2)


@pytest.fixture(scope="module")
def problem():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=4, random_state=3)
    return X.astype(np.float32), y


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
@pytest.mark.parametrize("base", ["trees", "stumps"])
def test_normaliser_is_the_sum_of_unnormalised_loss_derivatives_at_every_round(problem, loss, base):
    # S_t = sum_i Phi'(1 - y_i f_{t-1}(x_i)) (eq. 5) in every round, not only the first.
    X, y = problem
    ypm = np.where(y == 1, 1.0, -1.0)
    est = DeepBoostClassifier(n_iter=25, max_depth=3, loss=loss, lam=0.01, beta=0.01, base=base).fit(X, y)
    f_prev = [np.zeros(len(y))] + list(est.staged_decision_function(X))
    for t, S in enumerate(est.normalizers_):
        assert S == pytest.approx(phi_prime(1 - ypm * f_prev[t], loss).sum(), rel=1e-12)
    # and eq. 4 after every round
    alpha_live = [est.ensembles_[0].alpha_after(t + 1) for t in range(est.n_iter_)]
    for t, F in enumerate(est.objective_):
        data = phi(1 - ypm * f_prev[t + 1], loss).mean()
        assert F == pytest.approx(data + est.ensembles_[0].penalty @ np.abs(alpha_live[t]), rel=1e-10)


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
def test_separable_data_with_huge_margins_do_not_break_the_fit(loss):
    # Unpenalised boosting of deep trees on separable data drives the margins past the range
    # where Phi' underflows (S_t = 0 in floating point); D_t, the steps and the predictions must
    # stay finite, and a penalty must still act (m / (2 S_t) is then infinite).
    X, y = make_classification(
        n_samples=80, n_features=4, n_informative=2, n_redundant=0, class_sep=3.0, flip_y=0.0, random_state=0
    )
    free = DeepBoostClassifier(n_iter=150, max_depth=4, loss=loss, lam=0.0, beta=0.0).fit(X, y)
    assert np.all(np.isfinite(free.steps_)) and np.all(np.isfinite(free.decision_function(X)))
    assert free.score(X, y) == 1.0
    assert free.normalizers_[-1] == 0.0  # underflowed, handled in the log domain
    paid = DeepBoostClassifier(n_iter=150, max_depth=4, loss=loss, lam=0.0, beta=1e-7).fit(X, y)
    assert np.all(np.isfinite(paid.decision_function(X))) and paid.score(X, y) == 1.0
    assert np.abs(paid.decision_function(X)).max() < np.abs(free.decision_function(X)).max()


def test_exponential_objective_never_increases(problem):
    # Coordinate descent with the exact line search of lines 12-16.
    X, y = problem
    est = DeepBoostClassifier(n_iter=40, max_depth=3, lam=0.05, beta=0.01).fit(X, y)
    assert np.all(np.diff(est.objective_) <= 1e-12 * est.objective_[:-1])


def test_each_round_picks_the_steepest_coordinate_among_old_hypotheses(problem):
    # |d_k| of the chosen coordinate is at least |d_j| of every hypothesis already in the
    # ensemble (lines 5-10), recomputed from the model's staged outputs.
    X, y = problem
    ypm = np.where(y == 1, 1.0, -1.0)
    est = DeepBoostClassifier(n_iter=30, max_depth=2, lam=0.02, beta=0.005).fit(X, y)
    ens = est.ensembles_[0]
    H = ens.predictions(X).astype(float)
    f_prev = [np.zeros(len(y))] + list(est.staged_decision_function(X))
    m = len(y)
    for t in range(est.n_iter_):
        D, log_s = loss_derivative_weights(1 - ypm * f_prev[t], "exponential")
        S = np.exp(log_s)
        known = sorted(set(ens.selected[:t].tolist()))
        if not known:
            continue
        eps = 0.5 * (1 - (D * ypm) @ H[:, known])
        d = direction(eps, ens.alpha_after(t)[known], ens.penalty[known] * m / (2 * S))
        assert abs(ens.directions[t]) >= np.abs(d).max() - 1e-12


def test_a_weight_is_driven_to_exactly_zero():
    # The sparsity case of lines 12-13 on real data: with a large beta an old stump whose
    # edge no longer pays for its penalty gets eta = -alpha, i.e. weight exactly 0.
    X, y = load_breast_cancer(return_X_y=True)
    est = DeepBoostClassifier(n_iter=40, base="stumps", lam=0.0, beta=0.25).fit(X, y)
    ens = est.ensembles_[0]
    zeroed = [t for t in range(ens.n_rounds) if not ens.is_new[t] and ens.alpha_after(t + 1)[ens.selected[t]] == 0.0]
    assert zeroed, "no weight was set to zero"
    t = zeroed[0]
    k = ens.selected[t]
    alpha_before = ens.alpha_after(t)[k]
    assert ens.steps[t] == -alpha_before != 0.0
    eps, S, m = ens.errors[t], ens.normalizers[t], len(y)
    A = (1 - eps) * np.exp(alpha_before) - eps * np.exp(-alpha_before)
    assert abs(A) <= ens.penalty[k] * m / S  # the condition of line 12
    assert est.n_trees_ < len(est.hypotheses_)
    assert np.count_nonzero(est.alphas_) == est.n_trees_


def test_no_hypothesis_is_selected_twice(problem):
    # Old hypotheses are candidates, and win ties: a function already in the ensemble is
    # re-weighted, never added again.
    X, y = problem
    ypm = np.where(y == 1, 1.0, -1.0)
    for est in (AdaBoostClassifier(n_iter=60).fit(X, y), DeepBoostClassifier(n_iter=60, max_depth=2).fit(X, y)):
        outputs = {est.ensembles_[0].predictions(X)[:, j].tobytes() for j in range(len(est.hypotheses_))}
        assert len(outputs) == len(est.hypotheses_)
        assert not est.ensembles_[0].is_new.all()  # some rounds revised an old weight
        # The training-set cache of hypothesis outputs grew past its initial 32 columns and
        # still drives the same margins as the trees themselves.
        f_prev = list(est.staged_decision_function(X))[-2]
        assert est.normalizers_[-1] == pytest.approx(np.exp(1 - ypm * f_prev).sum(), rel=1e-12)
    assert len(est.hypotheses_) > 32


def test_lambda_zero_makes_the_complexity_convention_irrelevant(problem):
    # AdaBoost-L1 / LogReg-L1 (lam = 0 < beta): Lambda_j = beta for every hypothesis.
    X, y = problem
    for loss in ("exponential", "logistic"):
        a = DeepBoostClassifier(n_iter=30, max_depth=3, loss=loss, lam=0.0, beta=0.02, complexity="paper").fit(X, y)
        b = DeepBoostClassifier(n_iter=30, max_depth=3, loss=loss, lam=0.0, beta=0.02, complexity="reference").fit(X, y)
        np.testing.assert_array_equal(a.steps_, b.steps_)
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
        c = DeepBoostClassifier(n_iter=30, max_depth=3, loss=loss, lam=0.05, beta=0.02).fit(X, y)
        assert not np.array_equal(a.decision_function(X), c.decision_function(X))


def test_complexity_penalty_shrinks_trees(problem):
    # DeepBoost's point: with lam > 0 deep trees must pay for their Rademacher complexity.
    X, y = problem
    free = DeepBoostClassifier(n_iter=30, max_depth=5, lam=0.0, beta=0.0).fit(X, y)
    paid = DeepBoostClassifier(n_iter=30, max_depth=5, lam=0.2, beta=0.0).fit(X, y)
    assert paid.avg_tree_size_ < free.avg_tree_size_


def reference_logreg(X, y, n_iter, depth):
    """Additive logistic regression in the paper's form (lam = beta = 0, logistic loss):
    D_t(i) proportional to Phi'(1 - y_i f) = 1 / (ln 2 (1 + exp(y_i f - 1))), the weak learner of
    lowest weighted error, step 1/2 log((1 - eps) / eps). Uses the package's tree search as the
    weak learner (checked against brute force above)."""
    ypm = np.where(y == 1, 1.0, -1.0)
    search = SplitSearch(BinnedFeatures(X), ypm)
    f = np.zeros(len(y))
    contributions = []
    for _ in range(n_iter):
        w = 1.0 / (1.0 + np.exp(ypm * f - 1.0))
        D = w / w.sum()
        cands = grow_tree_candidates(search, D, depth, lambda errors, n_internal: 0.5 - errors)  # no penalty
        errs = [0.5 * (1 - (D * ypm) @ c.train_pred) for c in cands]
        best = cands[int(np.argmin(errs))]
        eps = min(errs)
        alpha = 0.5 * np.log((1 - eps) / eps)
        contributions.append(alpha * best.train_pred)
        f = f + contributions[-1]
    return f, contributions


def test_logistic_loss_without_penalties_is_additive_logistic_regression(problem):
    X, y = problem
    est = DeepBoostClassifier(n_iter=20, max_depth=1, loss="logistic", lam=0.0, beta=0.0).fit(X, y)
    f_ref, contributions = reference_logreg(X, y, 20, 1)
    ens = est.ensembles_[0]
    H = ens.predictions(X)
    for t, ref in enumerate(contributions):
        np.testing.assert_allclose(ens.steps[t] * H[:, ens.selected[t]], ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.decision_function(X), f_ref, rtol=1e-9)


def test_staged_decision_function_and_tree_stats(problem):
    X, y = problem
    est = DeepBoostClassifier(n_iter=20, max_depth=3).fit(X, y)
    stages = list(est.staged_decision_function(X))
    assert len(stages) == est.n_iter_ == 20
    np.testing.assert_allclose(stages[-1], est.decision_function(X))
    np.testing.assert_array_equal(next(est.staged_predict(X)), np.where(stages[0] > 0, 1, 0))
    stats = est.tree_stats()
    assert stats["n_trees"] == est.n_trees_ == np.count_nonzero(est.alphas_)
    live = [t for t, a in zip(est.hypotheses_, est.alphas_) if a != 0]
    assert stats["avg_tree_size"] == pytest.approx(np.mean([t.n_nodes for t in live]))
    np.testing.assert_array_equal(est.tree_depths_, [t.depth for t in est.hypotheses_])
    np.testing.assert_array_equal(est.tree_sizes_, [t.n_nodes for t in est.hypotheses_])
    assert est.tree_depths_.max() <= 3
    assert est.tree_stats(1)["n_trees"] == 1
    assert len(est.selected_) == len(est.steps_) == len(est.objective_) == 20


def test_fit_is_deterministic_and_pickles(problem):
    X, y = problem
    a = DeepBoostClassifier(n_iter=25, max_depth=3, loss="logistic", random_state=0).fit(X, y)
    b = DeepBoostClassifier(n_iter=25, max_depth=3, loss="logistic", random_state=0).fit(X, y)
    c = DeepBoostClassifier(n_iter=25, max_depth=3, loss="logistic", random_state=123).fit(X, y)
    for other in (b, c):  # no random step: the seed cannot change anything
        np.testing.assert_array_equal(a.steps_, other.steps_)
        np.testing.assert_array_equal(a.decision_function(X), other.decision_function(X))
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored.decision_function(X), a.decision_function(X))
    np.testing.assert_array_equal(restored.predict_proba(X), a.predict_proba(X))


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
def test_multiclass_is_one_vs_rest(loss):
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    est = DeepBoostClassifier(n_iter=15, max_depth=2, loss=loss).fit(X, labels)
    scores = est.decision_function(X)
    assert scores.shape == (150, 3) and len(est.ensembles_) == 3
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(scores, axis=1)])
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), np.argmax(scores, axis=1))
    assert est.score(X, labels) > 0.9
    for c, label in enumerate(est.classes_):
        binary = DeepBoostClassifier(n_iter=15, max_depth=2, loss=loss).fit(X, labels == label)
        np.testing.assert_allclose(scores[:, c], binary.decision_function(X))
    assert isinstance(est.alphas_, list) and len(est.alphas_) == 3


def test_any_two_label_values_are_accepted(problem):
    X, y = problem
    labels = np.where(y == 1, "spam", "ham")
    est = DeepBoostClassifier(n_iter=10, max_depth=2).fit(X, labels)
    ref = DeepBoostClassifier(n_iter=10, max_depth=2).fit(X, y)
    np.testing.assert_array_equal(est.classes_, ["ham", "spam"])
    np.testing.assert_array_equal(est.predict(X), np.where(ref.predict(X) == 1, "spam", "ham"))


def test_logistic_probability_link(problem):
    # p = sigma(1 + f) / (sigma(1 + f) + sigma(1 - f)): the minimiser of the expected
    # logistic loss log2(1 + e^{1 - y f}) over f for P(y = +1) = p.
    X, y = problem
    est = DeepBoostClassifier(n_iter=10, max_depth=2, loss="logistic").fit(X, y)
    f = est.decision_function(X[:5])
    p = est.predict_proba(X[:5])[:, 1]
    for fi, pi in zip(f, p):

        def risk(g, pi=pi):
            return pi * np.logaddexp(0, 1 - g) + (1 - pi) * np.logaddexp(0, 1 + g)

        assert minimize_scalar(risk, bounds=(-30, 30), method="bounded").x == pytest.approx(fi, abs=1e-4)


# ----------------------------------------------------------------------------------------------
# Bad input and scikit-learn conventions
# ----------------------------------------------------------------------------------------------


def test_one_class_is_rejected_by_name():
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(ValueError, match="at least 2 classes"):
        DeepBoostClassifier().fit(X, np.zeros(10))


def test_infinity_and_shape_errors_are_clear(problem):
    X, y = problem
    bad = X.copy()
    bad[0, 0] = np.inf  # NaN is a missing value (see test_missing_values_*); infinity is an error
    with pytest.raises(ValueError, match="infinity"):
        DeepBoostClassifier(n_iter=2).fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        DeepBoostClassifier(n_iter=2).fit(X, y[:-1])
    with pytest.raises(ValueError, match="2D array"):
        DeepBoostClassifier(n_iter=2).fit(X[:, 0], y)
    est = DeepBoostClassifier(n_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :3])
    with pytest.raises(ValueError, match="infinity"):
        est.predict(bad)


@pytest.mark.parametrize(
    "params",
    [{"loss": "hinge"}, {"lam": -1.0}, {"beta": -0.1}, {"max_depth": 0}, {"n_iter": 0}, {"base": "forest"}],
)
def test_invalid_parameters_are_named(params):
    X, y = make_classification(n_samples=20, random_state=0)
    with pytest.raises(InvalidParameterError, match=list(params)[0]):
        DeepBoostClassifier(**params).fit(X, y)


def test_works_in_pipeline_and_grid_search(problem):
    X, y = problem
    pipe = make_pipeline(StandardScaler(), DeepBoostClassifier(n_iter=10))
    search = GridSearchCV(pipe, {"deepboostclassifier__max_depth": [1, 2]}, cv=3).fit(X, y)
    assert search.best_params_["deepboostclassifier__max_depth"] in (1, 2)
    assert search.score(X, y) > 0.8


# With pandas installed (the test extra) every check runs, the pandas-based ones included, but the
# array-API one, which scikit-learn skips without SCIPY_ARRAY_API.
@parametrize_with_checks(
    [
        DeepBoostClassifier(n_iter=10, max_depth=2),
        DeepBoostClassifier(n_iter=10, max_depth=2, loss="logistic", lam=0.01, beta=0.001),
        DeepBoostClassifier(n_iter=8, base="stumps", grow="any_leaf"),
    ],
    expected_failed_checks=expected_failed_checks,
    xfail_strict=True,
)
@pytest.mark.slow
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------------------------
# sample_weight
# ----------------------------------------------------------------------------------------------

WEIGHTED_PARAMS = [
    dict(n_iter=25),
    dict(n_iter=25, base="stumps", lam=1e-3, beta=1e-3),
    dict(n_iter=20, loss="logistic", lam=1e-2, beta=1e-3, max_depth=3, complexity="reference"),
    dict(n_iter=20, grow="any_leaf", max_depth=3, lam=0.0, beta=0.0),
]


@pytest.mark.parametrize("params", WEIGHTED_PARAMS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_integer_weights_are_repeated_rows(params, n_classes):
    X, y = make_classification(
        n_samples=120, n_features=6, n_informative=4, n_classes=n_classes, random_state=n_classes
    )
    w = np.random.RandomState(1).randint(0, 4, len(y))
    weighted = DeepBoostClassifier(**params).fit(X, y, sample_weight=w)
    repeated = DeepBoostClassifier(**params).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    X_new = np.random.RandomState(2).normal(size=(50, X.shape[1]))
    for Z in (X, X_new):
        np.testing.assert_allclose(weighted.decision_function(Z), repeated.decision_function(Z), atol=1e-10)
    for a, b in zip(weighted.ensembles_, repeated.ensembles_):
        assert np.array_equal(a.selected, b.selected)
        np.testing.assert_allclose(a.alpha, b.alpha, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(a.objective, b.objective, rtol=1e-10)
        for ta, tb in zip(a.hypotheses, b.hypotheses):
            assert np.array_equal(ta.feature, tb.feature) and np.array_equal(ta.threshold, tb.threshold)


def test_unit_weights_and_zero_weights_change_nothing(problem):
    X, y = problem
    ref = DeepBoostClassifier(n_iter=20, lam=1e-3).fit(X, y)
    ones = DeepBoostClassifier(n_iter=20, lam=1e-3).fit(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(ones.decision_function(X), ref.decision_function(X))
    # Rows of weight 0 are dropped: identical to fitting without them, even the thresholds.
    X_extra = np.vstack([X, X[:40] + 0.013])
    y_extra = np.concatenate([y, 1 - y[:40]])
    w = np.concatenate([np.ones(len(y)), np.zeros(40)])
    zero = DeepBoostClassifier(n_iter=20, lam=1e-3).fit(X_extra, y_extra, sample_weight=w)
    assert np.array_equal(zero.decision_function(X_extra), ref.decision_function(X_extra))
    assert np.array_equal(zero.alphas_, ref.alphas_)


def test_first_distribution_is_proportional_to_the_weights():
    X, y = make_classification(n_samples=90, n_features=4, random_state=3)
    w = np.random.RandomState(0).uniform(0.1, 3.0, len(y))
    clf = AdaBoostClassifier(n_iter=1).fit(X, y, sample_weight=w)
    h = clf.hypotheses_[0].predict(X.astype(np.float32))
    y_pm = np.where(y == 1, 1, -1)
    assert clf.errors_[0] == pytest.approx(w[h != y_pm].sum() / w.sum(), rel=1e-12)
    assert clf.alphas_[0] == pytest.approx(0.5 * np.log((1 - clf.errors_[0]) / clf.errors_[0]), rel=1e-12)
    # D_1 proportional to w: the first distribution of the binary fit
    D, _ = loss_derivative_weights(np.ones(len(y)), "exponential", np.log(w))
    np.testing.assert_allclose(D, w / w.sum(), rtol=1e-12)


def test_rescaled_weights_give_the_same_fit_without_the_complexity_term():
    X, y = make_classification(n_samples=100, n_features=5, random_state=4)
    w = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    a = DeepBoostClassifier(n_iter=15, lam=0.0, beta=1e-3).fit(X, y, sample_weight=w)
    b = DeepBoostClassifier(n_iter=15, lam=0.0, beta=1e-3).fit(X, y, sample_weight=w * 1e-3)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="m of eqs. 7-9"):
        DeepBoostClassifier(n_iter=5, lam=1e-5).fit(X, y, sample_weight=np.full(len(y), 1e-3))


@pytest.mark.parametrize(
    "weights, match",
    [
        (lambda n: -np.ones(n), "(?i)negative"),
        (lambda n: np.r_[np.nan, np.ones(n - 1)], "finite"),
        (lambda n: np.r_[np.inf, np.ones(n - 1)], "finite"),
        (lambda n: np.zeros(n), "non-zero|no positive entry"),
        (lambda n: np.ones(n + 1), "sample_weight"),
        (lambda n: np.ones((n, 2)), "1D array"),
    ],
)
def test_bad_sample_weights_are_rejected(weights, match):
    X, y = make_classification(n_samples=30, n_features=4, random_state=0)
    with pytest.raises(ValueError, match=match):
        DeepBoostClassifier(n_iter=3).fit(X, y, sample_weight=weights(len(y)))


def test_weights_on_one_class_only_are_rejected():
    X, y = make_classification(n_samples=30, n_features=4, random_state=0)
    with pytest.raises(ValueError, match="every sample of class 0 has sample_weight 0"):
        DeepBoostClassifier(n_iter=3).fit(X, y, sample_weight=(y == 1).astype(float))


# ----------------------------------------------------------------------------------------------
# Missing values (NaN)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("Est", [DeepBoostClassifier, AdaBoostClassifier])
def test_missing_values_fit_predict_and_weights(Est):
    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, random_state=0)
    Xn = X.copy()
    Xn[np.random.RandomState(0).rand(*X.shape) < 0.2] = np.nan
    Xn[:, 5] = np.nan  # a feature without any value is never split
    clf = Est(n_iter=30).fit(Xn, y)
    assert all(5 not in set(t.feature.tolist()) for t in clf.hypotheses_)
    assert clf.score(Xn, y) > 0.7
    proba = clf.predict_proba(np.full((3, 6), np.nan))
    assert np.all(np.isfinite(proba))
    # integer weights still act as repeated rows with missing values
    w = np.random.RandomState(1).randint(0, 3, len(y))
    a = Est(n_iter=20).fit(Xn, y, sample_weight=w)
    b = Est(n_iter=20).fit(np.repeat(Xn, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.decision_function(Xn), b.decision_function(Xn), atol=1e-10)


# ----------------------------------------------------------------------------------------------
# feature_importances_
# ----------------------------------------------------------------------------------------------


def _one_informative_feature(n=400, d=5, informative=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, informative] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize(
    "est",
    [DeepBoostClassifier(n_iter=20), DeepBoostClassifier(n_iter=20, base="stumps"), AdaBoostClassifier(n_iter=20)],
)
def test_feature_importances_find_the_informative_feature(est):
    X, y = _one_informative_feature()
    imp = est.fit(X, y).feature_importances_
    assert imp.shape == (5,) and np.all(imp >= 0) and imp.sum() == pytest.approx(1.0)
    assert np.argmax(imp) == 3 and imp[3] > 0.3


def brute_gini_importance(tree, X, y, D, d):
    """Gini decrease per feature by following every row of every node explicitly."""
    out = np.zeros(d)

    def rows_of(node, rows):
        if tree.feature[node] < 0:
            return
        x = X[rows, tree.feature[node]]
        left = rows[(x <= tree.threshold[node]) | (np.isnan(x) & tree.missing_left[node])]
        right = np.setdiff1d(rows, left)

        def ng(r):
            n, p = D[r].sum(), D[r][y[r] > 0].sum()
            return 2 * p * (n - p) / n if n > 0 else 0.0

        out[tree.feature[node]] += ng(rows) - ng(left) - ng(right)
        rows_of(tree.left[node], left)
        rows_of(tree.right[node], right)

    rows_of(0, np.arange(len(y)))
    return out / out.sum() if out.sum() > 0 else out


def test_feature_importances_are_alpha_weighted_gini_decreases_under_each_rounds_distribution():
    X, y01 = make_classification(n_samples=150, n_features=5, random_state=5)
    X[np.random.RandomState(0).rand(*X.shape) < 0.1] = np.nan
    clf = AdaBoostClassifier(n_iter=12, max_depth=3).fit(X, y01)
    Xf, y = X.astype(np.float32), np.where(y01 == 1, 1.0, -1.0)
    expected = np.zeros(5)
    f_prev = np.zeros(len(y))
    first_round = {}
    for t, (k, f_t) in enumerate(zip(clf.selected_, clf.staged_decision_function(X))):
        if k not in first_round:
            first_round[k] = t
            D = np.exp(-y * f_prev)  # D_t of eq. 5 for the exponential loss
            D /= D.sum()
            expected += abs(clf.alphas_[k]) * brute_gini_importance(clf.hypotheses_[k], Xf, y, D, 5)
        f_prev = f_t
    np.testing.assert_allclose(clf.feature_importances_, expected / expected.sum(), rtol=1e-7, atol=1e-12)


def test_feature_importances_one_vs_rest_average_the_classes():
    X, y = load_iris(return_X_y=True)
    clf = DeepBoostClassifier(n_iter=10).fit(X, y)
    per_class = [e.feature_importances() for e in clf.ensembles_]
    assert all(v.sum() == pytest.approx(1.0) for v in per_class)
    np.testing.assert_allclose(clf.feature_importances_, np.mean(per_class, axis=0), rtol=1e-12)


@pytest.mark.parametrize("Est", [DeepBoostClassifier, AdaBoostClassifier])
def test_permutation_importance_works(Est):
    from sklearn.inspection import permutation_importance

    X, y = _one_informative_feature(n=200)
    X[::7, 0] = np.nan
    clf = Est(n_iter=10).fit(X, y)
    result = permutation_importance(clf, X, y, n_repeats=3, random_state=0)
    assert result.importances_mean.shape == (5,)
    assert np.argmax(result.importances_mean) == 3
