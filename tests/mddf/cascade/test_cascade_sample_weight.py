"""fit(X, y, sample_weight) of mdDF and gcForest: D_1 ∝ w, D_{t+1} ∝ w l_md(F_t) (eq. 47), weighted means.

Integer weights must act as repeated rows: exactly wherever the algorithm is
deterministic (distribution update, margin statistics, loss, accuracies, the exact
alpha solver), statistically for the randomised fits (folds and resamples are drawn
over rows, so a weighted row and its copies are not split alike).
"""

import numpy as np
import pytest
from margin_objective import alpha_objective
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from mddf import MDDFClassifier
from mddf.baselines import GCForestClassifier
from mddf.margin.alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from mddf.margin.distribution import sample_distribution
from mddf.margin.loss import MarginDistributionLoss, margin_distribution_loss
from mddf.margin.margins import margin_statistics
from mddf.margin.state import CumulativeMargin
from mddf.utils._stopping import EarlyStopping, improves, weighted_accuracy

LOSS = MarginDistributionLoss(0.8, 0.05)
FAST = dict(n_estimators=6, max_layers=3, n_tolerant_layers=3, random_state=0)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(500, 8, n_informative=5, n_classes=3, class_sep=0.8, random_state=1)
    return X[:300], y[:300], X[300:], y[300:]


def _weights_and_repeats(n, seed=0, low=0, high=4):
    w = np.random.RandomState(seed).randint(low, high, n)
    return w, np.repeat(np.arange(n), w)


def _history(model):
    return [{k: v for k, v in r.items() if k != "fit_seconds"} for r in model.train_history_]


# -- the deterministic parts: integer weights are repeated rows ---------------------------------


def test_weighted_distribution_update_is_that_of_the_repeated_rows():
    rng = np.random.RandomState(0)
    F = rng.uniform(-1, 1, 40)
    w, rep = _weights_and_repeats(40)
    D = sample_distribution(F, LOSS, w)
    D_rep = sample_distribution(F[rep], LOSS)
    # row i's probability is the total of its copies'
    np.testing.assert_allclose(D, np.bincount(rep, weights=D_rep, minlength=40), rtol=1e-12, atol=1e-15)
    assert np.all(D[w == 0] == 0)
    loss = margin_distribution_loss(F, 0.8, 0.05)
    np.testing.assert_allclose(D, w * loss / np.sum(w * loss), rtol=1e-12)
    # every loss 0: back to D_1 ∝ w
    np.testing.assert_allclose(sample_distribution(np.full(40, 0.8), LOSS, w), w / w.sum())


def test_weighted_margin_statistics_loss_and_accuracy_are_those_of_the_repeated_rows():
    rng = np.random.RandomState(1)
    m = rng.uniform(-1, 1, 50)
    correct, best = rng.rand(50) < 0.7, rng.rand(50) < 0.6
    w, rep = _weights_and_repeats(50, seed=1)
    stats, stats_rep = margin_statistics(m, w), margin_statistics(m[rep])
    for key in stats:
        assert stats[key] == pytest.approx(stats_rep[key], rel=1e-12)
    assert weighted_accuracy(correct, w) == pytest.approx(np.mean(correct[rep]), rel=1e-15)
    for min_gain_se in (0.0, 0.5, 1.0, 2.0):  # McNemar on frequency weights: the repeated rows' counts
        args = (weighted_accuracy(correct, w), weighted_accuracy(best, w))
        assert improves(correct, best, *args, min_gain_se=min_gain_se, sample_weight=w) == improves(
            correct[rep], best[rep], *args, min_gain_se=min_gain_se
        )
    state = CumulativeMargin(50, cumulative_margin="additive", alpha_solver="exact", sample_weight=w)
    state_rep = CumulativeMargin(len(rep), cumulative_margin="additive", alpha_solver="exact")
    for s, margin in ((state, m), (state_rep, m[rep])):
        s.add_layer(margin, *s.solve_weight(margin, np.random.RandomState(0)))
    assert state.loss() == pytest.approx(state_rep.loss(), rel=1e-12)
    assert state.statistics()["margin_std"] == pytest.approx(state_rep.statistics()["margin_std"], rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_exact_alpha_and_share_of_weighted_rows_are_those_of_the_repeated_rows(seed):
    rng = np.random.RandomState(seed)
    F, g = rng.uniform(-0.5, 1, 60), rng.uniform(-1, 1, 60)
    w, rep = _weights_and_repeats(60, seed=seed)
    alpha = solve_alpha_exact(F, g, LOSS, sample_weight=w)
    assert alpha == pytest.approx(solve_alpha_exact(F[rep], g[rep], LOSS), rel=1e-10, abs=1e-12)
    share = solve_layer_share(F, g, LOSS, solver="exact", sample_weight=w)
    assert share == pytest.approx(solve_layer_share(F[rep], g[rep], LOSS, solver="exact"), rel=1e-10, abs=1e-12)
    # and it minimises the weighted mean loss of eq. 48
    best = alpha_objective(alpha, F, g, LOSS, sample_weight=w)
    assert best == pytest.approx(alpha_objective(alpha, F[rep], g[rep], LOSS), rel=1e-12)
    for other in (alpha * 0.9, alpha * 1.1 + 1e-3):
        assert alpha_objective(other, F, g, LOSS, sample_weight=w) >= best - 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_sgd_weights_the_gradient_and_reaches_the_weighted_minimiser(seed):
    rng = np.random.RandomState(seed)
    F = rng.uniform(0, 1.5, 2000) * (seed % 3)  # as in test_alpha.py: seed 0 is a first layer
    g = np.clip(rng.normal(0.5, 0.4, 2000), -1, 1)
    w = rng.uniform(0, 3, 2000) * (rng.rand(2000) < 0.8)  # a fifth of the rows weigh nothing
    exact = solve_alpha_exact(F, g, LOSS, sample_weight=w)
    # the weights add variance to the mini-batch gradients: 2e-3 rather than the unweighted 1e-3
    assert solve_alpha_sgd(F, g, LOSS, random_state=seed, sample_weight=w) == pytest.approx(exact, abs=2e-3)
    # equal weights give the unweighted iterates bit for bit
    assert solve_alpha_sgd(F, g, LOSS, random_state=seed, sample_weight=np.ones(2000)) == solve_alpha_sgd(
        F, g, LOSS, random_state=seed
    )


def test_cumulative_margin_starts_from_the_weights_and_keeps_them():
    w = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    state = CumulativeMargin(5, alpha_solver="exact", sample_weight=w)
    np.testing.assert_allclose(state.distribution, w / w.sum())  # D_1 ∝ w
    margin = np.array([0.9, -0.2, 0.5, 0.8, 0.1])
    state.add_layer(margin, *state.solve_weight(margin, np.random.RandomState(0)))
    loss = margin_distribution_loss(margin, 0.8, 0.05)
    np.testing.assert_allclose(state.reweight(), w * loss / np.sum(w * loss))  # D_2 ∝ w l_md(F_1), eq. 47
    gc = CumulativeMargin(5, margin_optimization=False, sample_weight=w)
    gc.add_layer(margin, *gc.solve_weight(margin, np.random.RandomState(0)))
    np.testing.assert_allclose(gc.reweight(), w / w.sum())  # gcForest: D_t = D_1 ∝ w throughout


def test_early_stopping_monitors_the_weighted_accuracy():
    w = np.array([5.0, 1.0, 1.0, 1.0])
    stopping = EarlyStopping(1, sample_weight=w)
    stopping.update(np.array([False, True, True, True]))
    stopping.update(np.array([True, False, False, False]))  # fewer rows right, more weight right
    assert stopping.accuracies == [pytest.approx(3 / 8), pytest.approx(5 / 8)]
    assert stopping.best_layer == 2


# -- the estimators ----------------------------------------------------------------------------

VARIANTS = [
    dict(),
    dict(weighting="resample_fold"),
    dict(weighting="sample_weight"),
    dict(class_vectors="oob"),
    dict(cumulative_margin="additive", alpha_solver="exact"),
    dict(validation_fraction=0.25),
    dict(margin_optimization=False),
]


@pytest.mark.parametrize("params", VARIANTS)
@pytest.mark.slow
def test_unit_weights_give_the_unweighted_fit_bit_for_bit(data, params):
    X, y, Xt, _ = data
    a = MDDFClassifier(**FAST, **params).fit(X, y)
    b = MDDFClassifier(**FAST, **params).fit(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    assert _history(a) == _history(b)


def test_unit_weights_give_the_unweighted_gcforest_bit_for_bit(data):
    X, y, Xt, _ = data
    a = GCForestClassifier(n_estimators=5, max_layers=2, random_state=0).fit(X, y)
    b = GCForestClassifier(n_estimators=5, max_layers=2, random_state=0).fit(X, y, sample_weight=[1] * len(y))
    assert np.array_equal(a.predict_proba(Xt), b.predict_proba(Xt))


@pytest.mark.parametrize("params", [dict(), dict(class_vectors="oob"), dict(weighting="sample_weight")])
def test_rows_of_weight_zero_reach_no_forest_and_count_nowhere(data, params):
    # exact trees: the bin edges of "hist" are computed over every row of the layer input
    X, y, Xt, _ = data
    w, _ = _weights_and_repeats(len(y), seed=2)
    zero = w == 0
    X_moved = X.copy()
    X_moved[zero] = np.random.RandomState(3).normal(size=(zero.sum(), X.shape[1])) * 10
    kw = dict(FAST, tree_method="exact", **params)
    a = MDDFClassifier(**kw).fit(X, y, sample_weight=w)
    b = MDDFClassifier(**kw).fit(X_moved, y, sample_weight=w)
    assert np.array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    assert _history(a) == _history(b)
    # yet they still get out-of-fold class vectors
    features = MDDFClassifier(**kw).fit_transform(X, y, sample_weight=w)
    assert features.shape == (len(y), 3) and np.allclose(features[zero].sum(axis=1), 1.0)


def test_validation_weights_follow_their_rows_and_weight_the_monitored_accuracy(data):
    X, y, _, _ = data
    w, _ = _weights_and_repeats(len(y), seed=4)
    model = MDDFClassifier(**FAST, validation_fraction=0.3).fit(X, y, sample_weight=w)
    # the split of _training_data: the first draw of the estimator's random state, as without weights
    seed = np.random.RandomState(0).randint(np.iinfo(np.int32).max)
    _, X_val, _, y_val, _, w_val = train_test_split(X, y, w, test_size=0.3, stratify=y, random_state=seed)
    for record, proba in zip(model.train_history_, model.staged_predict_proba(X_val)):
        assert record["val_accuracy"] == pytest.approx(np.average(proba.argmax(axis=1) == y_val, weights=w_val))


@pytest.mark.parametrize(
    "name, make",
    [
        ("mdDF", lambda s: MDDFClassifier(n_estimators=10, max_layers=3, random_state=s)),
        ("mdDF oob", lambda s: MDDFClassifier(n_estimators=10, max_layers=3, class_vectors="oob", random_state=s)),
        ("gcForest", lambda s: GCForestClassifier(n_estimators=10, max_layers=3, random_state=s)),
    ],
)
@pytest.mark.slow
def test_integer_weights_fit_like_repeated_rows_over_seeds(data, name, make):
    # The folds and resamples are random over rows, so only the distribution of the fits can agree.
    # Over 5 seeds the test accuracies' means agree within 0.06 and the class probabilities
    # within 0.15 on average (the seed-to-seed spread of one such fit is of that order).
    X, y, Xt, yt = data
    w, rep = _weights_and_repeats(len(y), seed=0)
    weighted, repeated, gap = [], [], []
    for seed in range(5):
        a, b = make(seed).fit(X, y, sample_weight=w), make(seed).fit(X[rep], y[rep])
        weighted.append(a.score(Xt, yt))
        repeated.append(b.score(Xt, yt))
        gap.append(np.abs(a.predict_proba(Xt) - b.predict_proba(Xt)).mean())
    assert abs(np.mean(weighted) - np.mean(repeated)) < 0.06
    assert np.mean(gap) < 0.15


@pytest.mark.parametrize(
    "make",
    [
        lambda: MDDFClassifier(**FAST),
        lambda: MDDFClassifier(**FAST, weighting="resample_fold"),
        lambda: GCForestClassifier(n_estimators=6, max_layers=3, random_state=0),
        # As sample weights (not resamples), weights move only the splits of a tree, not the
        # class shares of its pure leaves: shallow trees show the shift, fully grown ones barely.
        lambda: MDDFClassifier(**FAST, weighting="sample_weight", max_depth_factor=1),
        lambda: MDDFClassifier(**FAST, class_vectors="oob", max_depth_factor=1),
    ],
)
def test_a_heavily_weighted_class_draws_the_predictions(data, make):
    X, y, Xt, _ = data
    w = np.where(y == 0, 20.0, 1.0)
    plain = np.mean(make().fit(X, y).predict(Xt) == 0)
    heavy = np.mean(make().fit(X, y, sample_weight=w).predict(Xt) == 0)
    assert heavy > plain + 0.1


@pytest.mark.parametrize("Estimator", [MDDFClassifier, GCForestClassifier])
@pytest.mark.parametrize(
    "weights, message",
    [
        (lambda n: np.r_[-1.0, np.ones(n - 1)], "Negative"),
        (lambda n: np.r_[np.nan, np.ones(n - 1)], "sample_weight must be finite"),
        (lambda n: np.r_[np.inf, np.ones(n - 1)], "sample_weight must be finite"),
        (lambda n: np.zeros(n), "non-zero|no positive entry"),
        (lambda n: np.ones(n + 1), "shape"),
        (lambda n: np.ones((n, 2)), "1D array or scalar"),
    ],
)
def test_bad_weights_are_rejected(data, Estimator, weights, message):
    X, y, _, _ = data
    with pytest.raises(ValueError, match=message):
        Estimator(n_estimators=2, max_layers=1).fit(X, y, sample_weight=weights(len(y)))


def test_weights_that_leave_a_class_or_a_fold_without_weight_are_rejected(data):
    X, y, _, _ = data
    w = np.zeros(len(y))
    w[0] = 1.0  # a row of class 1 only
    with pytest.raises(ValueError, match="every sample of classes 0, 2 has sample_weight 0"):
        MDDFClassifier(**FAST).fit(X, y, sample_weight=w)
    w[[np.flatnonzero(y == k)[0] for k in range(3)]] = 1.0  # one row of each class
    with pytest.raises(ValueError, match="fold .* has sample weight 0"):
        MDDFClassifier(**FAST).fit(X, y, sample_weight=w)
    # out of bag, a forest needs no fold (a boosted member is cross-fitted): a weighted row per class is enough; a
    # validation_fraction part without weight is refused by the engine both tasks share
    # (tests/mddf/cascade/test_cascade_regressor_options.py)
    MDDFClassifier(**FAST, forest_types=("rf", "rf", "crf", "crf"), class_vectors="oob").fit(X, y, sample_weight=w)
