"""Impurity-based feature importances of MDDFClassifier: raw features, class vectors, layers."""

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance

from mddf import MDDFClassifier

FAST = dict(n_estimators=20, max_layers=3, n_tolerant_layers=3, random_state=0)


@pytest.fixture(scope="module")
def informative():
    # shuffle=False: the 4 informative features come first, then 2 redundant ones, then noise
    # (and the rows sorted by class, hence the permutation)
    X, y = make_classification(
        600, 12, n_informative=4, n_redundant=2, n_classes=3, shuffle=False, class_sep=1.0, random_state=0
    )
    order = np.random.RandomState(0).permutation(len(y))
    return X[order], y[order]


@pytest.fixture(scope="module")
def fitted(informative):
    X, y = informative
    return MDDFClassifier(**FAST).fit(X, y)


def test_importances_are_a_distribution_over_the_raw_features(fitted, informative):
    X, _ = informative
    assert fitted.feature_importances_.shape == (X.shape[1],)
    assert (fitted.feature_importances_ >= 0).all()
    assert fitted.feature_importances_.sum() == pytest.approx(1.0)
    rows = fitted.layer_importances_
    assert rows.shape == (fitted.n_layers_, X.shape[1] + 1)
    assert (rows >= 0).all() and rows.sum(axis=1) == pytest.approx(np.ones(fitted.n_layers_))
    assert rows[0, -1] == 0.0  # the first layer sees no class vector
    assert (rows[1:, -1] > 0).all()  # later layers split on class vectors too
    assert fitted.class_vector_importance_ == pytest.approx(rows[:, -1].mean())


def test_informative_features_get_most_importance(fitted):
    # completely-random trees split on random features, noise included, so noise keeps a larger
    # share than in a random forest
    importances = fitted.feature_importances_
    assert importances[:6].sum() > 0.6
    assert importances[:6].min() > importances[6:].max()


def test_ranking_agrees_with_scikit_learns_random_forest(fitted, informative):
    X, y = informative
    reference = RandomForestClassifier(200, random_state=0).fit(X, y).feature_importances_
    assert spearmanr(fitted.feature_importances_, reference).statistic > 0.8


@pytest.mark.slow
def test_exact_and_hist_trees_agree(fitted, informative):
    X, y = informative
    exact = MDDFClassifier(tree_method="exact", **FAST).fit(X, y)
    assert exact.feature_importances_.sum() == pytest.approx(1.0)
    assert spearmanr(exact.feature_importances_, fitted.feature_importances_).statistic > 0.8
    assert np.abs(exact.feature_importances_ - fitted.feature_importances_).sum() < 0.2


def test_stacking_layers_credit_only_class_vectors(informative):
    X, y = informative
    model = MDDFClassifier(input_features="stacking", **FAST, forest_types=("rf", "rf", "crf", "crf")).fit(X, y)
    assert model.n_layers_ >= 2
    assert model.layer_importances_[1:, -1] == pytest.approx(1.0)
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    raw = MDDFClassifier(input_features="raw", **FAST).fit(X, y)
    assert (raw.layer_importances_[:, -1] == 0).all() and raw.class_vector_importance_ == 0.0


@pytest.mark.slow
def test_importances_with_nan_and_permutation_importance(informative):
    X, y = informative
    X = X.copy()
    X[np.random.RandomState(1).rand(*X.shape) < 0.15] = np.nan
    model = MDDFClassifier(**FAST).fit(X[:400], y[:400])
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    assert model.feature_importances_[:6].sum() > 0.55
    result = permutation_importance(model, X[400:], y[400:], n_repeats=3, random_state=0)
    assert result.importances_mean[:6].mean() > result.importances_mean[6:].mean()
