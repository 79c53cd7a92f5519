"""Missing values made on purpose: the missing-completely-at-random (MCAR) protocol of the NaN benchmark."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state


def mask_completely_at_random(X, fraction, random_state=None):
    """A float copy of ``X`` in which each entry is NaN with probability ``fraction``, independently.

    Entries that were already missing stay missing. Rows may lose every value; the estimators then
    see a row of NaN, as they would in real data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    fraction : float in [0, 1)
    random_state : int, RandomState or None
        Seeds the mask.
    """
    if not 0 <= fraction < 1:
        raise ValueError(f"fraction must be in [0, 1), got {fraction}")
    X = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float32), copy=True)
    mask = check_random_state(random_state).random_sample(X.shape) < fraction
    X[mask] = np.nan
    return X
