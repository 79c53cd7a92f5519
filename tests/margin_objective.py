"""The margin objective of Algorithm 2, line 6, which only the tests evaluate directly (the solvers minimise it)."""

import numpy as np


def alpha_objective(alpha, cumulative_margin, margin, loss, sample_weight=None):
    """Mean (weighted by ``sample_weight``) loss ``loss`` (eq. 48) of ``F + alpha * gamma`` (Algorithm 2, line 6)."""
    return loss.mean(np.asarray(cumulative_margin) + alpha * np.asarray(margin), sample_weight)
