"""The classifier's calibration: a temperature fitted on the kept prefix's out-of-fold mixture, applied by
predict_proba and to every stage of staged_predict_proba; the labels and the passed features stay the cascade's own."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import log_loss

from mddf import MDDFClassifier

SMALL = dict(n_estimators=20, max_layers=3, random_state=0, n_jobs=1)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=900, n_features=8, n_informative=4, n_classes=3, flip_y=0.1, random_state=0)
    return X[:600], y[:600], X[600:], y[600:]


def test_calibration_changes_the_probabilities_not_the_labels_and_lowers_the_log_loss(data):
    X, y, X_new, y_new = data
    plain = MDDFClassifier(calibration=None, **SMALL).fit(X, y)
    calibrated = MDDFClassifier(calibration="temperature", **SMALL).fit(X, y)
    assert plain.calibration_ is None and calibrated.calibration_ is not None
    np.testing.assert_array_equal(calibrated.predict(X_new), plain.predict(X_new))
    np.testing.assert_array_equal(calibrated.transform(X_new), plain.transform(X_new))
    proba = calibrated.predict_proba(X_new)
    np.testing.assert_array_equal(proba, calibrated.calibration_.apply(plain.predict_proba(X_new)))
    # every stage is the cascade's own mixture calibrated, the last predict_proba
    staged, plain_staged = list(calibrated.staged_predict_proba(X_new)), list(plain.staged_predict_proba(X_new))
    for stage, mixture in zip(staged, plain_staged, strict=True):
        np.testing.assert_array_equal(stage, calibrated.calibration_.apply(mixture))
    np.testing.assert_array_equal(staged[-1], proba)
    assert log_loss(y_new, proba) < log_loss(y_new, plain.predict_proba(X_new))
    fitted = calibrated.calibration_
    assert fitted.log_loss_after < fitted.log_loss_before and fitted.temperature > 0


def test_the_calibration_is_fitted_on_the_kept_prefixs_out_of_fold_mixture(data, monkeypatch):
    from mddf.cascade import steps as _steps

    seen = []
    fit = _steps.fit_temperature
    monkeypatch.setattr(_steps, "fit_temperature", lambda p, y, w: seen.append(p) or fit(p, y, w))
    X, y, _, _ = data
    model = MDDFClassifier(calibration="temperature", **SMALL).fit(X, y)
    (proba,) = seen
    assert proba.shape == (600, 3) and proba.sum(axis=1) == pytest.approx(1.0)
    np.testing.assert_array_equal(proba.argmax(axis=1) == y, model.oof_features_[-1].argmax(axis=1) == y)


def test_no_calibration_with_a_predictor_that_predicts_and_none_when_it_would_not_help(data, monkeypatch):
    X, y, _, _ = data
    with_predictor = MDDFClassifier(calibration="temperature", predictor="forest", **SMALL).fit(X, y)
    assert with_predictor.calibration_ is None
    from mddf.cascade import steps as _steps
    from mddf.margin.calibration import TemperatureCalibration

    worse = TemperatureCalibration(temperature=1.0, smoothing=0.0, log_loss_before=0.5, log_loss_after=0.6)
    monkeypatch.setattr(_steps, "fit_temperature", lambda *args: worse)
    assert MDDFClassifier(calibration="temperature", **SMALL).fit(X, y).calibration_ is None
