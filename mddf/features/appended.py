"""What the transformers that append features made of the numeric columns share: which columns they read, their
values, and the input with the new columns appended (:class:`mddf.PCAFeatures`, :class:`mddf.PairFeatures`)."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from ..utils import check_columns, column_kind, is_dataframe, is_missing_value, mask_from_spec


def numeric_columns(frame) -> np.ndarray:
    """Positions of a DataFrame's numeric, non-boolean columns."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    return np.flatnonzero([is_numeric_dtype(dtype) and not is_bool_dtype(dtype) for dtype in frame.dtypes])


def _kinds(frame) -> tuple:
    """The kind of each column of a DataFrame: ``"category"``, ``"string"`` or ``"numeric"``."""
    return tuple(column_kind(frame.iloc[:, j]) for j in range(frame.shape[1]))


def missing_targets(y) -> np.ndarray:
    """Which entries of a 1-D ``y`` are missing: NaN, or None (and pandas' NA) in an object array."""
    if y.dtype.kind in "fc":
        return np.isnan(y)
    if y.dtype != object:
        return np.zeros(len(y), dtype=bool)
    return np.frompyfunc(is_missing_value, 1, 1)(y).astype(bool)


def signed_log(A):
    """``sign(x) log(1 + |x|)``: products and ratios of positive values become sums and differences."""
    return np.sign(A) * np.log1p(np.abs(A))


class AppendedFeaturesMixin:
    """Reads the numeric columns of ``X`` (``columns_``, fixed at fit) and appends new columns to ``X``.

    The estimator has a ``categorical_features`` parameter (``"from_dtype"``, or a mask, positions or names of
    columns that are categories and so not read). The kind of each column of a DataFrame at fit (numbers, or
    categories and strings) is kept, and a column of the other kind at transform is a ``TypeError`` naming it, as the
    estimators refuse it: a categorical column given as its codes would be passed on as other values. An estimator
    fitted before the kinds were kept gets none when it is unpickled (its ``_layout_kind``, ``"appended features"``).
    """

    def _numeric(self, X, reset):
        """The positions of the columns read, their float64 values, and ``X`` as an array if it is one.

        Raises ValueError for infinite values in the columns read.
        """
        name = type(self).__name__
        is_frame = is_dataframe(X)
        try:
            check_columns(X)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name}: {exc}") from None
        if not reset:
            self._check_kinds(X, is_frame)
        if is_frame:
            validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False, skip_check_array=True)
            if len(X) == 0:
                raise ValueError(f"{name}: X has 0 rows; at least 1 is required (shape {X.shape})")
            array = None
        else:
            X = array = validate_data(self, X, reset=reset, dtype=np.float64, ensure_all_finite="allow-nan")
        if reset:
            self._fit_kinds = _kinds(X) if is_frame else None
        columns = self.columns_ if not reset else self._read_columns(X, is_frame)
        values = X.iloc[:, columns].to_numpy(dtype=np.float64, na_value=np.nan) if is_frame else X[:, columns]
        if np.isinf(values).any():
            raise ValueError(f"{name}: X has infinite values in the numeric columns; only NaN is allowed")
        return columns, values, array

    def _check_kinds(self, X, is_frame):
        """A ``TypeError`` for a column whose kind differs from its kind at fit (a model fitted before the kinds were
        kept checks none: :data:`mddf.storage.EARLIER_LAYOUTS`)."""
        fitted = self._fit_kinds
        if fitted is None or np.ndim(X) != 2 or np.shape(X)[1] != len(fitted):
            return  # the count of columns is scikit-learn's to report
        import pandas as pd

        now = _kinds(X if is_frame else pd.DataFrame(np.asarray(X)))
        for j, (was, kind) in enumerate(zip(fitted, now)):
            if (was == "numeric") == (kind == "numeric"):
                continue
            column = repr(X.columns[j]) if is_frame else str(j)
            dtype = X.iloc[:, j].dtype if is_frame else np.asarray(X).dtype
            if was != "numeric":
                raise TypeError(
                    f"{type(self).__name__}: column {column} was categorical at fit ({was}), but holds numbers at "
                    f"transform ({dtype}); pass its original values, as at fit, rather than codes: it is passed on "
                    "as it is, and codes would read as other values"
                )
            if j in set(np.asarray(self.columns_).tolist()):
                raise TypeError(
                    f"{type(self).__name__}: column {column} was numeric at fit, but holds {kind}s at transform "
                    f"({dtype}); pass it as numbers, as at fit"
                )

    def _read_columns(self, X, is_frame):
        """A frame's numeric columns or every column of an array, less those ``categorical_features`` declares."""
        numeric = numeric_columns(X) if is_frame else np.arange(X.shape[1])
        if isinstance(self.categorical_features, str):
            return numeric
        declared = mask_from_spec(X, self.categorical_features, is_frame)
        return numeric if declared is None else numeric[~declared[numeric]]

    def _appended(self, X, array, new, names):
        """``X`` with the columns ``new`` appended: an array for an array, else a DataFrame (its columns and dtypes
        unchanged, the new ones named ``names``)."""
        if array is not None:
            return np.hstack([array, new])
        import pandas as pd

        taken = set(map(str, X.columns)) & set(names)
        if taken:
            raise ValueError(
                f"{type(self).__name__}: X already has columns named {sorted(taken)}, the new columns' names"
            )
        return pd.concat([X, pd.DataFrame(new, index=X.index, columns=names)], axis=1)
