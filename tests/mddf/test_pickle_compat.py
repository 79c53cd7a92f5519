"""Fitted models pickled before their classes moved still load, from the modules their pickles name."""

import importlib
import importlib.util
import pickle
import sys
import types

import numpy as np
import pytest
from sklearn.datasets import make_classification

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf._pickle_compat import MOVED, MovedModules

MOVED_CLASSES = [(old, name, new) for old, classes in MOVED.items() for name, new in classes.items()]


@pytest.mark.parametrize("old, name, new", MOVED_CLASSES, ids=[f"{old}.{name}" for old, name, _ in MOVED_CLASSES])
def test_each_old_module_holds_its_moved_classes(old, name, new):
    assert isinstance(importlib.util.find_spec(old).loader, MovedModules)  # no file of that name is left
    assert getattr(importlib.import_module(old), name) is getattr(importlib.import_module(new), name)


def test_an_old_module_names_what_else_it_defined_no_longer():
    with pytest.raises(AttributeError, match="module 'mddf._block' no longer exists; .* only \\['ForestBlock'\\]"):
        importlib.import_module("mddf._block").make_forest  # noqa: B018


def _pickled_at_the_old_modules(model, monkeypatch):
    """``model`` pickled as the earlier versions did: every moved class named at its old module."""
    with monkeypatch.context() as old_layout:
        for old, classes in MOVED.items():
            stand_in = types.ModuleType(old)
            for name, new in classes.items():
                cls = getattr(importlib.import_module(new), name)
                setattr(stand_in, name, cls)
                old_layout.setattr(cls, "__module__", old)
            old_layout.setitem(sys.modules, old, stand_in)
        data = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    for old in MOVED:
        sys.modules.pop(old, None)  # the stand-ins go: the finder answers when the pickle is loaded
    return data


@pytest.mark.parametrize("estimator", ["hist", "exact", "regressor", "model_dir"])
def test_a_model_pickled_at_the_old_modules_loads_and_predicts_the_same(estimator, monkeypatch, tmp_path):
    X, y = make_classification(150, 6, n_informative=4, n_classes=3, random_state=0)
    params = dict(n_estimators=3, max_layers=2, random_state=0)
    if estimator == "regressor":
        model, y = CascadeForestRegressor(**params), X[:, 0]
    elif estimator == "model_dir":
        model = MDDFClassifier(**params, model_dir=tmp_path)
    else:
        model = MDDFClassifier(**params, tree_method=estimator)
    model.fit(X, y)
    data = _pickled_at_the_old_modules(model, monkeypatch)
    new_modules = {new for classes in MOVED.values() for new in classes.values()}
    assert not any(new.encode() in data for new in new_modules)  # the pickle names the old modules only
    restored = pickle.loads(data)
    assert type(restored) is type(model)
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
