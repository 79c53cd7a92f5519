"""predictor_input: the predictor reads [x, f_T], or, with "auto", whatever predicts best on the training rows: the
predictor on x alone, or the cascade's out-of-fold output and the predictor's on [x, f_T] (a 2-fold split) mixed
with the weight that scores highest, from 0 (the cascade alone) to 1 (the predictor alone)."""

import pickle

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.cascade.final_predictor import PREDICTOR_WEIGHTS

#: The four forests a layer: the close calls these tests build on XOR are the forests'.
FORESTS = ("rf", "rf", "crf", "crf")


def _last_column(Z):
    return Z[:, -1:]


def _xor(n=400, seed=0):
    """Two numeric columns whose signs' product is the label: a linear model on x alone is at chance."""
    X = np.random.RandomState(seed).uniform(-1, 1, size=(n, 2))
    return X, (X[:, 0] * X[:, 1] > 0).astype(int)


def _label_in_last_column(n=400, seed=0):
    """Eight noise columns, then the column whose sign is the label."""
    X = np.random.RandomState(seed).normal(size=(n, 9))
    return X, (X[:, -1] > 0).astype(int)


def _weak_cascade(**params):
    """One completely-random tree per fold: its class vectors are a poor copy of the label."""
    return MDDFClassifier(n_estimators=1, forest_types=("crf",), max_layers=1, random_state=0, **params)


def _first_column(Z):
    return Z[:, :1]


def _ninth_column(Z):
    return Z[:, 8:9]


#: A predictor that reads only the last column of its input: on x alone the label's own column,
#: on [x, f_T] the cascade's last class-vector entry.
LAST_COLUMN_STUMP = make_pipeline(FunctionTransformer(_last_column), DecisionTreeClassifier(max_depth=1))
#: A predictor that reads the first column of x whatever its input: on XOR it is at chance.
FIRST_COLUMN_STUMP = make_pipeline(FunctionTransformer(_first_column), DecisionTreeClassifier(max_depth=1))
#: A predictor that reads the ninth column of x whatever its input: the label's in ``_label_in_last_column``.
NINTH_COLUMN_STUMP = make_pipeline(FunctionTransformer(_ninth_column), DecisionTreeClassifier(max_depth=1))


def test_the_default_reads_x_and_f_T_and_scores_nothing():
    X, y = _xor()
    clf = MDDFClassifier(n_estimators=5, max_layers=2, predictor="hgb", random_state=0).fit(X, y)
    assert clf.predictor_input == "stacked"
    assert clf.predictor_input_ == "stacked"
    assert clf.predictor_input_scores_ is None
    plain = MDDFClassifier(n_estimators=5, max_layers=2, predictor_input="auto", random_state=0).fit(X, y)
    assert plain.predictor_input_ is None and plain.predictor_input_scores_ is None  # no predictor: nothing chosen


def _cascade_proba(clf, X):
    """The cascade's own class probabilities (its mixture after the last kept layer), whatever predicts."""
    *_, (_, last) = clf._staged(X)
    return last


def test_auto_keeps_the_cascade_when_the_predictor_adds_nothing_and_then_fits_no_predictor():
    X, y = _xor()
    params = {"n_estimators": 10, "max_layers": 2, "forest_types": FORESTS, "random_state": 0}
    # Uniform probabilities move no row's argmax at any weight below 1, and at 1 every row ties.
    uniform = DummyClassifier(strategy="uniform")
    auto = MDDFClassifier(predictor=uniform, predictor_input="auto", **params).fit(X, y)
    scores = auto.predictor_input_scores_
    assert set(scores) == {"cascade", "blend", "stacked", "raw"}
    assert scores["stacked"] < 0.7 and scores["raw"] < 0.7 < scores["cascade"] == scores["blend"]
    assert scores["cascade"] == auto.train_history_[auto.n_layers_ - 1]["oof_accuracy"]  # the kept prefix's
    assert auto.predictor_input_ == "cascade" and auto.predictor_weight_ == 0.0
    assert auto.predictor_ is None
    plain = MDDFClassifier(**params).fit(X, y)
    assert np.array_equal(auto.predict_proba(X), plain.predict_proba(X))  # the cascade's own prediction


def test_auto_scores_every_candidate_on_the_training_rows_with_validation_fraction():
    X, y = _xor()
    clf = MDDFClassifier(
        n_estimators=5,
        max_layers=2,
        validation_fraction=0.25,
        predictor=DummyClassifier(strategy="uniform"),
        predictor_input="auto",
        random_state=0,
    ).fit(X, y)
    # The cascade's candidate is its out-of-fold output on the training rows, the rows the predictor's are
    # scored on, not the validation rows that chose the kept prefix.
    assert clf.predictor_input_scores_["cascade"] == clf.train_history_[clf.n_layers_ - 1]["oof_accuracy"]


def test_auto_mixes_the_cascade_and_the_predictor_with_the_weight_that_scores_highest():
    X, y = _xor()
    params = {"n_estimators": 10, "max_layers": 2, "forest_types": FORESTS, "random_state": 0}
    # A stump on one column of XOR is at chance alone, but its leaves' class shares tip some close calls.
    auto = MDDFClassifier(predictor=FIRST_COLUMN_STUMP, predictor_input="auto", **params).fit(X, y)
    scores, w = auto.predictor_input_scores_, auto.predictor_weight_
    assert scores["blend"] > scores["cascade"] > scores["stacked"]
    assert auto.predictor_input_ == "blend" and 0.0 < w < 1.0 and w in PREDICTOR_WEIGHTS
    stacked_input = np.hstack([X, auto.transform(X)])
    expected = (1.0 - w) * _cascade_proba(auto, X) + w * auto.predictor_.predict_proba(stacked_input)
    np.testing.assert_allclose(auto.predict_proba(X), expected, rtol=1e-12)
    assert np.array_equal(auto.predict(X), auto.classes_[expected.argmax(axis=1)])
    restored = pickle.loads(pickle.dumps(auto))
    assert restored.predictor_weight_ == w
    assert np.array_equal(restored.predict_proba(X), auto.predict_proba(X))


def test_auto_ties_go_to_the_smaller_weight_then_to_x_alone():
    X, y = _xor()
    params = {"n_estimators": 10, "max_layers": 2, "forest_types": FORESTS, "random_state": 0}
    auto = MDDFClassifier(predictor=LogisticRegression(), predictor_input="auto", **params).fit(X, y)
    scores = auto.predictor_input_scores_
    assert scores["raw"] < 0.7  # a line on x alone is near chance on XOR
    assert scores["stacked"] == scores["cascade"]  # a line on [x, f_T] follows the class vectors here
    assert auto.predictor_input_ == "cascade" and auto.predictor_ is None
    assert np.array_equal(auto.predict_proba(X), MDDFClassifier(**params).fit(X, y).predict_proba(X))
    # A predictor that reads the same column of x from either input scores alike on both.
    X, y = _label_in_last_column()
    auto = _weak_cascade(predictor=NINTH_COLUMN_STUMP, predictor_input="auto").fit(X, y)
    scores, w = auto.predictor_input_scores_, auto.predictor_weight_
    assert scores["blend"] == scores["stacked"] == scores["raw"] > scores["cascade"]
    assert auto.predictor_input_ == "blend"  # the smallest weight that scores highest, not x alone
    smaller = PREDICTOR_WEIGHTS[PREDICTOR_WEIGHTS < w]
    assert len(smaller) > 0
    stacked = _weak_cascade(predictor=NINTH_COLUMN_STUMP).fit(X, y)  # the same final fit, same seed
    assert stacked.predictor_weight_ == 1.0
    expected = (1.0 - w) * _cascade_proba(stacked, X) + w * stacked.predict_proba(X)
    np.testing.assert_allclose(auto.predict_proba(X), expected, rtol=1e-12)


def test_auto_chooses_x_alone_and_then_predicts_without_the_layers(monkeypatch):
    X, y = _label_in_last_column()
    clf = _weak_cascade(predictor=LAST_COLUMN_STUMP, predictor_input="auto").fit(X, y)
    assert clf.predictor_input_ == "raw" and clf.predictor_weight_ == 1.0
    scores = clf.predictor_input_scores_
    assert scores["raw"] > scores["blend"] >= max(scores["stacked"], scores["cascade"])
    assert clf.predictor_.n_features_in_ == X.shape[1]  # trained on x alone
    expected = clf.predictor_.predict_proba(X.astype(np.float32))
    assert np.array_equal(clf.predict_proba(X), expected)

    def no_layers(*args):
        raise AssertionError("the layers ran")

    from mddf.cascade.fitted import FittedCascade

    monkeypatch.setattr(FittedCascade, "visits", no_layers)
    assert np.array_equal(clf.predict(X), clf.classes_[expected.argmax(axis=1)])
    with pytest.raises(AssertionError, match="the layers ran"):
        next(clf.staged_predict_proba(X))  # the stages before the last are the cascade's


def test_auto_choice_is_seeded_by_random_state_independent_of_n_jobs_and_survives_pickling():
    X, y = _label_in_last_column()
    fits = [_weak_cascade(predictor=LAST_COLUMN_STUMP, predictor_input="auto", n_jobs=n).fit(X, y) for n in (1, 2)]
    assert fits[0].predictor_input_scores_ == fits[1].predictor_input_scores_
    assert np.array_equal(fits[0].predict_proba(X), fits[1].predict_proba(X))
    restored = pickle.loads(pickle.dumps(fits[0]))
    assert restored.predictor_input_ == "raw"
    assert np.array_equal(restored.predict_proba(X), fits[0].predict_proba(X))


def test_auto_leaves_out_rows_of_weight_zero():
    X, y = _label_in_last_column(n=600)
    weight = np.ones(len(y))
    weight[:200] = 0.0
    clf = _weak_cascade(predictor=LAST_COLUMN_STUMP, predictor_input="auto").fit(X, y, sample_weight=weight)
    assert clf.predictor_input_ == "raw"
    unweighted = _weak_cascade(predictor=LAST_COLUMN_STUMP, predictor_input="auto").fit(X[200:], y[200:])
    # x alone is the same matrix either way, so the same halves give the same held-out score
    assert clf.predictor_input_scores_["raw"] == unweighted.predictor_input_scores_["raw"]


def test_the_regressor_chooses_by_held_out_squared_error():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 6))
    y = 3.0 * X[:, -1]
    predictor = make_pipeline(FunctionTransformer(_last_column), LinearRegression())
    reg = CascadeForestRegressor(
        n_estimators=2, forest_types=("crf",), max_layers=1, predictor=predictor, predictor_input="auto", random_state=0
    ).fit(X, y)
    assert reg.predictor_input_ == "raw"
    scores = reg.predictor_input_scores_
    assert scores["raw"] == pytest.approx(0.0, abs=1e-9)  # the negative mean squared error of an exact line
    assert scores["stacked"] < -0.1
    assert scores["cascade"] == -reg.train_history_[0]["oof_mse"]  # the one layer's out-of-fold error
    assert np.allclose(reg.predict(X), y)


def test_unknown_predictor_inputs_are_rejected():
    X, y = _xor(n=60)
    with pytest.raises(InvalidParameterError, match="predictor_input"):
        MDDFClassifier(predictor="hgb", predictor_input="raw").fit(X, y)


def test_the_regressor_mixes_its_prediction_with_the_predictors():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 6))
    y = X[:, 0] + np.sin(3.0 * X[:, -1])  # a line in the first column plus a wave the trees follow
    predictor = make_pipeline(FunctionTransformer(_first_column), LinearRegression())
    settings = dict(n_estimators=10, forest_types=FORESTS, max_layers=1, random_state=0)
    reg = CascadeForestRegressor(**settings, predictor=predictor, predictor_input="auto").fit(X, y)
    scores, w = reg.predictor_input_scores_, reg.predictor_weight_
    assert reg.predictor_input_ == "blend" and 0.0 < w < 1.0
    assert scores["blend"] > max(scores["cascade"], scores["stacked"], scores["raw"])
    cascade = CascadeForestRegressor(**settings, final_mixture="cascade").fit(X, y).predict(X)  # the same layers
    np.testing.assert_array_equal(list(reg.staged_predict(X))[-1], reg.predict(X))
    line = reg.predictor_.predict(np.hstack([X.astype(np.float32), reg.transform(X)])).astype(np.float64)
    np.testing.assert_allclose(reg.predict(X), (1.0 - w) * cascade + w * line, rtol=1e-12)
