"""The weights of a layer's members in its output, fitted on their out-of-fold outputs (``member_weights="loss"``).

A layer's output is the mean of its members' outputs (class vectors, or predictions of y); with
``member_weights="loss"`` it is their weighted mean ``sum_j w_j h_j``, the weights w in the simplex (w_j >= 0,
sum 1) fitted on the training rows' out-of-fold outputs: each row's outputs come from fold models that never saw
it, so no row's own in-fold prediction enters the weights. This is the linear stacking of Breiman ("Stacked
regressions", Machine Learning 24, 1996: non-negative weights fitted on cross-validated predictions; here summing
to 1, so that the mixture stays a class vector or a prediction on y's scale), as in Caruana et al.'s ensemble
selection (ICML 2004) and AutoGluon's weighted ensemble. The loss (weighted by the rows' weights):

- regression: the squared error of the mixed prediction (a convex problem);
- classification: the log-loss of the mixed class vector after a temperature, ``q ∝ (h + eps) ** s`` (the form of
  :mod:`mddf.margin.calibration`, Guo et al. 2017), the weights and ``s = 1 / T`` fitted together. Averaged tree
  votes are under-confident and boosted trees are not, so the log-loss of the raw mixture would weigh the members
  by their confidence; with the temperature it weighs them by how well their mixture ranks the classes, as the
  cascade's calibration then reads it.

Both are solved by SLSQP (:func:`scipy.optimize.minimize`) from the equal weights (at their best temperature), which
are kept when the solution does not lower the loss.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize, minimize_scalar

#: The values of ``member_weights``: the equal mean of the members, or weights fitted on their out-of-fold loss.
MEMBER_WEIGHTS = ("equal", "loss")

#: The share added to every class of the mixture before its temperature (the smallest of
#: :data:`mddf.margin.calibration.SMOOTHINGS`).
SMOOTHING = 1e-6

#: The inverse temperatures ``s = 1 / T`` searched (those of :mod:`mddf.margin.calibration`).
INVERSE_TEMPERATURE_BOUNDS = (0.05, 20.0)


def fit_member_weights(outputs, y, sample_weight=None):
    """The members' weights ``(n_members,)`` (non-negative, summing to 1) of lowest out-of-fold loss of their weighted
    mean (see the module).

    Parameters
    ----------
    outputs : ndarray of shape (n, n_members, n_classes) or (n, n_members)
        Each member's out-of-fold class vectors (classification: the log-loss of their tempered mixture is
        minimised) or predictions of ``y`` (regression: the squared error).
    y : ndarray of shape (n,)
        The class column indices (classification) or the targets.
    sample_weight : ndarray of shape (n,) or None, default=None
        Each row's weight in the loss; None: equal.
    """
    outputs = np.asarray(outputs, dtype=np.float64)
    n_members = outputs.shape[1]
    equal = np.full(n_members, 1.0 / n_members)
    loss = member_loss(outputs, y, sample_weight)
    start = np.r_[equal, _best_inverse_temperature(loss, equal)] if outputs.ndim == 3 else equal
    scale = loss(start)[0]
    if n_members == 1 or not scale > 0:  # one member, or a mean without error: nothing to gain
        return equal
    bounds = [(0.0, 1.0)] * n_members + [INVERSE_TEMPERATURE_BOUNDS] * (len(start) - n_members)
    found = minimize(
        lambda v: tuple(part / scale for part in loss(v)),  # on the scale of the equal weights' loss: 1 at the start
        start,
        jac=True,
        method="SLSQP",
        bounds=bounds,
        constraints=(
            {"type": "eq", "fun": lambda v: v[:n_members].sum() - 1.0, "jac": _sum_gradient(start, n_members)},
        ),
    )
    solution = np.clip(found.x, 0.0, None)
    if not solution[:n_members].sum() > 0:
        return equal
    solution[:n_members] /= solution[:n_members].sum()
    return solution[:n_members] if loss(solution)[0] < scale else equal


def layer_loss(outputs, y, weights=None, sample_weight=None):
    """The loss :func:`fit_member_weights` minimises, of the members' ``outputs`` mixed with ``weights`` (None: equal):
    the weighted squared error of the mixed predictions, or the weighted log-loss of the mixed class vectors at
    their best temperature."""
    outputs = np.asarray(outputs, dtype=np.float64)
    weights = np.full(outputs.shape[1], 1.0 / outputs.shape[1]) if weights is None else np.asarray(weights)
    loss = member_loss(outputs, y, sample_weight)
    if outputs.ndim == 2:
        return loss(weights)[0]
    return loss(np.r_[weights, _best_inverse_temperature(loss, weights)])[0]


def member_loss(outputs, y, sample_weight=None):
    """The loss of the members' ``outputs`` as a function of ``v`` (the weights, then, for class vectors, the inverse
    temperature), returning its value and gradient (see the module)."""
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    weight = weight / weight.sum()
    if outputs.ndim == 2:
        return _squared_error(outputs, np.asarray(y, dtype=np.float64), weight)
    return _tempered_log_loss(outputs, np.asarray(y, dtype=np.intp), weight)


def _best_inverse_temperature(loss, weights):
    """The inverse temperature of lowest ``loss`` for the members' ``weights``."""
    found = minimize_scalar(lambda s: loss(np.r_[weights, s])[0], bounds=INVERSE_TEMPERATURE_BOUNDS, method="bounded")
    return float(found.x)


def _sum_gradient(start, n_members):
    """The gradient of the constraint ``sum(w) = 1`` over ``v`` (the weights, then the inverse temperature, if any)."""
    gradient = np.zeros(len(start))
    gradient[:n_members] = 1.0
    return lambda v: gradient


def _tempered_log_loss(per_member, y, weight):
    """The weighted log-loss of ``q ∝ (sum_j w_j h_j + eps) ** s`` and its gradient in ``v = (w, s)``; ``per_member``
    ``(n, n_members, n_classes)``."""
    rows = np.arange(len(y))

    def loss(v):
        w, s = v[:-1], v[-1]
        smoothed = np.einsum("imk,m->ik", per_member, w) + SMOOTHING  # a = sum_j w_j h_j + eps
        log_smoothed = np.log(smoothed)
        z = s * log_smoothed
        top = z.max(axis=1)
        q = np.exp(z - top[:, None])
        total = q.sum(axis=1)
        q /= total[:, None]
        log_q = z[rows, y] - top - np.log(total)
        # d(-log q_y)/dw_j = s (sum_k q_k h_jk / a_k - h_jy / a_y); d/ds = sum_k q_k log a_k - log a_y
        grad_s = weight @ ((q * log_smoothed).sum(axis=1) - log_smoothed[rows, y])
        q /= smoothed
        q[rows, y] -= 1.0 / smoothed[rows, y]
        q *= weight[:, None]
        grad_w = s * np.einsum("imk,ik->m", per_member, q)
        return -float(weight @ log_q), np.r_[grad_w, grad_s]

    return loss


def _squared_error(predictions, y, weight):
    """The weighted squared error of the mixed prediction, and its gradient, as a function of the weights."""

    def loss(w):
        residual = predictions @ w - y
        return float(weight @ residual**2), 2.0 * ((weight * residual) @ predictions)

    return loss
