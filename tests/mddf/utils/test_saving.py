"""Every estimator of mddf and of mddf.baselines saves to one file that mddf.load reads back, and pickles through
the same checked bytes (mddf.utils.SaveMixin): each predicts the same bits after the round trip."""

import copy
import gc
import os
import pickle

import numpy as np
import pytest

import mddf
from mddf import CascadeForestRegressor, MDDFClassifier, MDDFGridSearch, PairFeatures, PCAFeatures
from mddf.baselines import (
    AdaBoostClassifier,
    DeepBoostClassifier,
    GCForestClassifier,
    MultiGrainedScanner,
    QuadBoostClassifier,
)
from mddf.storage import sealed
from mddf.utils import SaveMixin

SMALL = dict(n_estimators=4, max_layers=2, random_state=0)
#: Name -> (an unfitted estimator, its target: "classes", "binary" or "values").
ESTIMATORS = {
    "MDDFClassifier (default)": (lambda: MDDFClassifier(random_state=0), "classes"),
    "CascadeForestRegressor": (lambda: CascadeForestRegressor(**SMALL, forest_types=("rf", "gbdt")), "values"),
    "MDDFGridSearch": (
        lambda: MDDFGridSearch(estimator=MDDFClassifier(**SMALL), param_grid={"margin_mean": [0.7, 0.9]}),
        "classes",
    ),
    "GCForestClassifier (scanning)": (
        lambda: GCForestClassifier(
            window_sizes=(2,), image_shape=(4, 4), scan_n_estimators=4, n_estimators=4, max_layers=2, random_state=0
        ),
        "classes",
    ),
    "MultiGrainedScanner": (
        lambda: MultiGrainedScanner(window_sizes=(2,), image_shape=(4, 4), n_estimators=4, random_state=0),
        "classes",
    ),
    "DeepBoostClassifier": (lambda: DeepBoostClassifier(n_iter=5, random_state=0), "binary"),
    "AdaBoostClassifier": (lambda: AdaBoostClassifier(n_iter=5, random_state=0), "binary"),
    "QuadBoostClassifier": (lambda: QuadBoostClassifier(n_iter=5, random_state=0), "binary"),
    "PairFeatures": (lambda: PairFeatures(random_state=0), "classes"),
    "PCAFeatures": (lambda: PCAFeatures(), "classes"),
}


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(80, 16))
    classes = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    return X, {"classes": classes, "binary": (classes > 0).astype(int), "values": X[:, 2] + X[:, 3]}


def _outputs(model, X):
    """What the model gives for ``X``: probabilities, predictions, decision values, transformed features."""
    methods = ("predict_proba", "predict", "decision_function", "transform")
    return [getattr(model, method)(X) for method in methods if hasattr(model, method)]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_saved_estimator_loads_and_its_pickle_and_copy_predict_the_same_bits(name, tmp_path):
    make, target = ESTIMATORS[name]
    X, targets = _data()
    model = make().fit(X, targets[target])
    assert isinstance(model, SaveMixin)
    model.save(tmp_path / "model.mddf")
    assert sealed.check((tmp_path / "model.mddf").read_bytes(), "x").name == type(model).__name__
    restored = [mddf.load(tmp_path / "model.mddf"), pickle.loads(pickle.dumps(model)), copy.deepcopy(model)]
    expected = _outputs(model, X)
    for loaded in restored:
        assert type(loaded) is type(model)
        for got, want in zip(_outputs(loaded, X), expected, strict=True):
            np.testing.assert_array_equal(got, want)


def test_the_pickle_of_every_estimator_is_sealed():
    for name, (make, _) in ESTIMATORS.items():
        assert pickle.dumps(make()).count(b"unseal") == 1, name  # unfitted ones too


def test_an_unfitted_estimator_saves_and_loads_with_its_parameters(tmp_path):
    MDDFClassifier(n_estimators=7, margin_mean=0.8).save(tmp_path / "unfitted.mddf")
    loaded = mddf.load(tmp_path / "unfitted.mddf")
    assert loaded.get_params() == MDDFClassifier(n_estimators=7, margin_mean=0.8).get_params()


def test_a_model_fitted_into_a_folder_saves_the_handles_of_its_files(tmp_path):
    X, targets = _data()
    model = MDDFClassifier(**SMALL, model_dir=tmp_path / "models").fit(X, targets["classes"])
    model.save(tmp_path / "model.mddf")
    loaded = mddf.load(tmp_path / "model.mddf")
    assert loaded.model_dir == model.model_dir
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_model_in_a_temporary_folder_saves_its_files_and_loads_after_the_folder_is_gone(tmp_path):
    X, targets = _data()
    model = MDDFClassifier(**SMALL, model_dir="auto").fit(X, targets["classes"])
    expected, folder = model.predict_proba(X), model.model_dir_
    model.save(tmp_path / "model.mddf")
    del model
    gc.collect()
    assert not os.path.exists(folder)  # the temporary folder went with its model
    loaded = mddf.load(tmp_path / "model.mddf")
    assert loaded.model_dir_ != folder and os.path.isdir(loaded.model_dir_)
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
