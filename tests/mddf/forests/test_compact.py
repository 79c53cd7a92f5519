"""Compact forest storage predicts exactly what the scikit-learn forest predicts."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from mddf.forests.compact import CompactForest


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(600, 12, n_informative=6, n_classes=4, random_state=0)
    return X.astype(np.float32), y


@pytest.mark.parametrize(
    "forest",
    [
        RandomForestClassifier(20, random_state=0),
        ExtraTreesClassifier(20, max_features=1, random_state=0),
        RandomForestClassifier(20, max_depth=3, random_state=0),  # impure leaves
    ],
    ids=["rf", "crf", "rf-shallow"],
)
def test_predictions_equal_scikit_learn(data, forest):
    X, y = data
    forest.fit(X[:400], y[:400])
    compact = CompactForest(forest, 4)
    assert compact.predict_proba(X[400:]) == pytest.approx(forest.predict_proba(X[400:]), abs=1e-6)
    assert compact.nbytes * 5 < len(pickle.dumps(forest))


def test_columns_follow_the_global_class_indices_when_a_class_is_absent(data):
    X, y = data
    keep = y != 2
    forest = RandomForestClassifier(10, random_state=0).fit(X[keep], y[keep])
    proba = CompactForest(forest, 4).predict_proba(X)
    assert np.all(proba[:, 2] == 0)
    assert proba[:, [0, 1, 3]] == pytest.approx(forest.predict_proba(X), abs=1e-6)


def test_thresholds_between_adjacent_float32_values_route_exactly():
    # two adjacent float32 values whose float64 midpoint rounds (half to even) up to
    # the larger one: a naive float32 threshold would send b to the left child
    a = np.nextafter(np.float32(1000), np.float32(2000))
    b = np.nextafter(a, np.float32(2000))
    X = np.array([[a], [b]] * 10, dtype=np.float32)
    y = np.array([0, 1] * 10)
    forest = RandomForestClassifier(3, bootstrap=False, random_state=0).fit(X, y)
    assert np.float32(forest.estimators_[0].tree_.threshold[0]) == b  # the trap is set
    compact = CompactForest(forest, 2)
    assert compact.predict_proba(X) == pytest.approx(forest.predict_proba(X))
    assert compact.predict_proba(X).argmax(axis=1).tolist() == y.tolist()


def test_pickles(data):
    X, y = data
    compact = CompactForest(ExtraTreesClassifier(5, max_features=1, random_state=0).fit(X, y), 4)
    clone = pickle.loads(pickle.dumps(compact))
    assert np.array_equal(clone.predict_proba(X), compact.predict_proba(X))


@pytest.mark.parametrize(
    "name, where, value, problem",
    [
        ("right", lambda f: f.feature >= 0, 0, "not after its split"),  # back to the root: apply would loop
        ("right", lambda f: f.feature >= 0, 10**6, "not after its split"),
        ("feature", lambda f: f.feature >= 0, 12, "split feature"),
        ("threshold", lambda f: f.feature >= 0, np.nan, "split threshold"),
        ("right", lambda f: (f.feature < 0) & (f.right >= 0), 4, "leaf"),  # class 4 of 4
        ("right", lambda f: (f.feature < 0) & (f.right < 0), -(10**6), "leaf"),  # past impure_values
        ("impure_values", lambda f: np.ones(len(f.impure_values), bool), np.inf, "impure_values"),
        ("depths", lambda f: np.ones(len(f.depths), bool), -1, "depths"),
    ],
)
def test_arrays_that_could_misroute_a_row_raise_when_checked_and_unpickled(data, name, where, value, problem):
    X, y = data
    compact = CompactForest(RandomForestClassifier(5, max_depth=4, random_state=0).fit(X, y), 4)
    compact.check_arrays()
    array = getattr(compact, name).copy()
    array[np.flatnonzero(where(compact))[0]] = value
    setattr(compact, name, array)
    with pytest.raises(ValueError, match=problem):
        compact.check_arrays()
    with pytest.raises(ValueError, match=problem):
        pickle.loads(pickle.dumps(compact))
