"""Fitted models pickled before their classes moved still load, from the modules their pickles name."""

import gzip
import hashlib
import importlib
import importlib.util
import pickle
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from reference_predictions import assert_close_to_recorded, layer_digest, recorded
from sklearn.datasets import make_classification

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf._pickle_compat import MOVED, RENAMED, MovedModules
from mddf.cascade.versions import LAYOUT

MOVED_CLASSES = [(old, name, new) for old, classes in MOVED.items() for name, new in classes.items()]


@pytest.mark.parametrize("old, name, new", MOVED_CLASSES, ids=[f"{old}.{name}" for old, name, _ in MOVED_CLASSES])
def test_each_old_module_holds_its_moved_classes(old, name, new):
    assert isinstance(importlib.util.find_spec(old).loader, MovedModules)  # no file of that name is left
    assert getattr(importlib.import_module(old), name) is getattr(importlib.import_module(new), name)


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_each_module_of_the_flat_layout_answers_with_its_new_modules(old):
    assert isinstance(importlib.util.find_spec(old).loader, MovedModules)  # no file of that name is left
    module, targets = importlib.import_module(old), [importlib.import_module(new) for new in RENAMED[old]]
    for target in targets:
        for name, value in vars(target).items():
            if not name.startswith("__") and not any(name in vars(t) for t in targets[: targets.index(target)]):
                assert getattr(module, name) is value
    with pytest.raises(AttributeError, match=f"module '{old}' \\(now .*\\) has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_a_model_pickled_in_the_flat_layout_loads_and_predicts_the_same(monkeypatch):
    X, y = make_classification(150, 6, n_informative=4, n_classes=3, random_state=0)
    model = MDDFClassifier(n_estimators=3, max_layers=2, random_state=0).fit(X, y)
    flat = {new: old for old, news in RENAMED.items() for new in news if len(news) == 1}
    with monkeypatch.context() as old_layout:  # every class of a moved module named at its old module
        for new, old in flat.items():
            stand_in = types.ModuleType(old)
            for name, value in vars(importlib.import_module(new)).items():
                if isinstance(value, type) and value.__module__ == new:
                    setattr(stand_in, name, value)
                    old_layout.setattr(value, "__module__", old)
            old_layout.setitem(sys.modules, old, stand_in)
        data = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    for old in flat.values():
        sys.modules.pop(old, None)
    assert b"mddf._cascade_classifier" in data and b"mddf.cascade.classifier" not in data
    restored = pickle.loads(data)
    assert type(restored) is MDDFClassifier
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))


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


#: The models of ``data/models-0.2.0.dev0-a088048.pickle``, pickled by mddf 0.2.0.dev0 at commit a088048 (before the
#: cascades got an engine of their own), and the SHA-256 of their predictions (float64 bytes) then.
PICKLED_DIGESTS = {
    "classifier": "5efdb0935496ec29f8d0a0c2de4f92bade0fafab267b8cf997d9d84b1a376e8e",
    "classifier_predictor_auto": "52a4cc3ed467dd506bd6cacc68c39f07c703e95893df6b8a34ca2ae33de78639",
    "classifier_screening": "698d27655bd01fbaae92d8688eae96db7884e62e0ee23118aa0986521e01beba",
    "regressor": "cdaed3b7d1d448dca3c323097520c3e8eee513c921522fd83d0f2910b36f3223",
    "gcforest": "141f7e00bb2af13208408d4f9dde9b99f479de1f3890f8bf7574642277e981f8",
}
#: The pickled models whose predictions end in floating-point code of other libraries with CPU-dependent last bits
#: (scikit-learn's softmax of the HistGradientBoosting predictor, on numpy's exp), and the digest of their layers'
#: transform outputs (mddf's own bits): their predictions are compared within RTOL with the recorded ones
#: (``data/reference_predictions.npz``, whose digest is the one of PICKLED_DIGESTS; see test_reference_fits.py).
PICKLED_LIBRARY_FLOAT = {
    "classifier_predictor_auto": "37e8f0baf2ba34c26a344d290a2c0fd6ad548002f6d12855a9abcabeb994699d"
}


def _sha256(array):
    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.float64).tobytes()).hexdigest()


def test_models_pickled_by_0_2_0_dev0_load_and_predict_the_same_bits():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's warning when the pickle's version differs from the running one
        saved = pickle.loads((Path(__file__).parent / "data" / "models-0.2.0.dev0-a088048.pickle").read_bytes())
    assert set(saved["models"]) == set(PICKLED_DIGESTS)
    for name, (model, digest) in saved["models"].items():
        assert digest == PICKLED_DIGESTS[name]
        predicted = model.predict_proba(saved["X"]) if hasattr(model, "predict_proba") else model.predict(saved["X"])
        if name in PICKLED_LIBRARY_FLOAT:
            assert layer_digest(model, saved["X"]) == PICKLED_LIBRARY_FLOAT[name], f"{name}: its layers changed"
            assert _sha256(recorded(f"pickled/{name}")[0]) == digest
            assert_close_to_recorded(f"pickled/{name}", predicted, model.predict(saved["X"]))
        else:
            assert _sha256(predicted) == digest, f"{name}: the predictions of the pickled model changed"


def test_a_flipped_byte_in_a_pickled_forest_is_an_error_at_load_naming_the_damage():
    # a forest pickled on its own (an estimator's pickle is checked as a whole first: tests/mddf/storage/test_sealed.py)
    from mddf import ModelFileError

    X, y = make_classification(200, 5, random_state=0)
    model = MDDFClassifier(n_estimators=4, max_layers=2, random_state=0).fit(X, y)
    forest = model.layers_[0].models_[0][0]
    data = pickle.dumps(forest)
    words = forest.words.tobytes()
    at = data.find(words[8:72])  # a stretch of the first forest's node words, inside the pickle
    assert at > 0
    damaged = bytearray(data)
    damaged[at + 3] ^= 0x01
    with pytest.raises(
        ModelFileError, match="the pickle of a BinnedForest: its trees' arrays do not match the SHA-256"
    ):
        pickle.loads(bytes(damaged))
    assert pickle.loads(data).arrays_sha256() == forest.arrays_sha256()


def test_models_pickled_by_0_2_0_dev0_and_b7a5885_have_every_parameter_and_clone():
    from sklearn.base import clone

    data = Path(__file__).parent / "data"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's warning when the pickle's version differs from the running one
        saved = pickle.loads((data / "models-0.2.0.dev0-a088048.pickle").read_bytes())
        b7a5885 = pickle.loads(gzip.decompress((data / "classifier-b7a5885.pickle.gz").read_bytes()))
    models = [model for model, _ in saved["models"].values()] + [b7a5885["model"]]
    for model in models:
        params = model.get_params()  # the parameters added since are those that act as those versions did
        assert type(clone(model)) is type(model) and type(model).__name__ in repr(model)
        if isinstance(model, MDDFClassifier) and not hasattr(model, "cascade_"):
            assert params["target_statistics"] is None and params["probe_trees"] is None


def test_fitted_cascades_of_layout_1_load_as_a_head_and_steps_and_predict_the_same_bits():
    # made by mddf at 9282e92 (before the heads and steps): a selection and its calibration, a predictor blended by
    # its weight, confidence screening, the default regressor and an XGBoost predictor
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's warning when the pickle's version differs from the running one
        data = Path(__file__).parent / "data" / "fitted-cascades-layout1-9282e92.pickle.gz"
        saved = pickle.loads(gzip.decompress(data.read_bytes()))
    assert saved["commit"] == "9282e92" and len(saved["models"]) == 5
    for name, (model, X, expected) in saved["models"].items():
        fitted = model.fitted_cascade_
        assert fitted.layout == LAYOUT and fitted.head.classification == name.startswith("classifier"), name
        predicted = model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)
        np.testing.assert_array_equal(predicted, expected, err_msg=name)
        selected = name in (
            "classifier-selection-calibration",
            "regressor-default",
        )  # final_mixture="selection", "auto"
        assert (fitted.selection is not None) == selected and (fitted.predictor is not None) == ("predictor" in name)
        explained = model.explain(X[:5])
        assert np.abs(explained.base_values + explained.values.sum(axis=1) - predicted[:5]).max() < 1e-6
