"""The margin-distribution loss l_md of eq. 48 as one object: its value, its gradient, its two curvatures.

As scikit-learn's ``BaseLoss`` is the one object its gradient-boosting solvers take, a
:class:`MarginDistributionLoss` is what the layer-weight solvers (:mod:`.alpha`, Algorithm 2, line 6) and the
reweighting (:func:`~.distribution.sample_distribution`, eq. 47) take. References are to Lv, Yang and Zhou,
"Forest Representation Learning Guided by Margin Distribution" (``shared/papers/mddf-lv-yang-zhou.txt``).
"""

from __future__ import annotations

import numpy as np


class MarginDistributionLoss:
    """The margin-distribution loss l_md of eq. 48, with margin mean ``g`` and tradeoff ``mu``.

    ``l_md(z) = (z - g)^2 / g^2`` if ``z <= g`` and ``mu (z - g)^2 / (1 - g)^2`` if ``z > g``: a piecewise
    quadratic ``c(z) (z - g)^2`` in the residual ``z - g``, with the curvature ``c`` switching at the margin mean
    from :attr:`curvature_below` to :attr:`curvature_above`. Convex and continuously differentiable, minimum 0 at
    ``g``; a margin below the mean costs more than one as far above it when ``mu < ((1 - g) / g)^2``.

    What each step of Algorithm 2 needs of it:

    - line 6 (the layer weight alpha_t): the mean loss of ``F_{t-1} + alpha gamma_t`` (:meth:`mean`, the empirical
      form of eq. 45), its gradient (:meth:`gradient`) and the curvatures (:meth:`curvature`) that make the
      mean a piecewise quadratic in alpha;
    - line 8 (the next distribution D_{t+1}, eq. 47): the loss of every row's cumulative margin (:meth:`loss`),
      to which D_{t+1} is proportional.

    Parameters
    ----------
    margin_mean : float in (0, 1), default=0.8
        g, the paper's gamma of eq. 48: the margin mean aimed at.
    margin_tradeoff : float > 0, default=0.05
        mu of eq. 48: the weight of deviations above the mean against those below.

    Attributes
    ----------
    curvature_below : float
        ``1 / g^2``, the curvature of the branch ``z <= g``.
    curvature_above : float
        ``mu / (1 - g)^2``, the curvature of the branch ``z > g``.
    """

    def __init__(self, margin_mean=0.8, margin_tradeoff=0.05):
        self.margin_mean = margin_mean
        self.margin_tradeoff = margin_tradeoff
        self.curvature_below = 1.0 / margin_mean**2
        self.curvature_above = margin_tradeoff / (1.0 - margin_mean) ** 2

    def __repr__(self):
        return f"MarginDistributionLoss(margin_mean={self.margin_mean!r}, margin_tradeoff={self.margin_tradeoff!r})"

    def curvature(self, residual):
        """``c``: :attr:`curvature_below` where ``residual = z - g <= 0``, else :attr:`curvature_above`
        (elementwise). ``l_md(z) = c (z - g)^2``, and half of eq. 48's second derivative off the mean."""
        return np.where(residual <= 0, self.curvature_below, self.curvature_above)

    def loss(self, z):
        """``l_md(z)`` of eq. 48, elementwise, as float64 of the shape of ``z`` (array-like of margins)."""
        z = np.asarray(z, dtype=np.float64)
        d2 = (z - self.margin_mean) ** 2
        return np.where(z <= self.margin_mean, self.curvature_below * d2, self.curvature_above * d2)

    def gradient(self, z):
        """``d l_md / dz = 2 c (z - g)``, elementwise: negative below the mean, 0 at it, positive above."""
        z = np.asarray(z, dtype=np.float64)
        d = z - self.margin_mean
        return 2.0 * np.where(z <= self.margin_mean, self.curvature_below * d, self.curvature_above * d)

    def mean(self, z, sample_weight=None):
        """The mean loss ``sum_i w_i l_md(z_i) / sum_i w_i`` (eq. 45 on the training rows), a float.

        ``sample_weight`` None weighs every row alike; integer weights give the mean of the rows repeated that
        many times, and rows of weight 0 do not count.
        """
        return float(np.average(self.loss(z), weights=sample_weight))


def check_loss(loss):
    """``loss`` if it is a :class:`MarginDistributionLoss`, else a TypeError that says what to pass."""
    if not isinstance(loss, MarginDistributionLoss):
        raise TypeError(
            f"loss must be a MarginDistributionLoss (MarginDistributionLoss(margin_mean, margin_tradeoff)), "
            f"got {loss!r}"
        )
    return loss


def margin_distribution_loss(z, margin_mean=0.9, margin_tradeoff=0.05):
    """Margin-distribution loss l_md of eq. 48, elementwise: ``MarginDistributionLoss(margin_mean,
    margin_tradeoff).loss(z)`` (see :class:`MarginDistributionLoss`).

    Parameters
    ----------
    z : array-like
        Cumulative margins.
    margin_mean : float in (0, 1), default=0.9
        g of eq. 48.
    margin_tradeoff : float > 0, default=0.05
        mu of eq. 48.

    Returns
    -------
    ndarray, same shape as ``z``
    """
    return MarginDistributionLoss(margin_mean, margin_tradeoff).loss(z)
