"""Input checks shared by every estimator of the package (mdDF, gcForest and the boosters)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import _check_sample_weight


def check_sample_weight(sample_weight, X, *, estimator_name):
    """``sample_weight`` as a float64 array of shape (n_samples,), or ones when it is None.

    scikit-learn's own check gives the shape, finiteness and sign errors; on top, a weight vector
    without any positive entry is rejected, since no distribution D_1 is proportional to it.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), float or None
    X : array-like of shape (n_samples, n_features)
    estimator_name : str
        Named in the error messages.
    """
    if sample_weight is None:
        return np.ones(len(X), dtype=np.float64)
    weights = np.asarray(sample_weight) if not np.isscalar(sample_weight) else sample_weight
    if not np.isscalar(weights) and weights.dtype.kind in "fc" and not np.all(np.isfinite(weights)):
        raise ValueError(f"{estimator_name}: sample_weight must be finite; it holds NaN or infinity")
    weights = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    if not np.any(weights > 0):
        raise ValueError(f"{estimator_name}: sample_weight has no positive entry; at least one sample needs weight > 0")
    return weights
