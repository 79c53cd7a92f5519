"""Confidence screening (``screening_accuracy``): confident rows leave the cascade at fit and at prediction."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

from mddf import MDDFClassifier
from mddf.blocks.classifier import ForestBlock
from mddf.cascade.screening import confidence, screening_threshold, still_in

#: calibration=None: a screened row's probabilities are its exit layer's mixture (calibration has its own tests)
COMMON = dict(
    n_estimators=10,
    n_folds=3,
    max_layers=3,
    n_tolerant_layers=3,
    calibration=None,
    forest_types=("rf", "rf", "crf", "crf"),
    random_state=0,
)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(400, 8, n_informative=5, n_classes=3, random_state=0)
    return X.astype(np.float32), y


def fit_recording_thresholds(*args, sample_weight=None, **params):
    """Fit with screening; return the model and, per grown layer, the arguments and result of its threshold."""
    calls = []

    def recorded(conf, correct, target, weight=None):
        calls.append((conf, correct, target, weight, screening_threshold(conf, correct, target, weight)))
        return calls[-1][-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("mddf.cascade.margin_policy.screening_threshold", recorded)
        model = MDDFClassifier(**params).fit(*args, sample_weight=sample_weight)
    return model, calls


@pytest.fixture(scope="module")
def screened_and_calls(data):
    return fit_recording_thresholds(*data, screening_accuracy=0.95, **COMMON)


@pytest.fixture(scope="module")
def screened(screened_and_calls):
    return screened_and_calls[0]


# ------------------------------------------------------------------ the threshold
def test_the_threshold_is_the_lowest_confidence_whose_rows_at_or_above_meet_the_target():
    conf = np.array([0.5, 0.9, 0.8, 0.6, 0.8])
    correct = np.array([False, True, False, True, True])
    # at or above 0.9: 1/1; 0.8: 2/3; 0.6: 3/4; 0.5: 3/5
    assert screening_threshold(conf, correct, 0.75) == 0.6
    assert screening_threshold(conf, correct, 0.76) == 0.9
    assert screening_threshold(conf, correct, 1.0) == 0.9
    assert screening_threshold(conf, correct, 0.6) == 0.5
    assert screening_threshold(conf, ~correct, 0.5) == np.inf  # the most confident row is wrong: 0/1, 1/3, 1/4, 2/5


def test_the_threshold_weighs_the_rows_and_ignores_rows_of_weight_zero():
    conf = np.array([0.9, 0.8, 0.7])
    correct = np.array([True, False, True])
    assert screening_threshold(conf, correct, 0.9) == 0.9
    assert screening_threshold(conf, correct, 0.9, sample_weight=np.array([1.0, 0.0, 1.0])) == 0.7
    assert screening_threshold(conf, correct, 0.7, sample_weight=np.array([3.0, 1.0, 0.0])) == 0.7
    assert screening_threshold(conf, correct, 0.9, sample_weight=np.array([0.0, 1.0, 0.0])) == np.inf


def test_rows_still_in_are_those_below_the_threshold():
    proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    assert still_in(None, proba, 0.7).tolist() == [1, 3]
    assert still_in(np.array([0, 1]), proba, 0.7).tolist() == [1]
    assert still_in(None, proba, np.inf).tolist() == [0, 1, 2, 3]


# ------------------------------------------------------------------------- fit
def test_each_threshold_meets_the_target_on_the_out_of_fold_outputs_of_the_rows_still_in(data, screened_and_calls):
    _, y = data
    model, calls = screened_and_calls
    assert model.n_layers_ >= 2 and np.array_equal(
        model.screening_thresholds_, [c[-1] for c in calls][: model.n_layers_]
    )
    rows = np.arange(len(y))
    for t, ((conf, correct, target, weight, threshold), record) in enumerate(zip(calls, model.train_history_)):
        # the confidences are those of the cascade's out-of-fold output after layer t, of the rows still in
        assert target == 0.95 and weight is None and record["rows_in"] == len(rows) == len(conf)
        if t < model.n_layers_:
            features = model.oof_features_[t][rows]  # passed_features="mean": the mixture's class shares
            assert np.allclose(conf, confidence(features), atol=1e-6)
            assert np.array_equal(correct, features.argmax(axis=1) == y[rows])
        out = conf >= threshold
        assert out.sum() == record["screened"] and record["screening_threshold"] == threshold
        if out.any():
            assert np.mean(correct[out]) >= 0.95
        # the lowest such confidence: the rows at or above any lower one fall below the target
        for lower in np.unique(conf[~out]):
            assert np.mean(correct[conf >= lower]) < 0.95
        rows = rows[~out]
    assert sum(r["screened"] for r in model.train_history_) > 0


def test_screened_rows_keep_their_output_and_features_from_the_layer_they_left_at(screened_and_calls):
    model, calls = screened_and_calls
    first, second = model.oof_features_[:2]
    left = calls[0][0] >= calls[0][-1]
    assert left.any() and not left.all()
    assert np.array_equal(first[left], second[left])
    assert not np.array_equal(first[~left], second[~left])
    assert model.train_history_[0]["screened_fraction"] == pytest.approx(left.mean())


@pytest.mark.parametrize(
    "options", [{}, {"class_vectors": "oob"}, {"fold_trees": "refit"}, {"fold_trees": "share"}], ids=str
)
def test_later_blocks_train_on_and_predict_only_the_rows_still_in(data, monkeypatch, options):
    X, y = data
    fitted, predicted = [], []
    fit, predict_proba = ForestBlock.fit, ForestBlock.predict_proba

    def counting_fit(self, X, y, *args, **kwargs):
        fitted.append(len(y))
        return fit(self, X, y, *args, **kwargs)

    def counting_predict(self, X, *args, **kwargs):
        predicted.append(len(X))
        return predict_proba(self, X, *args, **kwargs)

    monkeypatch.setattr(ForestBlock, "fit", counting_fit)
    model = MDDFClassifier(screening_accuracy=0.95, **COMMON, **options).fit(X, y)
    assert fitted == [record["rows_in"] for record in model.train_history_]
    assert fitted[0] == len(y) and fitted[-1] < len(y)

    # prediction: a row whose confidence after a layer reaches its threshold goes through no later layer
    staged = list(model.staged_predict_proba(X))
    monkeypatch.setattr(ForestBlock, "predict_proba", counting_predict)
    proba = model.predict_proba(X)
    rows, expected = np.arange(len(X)), []
    for t in range(model.n_layers_):
        expected.append(len(rows))
        rows = rows[confidence(staged[t][rows]) < model.screening_thresholds_[t]]
    assert predicted == expected and predicted[-1] < len(X)
    assert np.array_equal(proba, staged[-1])


def test_a_screened_prediction_is_the_exit_layers_output_of_the_unscreened_cascade(data, screened):
    X, _ = data
    X_new = make_classification(300, 8, n_informative=5, n_classes=3, random_state=1)[0].astype(np.float32)
    X_new = np.vstack([X_new, X[:100]])
    proba = screened.predict_proba(X_new)
    thresholds = screened.screening_thresholds_
    screened.screening_thresholds_ = None  # every row through every layer
    try:
        full = list(screened.staged_predict_proba(X_new))
    finally:
        screened.screening_thresholds_ = thresholds
    exit_layer = np.full(len(X_new), screened.n_layers_ - 1)
    for t in range(screened.n_layers_ - 2, -1, -1):
        exit_layer[confidence(full[t]) >= thresholds[t]] = t
    assert 0 < np.mean(exit_layer < screened.n_layers_ - 1) < 1
    expected = np.array([full[t][i] for i, t in enumerate(exit_layer)])
    assert np.array_equal(proba, expected)
    assert np.array_equal(screened.transform(X_new), screened.transform(X_new[::-1])[::-1])


def test_none_is_the_default_and_screens_nothing(data):
    X, y = data
    default = MDDFClassifier(**COMMON).fit(X, y)
    off = MDDFClassifier(screening_accuracy=None, **COMMON).fit(X, y)
    assert MDDFClassifier().screening_accuracy is None
    assert off.screening_thresholds_ is None and "screened" not in off.train_history_[0]
    assert np.array_equal(default.predict_proba(X), off.predict_proba(X))
    assert [h["oof_accuracy"] for h in default.train_history_] == [h["oof_accuracy"] for h in off.train_history_]


def test_a_threshold_that_no_row_reaches_grows_the_cascade_of_no_screening(data, monkeypatch):
    X, y = data
    monkeypatch.setattr("mddf.cascade.margin_policy.screening_threshold", lambda *args: np.inf)
    never = MDDFClassifier(screening_accuracy=0.5, **COMMON).fit(X, y)
    default = MDDFClassifier(**COMMON).fit(X, y)
    assert all(record["screened"] == 0 for record in never.train_history_)
    assert np.array_equal(never.predict_proba(X), default.predict_proba(X))
    for a, b in zip(never.oof_features_, default.oof_features_):
        assert np.array_equal(a, b)


def test_a_target_of_one_on_noisy_data_screens_few_rows():
    X, y = make_classification(400, 8, n_informative=5, n_classes=3, flip_y=0.3, random_state=0)
    model = MDDFClassifier(screening_accuracy=1.0, **COMMON).fit(X, y)
    lower = MDDFClassifier(screening_accuracy=0.8, **COMMON).fit(X, y)
    assert model.train_history_[-1]["screened_fraction"] < 0.05
    assert model.train_history_[0]["screened"] < lower.train_history_[0]["screened"]


def test_rows_still_in_too_few_for_a_layer_stop_growth():
    X, y = make_classification(300, 6, n_informative=4, class_sep=3.0, random_state=0)
    model = MDDFClassifier(screening_accuracy=0.5, **COMMON).fit(X, y)
    assert model.stop_reason_.startswith("confidence screening left")
    assert len(model.train_history_) < COMMON["max_layers"]


def test_held_out_rows_are_screened_as_new_rows(data):
    X, y = data
    model = MDDFClassifier(screening_accuracy=0.95, validation_fraction=0.3, **COMMON).fit(X, y)
    counts = [record["val_rows_in"] for record in model.train_history_]
    assert counts[0] == 120 and counts[-1] < counts[0]
    assert all(b <= a for a, b in zip(counts, counts[1:]))


def test_it_is_reproducible_and_pickles(data, screened):
    X, y = data
    again = MDDFClassifier(screening_accuracy=0.95, **COMMON).fit(X, y)
    assert np.array_equal(again.screening_thresholds_, screened.screening_thresholds_)
    assert np.array_equal(again.predict_proba(X), screened.predict_proba(X))
    for a, b in zip(again.train_history_, screened.train_history_):
        assert {k: v for k, v in a.items() if k != "fit_seconds"} == {k: v for k, v in b.items() if k != "fit_seconds"}
    copy = pickle.loads(pickle.dumps(screened))
    assert np.array_equal(copy.screening_thresholds_, screened.screening_thresholds_)
    assert np.array_equal(copy.predict_proba(X), screened.predict_proba(X))


def test_sample_weights_weigh_the_threshold(data):
    X, y = data
    weight = np.where(np.arange(len(y)) % 4 == 0, 0.0, 1.0)
    model, calls = fit_recording_thresholds(X, y, sample_weight=weight, screening_accuracy=0.95, **COMMON)
    conf, correct, _, passed_weight, threshold = calls[0]
    assert np.array_equal(passed_weight, weight)  # rescaled, by 1: the largest is 1, the mean 0.75
    out = conf >= threshold
    assert out.any() and np.average(correct[out], weights=weight[out]) >= 0.95
    assert np.mean(correct[out]) < 0.95  # the rows of weight 0 count in no accuracy


def test_verbose_lines_say_how_many_rows_each_layer_screened(data, capsys):
    X, y = data
    model = MDDFClassifier(screening_accuracy=0.95, verbose=1, **COMMON).fit(X, y)
    lines = [line for line in capsys.readouterr().out.splitlines() if " layer " in line]
    first = model.train_history_[0]
    assert f"rows_in={len(y)} screened={first['screened']}" in lines[0]


def test_a_predictor_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="screening_accuracy and predictor cannot be combined"):
        MDDFClassifier(screening_accuracy=0.9, predictor="forest", **COMMON).fit(X, y)


@pytest.mark.parametrize("value", [0.0, -0.1, 1.5, "high"])
def test_the_target_is_validated(data, value):
    X, y = data
    with pytest.raises(ValueError, match="screening_accuracy"):
        MDDFClassifier(screening_accuracy=value, max_layers=1).fit(X, y)
