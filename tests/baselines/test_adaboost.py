"""AdaBoost is DeepBoost with lambda = beta = 0 and the exponential loss (Cortes et al. 2014, §3.2)."""

import numpy as np
import pytest
from estimator_checks_table import expected_failed_checks
from sklearn.datasets import make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf.baselines import AdaBoostClassifier, DeepBoostClassifier


def brute_force_stump(X, y, D):
    """The decision stump of lowest weighted error, each leaf labelled by its weighted majority,
    by trying every feature and every threshold between consecutive distinct values. Errors
    equal up to rounding (1e-12) are ties, won by the lowest feature, then threshold."""
    best = None
    for j in range(X.shape[1]):
        for v in np.unique(X[:, j])[:-1]:
            left = X[:, j] <= v
            h = np.empty(len(y))
            err = 0.0
            for side in (left, ~left):
                pos, neg = D[side & (y > 0)].sum(), D[side & (y < 0)].sum()
                h[side] = 1.0 if pos >= neg else -1.0
                err += min(pos, neg)
            if best is None or err < best[0] - 1e-12:
                best = (err, h)
    return best[1]


def reference_adaboost(X, y, T):
    """Algorithm 1 of the lecture notes (Zhang 2019): D_1 = 1/m; h_t = best stump under D_t;
    eps_t = sum_i D_t(i) 1[y_i != h_t(x_i)]; alpha_t = 1/2 ln((1 - eps_t) / eps_t);
    D_{t+1}(i) = D_t(i) exp(-alpha_t y_i h_t(x_i)) / Z_t."""
    m = len(y)
    D = np.full(m, 1.0 / m)
    rounds = []
    for _ in range(T):
        h = brute_force_stump(X, y, D)
        eps = D[h != y].sum()
        alpha = 0.5 * np.log((1 - eps) / eps)
        rounds.append((eps, alpha, h))
        D = D * np.exp(-alpha * y * h)
        D /= D.sum()
    return rounds


@pytest.mark.parametrize("seed", range(4))
def test_adaboost_equals_the_lecture_notes_algorithm(seed):
    X, y01 = make_classification(
        n_samples=70, n_features=4, n_informative=3, n_redundant=0, flip_y=0.1, random_state=seed
    )
    X = X.astype(np.float32)
    y = np.where(y01 == 1, 1.0, -1.0)
    T = 25
    est = AdaBoostClassifier(n_iter=T).fit(X, y01)
    ens = est.ensembles_[0]
    H = ens.predictions(X)
    for t, (eps, alpha, h) in enumerate(reference_adaboost(X, y, T)):
        # Same selection and same step. A hypothesis chosen again by AdaBoost is re-weighted
        # by DeepBoost instead of duplicated, possibly through its negation (alpha h = (-alpha)(-h)),
        # so compare the contribution alpha_t h_t on the sample, and |eps - 1/2|.
        np.testing.assert_allclose(ens.steps[t] * H[:, ens.selected[t]], alpha * h, rtol=1e-9, atol=1e-12)
        assert abs(ens.errors[t] - 0.5) == pytest.approx(abs(eps - 0.5), abs=1e-12)
        assert abs(ens.steps[t]) == pytest.approx(abs(0.5 * np.log((1 - ens.errors[t]) / ens.errors[t])), rel=1e-12)


def reference_adaboost_l1(X, y, T, beta):
    """L1-regularised AdaBoost (Ratsch et al. 2001) as plain coordinate descent on
    F(alpha) = 1/m sum_i exp(1 - y_i f(x_i)) + beta ||alpha||_1 over all stumps: the coordinate
    of largest minimal-norm subgradient (old hypotheses first on ties), then a numerical line
    search of F along it. Returns the contribution eta_t h_t of every round."""
    from scipy.optimize import minimize_scalar

    m = len(y)
    f = np.zeros(m)
    hyps, alphas, contributions = [], [], []
    for _ in range(T):
        w = np.exp(1 - y * f)
        D, S = w / w.sum(), w.sum()
        pen = beta * m / (2 * S)

        def subgrad(h, a):
            edge = D[h != y].sum() - 0.5
            if a != 0:
                return edge + np.sign(a) * pen
            return 0.0 if abs(edge) <= pen else edge - np.sign(edge) * pen

        old = [abs(subgrad(h, a)) for h, a in zip(hyps, alphas)]
        h_new = brute_force_stump(X, y, D)
        if old and max(old) >= abs(subgrad(h_new, 0.0)) - 1e-12:
            k = int(np.argmax(old))
        else:
            hyps.append(h_new)
            alphas.append(0.0)
            k = len(hyps) - 1
        h, a = hyps[k], alphas[k]

        def F(eta):
            return np.mean(np.exp(1 - y * (f + eta * h))) + beta * abs(a + eta)

        eta = minimize_scalar(F, bounds=(-a - 3, -a + 3), method="bounded", options={"xatol": 1e-11}).x
        if F(-a) <= F(eta):  # the kink at alpha_k + eta = 0
            eta = -a
        alphas[k] += eta
        f = f + eta * h
        contributions.append(eta * h)
    return contributions


@pytest.mark.parametrize("beta", [0.005, 0.05])
def test_adaboost_l1_equals_l1_regularised_coordinate_descent(beta):
    # lambda = 0 < beta with the exponential loss (Section 3.2): same coordinates, and steps that
    # are the exact minimisers of F along them (checked by a numerical line search).
    X, y01 = make_classification(
        n_samples=60, n_features=3, n_informative=3, n_redundant=0, flip_y=0.15, random_state=7
    )
    X = X.astype(np.float32)
    y = np.where(y01 == 1, 1.0, -1.0)
    T = 20
    est = DeepBoostClassifier(n_iter=T, max_depth=1, loss="exponential", lam=0.0, beta=beta).fit(X, y01)
    ens = est.ensembles_[0]
    H = ens.predictions(X)
    reference = reference_adaboost_l1(X, y, T, beta)
    assert ens.n_rounds == T
    for t, ref in enumerate(reference):
        np.testing.assert_allclose(ens.steps[t] * H[:, ens.selected[t]], ref, atol=1e-6)


def test_adaboost_is_deepboost_without_penalties():
    X, y = make_classification(n_samples=120, n_features=5, random_state=1)
    for depth in (1, 3):
        ada = AdaBoostClassifier(n_iter=30, max_depth=depth).fit(X, y)
        deep = DeepBoostClassifier(n_iter=30, max_depth=depth, loss="exponential", lam=0.0, beta=0.0).fit(X, y)
        np.testing.assert_array_equal(ada.steps_, deep.steps_)
        np.testing.assert_array_equal(ada.selected_, deep.selected_)
        np.testing.assert_array_equal(ada.decision_function(X), deep.decision_function(X))
        np.testing.assert_array_equal(ada.predict_proba(X), deep.predict_proba(X))


def test_adaboost_trees_have_constant_depth_without_penalty():
    # With lambda = beta = 0 the deepest candidate always has the lowest error, so AdaBoost with
    # trees uses depth-K trees wherever the data allow (Section 4: "constant depth").
    X, y = make_classification(n_samples=200, n_features=6, flip_y=0.2, random_state=2)
    est = AdaBoostClassifier(n_iter=20, max_depth=3).fit(X, y)
    assert np.all(est.tree_depths_ == 3)


def test_adaboost_parameters_and_errors():
    est = AdaBoostClassifier()
    assert est.get_params() == {
        "n_iter": 100,
        "max_depth": 1,
        "base": "trees",
        "grow": "last_layer",
        "categorical_features": "from_dtype",
        "random_state": None,
        "verbose": 0,
    }
    with pytest.raises(ValueError, match="at least 2 classes"):
        est.fit(np.ones((5, 2)), np.ones(5))


# With pandas installed (the test extra) every check runs, the pandas-based ones included, but the
# array-API one, which scikit-learn skips without SCIPY_ARRAY_API.
@parametrize_with_checks(
    [AdaBoostClassifier(n_iter=10), AdaBoostClassifier(n_iter=5, base="stumps")],
    expected_failed_checks=expected_failed_checks,
    xfail_strict=True,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_verbose_lines_name_the_estimator_that_runs(capsys):
    X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    AdaBoostClassifier(n_iter=10, verbose=1).fit(X, y)
    ada = capsys.readouterr().out.splitlines()
    DeepBoostClassifier(n_iter=10, verbose=1).fit(X, y)
    deep = capsys.readouterr().out.splitlines()
    assert ada and all(line.startswith("[AdaBoost] round") for line in ada)
    assert deep and all(line.startswith("[DeepBoost] round") for line in deep)


def test_one_class_error_names_the_estimator_and_the_label():
    X, _ = make_classification(n_samples=30, n_features=4, random_state=0)
    with pytest.raises(
        ValueError, match=r"^AdaBoostClassifier needs samples of at least 2 classes in y; got 1 class \(3\)$"
    ):
        AdaBoostClassifier().fit(X, np.full(len(X), 3))


def test_integer_weights_are_repeated_rows():
    X, y = make_classification(n_samples=100, n_features=5, random_state=7)
    w = np.random.RandomState(3).randint(0, 5, len(y))
    weighted = AdaBoostClassifier(n_iter=30).fit(X, y, sample_weight=w)
    repeated = AdaBoostClassifier(n_iter=30).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert np.array_equal(weighted.selected_, repeated.selected_)
    np.testing.assert_allclose(weighted.alphas_, repeated.alphas_, rtol=1e-10)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-10)
    # AdaBoost has no complexity term: rescaling the weights changes nothing but rounding.
    scaled = AdaBoostClassifier(n_iter=30).fit(X, y, sample_weight=w / 7.0)
    np.testing.assert_allclose(scaled.decision_function(X), weighted.decision_function(X), atol=1e-10)


@pytest.mark.parametrize("scale", [1e17, 1e20, 1e-20])
def test_any_scale_of_the_weights_gives_the_same_model(scale):
    # The split search quantises the weights to integers; a total weight beyond int64 (about 9.2e18)
    # used to overflow it, and 1e17 already flattened the boosting distribution.
    X, y = make_classification(n_samples=100, n_features=5, random_state=7)
    w = np.random.RandomState(3).randint(1, 5, len(y)).astype(float)
    weighted = AdaBoostClassifier(n_iter=30).fit(X, y, sample_weight=w)
    scaled = AdaBoostClassifier(n_iter=30).fit(X, y, sample_weight=w * scale)
    assert np.array_equal(scaled.selected_, weighted.selected_)
    np.testing.assert_allclose(scaled.alphas_, weighted.alphas_, rtol=1e-10)
    np.testing.assert_array_equal(scaled.predict(X), weighted.predict(X))
    unit = AdaBoostClassifier(n_iter=30).fit(X, y, sample_weight=np.full(len(y), scale))
    np.testing.assert_array_equal(unit.predict(X), AdaBoostClassifier(n_iter=30).fit(X, y).predict(X))


@pytest.mark.parametrize("scale", [1e17, 1e20])
def test_deepboost_with_huge_total_weight_still_learns(scale):
    # With lam > 0 the total weight is the m of the complexity terms, so a scale is a change of m (its
    # penalty vanishes), but the split search must not degenerate.
    X, y = make_classification(n_samples=100, n_features=5, random_state=7)
    reference = DeepBoostClassifier(n_iter=30, lam=0.0, beta=0.0).fit(X, y)
    model = DeepBoostClassifier(n_iter=30).fit(X, y, sample_weight=np.full(len(y), scale))
    assert model.score(X, y) >= reference.score(X, y) - 0.05
