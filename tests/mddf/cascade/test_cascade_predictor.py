"""A predictor on top of the cascade, trained on [x, f_T] with the out-of-fold f_T (DF21's use_predictor)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils._param_validation import InvalidParameterError
from xgboost import XGBClassifier

from mddf import MDDFClassifier
from mddf.baselines.gcforest import gcforest_cascade

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
LABELS = np.array(["setosa", "versicolor", "virginica"])[Y_IRIS]  # string labels: the predictor sees indices


class RecordingClassifier(ClassifierMixin, BaseEstimator):
    """Logistic regression that keeps the matrix, labels and weights it was fitted on."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self.fit_X_, self.fit_y_, self.fit_weight_ = X.copy(), y.copy(), sample_weight
        self.model_ = LogisticRegression(max_iter=500).fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


def _cascade(**params):
    return MDDFClassifier(n_estimators=6, max_layers=3, random_state=0, **params)


def test_predict_uses_the_predictor_on_x_and_f_T():
    clf = _cascade(predictor=RecordingClassifier()).fit(X_IRIS, LABELS)
    Z = np.hstack([X_IRIS.astype(np.float32), clf.transform(X_IRIS)])
    own = clf.predictor_.predict_proba(Z).astype(np.float64)  # float32 on float32 input: rows renormalised
    np.testing.assert_allclose(clf.predict_proba(X_IRIS), own / own.sum(axis=1, keepdims=True), rtol=1e-15)
    np.testing.assert_allclose(clf.predict_proba(X_IRIS).sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.array_equal(clf.predict(X_IRIS), clf.classes_[clf.predictor_.predict_proba(Z).argmax(axis=1)])
    assert set(clf.predict(X_IRIS)) <= set(LABELS)


def test_the_predictor_learns_from_out_of_fold_class_vectors():
    clf = _cascade(predictor=RecordingClassifier()).fit(X_IRIS, LABELS)
    expected = np.hstack([X_IRIS.astype(np.float32), clf.oof_features_[-1]])
    assert np.array_equal(clf.predictor_.fit_X_, expected)
    assert np.array_equal(clf.classes_[clf.predictor_.fit_y_], LABELS)
    assert clf.predictor_.fit_weight_ is None


def test_the_stages_are_the_cascades_but_the_last_the_predictors_as_transform_and_oof_features_are():
    # staged_predict_proba ends with predict_proba (scikit-learn's staged methods do): with a predictor, its output;
    # the stages before are the cascade's, as transform and oof_features_ are
    plain = _cascade(calibration=None).fit(X_IRIS, LABELS)
    assert plain.predictor_ is None
    for predictor in ("forest", "xgboost", "hgb"):
        clf = _cascade(predictor=predictor).fit(X_IRIS, LABELS)
        assert clf.calibration_ is None  # not with a predictor that predicts
        stages, plain_stages = list(clf.staged_predict_proba(X_IRIS)), list(plain.staged_predict_proba(X_IRIS))
        assert len(stages) == len(plain_stages) == clf.n_layers_  # tests/mddf/cascade/test_cascade_classifier.py: 3
        assert all(np.array_equal(a, b) for a, b in zip(stages[:-1], plain_stages[:-1]))
        assert np.array_equal(stages[-1], clf.predict_proba(X_IRIS))
        labels = list(clf.staged_predict(X_IRIS))
        assert np.array_equal(labels[-1], clf.predict(X_IRIS))
        assert np.array_equal(plain.transform(X_IRIS), clf.transform(X_IRIS))
        assert all(np.array_equal(a, b) for a, b in zip(plain.oof_features_, clf.oof_features_, strict=True))
        assert np.array_equal(plain.alphas_, clf.alphas_)
    forest = _cascade(predictor="forest").fit(X_IRIS, LABELS).predictor_
    assert isinstance(forest, RandomForestClassifier) and forest.n_estimators == 4 * 6
    assert isinstance(_cascade(predictor="xgboost").fit(X_IRIS, LABELS).predictor_, XGBClassifier)
    hgb = _cascade(predictor="hgb").fit(X_IRIS, LABELS).predictor_
    assert isinstance(hgb, HistGradientBoostingClassifier) and hgb.categorical_features == "from_dtype"


@pytest.mark.parametrize("predictor", ["forest", "xgboost", "hgb"])
def test_predictor_is_seeded_by_random_state_and_independent_of_n_jobs(predictor):
    fits = [_cascade(predictor=predictor, n_jobs=n_jobs).fit(X_IRIS, LABELS) for n_jobs in (1, 2)]
    assert np.array_equal(fits[0].predict_proba(X_IRIS), fits[1].predict_proba(X_IRIS))
    if predictor in ("forest", "hgb"):
        other = _cascade(predictor=predictor).set_params(random_state=1).fit(X_IRIS, LABELS)
        assert other.predictor_.random_state != fits[0].predictor_.random_state


def test_predictor_instance_is_cloned_and_kept_by_get_params():
    predictor = LogisticRegression(C=0.3)
    clf = _cascade(predictor=predictor)
    assert clf.get_params()["predictor"] is predictor
    assert clf.get_params()["predictor__C"] == 0.3
    assert clone(clf).predictor.get_params() == predictor.get_params()
    clf.fit(X_IRIS, LABELS)
    assert clf.predictor_ is not predictor and not hasattr(predictor, "coef_")


def test_sample_weight_reaches_the_predictor():
    w = np.where(Y_IRIS == 0, 2.0, 1.0)
    w[:5] = 0.0
    clf = _cascade(predictor=RecordingClassifier()).fit(X_IRIS, LABELS, sample_weight=w)
    # the weights in their ratios, rescaled by a power of two as the cascade's are; rows of weight 0 left out
    ratio = clf.predictor_.fit_weight_ / w[5:]
    assert np.all(ratio == ratio[0]) and np.log2(ratio[0]) == round(np.log2(ratio[0]))
    assert len(clf.predictor_.fit_X_) == len(w) - 5
    equal = _cascade(predictor=KNeighborsClassifier()).fit(X_IRIS, LABELS, sample_weight=np.full(len(w), 3.0))
    assert equal.predictor_ is not None  # equal weights need no sample_weight
    with pytest.raises(ValueError, match="predictor: KNeighborsClassifier.fit takes no sample_weight"):
        _cascade(predictor=KNeighborsClassifier()).fit(X_IRIS, LABELS, sample_weight=w)


def test_predictor_that_rejects_nan_is_named():
    X = X_IRIS.copy()
    X[::9, 1] = np.nan
    _cascade(predictor="xgboost").fit(X, LABELS).predict(X)
    with pytest.raises(ValueError, match="predictor: LogisticRegression does not accept missing values"):
        _cascade(predictor=LogisticRegression()).fit(X, LABELS)
    clf = _cascade(predictor=LogisticRegression(max_iter=500)).fit(X_IRIS, LABELS)
    with pytest.raises(ValueError, match="predictor: LogisticRegression does not accept missing values"):
        clf.predict_proba(X)


@pytest.mark.parametrize(
    "predictor, error, match",
    [
        ("lightgbm", InvalidParameterError, "'predictor' parameter"),
        (KNeighborsClassifier, TypeError, "predictor: KNeighborsClassifier is a class; pass an instance"),
        (object(), InvalidParameterError, "'predictor' parameter"),
    ],
)
def test_unknown_predictors_are_rejected(predictor, error, match):
    with pytest.raises(error, match=match):
        _cascade(predictor=predictor).fit(X_IRIS, LABELS)


def test_gcforest_cascade_takes_a_predictor():
    gc = gcforest_cascade(n_estimators=5, max_layers=2, random_state=0, predictor="xgboost").fit(X_IRIS, LABELS)
    assert isinstance(gc.predictor_, XGBClassifier)
    assert gc.score(X_IRIS, LABELS) > 0.9
