"""MDDFClassifier with missing values (NaN): fit, predict, class vectors, exact trees, and errors."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split
from sklearn.tree import ExtraTreeClassifier

from mddf import MDDFClassifier
from mddf.forests import CompactForest
from mddf.forests.growing import check_exact_trees_missing

FAST = dict(n_estimators=15, max_layers=3, random_state=0)


def with_nan(X, fraction, seed):
    X = np.array(X, dtype=np.float64)
    X[np.random.RandomState(seed).rand(*X.shape) < fraction] = np.nan
    return X


@pytest.fixture(scope="module")
def iris_nan():
    X, y = load_iris(return_X_y=True)
    X = with_nan(X, 0.2, 0)
    return train_test_split(X, y, test_size=0.4, stratify=y, random_state=0)


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
@pytest.mark.parametrize("class_vectors", ["kfold", "oob"])
@pytest.mark.slow
def test_iris_with_20_percent_nan_is_learned(iris_nan, tree_method, class_vectors):
    Xtr, Xte, ytr, yte = iris_nan
    model = MDDFClassifier(tree_method=tree_method, class_vectors=class_vectors, **FAST).fit(Xtr, ytr)
    assert model.score(Xte, yte) > 0.8  # a random forest on the same data: about 0.9
    proba = model.predict_proba(Xte)
    assert np.isfinite(proba).all() and proba.sum(axis=1) == pytest.approx(1.0)


def test_class_vectors_never_hold_nan(iris_nan):
    Xtr, Xte, ytr, _ = iris_nan
    model = MDDFClassifier(n_tolerant_layers=3, **FAST).fit(Xtr, ytr)
    assert all(np.isfinite(f).all() for f in model.oof_features_)
    for t in range(1, model.n_layers_ + 1):
        assert np.isfinite(model.transform(Xte, layer=t)).all()
    assert np.isfinite(model.fit_transform(Xtr, ytr)).all()


def test_a_feature_missing_for_one_class_is_used():
    # x1 is missing exactly for class 2, which nothing else identifies
    rng = np.random.RandomState(1)
    X = rng.rand(300, 3)
    y = (X[:, 0] > 0.5).astype(int)
    y[::3] = 2
    X[y == 2, 1] = np.nan
    model = MDDFClassifier(**FAST).fit(X[:200], y[:200])
    assert model.score(X[200:], y[200:]) > 0.9


def test_nan_only_at_prediction_is_routed(iris_nan):
    X, y = load_iris(return_X_y=True)
    model = MDDFClassifier(**FAST).fit(X, y)  # trained without any missing value
    X_new = with_nan(X, 0.25, 2)
    proba = model.predict_proba(X_new)
    assert np.isfinite(proba).all()
    assert model.score(X_new, y) > 0.7


def test_infinity_is_rejected_with_a_clear_message(iris_nan):
    Xtr, Xte, ytr, _ = iris_nan
    X_inf = Xtr.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        MDDFClassifier(**FAST).fit(X_inf, ytr)
    model = MDDFClassifier(**FAST).fit(Xtr, ytr)
    X_inf = Xte.copy()
    X_inf[1, 2] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.predict(X_inf)


def test_permutation_importance_works_with_nan(iris_nan):
    Xtr, Xte, ytr, yte = iris_nan
    model = MDDFClassifier(**FAST).fit(Xtr, ytr)
    result = permutation_importance(model, Xte, yte, n_repeats=3, random_state=0)
    assert result.importances_mean.shape == (4,) and np.isfinite(result.importances_mean).all()
    assert result.importances_mean[2:].max() > result.importances_mean[:2].max()  # petal features


# ---------------------------------------------------------------- exact trees (scikit-learn's)
def test_exact_trees_accept_nan_with_this_scikit_learn():
    for kind in ("rf", "crf"):
        check_exact_trees_missing(kind)  # DecisionTreeClassifier >= 1.3, ExtraTreeClassifier >= 1.6


@pytest.mark.slow
def test_exact_trees_without_nan_support_raise_naming_hist(iris_nan, monkeypatch):
    original = ExtraTreeClassifier.__sklearn_tags__

    def no_nan(self):
        tags = original(self)
        tags.input_tags.allow_nan = False
        return tags

    monkeypatch.setattr(ExtraTreeClassifier, "__sklearn_tags__", no_nan)
    Xtr, _, ytr, _ = iris_nan
    with pytest.raises(ValueError, match="ExtraTreeClassifier.*tree_method='hist'"):
        MDDFClassifier(tree_method="exact", **FAST).fit(Xtr, ytr)
    # complete data never asks
    X, y = load_iris(return_X_y=True)
    MDDFClassifier(tree_method="exact", **FAST).fit(X, y)


@pytest.mark.parametrize(
    "forest",
    [RandomForestClassifier(20, random_state=0), ExtraTreesClassifier(20, max_features=1, random_state=0)],
    ids=["rf", "crf"],
)
def test_compact_forest_routes_nan_as_scikit_learn(forest):
    X, y = load_iris(return_X_y=True)
    order = np.random.RandomState(4).permutation(len(y))
    X, y = with_nan(X[order], 0.2, 3).astype(np.float32), y[order]
    forest.fit(X[:100], y[:100])
    compact = CompactForest(forest, 3)
    X_new = np.ascontiguousarray(X[100:])
    assert compact.predict_proba(X_new) == pytest.approx(forest.predict_proba(X_new), abs=1e-6)
    # NaN in a feature a tree never saw missing: scikit-learn's side (the child with more samples)
    X_all_nan = X_new.copy()
    X_all_nan[:, 0] = np.nan
    assert compact.predict_proba(X_all_nan) == pytest.approx(forest.predict_proba(X_all_nan), abs=1e-6)
