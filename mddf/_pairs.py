"""Log-ratios and products of pairs of numeric columns, chosen by their out-of-fold gain, appended to the input."""

from __future__ import annotations

from itertools import combinations
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _check_feature_names_in, check_consistent_length, check_is_fitted, column_or_1d

from ._appended import AppendedFeaturesMixin, signed_log

OPERATIONS = ("log_ratio", "product")


def pair_values(a, b, operation: str):
    """The feature of two columns: ``log_ratio`` is ``L(a) - L(b)`` with ``L(x) = sign(x) log(1 + |x|)`` (for
    positive columns, about ``log(a / b)``), ``product`` is ``a * b``; NaN where either is missing."""
    if operation == "log_ratio":
        return signed_log(a) - signed_log(b)
    return a * b


class PairFeatures(AppendedFeaturesMixin, TransformerMixin, BaseEstimator):
    """Append the log-ratios and products of the pairs of numeric columns that help a shallow tree out of fold.

    Trees split one column at a time, so a label that follows a ratio of two columns (an instalment over the
    amount lent) or their product costs them a staircase of splits along a curve. Given as a column, the
    ratio is one split. This transformer tries every pair ``(a, b)`` of numeric columns and every operation:
    on ``cv`` folds of the training rows (stratified for a classification target), a decision tree of depth
    ``max_depth`` is fitted on ``(a, b)`` and on ``(a, b, feature)``; the feature's gain is the relative
    reduction of the held-out loss (log-loss for classification, squared error for regression) that the
    feature brings, ``(loss(a, b) - loss(a, b, feature)) / loss(a, b)``. The ``max_features`` features of
    highest gain above ``min_gain`` are appended. Fitting costs ``p (p - 1) / 2 * (1 + len(operations)) * cv``
    tree fits for ``p`` numeric columns, on at most ``max_samples`` rows.

    Parameters
    ----------
    operations : tuple of {"log_ratio", "product"}, default=("log_ratio", "product")
        The features tried for each pair: ``log_ratio`` is ``L(a) - L(b)`` with ``L(x) = sign(x) log(1 +
        |x|)`` (about ``log(a / b)`` for positive columns, defined for any sign), ``product`` is ``a * b``.
    max_features : int, default=8
        Features appended at most.
    min_gain : float, default=0.02
        A feature is appended only when its out-of-fold gain exceeds this share of the pair's loss.
    cv : int, default=3
        Folds of the out-of-fold gain.
    max_depth : int, default=4
        Depth of the probe trees.
    max_samples : int or None, default=10_000
        Training rows the gains are measured on (a random subset when there are more); None: all.
    categorical_features : "from_dtype", array-like of bool, int or str, default="from_dtype"
        Columns that are categories, never paired: with ``"from_dtype"`` a DataFrame's category, object and
        boolean columns (an array has none); a boolean mask, column positions or (for a DataFrame) column
        names add to those.
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
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Notes
    -----
    :meth:`transform` returns a DataFrame for a DataFrame (its columns and dtypes unchanged, the features
    appended as float64 columns named ``log(a/b)`` and ``a*b``) and an array otherwise. A row missing
    either value of a pair has NaN in its feature.
    """

    _parameter_constraints: dict = {
        "operations": ["array-like"],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "min_gain": [Interval(Real, None, None, closed="neither")],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [None, Interval(Integral, 2, None, closed="left")],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        operations=OPERATIONS,
        max_features=8,
        min_gain=0.02,
        cv=3,
        max_depth=4,
        max_samples=10_000,
        categorical_features="from_dtype",
        random_state=None,
    ):
        self.operations = operations
        self.max_features = max_features
        self.min_gain = min_gain
        self.cv = cv
        self.max_depth = max_depth
        self.max_samples = max_samples
        self.categorical_features = categorical_features
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
        unknown = sorted(set(np.atleast_1d(self.operations)) - set(OPERATIONS))
        if unknown or len(np.atleast_1d(self.operations)) == 0:
            raise ValueError(f"PairFeatures: operations must be some of {list(OPERATIONS)}, got {self.operations!r}")
        if y is None:
            raise ValueError("PairFeatures requires y to be passed, but the target y is None")
        columns, values, _ = self._numeric(X, reset=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(values, y)
        if len(y) < self.cv:
            raise ValueError(f"PairFeatures needs at least cv={self.cv} rows to measure gains, got n_samples={len(y)}")
        self.columns_ = columns
        rng = check_random_state(self.random_state)
        regression = type_of_target(y) in ("continuous", "continuous-multioutput")
        rows = np.arange(len(y))
        if self.max_samples is not None and len(y) > self.max_samples:
            rows = np.sort(rng.choice(len(y), self.max_samples, replace=False))
        values, y = values[rows], y[rows]
        if not regression:
            classes, y = np.unique(y, return_inverse=True)
            self._n_classes = len(classes)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        folds = self._folds(y, regression, seed)
        gains = {}
        for i, j in combinations(range(len(columns)), 2):
            a, b = values[:, i], values[:, j]
            base = self._loss(np.column_stack([a, b]), y, folds, regression, seed)
            for operation in dict.fromkeys(np.atleast_1d(self.operations).tolist()):
                feature = pair_values(a, b, operation)
                loss = self._loss(np.column_stack([a, b, feature]), y, folds, regression, seed)
                gains[(int(columns[i]), int(columns[j]), operation)] = (base - loss) / base if base > 0 else 0.0
        self.candidate_gains_ = gains
        chosen = sorted((k for k, g in gains.items() if g > self.min_gain), key=lambda k: -gains[k])
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

    def _loss(self, A, y, folds, regression, seed):
        """The held-out loss of the probe tree on ``A`` over the folds: mean squared error, or log-loss."""
        total = 0.0
        for fit_rows, held_out in folds:
            if regression:
                tree = DecisionTreeRegressor(max_depth=self.max_depth, random_state=seed)
                predicted = tree.fit(A[fit_rows], y[fit_rows]).predict(A[held_out])
                total += float(np.sum((y[held_out] - predicted) ** 2))
            else:  # y holds class indices 0 .. n_classes - 1
                tree = DecisionTreeClassifier(max_depth=self.max_depth, min_samples_leaf=5, random_state=seed)
                proba = tree.fit(A[fit_rows], y[fit_rows]).predict_proba(A[held_out])
                full = np.zeros((len(held_out), self._n_classes))
                full[:, tree.classes_] = proba  # a class absent from the fitting rows: probability 0
                p = full[np.arange(len(held_out)), y[held_out]]
                total -= float(np.sum(np.log(np.clip(p, 1e-6, 1.0))))
        return total / len(y)

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
        return [
            f"log({names[a]}/{names[b]})" if op == "log_ratio" else f"{names[a]}*{names[b]}" for a, b, op in self.pairs_
        ]

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
