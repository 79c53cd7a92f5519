"""Margins and margin statistics (the loss of eq. 48 is :class:`~.loss.MarginDistributionLoss`).

References are to Lv, Yang and Zhou, "Forest Representation Learning Guided by
Margin Distribution" (``shared/papers/mddf-lv-yang-zhou.txt``).
"""

from __future__ import annotations

import numpy as np


def margins(scores, y):
    """Multi-class margin of each sample (eq. 46, after Crammer and Singer).

    ``gamma(x_i) = h^{y_i}(x_i) - max_{j != y_i} h^j(x_i)``. For probability
    vectors the margin lies in [-1, 1]; the paper's example, scores
    ``[0.2, 0.3, 0.5]`` with true class 3, gives ``0.2``.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_classes)
        Class scores (class vectors) of each sample.
    y : ndarray of int, shape (n_samples,)
        Column index of each sample's true class.

    Returns
    -------
    ndarray of shape (n_samples,), float64
    """
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y)
    rows = np.arange(len(y))
    true = scores[rows, y]
    others = scores.copy()
    others[rows, y] = -np.inf
    return true - others.max(axis=1)


def margin_statistics(m, sample_weight=None):
    """Mean, standard deviation and ratio lambda = std / mean of margins.

    lambda is the margin-distribution ratio of Theorem 1 that mdDF tries to make
    small. It is ``inf`` when the mean margin is not positive.

    Parameters
    ----------
    m : array-like (n,)
        Margins.
    sample_weight : array-like (n,) or None
        Weighted mean and (population) standard deviation: an integer weight
        counts the row that many times, a zero weight leaves it out.

    Returns
    -------
    dict with keys ``margin_mean``, ``margin_std``, ``margin_ratio``.
    """
    m = np.asarray(m, dtype=np.float64)
    if sample_weight is None:
        mean = float(m.mean())
        std = float(m.std())
    else:
        mean = float(np.average(m, weights=sample_weight))
        std = float(np.sqrt(np.average((m - mean) ** 2, weights=sample_weight)))
    ratio = std / mean if mean > 0 else float("inf")
    return {"margin_mean": mean, "margin_std": std, "margin_ratio": ratio}
