"""Sample distribution D_t and weighted resampling (Algorithm 2, line 8; eq. 47)."""

from __future__ import annotations

import numpy as np

from .margin import margin_distribution_loss


def sample_distribution(cumulative_margin, margin_mean=0.9, margin_tradeoff=0.05):
    """Next layer's sample distribution D_{t+1} (eq. 47).

    ``D_{t+1}(i) = l_md(F_t(i)) / sum_j l_md(F_t(j))``: samples whose cumulative
    margin is far from the targeted margin mean (mostly those with small or
    negative margins) get more weight. When every loss is 0 the distribution
    falls back to uniform.

    Returns
    -------
    ndarray of shape (m,), non-negative, sums to 1.
    """
    loss = margin_distribution_loss(cumulative_margin, margin_mean, margin_tradeoff)
    total = loss.sum()
    if not np.isfinite(total) or total <= 0:
        return np.full(len(loss), 1.0 / len(loss))
    return loss / total


def weighted_resample(indices, distribution, rng):
    """Draw ``len(indices)`` rows with replacement, row i with probability proportional to D(i).

    Algorithm 1's "re-sample a training set with the distribution D_t",
    restricted to the rows a fold trains on.

    Parameters
    ----------
    indices : ndarray of int
        Rows eligible for this fit.
    distribution : ndarray
        D_t over all training rows.
    rng : numpy.random.RandomState

    Returns
    -------
    ndarray of int, sorted (so forests see rows in a stable order).
    """
    p = distribution[indices]
    total = p.sum()
    if total <= 0:
        p = None
    else:
        p = p / total
    return np.sort(rng.choice(indices, size=len(indices), replace=True, p=p))
