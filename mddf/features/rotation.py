"""Principal components of the numeric columns, appended to the input: candidate features for oblique splits."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.decomposition import PCA
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted

from ..utils import SaveMixin
from .appended import AppendedFeaturesMixin, signed_log


class PCAFeatures(SaveMixin, AppendedFeaturesMixin, TransformerMixin, BaseEstimator):
    """Append the principal components of the numeric columns to ``X``, leaving its columns as they are.

    Trees split one column at a time, so a label that follows a direction across columns (a ratio of two
    amounts, a difference of two measurements) costs them a staircase of splits. A principal component of
    the standardised columns is such a direction, and appended to the input it is a candidate feature
    like any other: the rotation of Rotation Forest (Rodriguez, Kuncheva and Alonso, 2006), here one
    rotation of all numeric columns, fitted once and kept beside the raw columns. With ``log=True``
    (the default) each column is first mapped to ``sign(x) log(1 + |x|)``, so that products and ratios
    of positive columns become sums and differences: where two columns move together, as an amount and
    the instalment paid on it do, the component of their difference carries their ratio.

    Parameters
    ----------
    log : bool, default=True
        Map every numeric column to ``sign(x) log(1 + |x|)`` before standardising it.
    n_components : int or None, default=None
        Components appended, those of largest variance first; None appends as many as there are
        numeric columns (the components of smallest variance, often the ones that carry a ratio,
        included). At most the number of numeric columns and of training rows.
    categorical_features : "from_dtype", array-like of bool, int or str, default="from_dtype"
        Columns that are categories, not rotated: with ``"from_dtype"`` a DataFrame's category, object
        and boolean columns (an array has none); a boolean mask, column positions or (for a DataFrame)
        column names add to those (for an array of category codes, say).

    Attributes
    ----------
    columns_ : ndarray of int
        Positions of the columns rotated: every column of an array, a DataFrame's numeric columns that
        are not boolean, less those ``categorical_features`` declares (the others are passed through).
    mean_, scale_ : ndarray of float64
        Mean and standard deviation (1 for a constant column) of each rotated column, after the log
        map, over the training rows' finite values.
    pca_ : sklearn.decomposition.PCA
        The rotation, fitted on the standardised columns, a missing value counting as the column's mean
        (0 after standardising).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Notes
    -----
    :meth:`transform` returns a DataFrame for a DataFrame (its columns and dtypes unchanged, the
    components appended as float32 columns ``pc0``, ``pc1``, ...) and an array otherwise. A component
    of a row with missing values in the rotated columns takes their mean in its place, so it is finite. A
    column of another kind than at fit (numbers, such as codes, where a DataFrame's column was categorical;
    strings where it held numbers) is a ``TypeError`` naming it, as the estimators refuse it.
    """

    _layout_kind = "appended features"  # what one fitted before the columns' kinds were kept lacks

    _parameter_constraints: dict = {
        "log": ["boolean"],
        "n_components": [None, Interval(Integral, 1, None, closed="left")],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like"],
    }

    def __init__(self, *, log=True, n_components=None, categorical_features="from_dtype"):
        self.log = log
        self.n_components = n_components
        self.categorical_features = categorical_features

    def _log_mapped(self, A):
        return signed_log(A) if self.log else A

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the log map's standardisation and the rotation on the numeric columns of ``X``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        columns, values, _ = self._numeric(X, reset=True)
        if values.shape[1] == 0:
            raise ValueError("PCAFeatures: X has no numeric column to rotate")
        if len(values) < 2:
            raise ValueError(
                f"PCAFeatures needs at least 2 rows to find directions across columns, got n_samples={len(values)}"
            )
        self.columns_ = columns
        A = self._log_mapped(values)
        with np.errstate(invalid="ignore"):  # an all-NaN column: mean and scale fall back to 0 and 1
            mean = np.nanmean(A, axis=0)
            scale = np.nanstd(A, axis=0)
        self.mean_ = np.where(np.isfinite(mean), mean, 0.0)
        self.scale_ = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
        k = A.shape[1] if self.n_components is None else min(self.n_components, A.shape[1])
        k = min(k, len(A))
        self.pca_ = PCA(n_components=k, svd_solver="full").fit(self._centred(A))
        return self

    def _centred(self, A):
        Z = (A - self.mean_) / self.scale_
        return np.where(np.isnan(Z), 0.0, Z)

    def transform(self, X):
        """``X`` with the principal components of its numeric columns appended.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        DataFrame or ndarray of shape (n_samples, n_features + n_components)
        """
        check_is_fitted(self)
        _, values, array = self._numeric(X, reset=False)
        components = self.pca_.transform(self._centred(self._log_mapped(values))).astype(np.float32)
        return self._appended(X, array, components, self._component_names())

    def _component_names(self):
        return [f"pc{i}" for i in range(self.pca_.n_components_)]

    def get_feature_names_out(self, input_features=None):
        """The input's column names, then ``pc0``, ``pc1``, ... ."""
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        return np.asarray([*names, *self._component_names()], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
