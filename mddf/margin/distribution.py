"""The sample distribution D_t of Algorithm 2 (line 8; eq. 47)."""

from __future__ import annotations

import numpy as np

from .loss import check_loss


def sample_distribution(cumulative_margin, loss, sample_weight=None):
    """Next layer's sample distribution D_{t+1} (eq. 47).

    ``D_{t+1}(i) = l_md(F_t(i)) / sum_j l_md(F_t(j))``: samples whose cumulative
    margin is far from the targeted margin mean (mostly those with small or
    negative margins) get more weight. With sample weights w, eq. 47 starts from
    ``D_1 proportional to w`` instead of the uniform distribution and every later
    distribution keeps that factor: ``D_{t+1}(i) proportional to w_i l_md(F_t(i))``,
    so an integer weight acts as that many copies of the row. When every
    (weighted) loss is 0 the distribution falls back to D_1 (uniform without weights).

    Parameters
    ----------
    cumulative_margin : ndarray (m,)
        ``F_t(i)``, the cumulative margin of each row.
    loss : MarginDistributionLoss
        l_md of eq. 48 (:meth:`~.loss.MarginDistributionLoss.loss` gives each row's share before normalising).
    sample_weight : ndarray (m,) or None
        Non-negative weights with a positive entry; None is uniform.

    Returns
    -------
    ndarray of shape (m,), non-negative, sums to 1.
    """
    values = check_loss(loss).loss(cumulative_margin)
    if sample_weight is not None:
        values = values * sample_weight
    total = values.sum()
    if not np.isfinite(total) or total <= 0:
        if sample_weight is None:
            return np.full(len(values), 1.0 / len(values))
        return sample_weight / np.sum(sample_weight)
    return values / total
