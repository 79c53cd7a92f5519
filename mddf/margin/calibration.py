"""Calibration of a cascade's class probabilities that keeps their argmax: a temperature on smoothed shares.

The cascade's prediction is a mixture ``p`` of the layers' class vectors (eq. 9), averaged tree votes whose
scale is not a probability's: too sure where many trees agree, zero where none voted for a class. The
calibrated probabilities are

    q_j(x) = (p_j(x) + eps) ** (1 / T) / sum_l (p_l(x) + eps) ** (1 / T),

with a smoothing ``eps >= 0`` and a temperature ``T > 0``. Both transforms are increasing in ``p_j`` and the
same for every class, so ``argmax q = argmax p``: the predicted labels, and so the accuracy, do not change
(temperature scaling, Guo et al., "On Calibration of Modern Neural Networks", ICML 2017, applied to the log
of the smoothed shares). ``eps`` and ``T`` are fitted on rows the models never saw (the cascade's out-of-fold
mixture of its training rows): for each ``eps`` of :data:`SMOOTHINGS`, the inverse temperature ``1 / T``
minimising the mean log-loss, a convex problem in ``1 / T``, and the pair of lowest log-loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp

#: The smoothings tried: the share added to every class before the temperature.
SMOOTHINGS = (1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 1e-1)
#: The inverse temperatures searched, ``1 / T``.
INVERSE_TEMPERATURE_BOUNDS = (0.05, 20.0)


@dataclass(frozen=True)
class TemperatureCalibration:
    """A fitted calibration: ``q proportional to (p + smoothing) ** (1 / temperature)``.

    ``log_loss_before`` and ``log_loss_after`` are the mean log-loss of the rows it was fitted on, of ``p``
    (its zeros clipped to float64's eps, as scikit-learn's ``log_loss`` does) and of ``q``.
    """

    temperature: float
    smoothing: float
    log_loss_before: float
    log_loss_after: float

    def apply(self, proba):
        """The calibrated probabilities of the class shares ``proba`` ``(n, k)``; the same argmax in every row."""
        return _calibrated(np.asarray(proba, dtype=np.float64), self.smoothing, 1.0 / self.temperature)


def _log_shares(proba, smoothing, inverse_temperature):
    z = inverse_temperature * np.log(proba + smoothing)
    return z - logsumexp(z, axis=1, keepdims=True)


def _calibrated(proba, smoothing, inverse_temperature):
    return np.exp(_log_shares(proba, smoothing, inverse_temperature))


def _mean_log_loss(proba, y, weight, smoothing, inverse_temperature):
    log_q = _log_shares(proba, smoothing, inverse_temperature)[np.arange(len(y)), y]
    return -float(np.average(log_q, weights=weight))


def fit_temperature(proba, y, sample_weight=None) -> TemperatureCalibration:
    """The calibration of lowest mean log-loss of the class shares ``proba`` ``(n, k)`` for the classes ``y``
    (indices ``0 .. k - 1``), weighted by ``sample_weight`` (rows of weight 0 do not count)."""
    proba = np.asarray(proba, dtype=np.float64)
    y = np.asarray(y)
    weight = None
    if sample_weight is not None:
        keep = np.asarray(sample_weight) > 0
        proba, y, weight = proba[keep], y[keep], np.asarray(sample_weight, dtype=np.float64)[keep]
    eps = np.finfo(np.float64).eps
    before = -float(np.average(np.log(np.clip(proba[np.arange(len(y)), y], eps, 1.0)), weights=weight))
    best = None
    for smoothing in SMOOTHINGS:
        found = minimize_scalar(
            lambda beta, s=smoothing: _mean_log_loss(proba, y, weight, s, beta),
            bounds=INVERSE_TEMPERATURE_BOUNDS,
            method="bounded",
            options={"xatol": 1e-4},
        )
        if best is None or found.fun < best[0]:
            best = (float(found.fun), smoothing, float(found.x))
    loss, smoothing, beta = best
    return TemperatureCalibration(
        temperature=1.0 / beta, smoothing=smoothing, log_loss_before=before, log_loss_after=loss
    )
