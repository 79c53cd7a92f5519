"""Missing values made on purpose: the missing-completely-at-random (MCAR) protocol of the NaN benchmark."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state


def mask_completely_at_random(X, fraction, random_state=None):
    """A float copy of ``X`` whose entries are each NaN with probability ``fraction`` in [0, 1) (``random_state``
    seeds the mask); entries already missing stay missing."""
    if not 0 <= fraction < 1:
        raise ValueError(f"fraction must be in [0, 1), got {fraction}")
    X = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float32), copy=True)
    mask = check_random_state(random_state).random_sample(X.shape) < fraction
    X[mask] = np.nan
    return X
