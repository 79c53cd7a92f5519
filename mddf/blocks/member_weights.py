"""The weights of a layer's members in its output, fitted on their out-of-fold outputs (``member_weights="loss"``).

A layer's output is the mean of its members' outputs (class vectors, or predictions of y); with
``member_weights="loss"`` it is their weighted mean ``sum_j w_j h_j`` with the weights w in the simplex (w_j >= 0,
sum 1) that minimise the weighted out-of-fold loss of that mean on the training rows: the log-loss of the mixed
class vectors (classification) or the squared error of the mixed prediction (regression). Each row's outputs come
from fold models that never saw it, so no row's own in-fold prediction enters its weight. This is the linear
stacking of Breiman's "Stacked regressions" (Machine Learning 24, 1996: non-negative weights fitted on
cross-validated predictions; here summing to 1, so that the mixture stays a class vector or a prediction of y's
scale), with the log-loss for class vectors as in Caruana et al.'s ensemble selection (ICML 2004) and AutoGluon's
weighted ensemble. The problem is convex; it is solved by SLSQP (:func:`scipy.optimize.minimize`) from the equal
weights, which are kept when the solution does not lower the loss.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

#: The values of ``member_weights``: the equal mean of the members, or weights fitted on their out-of-fold loss.
MEMBER_WEIGHTS = ("equal", "loss")

#: The smallest mixed probability of a row's class that the log-loss reads (a row no member gives a chance).
SMALLEST_PROBABILITY = 1e-15


def fit_member_weights(outputs, y, sample_weight=None):
    """The members' weights ``(n_members,)`` (non-negative, summing to 1) that minimise the out-of-fold loss of their
    weighted mean (see the module).

    Parameters
    ----------
    outputs : ndarray of shape (n, n_members, n_classes) or (n, n_members)
        Each member's out-of-fold class vectors (classification: the log-loss of their mixture is minimised) or
        predictions of ``y`` (regression: the squared error).
    y : ndarray of shape (n,)
        The class column indices (classification) or the targets.
    sample_weight : ndarray of shape (n,) or None, default=None
        Each row's weight in the loss; None: equal.
    """
    outputs = np.asarray(outputs, dtype=np.float64)
    n_members = outputs.shape[1]
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    weight = weight / weight.sum()
    if outputs.ndim == 3:  # the log-loss reads each member's probability of the row's class
        loss = _log_loss(outputs[np.arange(len(y)), :, np.asarray(y, dtype=np.intp)], weight)
    else:
        loss = _squared_error(outputs, np.asarray(y, dtype=np.float64), weight)
    equal = np.full(n_members, 1.0 / n_members)
    scale = loss(equal)[0]
    if n_members == 1 or not scale > 0:  # one member, or a mean without error: nothing to gain
        return equal
    result = minimize(
        lambda w: tuple(part / scale for part in loss(w)),  # the loss on the equal weights' scale: 1 at the start
        equal,
        jac=True,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * n_members,
        constraints=({"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: np.ones_like(w)},),
    )
    weights = np.clip(result.x, 0.0, None)
    if not weights.sum() > 0:
        return equal
    weights /= weights.sum()
    return weights if loss(weights)[0] < loss(equal)[0] else equal


def _log_loss(true, weight):
    """The weighted log-loss of the mixture, and its gradient, as a function of the weights; ``true[i, j]`` is member
    j's probability of row i's class."""

    def loss(w):
        mixed = np.maximum(true @ w, SMALLEST_PROBABILITY)
        return -float(weight @ np.log(mixed)), -((weight / mixed) @ true)

    return loss


def _squared_error(predictions, y, weight):
    """The weighted squared error of the mixed prediction, and its gradient, as a function of the weights."""

    def loss(w):
        residual = predictions @ w - y
        return float(weight @ residual**2), 2.0 * ((weight * residual) @ predictions)

    return loss
