"""Input checks shared by every estimator of the package (mdDF, gcForest and the boosters)."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval
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


def rescaled_weights(weight):
    """Validated weights rescaled to a mean near 1, their ratios kept: divided by their largest entry, then by the
    power of two nearest the mean of the result (exactly; None stays None).

    Their total becomes about the number of rows (within a factor of sqrt(2)), as with unit weights, so that nothing
    downstream depends on their scale: no weighted sum or square overflows or underflows (weights of 1e300 or
    1e-300), and an absolute threshold such as XGBoost's ``min_child_weight`` reads them about as it reads unit
    weights. Equal weights of any scale become exactly 1.0 (uniformly scaled weights fit as unit weights, bit for
    bit), and weights that differ by a power of two are rescaled exactly, so that the margins' weights (divided by
    their largest, as the classifier's cumulative margin keeps them) and every weighted mean agree to the bit.

    Parameters
    ----------
    weight : ndarray of float64 (n_samples,) or None
        Non-negative, finite, with a positive entry (:func:`check_sample_weight`).
    """
    if weight is None:
        return None
    relative = weight / weight.max()  # in [0, 1]: no sum of n of them overflows
    return np.ldexp(relative, -int(np.round(np.log2(relative.mean()))))


#: The most workers an estimator takes (``n_jobs``): far beyond any machine's cores, so that a typo is an error.
MAX_N_JOBS = 1024
#: The ``_parameter_constraints`` entry of ``n_jobs``: None, a negative count (joblib's: -1 every core, -2 all but
#: one, ...) or a positive one up to :data:`MAX_N_JOBS`; 0 is an error, as it has no meaning.
N_JOBS_CONSTRAINT = [
    None,
    Interval(Integral, 1, MAX_N_JOBS, closed="both"),
    Interval(Integral, None, -1, closed="right"),
]


def check_label_types(y, *, estimator_name):
    """Raise a ``ValueError`` for class labels that mix strings and numbers, or miss (None, NaN in an object
    array), before ``y`` is validated.

    Such labels (``[1, "a"]``) cannot be sorted into ``classes_``: as an object array scikit-learn's
    ``check_classification_targets`` reports them as an "Unknown label type", which does not say why,
    and as a list NumPy turns them all into strings (``classes_ == ['1', 'a']``), so that the model
    predicts ``'1'`` where ``1`` was given. The error uses scikit-learn's ``unique_labels`` wording,
    "Mix of label input types (string and number)", and lists the Python types found. Float labels that
    are not all integers (``[0.5, 1.5]``), which scikit-learn calls "continuous" without a word on what to
    do, are a ``ValueError`` that counts their distinct values and says to give classes as integers or
    strings, or to use a regressor. Call it on the ``y`` given to ``fit``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The labels as given (a list, a tuple, a NumPy array, a pandas Series).
    estimator_name : str
        Named in the error message.
    """
    dtype = getattr(y, "dtype", None)
    if dtype is None and not isinstance(y, (list, tuple)):
        return  # not array-like: validation reports it
    if dtype is not None and getattr(dtype, "kind", "O") != "O":
        _check_integral_floats(y, estimator_name)
        return
    labels = np.asarray(y, dtype=object).ravel()
    missing = np.flatnonzero([_is_missing_label(label) for label in labels])
    if len(missing):
        raise ValueError(
            f"{estimator_name}: y has {len(missing)} missing label(s) (None or NaN), the first at row {missing[0]}; "
            "drop those rows or give them a label"
        )
    types = {type(label) for label in labels}
    if any(issubclass(t, str) for t in types) and not all(issubclass(t, str) for t in types):
        names = ", ".join(sorted(t.__name__ for t in types))
        raise ValueError(
            f"{estimator_name}: Mix of label input types (string and number) in y: labels of types "
            f"{names}; give labels of one type (e.g. all strings)"
        )
    if dtype is None:  # a list or a tuple, of numbers
        _check_integral_floats(y, estimator_name)


def _check_integral_floats(y, estimator_name):
    """Raise for float labels that are not all integers, which scikit-learn calls "continuous" however few values they
    take (``[0.5, 1.5]``): the error says how many distinct values there are and what to give instead. NaN and
    infinity are left to ``validate_data``, whose errors name them."""
    values = np.asarray(y)
    if values.dtype.kind != "f" or not np.all(np.isfinite(values)):
        return
    fractional = np.unique(values[values != np.floor(values)])
    if fractional.size == 0:
        return  # 0.0 and 1.0 are classes 0 and 1, as scikit-learn takes them
    distinct = np.unique(values)
    shown = ", ".join(f"{v:g}" for v in distinct[:4]) + (", ..." if distinct.size > 4 else "")
    raise ValueError(
        f"{estimator_name}: Unknown label type: continuous: y holds {distinct.size} distinct numbers ({shown}), not "
        "all integers, where a classifier needs class labels; if they are classes, give them as integers or strings "
        "(e.g. y.astype(str)); to predict a number, use a regressor (CascadeForestRegressor)"
    )


def _is_missing_label(label):
    return label is None or (isinstance(label, float) and np.isnan(label))


def check_weighted_classes(y_code, sample_weight, classes, *, estimator_name):
    """Raise a ``ValueError`` naming the classes whose samples all have sample weight 0.

    A class of total weight 0 is absent from the weighted training set: no model learns it, yet it would be one of
    ``classes_`` (a probability column that is always 0, a label never predicted) and, were a single class left,
    there would be nothing to separate. The error says to drop the class's rows to leave it out.

    Parameters
    ----------
    y_code : ndarray of int (n_samples,)
        Column indices of the labels in ``classes`` (the rows of weight 0 may be left out already).
    sample_weight : ndarray of float (n_samples,) or None
        Validated weights of the rows of ``y_code``; None weighs every row alike.
    classes : ndarray
        The labels, for the message.
    estimator_name : str
        Named in the error message.
    """
    if sample_weight is None:
        return
    weighted = np.bincount(np.asarray(y_code)[np.asarray(sample_weight) > 0], minlength=len(classes)) > 0
    absent = [
        classes[k].item() if isinstance(classes[k], np.generic) else classes[k] for k in np.flatnonzero(~weighted)
    ]
    if absent:
        shown = ", ".join(map(repr, absent[:5])) + (f" and {len(absent) - 5} more" if len(absent) > 5 else "")
        classes_named = f"classes {shown}" if len(absent) > 1 else f"class {shown}"
        raise ValueError(
            f"{estimator_name}: every sample of {classes_named} has sample_weight 0, so no model can learn "
            f"{'them' if len(absent) > 1 else 'it'}; every class of y needs a positive total weight (to leave a "
            "class out, drop its rows from X and y)"
        )
