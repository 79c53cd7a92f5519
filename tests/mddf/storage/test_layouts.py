"""Objects of earlier versions get what they lack from one table when they are read back, and act as they did."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from mddf import CascadeForestRegressor, MDDFClassifier, PairFeatures, PCAFeatures
from mddf.blocks.base import BlockBase
from mddf.blocks.members import FoldModel
from mddf.cascade.fitted import LAYOUT_1_FIELDS
from mddf.forests import StoredForest
from mddf.storage import EARLIER_LAYOUTS, StoredModel, filled_in


@pytest.fixture(scope="module")
def data():
    return make_classification(120, 5, n_informative=3, n_classes=3, random_state=0)


@pytest.fixture(scope="module")
def classifier(data):
    X, y = data
    members = ("rf", LogisticRegression(max_iter=200))  # a forest and a fold model of another member
    return MDDFClassifier(n_estimators=3, max_layers=2, forest_types=members, random_state=0).fit(X, y)


def _objects(model, kind):
    """The objects of ``kind`` held (in memory) by a fitted cascade ``model``."""
    blocks = model.fitted_cascade_.layers
    if kind == "block":
        return blocks
    models = [m for block in blocks for member in block.models_ for m in member if not isinstance(m, StoredModel)]
    return [m for m in models if isinstance(m, FoldModel if kind == "fold model" else StoredForest)]


def _as_earlier(model, kind):
    """A copy of ``model`` whose objects of ``kind`` lack what the table lists for it, as earlier versions did."""
    copy = pickle.loads(pickle.dumps(model))
    objects = [copy] if kind in ("tabular estimator", type(model).__name__) else _objects(copy, kind)
    assert objects
    for obj in objects:
        for name in EARLIER_LAYOUTS[kind]:
            obj.__dict__.pop(name, None)
    return copy


def test_filled_in_sets_only_what_the_state_lacks():
    state = {"where": "forest_types[1]"}
    assert filled_in("fold model", state) is state
    assert state == {"where": "forest_types[1]", "importance_scale": 1.0}


@pytest.mark.parametrize("kind", ["block", "fold model"])
def test_an_object_below_the_cascade_of_an_earlier_version_gets_what_it_lacks_and_predicts_the_same(
    classifier, data, kind
):
    X, _ = data
    earlier = _as_earlier(classifier, kind)
    assert all(name not in vars(obj) for obj in _objects(earlier, kind) for name in EARLIER_LAYOUTS[kind])
    restored = pickle.loads(pickle.dumps(earlier))
    for obj in _objects(restored, kind):
        assert {name: getattr(obj, name) for name in EARLIER_LAYOUTS[kind]} == EARLIER_LAYOUTS[kind]
    np.testing.assert_array_equal(restored.predict_proba(X), classifier.predict_proba(X))


def _forests_unpickled_without_shares(model):
    """A copy of ``model`` whose forests are unpickled from the state of a forest fitted before their splits'
    shares were stored (no ``left_shares``, no digest: earlier pickles carry none)."""
    copy = pickle.loads(pickle.dumps(model))
    for block in copy.fitted_cascade_.layers:
        for models in block.models_:
            for i, forest in enumerate(models):
                if isinstance(forest, StoredForest):
                    state = {name: value for name, value in vars(forest).items() if name != "left_shares"}
                    models[i] = type(forest).__new__(type(forest))
                    models[i].__setstate__(state)
    return copy


def test_a_forest_fitted_before_its_shares_were_stored_predicts_and_refuses_to_explain_in_one_line(data):
    X, y = data
    classifier = MDDFClassifier(n_estimators=3, max_layers=2, random_state=0).fit(X, y)  # forests only: explained
    restored = _forests_unpickled_without_shares(classifier)
    forests = _objects(restored, "stored forest")
    assert forests and all(forest.left_shares is None for forest in forests)
    np.testing.assert_array_equal(restored.predict_proba(X), classifier.predict_proba(X))
    again = pickle.loads(pickle.dumps(restored))  # its digest is taken without the shares, as then
    np.testing.assert_array_equal(again.predict_proba(X), classifier.predict_proba(X))
    with pytest.raises(ValueError, match="fitted before mddf stored the training weight of its tree nodes"):
        again.explain(X[:2])


def test_a_model_dir_forest_written_before_its_shares_were_stored_loads_with_none(data, tmp_path):
    X, y = data
    model = MDDFClassifier(n_estimators=3, max_layers=1, random_state=0, model_dir=tmp_path).fit(X, y)
    handle = model.fitted_cascade_.layers[0].models_[0][0]
    assert isinstance(handle, StoredModel)
    handle.record.layout.pop("left_shares")  # as a record of a forest written before it was stored
    handle.record.attrs.pop("left_shares", None)
    forest = model.fitted_cascade_.store.loaded(handle)
    assert forest.left_shares is None and forest.n_trees == 3


def test_a_fitted_estimator_of_tabular_input_of_an_earlier_version_reads_no_categorical_column(classifier, data):
    X, _ = data
    restored = pickle.loads(pickle.dumps(_as_earlier(classifier, "tabular estimator")))
    assert restored._category_encoder is None and restored.is_categorical_ is None and restored.categories_ is None
    np.testing.assert_array_equal(restored.predict_proba(X), classifier.predict_proba(X))


@pytest.mark.parametrize("task", ["MDDFClassifier", "CascadeForestRegressor"])
def test_a_cascade_of_an_earlier_version_gets_the_parameters_it_lacks_and_clones(data, task):
    X, y = data
    cls = MDDFClassifier if task == "MDDFClassifier" else CascadeForestRegressor
    model = cls(n_estimators=3, max_layers=1, random_state=0).fit(X, y if task == "MDDFClassifier" else X[:, 0])
    restored = pickle.loads(pickle.dumps(_as_earlier(model, task)))
    params = restored.get_params()
    assert {name: params[name] for name in EARLIER_LAYOUTS[task]} == EARLIER_LAYOUTS[task]
    assert isinstance(clone(restored), cls) and task in repr(restored)
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))


@pytest.mark.parametrize("target", ["y", "residual"])
def test_a_regressor_fitted_before_its_target_offset_was_kept_adds_nothing_back(data, target):
    # such a model's layers fitted y itself
    X, _ = data
    model = CascadeForestRegressor(n_estimators=3, max_layers=2, target=target, random_state=0).fit(X, X[:, 0] + 5)
    copy = pickle.loads(pickle.dumps(model))
    del copy.__dict__["target_offset_"]
    restored = pickle.loads(pickle.dumps(copy))
    assert restored.target_offset_ == 0.0 and "target_offset_" not in vars(pickle.loads(pickle.dumps(clone(model))))
    shift = 0.0 if target == "residual" else model.target_offset_
    np.testing.assert_allclose(restored.predict(X), model.predict(X) - shift)


@pytest.mark.parametrize("transformer", [PairFeatures, PCAFeatures])
def test_a_transformer_fitted_before_the_kinds_of_its_columns_were_kept_checks_none(data, transformer):
    X, y = data
    fitted = transformer().fit(X, y)
    copy = pickle.loads(pickle.dumps(fitted))
    del copy.__dict__["_fit_kinds"]
    restored = pickle.loads(pickle.dumps(copy))
    assert restored._fit_kinds is None
    np.testing.assert_array_equal(restored.transform(X), fitted.transform(X))


def test_the_table_holds_these_kinds_and_each_names_attributes_of_its_objects_now(classifier):
    assert set(EARLIER_LAYOUTS) == {
        "tabular estimator",
        "MDDFClassifier",
        "CascadeForestRegressor",
        "fitted CascadeForestRegressor",
        "appended features",
        "block",
        "fold model",
        "stored forest",
        "fitted cascade, layout 1",
    }
    for kind in ("block", "fold model", "stored forest"):
        for obj in _objects(classifier, kind):
            assert set(EARLIER_LAYOUTS[kind]) <= set(vars(obj)), kind  # a fit sets every attribute of its entry
    assert set(EARLIER_LAYOUTS["tabular estimator"]) <= set(vars(classifier))
    assert set(EARLIER_LAYOUTS["fitted cascade, layout 1"]) <= set(LAYOUT_1_FIELDS)  # what its upgrade reads
    assert isinstance(classifier.fitted_cascade_.layers[0], BlockBase)
