"""Calibration that keeps the argmax: a temperature on smoothed class shares, fitted on out-of-fold probabilities."""

import numpy as np
import pytest
from sklearn.metrics import log_loss

from mddf.margin.calibration import TemperatureCalibration, fit_temperature


def _draws(power, n=4000, k=4, seed=0):
    """Labels drawn from true class probabilities, and those probabilities distorted: ``p ** power`` renormalised
    (power < 1 under-confident, as averaged tree votes often are; power > 1 over-confident)."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=2.0, size=(n, k))
    true = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=p) for p in true])
    shown = true**power
    return shown / shown.sum(axis=1, keepdims=True), y, true


@pytest.mark.parametrize("power", [0.5, 2.0])
def test_the_temperature_undoes_a_distortion_and_keeps_every_rows_argmax(power):
    shown, y, true = _draws(power)
    calibration = fit_temperature(shown, y)
    assert calibration.temperature == pytest.approx(power, rel=0.15)  # (p ** power) ** (1 / T) with T = power
    calibrated = calibration.apply(shown)
    np.testing.assert_array_equal(calibrated.argmax(axis=1), shown.argmax(axis=1))
    np.testing.assert_allclose(calibrated.sum(axis=1), 1.0)
    assert log_loss(y, calibrated) < log_loss(y, shown) - 0.02
    assert log_loss(y, calibrated) == pytest.approx(log_loss(y, true), abs=0.02)
    assert calibration.log_loss_after < calibration.log_loss_before


def test_zero_shares_get_a_positive_probability_and_rows_of_weight_zero_do_not_count():
    shown, y, _ = _draws(3.0, n=2000)
    shown = np.where(shown < 0.02, 0.0, shown)  # tree votes that never name a class
    shown /= shown.sum(axis=1, keepdims=True)
    calibration = fit_temperature(shown, y)
    assert calibration.smoothing > 0 and (calibration.apply(shown) > 0).all()
    assert np.isfinite(calibration.log_loss_after) and calibration.log_loss_after < calibration.log_loss_before
    weight = np.ones(len(y))
    weight[:500] = 0.0
    y_wrong = y.copy()
    y_wrong[:500] = (y[:500] + 1) % 4  # wrong labels on the rows of weight 0
    assert fit_temperature(shown, y_wrong, weight) == fit_temperature(shown[500:], y[500:])


def test_a_fitted_calibration_is_a_small_record():
    calibration = TemperatureCalibration(temperature=2.0, smoothing=0.0, log_loss_before=1.0, log_loss_after=0.9)
    p = np.array([[0.64, 0.36]])
    np.testing.assert_allclose(calibration.apply(p), [[0.8 / 1.4, 0.6 / 1.4]])  # square roots, renormalised
