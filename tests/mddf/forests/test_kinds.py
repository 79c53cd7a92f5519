"""The forest-kind table and the store interface that both blocks read."""

import pickle

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf._storage import MemoryStore, ModelStore
from mddf.forests import FOREST_KINDS, forest_kind
from mddf.trees import BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD


def test_each_kind_is_defined_once():
    rf, crf, et = (forest_kind(name) for name in FOREST_KINDS)
    assert (rf.bootstrap, crf.bootstrap, et.bootstrap) == (True, False, False)
    assert (rf.split_rule, crf.split_rule, et.split_rule) == (BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD)
    assert (rf.exact_tree, crf.exact_tree, et.exact_tree) == (
        DecisionTreeClassifier,
        ExtraTreeClassifier,
        ExtraTreeClassifier,
    )
    assert [kind.n_candidates("sqrt", 16) for kind in (rf, crf, et)] == [4, 1, 4]
    assert [kind.n_candidates(0.5, 16) for kind in (rf, crf, et)] == [8, 1, 8]


def test_make_gives_the_equivalent_scikit_learn_forests():
    rf, crf, et = (forest_kind(name) for name in FOREST_KINDS)
    assert type(rf.make("classification", 3, 5, "sqrt", 0)) is RandomForestClassifier
    assert type(rf.make("regression", 3, 5, 1.0, 0)) is RandomForestRegressor
    assert crf.make("classification", 3, 5, "sqrt", 0).get_params()["max_features"] == 1
    assert type(crf.make("regression", 3, 5, 1.0, 0)) is ExtraTreesRegressor
    forest = et.make("classification", 3, 5, "sqrt", 0)
    assert type(forest) is ExtraTreesClassifier and forest.get_params()["n_jobs"] == 1
    with pytest.raises(ValueError, match="unknown forest type 'gbdt'"):
        forest_kind("gbdt")


def test_the_memory_store_answers_what_the_model_store_answers():
    methods = {"fit_task", "handle", "predict_task", "model_class", "loaded", "remove", "move", "destroy"}
    methods |= {"check_claimed", "relocate"}
    assert all(callable(getattr(MemoryStore, name)) and callable(getattr(ModelStore, name)) for name in methods)
    store = MemoryStore()
    assert store.path is None and not store.temporary
    assert store.handle("model") == "model" and store.loaded("model") == "model"
    with pytest.raises(ValueError, match="in memory"):
        store.relocate("/somewhere")


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_a_model_pickled_before_the_stores_had_one_interface_still_predicts(estimator):
    rng = np.random.RandomState(0)
    X = rng.rand(60, 4)
    y = (X[:, 0] > 0.5).astype(int) if estimator == "classifier" else X[:, 0]
    cls = MDDFClassifier if estimator == "classifier" else CascadeForestRegressor
    model = cls(n_estimators=4, max_layers=2, random_state=0).fit(X, y)
    expected = model.predict(X)
    model._model_store = None  # what a fit without model_dir kept before
    for block in model.layers_:
        block.store = None
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), expected)
    assert restored.model_dir_ is None
