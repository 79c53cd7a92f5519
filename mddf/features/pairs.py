"""Log-ratios and products of pairs of numeric columns, chosen by their out-of-fold gain, appended to the input."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions, validate_parameter_constraints
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _check_feature_names_in, check_consistent_length, check_is_fitted, column_or_1d

from ..utils import N_JOBS_CONSTRAINT, SaveMixin
from .appended import AppendedFeaturesMixin, missing_targets
from .pair_search import OPERATIONS, SearchResult, SearchSettings, pair_values, search_pairs

#: The operations tried by default (:data:`mddf.features.pair_search.OPERATIONS` names every one).
DEFAULT_OPERATIONS = ("log_ratio", "product")


def pair_name(a: str, b: str, operation: str) -> str:
    """The name of a pair's feature: ``log(a/b)``, ``a*b`` or ``a-b``."""
    return {"log_ratio": f"log({a}/{b})", "product": f"{a}*{b}", "difference": f"{a}-{b}"}[operation]


def checked_operations(operations, where="PairFeatures"):
    """``operations`` without repeats, in order; a ``ValueError`` beginning with ``where`` unless they are some of
    :data:`mddf.features.pair_search.OPERATIONS`."""
    checked = tuple(dict.fromkeys(np.atleast_1d(operations).tolist()))
    if not checked or set(checked) - set(OPERATIONS):
        raise ValueError(f"{where}: operations must be some of {list(OPERATIONS)}, got {operations!r}")
    return checked


def check_pair_features(search, where):
    """Raise the error a fit of ``search`` (a :class:`PairFeatures`) would raise for its parameters, its message
    beginning with ``where``, before any data is read: scikit-learn's parameter constraints, then the operations.

    A cascade's fit checks its ``pair_features`` so (scikit-learn skips the nested check inside the cascade's own).
    """
    try:
        validate_parameter_constraints(search._parameter_constraints, search.get_params(deep=False), "PairFeatures")
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{where}: {exc}") from None
    checked_operations(search.operations, where)


class PairFeatures(SaveMixin, AppendedFeaturesMixin, TransformerMixin, BaseEstimator):
    """Append the log-ratios and products of the pairs of numeric columns that help a shallow tree out of fold.

    Trees split one column at a time, so a label that follows a ratio of two columns (an instalment over the
    amount lent) or their product costs them a staircase of splits along a curve. Given as a column, the
    ratio is one split. For every pair ``(a, b)`` of numeric columns and every operation, a probe tree of depth
    ``max_depth`` is grown on ``(a, b)`` and on ``(a, b, feature)`` on each of ``cv`` folds of the training rows
    (stratified for a classification target); the feature's gain is the relative reduction of the held-out loss
    (log-loss, or squared error for a continuous target) it brings, ``(loss(a, b) - loss(a, b, feature)) /
    loss(a, b)``. The ``max_features`` features of highest gain above ``min_gain`` (and beyond ``min_gain_se``
    standard errors) are appended. With more than
    ``max_columns`` numeric columns, only the pairs of the ``max_columns`` most important ones in a probe forest
    are tried, so the cost is bounded at any width: at most ``m (m - 1) / 2 * (1 + len(operations)) * cv``
    probe trees for ``m = min(p, max_columns)`` numeric columns. The cascades run this search themselves with
    ``pair_features`` (:ref:`user guide <pair-features>`).

    Parameters
    ----------
    operations : tuple of {"log_ratio", "product", "difference"}, default=("log_ratio", "product")
        The features tried for each pair: ``log_ratio`` is ``L(a) - L(b)`` with ``L(x) = sign(x) log(1 +
        |x|)`` (about ``log(a / b)`` for positive columns, defined for any sign), ``product`` is ``a * b``,
        ``difference`` is ``a - b``.
    max_features : int, default=8
        Features appended at most.
    min_gain : float, default=0.02
        A feature is appended only when its out-of-fold gain exceeds this share of the pair's loss.
    min_gain_se : float, default=2.0
        ... and when the mean reduction of a row's held-out loss is beyond this many of its standard errors (a
        paired comparison over the rows, every row held out once), so that a gain found by chance on few rows
        is seldom appended. 0: the gain alone decides.
    cv : int, default=3
        Folds of the out-of-fold gain.
    max_depth : int, default=4
        Depth of the probe trees.
    max_samples : int or None, default=10_000
        Training rows the gains are measured on (a random subset when there are more); None: all.
    max_columns : int or None, default=16
        The most numeric columns whose pairs are tried: with more, the screen keeps those of highest
        importance in a probe forest (``screened_columns_``). None: every pair.
    categorical_features : "from_dtype", array-like of bool, int or str, default="from_dtype"
        Columns that are categories, never paired: with ``"from_dtype"`` a DataFrame's category, object and
        boolean columns (an array has none); a boolean mask, column positions or (for a DataFrame) column
        names add to those.
    n_jobs : int or None, default=None
        Threads that try the pairs (joblib's convention: None is 1, -1 every core) on inputs of at least
        2,000 rows, one thread on fewer (its Python steps would take turns); the gains do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds, the row subset and the probe trees.

    Attributes
    ----------
    columns_ : ndarray of int
        Positions of the columns that may be paired.
    pairs_ : list of tuple (int, int, str)
        The appended features, of highest gain first: the positions in ``X`` of the two columns and the
        operation.
    gains_ : ndarray of float
        The out-of-fold gain of each appended feature.
    candidate_gains_ : dict
        ``{(a, b, operation): gain}`` of every feature tried.
    candidate_z_ : dict
        ``{(a, b, operation): z}``: the mean reduction of a row's held-out loss over its standard error.
    screened_columns_ : ndarray of int
        Positions of the columns whose pairs were tried (``columns_`` when there are at most ``max_columns``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Notes
    -----
    :meth:`transform` returns a DataFrame for a DataFrame (its columns and dtypes unchanged, the features
    appended as float64 columns named ``log(a/b)``, ``a*b`` and ``a-b``) and an array otherwise. A row missing
    either value of a pair has NaN in its feature; products and differences are clipped to float32's range. A
    column of another kind than at fit (numbers, such as codes, where a DataFrame's column was categorical;
    strings where it held numbers) is a ``TypeError`` naming it, as the estimators refuse it.
    """

    _layout_kind = "appended features"  # what one fitted before the columns' kinds were kept lacks

    _parameter_constraints: dict = {
        "operations": ["array-like"],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "min_gain": [Interval(Real, None, None, closed="neither")],
        "min_gain_se": [Interval(Real, 0, None, closed="left")],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [None, Interval(Integral, 2, None, closed="left")],
        "max_columns": [None, Interval(Integral, 2, None, closed="left")],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        operations=DEFAULT_OPERATIONS,
        max_features=8,
        min_gain=0.02,
        min_gain_se=2.0,
        cv=3,
        max_depth=4,
        max_samples=10_000,
        max_columns=16,
        categorical_features="from_dtype",
        n_jobs=None,
        random_state=None,
    ):
        self.operations = operations
        self.max_features = max_features
        self.min_gain = min_gain
        self.min_gain_se = min_gain_se
        self.cv = cv
        self.max_depth = max_depth
        self.max_samples = max_samples
        self.max_columns = max_columns
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Measure the out-of-fold gain of every pair's features and keep the best ones.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels, or a continuous target (regression).

        Returns
        -------
        self
        """
        return self._fit(X, y, regression=None)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_task(self, X, y, *, regression):
        """:meth:`fit` for a known task: ``regression`` True searches for a continuous target even when its values
        are integers (a cascade regressor's target), False for class labels.

        Returns
        -------
        self
        """
        return self._fit(X, y, regression=regression)

    def _fit(self, X, y, regression):
        operations = checked_operations(self.operations)
        if y is None:
            raise ValueError("PairFeatures requires y to be passed, but the target y is None")
        columns, values, _ = self._numeric(X, reset=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(values, y)
        missing = np.flatnonzero(missing_targets(y))
        if len(missing):  # scikit-learn's "Input contains NaN" would name neither y nor the rows
            raise ValueError(
                f"PairFeatures: Input y contains NaN: {len(missing)} row(s) without a target (NaN or None), the "
                f"first at row {missing[0]}; drop those rows or give them a label or value"
            )
        if len(y) < self.cv:
            raise ValueError(f"PairFeatures needs at least cv={self.cv} rows to measure gains, got n_samples={len(y)}")
        self.columns_ = columns
        rng = check_random_state(self.random_state)
        if regression is None:
            regression = type_of_target(y) in ("continuous", "continuous-multioutput")
        rows = np.arange(len(y))
        if self.max_samples is not None and len(y) > self.max_samples:
            rows = np.sort(rng.choice(len(y), self.max_samples, replace=False))
        values, y = values[rows], y[rows]
        n_classes = 0
        if not regression:
            classes, y = np.unique(y, return_inverse=True)
            n_classes = len(classes)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        settings = SearchSettings(operations, self.cv, self.max_depth, self.max_columns)
        if len(columns) < 2:  # no pair to try
            result = SearchResult(np.arange(len(columns)), {}, {})
        else:
            folds = self._folds(y, regression, seed)
            result = search_pairs(values, y, folds, n_classes, settings, seed, n_jobs=self.n_jobs)
        self.screened_columns_ = columns[result.screened]
        self.candidate_gains_ = gains = {
            (int(columns[i]), int(columns[j]), operation): gain for (i, j, operation), gain in result.gains.items()
        }
        self.candidate_z_ = z = {
            (int(columns[i]), int(columns[j]), operation): value for (i, j, operation), value in result.z.items()
        }
        chosen = sorted(
            (k for k, g in gains.items() if g > self.min_gain and z[k] > self.min_gain_se), key=lambda k: -gains[k]
        )
        self.pairs_ = chosen[: self.max_features]
        self.gains_ = np.array([gains[k] for k in self.pairs_], dtype=np.float64)
        return self

    def _folds(self, y, regression, seed):
        if not regression:
            _, counts = np.unique(y, return_counts=True)
            if counts.min() >= self.cv:
                return list(StratifiedKFold(self.cv, shuffle=True, random_state=seed).split(y, y))
        n_splits = min(self.cv, len(y))
        return list(KFold(n_splits, shuffle=True, random_state=seed).split(y))

    def transform(self, X):
        """``X`` with the chosen pairs' features appended.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        DataFrame or ndarray of shape ``(n_samples, n_features + len(pairs_))``
        """
        check_is_fitted(self)
        columns, values, array = self._numeric(X, reset=False)
        position = {int(c): k for k, c in enumerate(columns)}
        new = np.empty((len(values), len(self.pairs_)), dtype=np.float64)
        for k, (a, b, operation) in enumerate(self.pairs_):
            new[:, k] = pair_values(values[:, position[a]], values[:, position[b]], operation)
        return self._appended(X, array, new, self._pair_names())

    def _pair_names(self, input_features=None):
        names = _check_feature_names_in(self, input_features)
        return [pair_name(names[a], names[b], op) for a, b, op in self.pairs_]

    def get_feature_names_out(self, input_features=None):
        """The input's column names, then ``log(a/b)`` or ``a*b`` per appended feature."""
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        return np.asarray([*names, *self._pair_names(input_features)], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = True
        return tags
