"""Tabular input for every estimator of the package: numbers, and categorical columns as ordinal codes.

Each estimator validates ``X`` with one call, :func:`validate_tabular`, at fit (``reset=True``) and at
prediction (``reset=False``). It reads the estimator's ``categorical_features`` parameter, which has the
meaning of scikit-learn's ``HistGradientBoostingClassifier`` one:

- ``"from_dtype"`` (the default): the columns of a pandas DataFrame with a ``category`` dtype, a string
  dtype, or an ``object`` dtype holding strings are categorical; any other input has no categorical column;
- ``None``: no column is categorical (a DataFrame column of strings is then an error);
- a boolean mask of shape (n_features,), integer indices, or column names (strings, with a DataFrame only).

Encoding. Every categorical column is replaced, in place (the columns keep their order), by ordinal codes
0 .. k-1 as floats: for a pandas ``category`` column the categories seen in training, in the dtype's order
(so an ordered categorical keeps its order; numeric categories are sorted by value); for other columns the
sorted distinct values seen in training. Missing values, and categories not seen in training, are encoded
as NaN, i.e. as missing values; but a column whose values at prediction are all of the other type
(numbers for categories that were strings, typically their integer codes, or strings for numeric
categories), or mix strings and numbers, is a ``TypeError`` naming the column, as the values of the
other type could match no category; and a column of numeric categories whose values at prediction
match none of them and are all integers in 0 .. k-1 (the codes of its k categories, such as 0, 1, 2
for 10, 20, 30) is a ``ValueError`` naming it. Numbers match numeric categories whatever their dtype
(10, 10.0 and a DataFrame's or an array's 10 alike). The codes are
stored in the estimator's float dtype (float32 or float64), exact for fewer than 2**24 categories. Numeric
columns are converted exactly as ``validate_data`` always did, so numeric input gives bit-identical results.

Limits. The trees split the codes by thresholds, like any number: a split sends the categories with codes
up to a threshold one way, so categories are ordered by their code rather than partitioned into arbitrary
subsets as HistGradientBoosting or LightGBM do; an unordered category may need several splits. The
binned trees (``tree_method="hist"``) keep at most 256 bins per feature, lossless for up to 256
categories; a column with more categories is not refused but quantile-binned like any number, so
neighbouring codes then share a bin. Whether NaN codes (missing or unseen categories) are accepted
depends on the estimator's missing-value support: without it, ``validate_data`` rejects them with its
"Input X contains NaN" error.
"""

from __future__ import annotations

import sys
import warnings
from numbers import Integral

import numpy as np
from sklearn.preprocessing import OrdinalEncoder
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_array, validate_data

__all__ = ["CATEGORICAL_FEATURES_CONSTRAINT", "check_columns", "column_kind", "is_missing_value", "validate_tabular"]

#: ``_parameter_constraints`` entry of ``categorical_features``.
CATEGORICAL_FEATURES_CONSTRAINT = ["array-like", StrOptions({"from_dtype"}), None]

# infer_dtype kinds of an object column that holds numbers only: such a column stays numeric
_NUMERIC_OBJECT_KINDS = {"integer", "floating", "mixed-integer-float", "decimal", "boolean", "complex", "empty"}
# infer_dtype kinds of an object column that holds no date, time or duration
_PLAIN_OBJECT_KINDS = _NUMERIC_OBJECT_KINDS | {"string", "bytes"}


def validate_tabular(estimator, X, y="no_validation", *, reset, **check_params):
    """``validate_data`` for ``X`` with categorical columns encoded as ordinal codes (see the module).

    Parameters
    ----------
    estimator : estimator with a ``categorical_features`` parameter
        At fit (``reset=True``) it receives ``n_features_in_``, ``feature_names_in_`` (from a DataFrame
        with string column names, as ``validate_data`` sets it), ``is_categorical_`` (boolean mask of
        shape ``(n_features_in_,)``, or None without categorical column) and ``categories_`` (per column,
        the categories in code order for a categorical column and None for a numeric one; None
        without categorical column). At prediction the fitted encoding is applied and the usual
        warnings and errors on mismatched feature names and counts are given.
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
    y : array-like, "no_validation" or None
        As in ``validate_data``.
    reset : bool
        True at fit, False at prediction.
    **check_params
        Given to ``validate_data`` for the encoded matrix (``dtype``, ``order``, ``ensure_all_finite``, ...).

    Returns
    -------
    X, or (X, y) when ``y`` is given: what ``validate_data`` returns for the encoded matrix.
    """
    check_columns(X)
    shape = getattr(X, "shape", ())
    if len(shape) == 2 and shape[0] == 0:  # scikit-learn's error names the estimator, the encoder's would not
        return validate_data(estimator, X, y, reset=reset, **check_params)
    if np.dtype(check_params.get("dtype", np.float64)) == np.float32:
        _check_float32_range(X)
    if reset:
        is_categorical = _resolve_categorical(X, getattr(estimator, "categorical_features", "from_dtype"))
        encoded, categories, encoder = X, None, None
        if is_categorical is not None:
            encoded, categories, encoder = _fit_encode(X, is_categorical)
        out = validate_data(estimator, encoded, y, reset=True, **check_params)
        estimator.is_categorical_ = is_categorical
        estimator.categories_ = categories
        estimator._category_encoder = encoder
        return out
    encoder = estimator._category_encoder
    if encoder is None:
        return validate_data(estimator, X, y, reset=False, **check_params)
    # Wrong columns must be reported as such, not as whatever the encoder makes of them: raise the
    # count and name errors now; the name warnings come once, from validate_data below.
    _check_n_features(estimator, X, reset=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        _check_feature_names(estimator, X, reset=False)
    part = _categorical_part(X, estimator.is_categorical_)
    _check_category_values(X, part, estimator.is_categorical_, estimator.categories_)
    encoded = _encode(X, estimator.is_categorical_, encoder, part)
    return validate_data(estimator, encoded, y, reset=False, **check_params)


def decoded_rows(codes, names, is_categorical, categories):
    """Validated rows ``codes`` (float, a categorical column as its codes, NaN for a missing value) as the fit's ``X``
    gave them, so that they can be given back to ``predict`` or ``explain``: a pandas DataFrame of the fit's column
    ``names`` (its categorical columns ``Categorical`` of their ``categories``, the others float64) when it had
    names; an object array of the category values where it had categorical columns without names; else ``codes``
    as they are."""
    if names is None and is_categorical is None:
        return codes
    columns = []
    for j in range(codes.shape[1]):
        values = codes[:, j]
        if is_categorical is None or not is_categorical[j]:
            columns.append(values.astype(np.float64) if names is not None else values.astype(object))
            continue
        positions = np.where(np.isnan(values), -1, values).astype(np.int64)
        if names is None:
            found = np.asarray(categories[j], dtype=object)[np.maximum(positions, 0)]
            columns.append(np.where(positions >= 0, found, np.nan))
        else:
            import pandas as pd

            columns.append(pd.Categorical.from_codes(positions, categories=categories[j]))
    if names is None:
        return np.column_stack(columns)
    import pandas as pd

    return pd.DataFrame({str(name): column for name, column in zip(names, columns)})


# ---------------------------------------------------------------------------------------- which columns


def is_dataframe(X):
    """Whether ``X`` is a pandas DataFrame; pandas is not imported for it (if it is not loaded, ``X`` is none)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(X, pd.DataFrame)


def _time_types():
    """The Python types of a date, a time or a duration: ``datetime``'s (pandas' ``Timestamp`` and ``Timedelta``
    are among them), NumPy's scalars and, when pandas is loaded, its ``Period``."""
    import datetime

    pd = sys.modules.get("pandas")
    period = (pd.Period,) if pd is not None else ()
    return (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64, *period)


def _time_objects(values):
    """The sorted names of the types of the dates, times or durations among ``values`` (objects; pandas' ``NaT``,
    a missing date, counts as one: no number can stand for it)."""
    pd = sys.modules.get("pandas")
    if pd is not None and pd.api.types.infer_dtype(values, skipna=True) in _PLAIN_OBJECT_KINDS:
        return []  # strings or numbers only, found in compiled code: most object columns
    kinds = _time_types()
    return sorted({type(v).__name__ for v in values if isinstance(v, kinds)})


def _times_of(column):
    """What makes one column of ``X`` (a pandas Series or a 1-D NumPy array) dates, times or durations: its dtype
    (datetime, timedelta or period), or the types of such objects among its values; None if it holds none."""
    dtype = column.dtype
    if getattr(dtype, "kind", None) in ("m", "M") or type(dtype).__name__ in ("DatetimeTZDtype", "PeriodDtype"):
        return str(dtype)
    if isinstance(dtype, np.dtype) and dtype.kind == "O":
        found = _time_objects(column.to_numpy() if hasattr(column, "to_numpy") else column)
        return f"objects of type {', '.join(found)}" if found else None
    return None  # numbers, strings, and categories (a category column of dates is categorical)


def check_columns(X):
    """Raise for columns of ``X`` (a DataFrame or an array) no estimator can read, naming them (a DataFrame's by
    name, an array's by position): for a DataFrame duplicate names and cells that hold containers (lists, ...),
    and for any input dates, times or durations. :func:`validate_tabular` calls it first.

    Parameters
    ----------
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
        Input that is not an array of two dimensions (sparse matrices, 1-D input, ragged lists) passes, for
        ``validate_data`` to report.

    Duplicate names are a ``ValueError`` naming them (which of the columns would be meant is
    ambiguous); datetime, timedelta and period columns, and columns of objects among which are dates,
    times or durations, are a ``TypeError`` naming them, since they have no numeric value the estimators
    could take without a choice of unit and origin.
    """
    if not is_dataframe(X):
        A = _as_array(X)
        if A is not None:
            times = [(j, _times_of(A[:, j])) for j in range(A.shape[1])]
            example = "(X[:, j].astype('datetime64[D]') - np.datetime64('2000-01-01')) / np.timedelta64(1, 'D')"
            _raise_for_times([(j, found) for j, found in times if found], example)
        return
    duplicated = X.columns[X.columns.duplicated()].unique()
    if len(duplicated):
        counts = ", ".join(f"{name!r} ({int((X.columns == name).sum())} times)" for name in duplicated)
        raise ValueError(f"X has duplicate column names: {counts}; give each column of X a name of its own")
    containers = [j for j in range(X.shape[1]) if _holds_containers(X.iloc[:, j])]
    if containers:
        names = ", ".join(repr(X.columns[j]) for j in containers)
        raise TypeError(
            f"column(s) {names} of X hold lists, tuples, sets, dicts or arrays, not one value a cell; expand each "
            "into columns of their own (e.g. pd.DataFrame(X[c].tolist())) or turn it into a number or a string"
        )
    times = [(repr(X.columns[j]), _times_of(X.iloc[:, j])) for j in range(X.shape[1])]
    example = "(X[c] - pd.Timestamp('2000-01-01')) / pd.Timedelta(days=1)"
    _raise_for_times([(name, found) for name, found in times if found], example)


def _as_array(X):
    """``X`` as a 2-D NumPy array of dates, times, durations or objects, when it may hold any; else None (numbers,
    strings, sparse matrices, and input that validation will refuse: it says why)."""
    if hasattr(X, "toarray") or not hasattr(X, "__len__") or isinstance(X, (str, bytes)):
        return None
    try:
        A = np.asarray(X)
    except (TypeError, ValueError):
        return None
    return A if A.ndim == 2 and A.dtype.kind in "mMO" else None


def _raise_for_times(columns, days_since):
    """The ``TypeError`` for the columns ``(name, what)`` that hold dates, times or durations, if any."""
    if not columns:
        return
    names = ", ".join(f"{name} ({what})" for name, what in columns[:5]) + (", ..." if len(columns) > 5 else "")
    raise TypeError(
        f"column(s) {names} of X hold dates, times or durations, which the estimators do not convert; "
        "convert them to numbers first, for example the days since a date of your choice "
        f"({days_since}), or calendar features (year, month, day of week) as columns of "
        "their own"
    )


def _holds_containers(column):
    """Whether an object column holds a list, tuple, set, dict or array in some cell."""
    if column.dtype.kind != "O":
        return False
    return any(isinstance(value, (list, tuple, set, dict, np.ndarray)) for value in column.array)


def _check_float32_range(X):
    """Raise a ``ValueError`` naming the columns whose nonzero values become 0 as float32 (|x| below about 7e-46,
    half the smallest float32 above 0): the estimators compute in float32, where such a column would lose its
    signal. Smaller normal values keep their order as float32's subnormal numbers."""
    if is_dataframe(X):
        numeric = [j for j in range(X.shape[1]) if X.iloc[:, j].dtype.kind == "f" and X.iloc[:, j].dtype.itemsize > 4]
        columns = [(X.columns[j], X.iloc[:, j].to_numpy()) for j in numeric]
    else:
        A = np.asarray(X) if not hasattr(X, "toarray") else None
        if A is None or A.dtype.kind != "f" or A.dtype.itemsize <= 4 or A.ndim != 2:
            return
        columns = [(j, A[:, j]) for j in range(A.shape[1])]
    lost = [name for name, values in columns if np.any((values != 0) & (values.astype(np.float32) == 0))]
    if lost:
        names = ", ".join(repr(name) for name in lost[:5]) + (", ..." if len(lost) > 5 else "")
        raise ValueError(
            f"column(s) {names} of X hold nonzero values too small for float32 (|x| below 7e-46), in which the "
            "estimators compute: they would become 0 and the column would lose its signal; rescale the column(s) "
            "(e.g. multiply by a power of ten)"
        )


def column_kind(column):
    """``"category"``, ``"string"`` or ``"numeric"`` for a pandas Series: how :func:`validate_tabular` reads it with
    ``categorical_features="from_dtype"`` (an object column of strings is ``"string"``, of numbers ``"numeric"``)."""
    import pandas as pd

    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if isinstance(dtype, pd.StringDtype):
        return "string"
    if dtype.kind in "OUS" and pd.api.types.infer_dtype(column, skipna=True) not in _NUMERIC_OBJECT_KINDS:
        return "string"
    return "numeric"


def _resolve_categorical(X, categorical_features):
    """Boolean mask of the categorical columns of ``X``, or None when there is none.

    Raises ValueError for names without a DataFrame, unknown names, indices out of range, a mask of
    the wrong length, and DataFrame columns of strings that are not declared categorical.
    """
    is_frame = is_dataframe(X)
    kinds = [column_kind(X.iloc[:, j]) for j in range(X.shape[1])] if is_frame else None
    if isinstance(categorical_features, str) and categorical_features == "from_dtype":
        mask = np.array([kind != "numeric" for kind in kinds], dtype=bool) if is_frame else None
    elif categorical_features is None:
        mask = None
    else:
        mask = mask_from_spec(X, categorical_features, is_frame)
    if is_frame:
        declared = np.zeros(X.shape[1], dtype=bool) if mask is None else mask
        strings = [j for j, kind in enumerate(kinds) if kind == "string" and not declared[j]]
        strings += [
            j
            for j, kind in enumerate(kinds)
            if kind == "category" and not declared[j] and X.iloc[:, j].cat.categories.dtype.kind not in "iufb"
        ]
        if strings:
            names = ", ".join(repr(X.columns[j]) for j in sorted(strings))
            raise ValueError(
                f"column(s) {names} of X hold strings but are not categorical features "
                f"(categorical_features={categorical_features!r}); declare them in categorical_features "
                "(or leave it at 'from_dtype') so that they are encoded, or convert them to numbers"
            )
    if mask is None or not mask.any():
        return None
    return mask


def mask_from_spec(X, spec, is_frame):
    """The boolean mask over the columns of ``X`` that ``spec`` declares categorical, or None for an empty ``spec``.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    spec : array-like
        A boolean mask (one entry per column), integer indices, or column names (``X`` a DataFrame): the
        ``categorical_features`` parameter other than ``"from_dtype"`` and None.
    is_frame : bool
        Whether ``X`` is a DataFrame (:func:`is_dataframe`).

    Raises ValueError, naming the problem, for a spec that is not 1-D, a mask of the wrong length, indices out of
    range, names without a DataFrame or not among its columns, and any other dtype.
    """
    n_features = np.shape(X)[1] if np.ndim(X) == 2 else None
    if n_features is None:
        check_array(X, dtype=None, ensure_all_finite=False)  # scikit-learn's error for a 1-D or 3-D X
    spec = np.asarray(spec)
    if spec.ndim != 1:
        raise ValueError(f"categorical_features must be 1-D (a mask, indices or names), got shape {spec.shape}")
    if spec.size == 0:
        return None
    if spec.dtype.kind == "b":
        if spec.shape[0] != n_features:
            raise ValueError(
                f"categorical_features as a boolean mask must have one entry per feature ({n_features}), "
                f"got {spec.shape[0]}"
            )
        return spec.copy()
    if spec.dtype.kind in "iu" or (spec.dtype.kind == "O" and all(isinstance(v, Integral) for v in spec)):
        indices = spec.astype(np.int64)
        bad = indices[(indices < 0) | (indices >= n_features)]
        if bad.size:
            raise ValueError(
                f"categorical_features index(es) {bad.tolist()} out of range: X has {n_features} features "
                f"(valid indices 0 .. {n_features - 1})"
            )
        mask = np.zeros(n_features, dtype=bool)
        mask[indices] = True
        return mask
    if spec.dtype.kind == "U" or (spec.dtype.kind == "O" and all(isinstance(v, str) for v in spec)):
        if not is_frame:
            raise ValueError(
                f"categorical_features given as names ({spec.tolist()}) needs X as a pandas DataFrame with "
                "those column names; for other input give a boolean mask or integer indices"
            )
        columns = list(X.columns)
        unknown = [name for name in spec.tolist() if name not in columns]
        if unknown:
            raise ValueError(f"categorical_features names {unknown} are not columns of X; its columns are {columns}")
        return np.isin(np.asarray(columns, dtype=object), spec.astype(object))
    raise ValueError(
        "categorical_features must be 'from_dtype', None, a boolean mask, integer indices or column names; "
        f"got an array of dtype {spec.dtype}"
    )


# ---------------------------------------------------------------------------------------------- encoding


def _categorical_part(X, mask):
    """The categorical columns of ``X`` as a 2-D array, missing values (None included) as NaN.

    The encoder sees arrays, never DataFrames: the estimator checks the column names itself.
    """
    if is_dataframe(X):
        part = X.iloc[:, np.flatnonzero(mask)].to_numpy(dtype=object, na_value=np.nan)
    else:
        part = check_array(X, dtype=None, ensure_all_finite=False)[:, mask]
    if part.dtype == object:
        part = np.where(np.frompyfunc(is_missing_value, 1, 1)(part).astype(bool), np.nan, part)
    return part


def _frame_categories(column):
    """Code order of a DataFrame column: seen categories in the dtype's order, else sorted seen values."""
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        seen = np.unique(column.cat.codes.to_numpy())
        categories = column.cat.categories[seen[seen >= 0]].to_numpy()
        if categories.dtype.kind in "iufb":
            categories = np.sort(categories)  # OrdinalEncoder keeps numeric categories sorted
        return categories.astype(object) if categories.dtype.kind in "OUS" else categories
    values = column.dropna().unique()
    values = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values, dtype=object)
    try:
        return np.sort(values)
    except TypeError as exc:
        raise ValueError(
            f"categorical column {column.name!r} mixes values of types "
            f"{sorted({type(v).__name__ for v in values})}; its categories must be all strings or all numbers"
        ) from exc


def _fit_encode(X, mask):
    """Fit the ordinal encoder on the categorical columns; return (encoded X, categories_, encoder)."""
    part = _categorical_part(X, mask)
    if is_dataframe(X):
        categories = [_frame_categories(X.iloc[:, j]) for j in np.flatnonzero(mask)]
    else:
        categories = "auto"
        for k, j in enumerate(np.flatnonzero(mask)):
            strings, numbers = _kinds(_present(part[:, k]))
            if strings.any() and numbers.any():
                raise ValueError(
                    f"categorical column {j} mixes values of types {_type_names(part[:, k])}; its categories "
                    "must be all strings or all numbers"
                )
    encoder = OrdinalEncoder(
        categories=categories,
        handle_unknown="use_encoded_value",
        unknown_value=np.nan,
        encoded_missing_value=np.nan,
        dtype=np.float64,
    )
    encoder.fit(part)
    per_column = [None] * len(mask)
    for j, cats in zip(np.flatnonzero(mask), encoder.categories_):
        # "auto" lists a missing value as the last category; it is encoded as NaN, not as a code
        per_column[j] = np.asarray([c for c in cats if not is_missing_value(c)], dtype=cats.dtype)
    return _encode(X, mask, encoder), per_column, encoder


def is_missing_value(value):
    """Whether ``value`` is a missing value: None, pandas' NA or a float NaN."""
    return (
        value is None
        or value is getattr(sys.modules.get("pandas"), "NA", None)
        or (isinstance(value, float) and np.isnan(value))
    )


def _holds_strings(categories):
    """Whether the fitted categories of a column are strings (else numbers)."""
    return categories.dtype.kind in "US" or any(isinstance(c, str) for c in categories)


def _present(values):
    """The values of one column that are not missing."""
    if values.dtype != object:
        return values[~np.isnan(values)] if values.dtype.kind in "fc" else values
    return values[~np.frompyfunc(is_missing_value, 1, 1)(values).astype(bool)]


def _kinds(values):
    """Boolean masks ``(strings, numbers)`` of ``values`` (one column, no missing value)."""
    if values.dtype.kind in "US":
        return np.ones(len(values), dtype=bool), np.zeros(len(values), dtype=bool)
    if values.dtype != object:
        return np.zeros(len(values), dtype=bool), np.ones(len(values), dtype=bool)
    strings = np.frompyfunc(lambda v: isinstance(v, str), 1, 1)(values).astype(bool)
    return strings, ~strings


def _type_names(values):
    """The sorted names of the Python types of a column's values that are not missing."""
    return sorted({type(v).__name__ for v in _present(np.asarray(values, dtype=object)).tolist()})


def _shown(categories):
    """The first categories of a column, for a message."""
    seen = ", ".join(repr(c.item() if isinstance(c, np.generic) else c) for c in categories[:3])
    return seen + (", ..." if len(categories) > 3 else "")


def _looks_like_codes(numbers, categories):
    """Whether numbers that match no category are all integers in ``0 .. len(categories) - 1``."""
    try:
        values = np.asarray(numbers, dtype=np.float64)
        known = np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):  # numbers float64 cannot hold: not codes
        return False
    if values.size == 0 or np.isin(values, known).any():
        return False
    return bool(np.all(values == np.floor(values)) and values.min() >= 0 and values.max() < len(categories))


def _check_category_values(X, part, mask, categories):
    """Raise for a categorical column whose values at prediction cannot be its categories.

    Values that match no category seen at fit become missing values; a column of which this
    happens because of how it was given is an error naming it instead of a silent loss:

    - a ``TypeError`` when its values are all of the other type than its categories (numbers,
      typically their integer codes, for categories that are strings; strings for numbers), or
      mix strings and numbers (as a column may not at fit);
    - a ``ValueError`` when its categories are numbers and its values are too, but none matches a
      category and all are integers in ``0 .. k-1`` for ``k`` categories: the codes of the
      categories rather than their values (codes of 10, 20, 30 are 0, 1, 2).

    ``part`` holds the categorical columns of ``X`` (:func:`_categorical_part`), in order.
    """
    for k, j in enumerate(np.flatnonzero(mask)):
        if len(categories[j]) == 0:  # no value seen at fit: nothing to compare with
            continue
        name = repr(X.columns[j]) if is_dataframe(X) else str(j)
        found = f" ({X.iloc[:, j].dtype})" if is_dataframe(X) else ""
        values = _present(part[:, k])
        strings, numbers = _kinds(values)
        held_strings = _holds_strings(categories[j])
        expected = "strings" if held_strings else "numbers"
        if strings.any() and numbers.any():
            raise TypeError(
                f"column {name} was categorical at fit, with categories of {expected} ({_shown(categories[j])}), "
                f"but mixes strings and numbers at prediction (types {', '.join(_type_names(values))}); the values "
                f"of the other type would match no category and become missing: give them all as {expected}, the "
                "original values of the categories"
            )
        if values.size and (numbers.all() if held_strings else strings.all()):
            held = "numbers" if held_strings else "strings"
            raise TypeError(
                f"column {name} was categorical at fit, with categories of {expected} ({_shown(categories[j])}), "
                f"but holds {held} at prediction{found}; pass the original values rather than codes: the "
                "estimator encodes them itself, and values of the other type would match no category"
            )
        if not held_strings and _looks_like_codes(values, categories[j]):
            given = np.unique(np.asarray(values, dtype=np.float64))
            shown = ", ".join(f"{v:g}" for v in given[:3]) + (", ..." if len(given) > 3 else "")
            raise ValueError(
                f"column {name} was categorical at fit, with categories {_shown(categories[j])}, but none of its "
                f"values at prediction ({shown}) is one of them, "
                f"and all are in 0 .. {len(categories[j]) - 1}, as the codes of the categories would be: pass the "
                "original values rather than codes (the estimator encodes them itself); categories unseen at fit "
                "can be given as missing values (NaN), which is what they would become"
            )


def _encode(X, mask, encoder, part=None):
    """``X`` with its categorical columns replaced by their codes (NaN for missing and unseen values).

    ``part`` is :func:`_categorical_part` of ``X`` when already computed. Numbers given as an array of
    numbers, where the encoder was fitted on a DataFrame's values (objects), are matched as objects.
    """
    if part is None:
        part = _categorical_part(X, mask)
    if part.dtype != object and any(cats.dtype == object for cats in encoder.categories_):
        part = part.astype(object)
    codes = encoder.transform(part)
    columns = np.flatnonzero(mask)
    if is_dataframe(X):
        out = X.copy(deep=False)
        for k, j in enumerate(columns):
            out.isetitem(j, codes[:, k])
        return out
    X = check_array(X, dtype=None, ensure_all_finite=False)
    out = X.astype(object if X.dtype.kind in "OUS" else np.float64)
    out[:, columns] = codes
    return out
