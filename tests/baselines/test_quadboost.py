"""QuadBoost (Roy, Marchand and Laviolette): the stump set of Section 4, and the scikit-learn contract of
QuadBoostClassifier: bad input, sample weights, missing values, feature importances (its update rules:
test_quadboost_solver.py)."""

import pickle
import re
import warnings

import numpy as np
import pytest
from estimator_checks_table import expected_failed_checks
from sklearn.datasets import load_iris, make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf.baselines import QuadBoostClassifier
from mddf.baselines._quadboost_voters import fit_stump_pool

# ---------------------------------------------------------------- update rules (eq. 6, 7, 8, 9, Section 3.1)


# ---------------------------------------------------------------- selection equals brute force


# ---------------------------------------------------------------- objective along the iterations


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
