"""A fit produces one object, the fitted cascade: it holds everything a prediction reads, predicts by one replay of
its layers read by visitors, pickles on its own, and is checked by one version policy when it is loaded."""

import gzip
import hashlib
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.cascade import margin_policy, residual_policy
from mddf.cascade.fitted import FittedCascade
from mddf.cascade.replay import FinalOutput, Visitor
from mddf.cascade.versions import LAYOUT

SMALL = dict(n_estimators=3, max_layers=3, random_state=0)


@pytest.fixture(scope="module")
def data():
    return make_classification(160, 6, n_informative=4, n_classes=3, random_state=0)


class _Collect(Visitor):
    """A visitor of one's own: each layer's output, calibrated as the stages are."""

    def __init__(self):
        self.outputs = []

    def layer(self, visit):
        self.outputs.append(visit.output)

    def end(self, fitted, X, last):
        return [fitted.calibrated(output).value for output in self.outputs]


def test_a_visitor_of_ones_own_reads_the_replay_that_the_staged_probabilities_read(data):
    X, y = data
    model = MDDFClassifier(**SMALL).fit(X, y)
    collected = model.fitted_cascade_.replay(X.astype(np.float32), _Collect())
    staged = list(model.staged_predict_proba(X))
    assert len(collected) == len(staged) == model.n_layers_
    assert all(np.array_equal(a, b) for a, b in zip(collected, staged))


@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_the_fitted_cascade_alone_predicts_after_the_estimators_fitted_attributes_are_gone(data, task):
    X, y = data
    if task == "classifier":
        model = MDDFClassifier(**SMALL, predictor="forest", pair_features="auto").fit(X, y)
        expected = model.predict_proba(X)
    else:
        model = CascadeForestRegressor(**SMALL, predictor="forest").fit(X, X[:, 0])
        expected = model.predict(X)
    fitted = model.fitted_cascade_
    assert isinstance(fitted, FittedCascade) and fitted.layout == LAYOUT
    for name in fitted.attributes():  # layers_, alphas_, predictor_, pair_features_, ...
        delattr(model, name)
    got = model.predict_proba(X) if task == "classifier" else model.predict(X)
    np.testing.assert_array_equal(got, expected)
    alone = pickle.loads(pickle.dumps(fitted))  # pickled on its own, without the estimator
    np.testing.assert_array_equal(alone.replay(X.astype(np.float32), FinalOutput()).value, expected)


def test_the_estimators_pickle_holds_the_fitted_cascade_once_and_shows_the_attributes_again(data):
    X, y = data
    model = MDDFClassifier(**SMALL).fit(X, y)
    state = model.__getstate__()
    assert "fitted_cascade_" in state and "layers_" not in state and "alphas_" not in state
    restored = pickle.loads(pickle.dumps(model))
    assert restored.n_layers_ == model.n_layers_ and restored.layers_ is restored.fitted_cascade_.layers
    np.testing.assert_array_equal(restored.alphas_, model.alphas_)
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_prediction_builds_no_policy(data, task, monkeypatch):
    X, y = data
    if task == "classifier":
        model, policy = MDDFClassifier(**SMALL, calibration="temperature").fit(X, y), margin_policy.MarginPolicy
    else:
        model, policy = CascadeForestRegressor(**SMALL).fit(X, X[:, 0]), residual_policy.ResidualPolicy
    expected = model.predict(X)

    def refused(*args, **kwargs):
        raise AssertionError("a policy was built to predict")

    monkeypatch.setattr(policy, "__init__", refused)
    np.testing.assert_array_equal(model.predict(X), expected)
    list(model.staged_predict(X))
    model.transform(X, layer=1)
    model.explain(X[:5], fast=True)


def test_a_model_of_the_loose_layout_is_upgraded_to_a_fitted_cascade(data):
    X, y = data
    model = MDDFClassifier(**SMALL, calibration=None).fit(X, y)  # what the earliest pickles did
    expected = model.predict_proba(X)
    fitted = model.fitted_cascade_
    loose = {k: v for k, v in model.__getstate__().items() if k != "fitted_cascade_"}
    loose.update(fitted.attributes(), _model_store=None, _predictor_model=None)  # as b7a5885 pickled a model
    for name in ("calibration_", "background_", "predictor_weight_", "screening_thresholds_"):
        loose.pop(name)  # absent from the earliest pickles
    restored = MDDFClassifier.__new__(MDDFClassifier)
    restored.__setstate__(loose)
    assert isinstance(restored.fitted_cascade_, FittedCascade) and restored.model_dir_ is None
    assert restored.calibration_ is None and restored.background_ is None and restored.predictor_weight_ is None
    np.testing.assert_array_equal(restored.predict_proba(X), expected)


def test_a_fitted_cascade_of_a_layout_this_mddf_does_not_know_is_refused_in_one_line_naming_its_version(data):
    X, y = data
    model = MDDFClassifier(**SMALL).fit(X, y)
    model.fitted_cascade_.layout, model.fitted_cascade_.mddf_version = LAYOUT + 1, "9.1.0"
    with pytest.raises(ValueError, match=r"saved by mddf 9\.1\.0 .* cannot read") as error:
        pickle.loads(pickle.dumps(model.fitted_cascade_))
    assert "\n" not in str(error.value)
    from mddf import ModelFileError

    with pytest.raises(ModelFileError, match=r"saved by mddf 9\.1\.0"):
        pickle.loads(pickle.dumps(model))


#: ``data/classifier-b7a5885.pickle.gz``: a default ``MDDFClassifier(random_state=0)`` fitted and pickled by mddf at
#: commit b7a5885 (its fitted attributes loose on the estimator), with its rows ``X`` and the SHA-256 of its
#: ``predict_proba(X)`` (float64 bytes) then.
B7A5885_DIGEST = "5373277f5e44129dc2fe0ea8b484749bf0012001d43e8fd14e31cf5c6e751d49"


def test_a_default_classifier_pickled_by_b7a5885_loads_as_a_fitted_cascade_and_predicts_the_same_bits():
    path = Path(__file__).parents[1] / "data" / "classifier-b7a5885.pickle.gz"
    saved = pickle.loads(gzip.decompress(path.read_bytes()))
    model, X = saved["model"], saved["X"]
    assert saved["digest"] == B7A5885_DIGEST
    assert isinstance(model.fitted_cascade_, FittedCascade) and model.fitted_cascade_.layout == LAYOUT
    assert model.layers_ is model.fitted_cascade_.layers and model.background_ is None  # kept rows came later
    proba = np.ascontiguousarray(model.predict_proba(X), dtype=np.float64)
    assert hashlib.sha256(proba.tobytes()).hexdigest() == B7A5885_DIGEST


def test_the_fitted_cascade_checks_new_rows_with_the_columns_and_encoder_it_holds():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "colour": pd.Categorical(rng.choice(["red", "blue"], 120))})
    y = (X.a + (X.colour == "red") > 0.5).astype(int)
    model = MDDFClassifier(**SMALL).fit(X, y)
    alone = pickle.loads(pickle.dumps(model.fitted_cascade_))  # without its estimator
    rows = alone.validated(X.iloc[:10])
    np.testing.assert_array_equal(rows, model._validated(X.iloc[:10]))  # the estimator delegates to it
    np.testing.assert_array_equal(alone.replay(rows, FinalOutput()).value, model.predict_proba(X.iloc[:10]))
    with pytest.raises(ValueError, match="X has 1 features, but MDDFClassifier is expecting 2 features"):
        alone.validated(X[["a"]].to_numpy())
    with pytest.warns(UserWarning, match="X does not have valid feature names, but MDDFClassifier was fitted with"):
        alone.validated(np.c_[X.a.to_numpy(), X.colour.astype(str).to_numpy()].astype(object))
