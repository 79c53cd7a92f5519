"""The gcForest-style cascade forest for regression (Zhou and Feng's cascade, DF21's ``CascadeForestRegressor``)."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, _fit_context
from sklearn.metrics import r2_score
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from ._layer_features import LayerFeaturesMixin, member_name
from ._tabular import CATEGORICAL_FEATURES_CONSTRAINT, validate_tabular
from ._validation import check_sample_weight
from .regression_block import REGRESSION_FOREST_TYPES, RegressionForestBlock


class CascadeForestRegressor(LayerFeaturesMixin, RegressorMixin, TransformerMixin, BaseEstimator):
    """Cascade forest for regression: layers of forests passing out-of-fold predictions on.

    The cascade of gcForest (Zhou and Feng) for a real-valued target. Layer 1
    trains its forests on the input ``x``; layer t >= 2 on ``[x, h_{t-1}(x)]``,
    where ``h_{t-1}(x)`` holds the value each forest of layer t-1 predicts (one
    column per forest). Every training row gets its ``h_t`` from k-fold
    cross-fitting: each forest is trained on k-1 folds and predicts the held-out
    one, so no training row's augmented features come from a model that saw it;
    new rows get the mean of the k fold models. The prediction after layer t is
    the mean of its forests' predictions, ``y_t(x) = mean_j h_t^j(x)``, and the
    cascade's prediction is that of its last kept layer.

    Growth stops after ``max_layers`` layers, or once the out-of-fold mean
    squared error of ``y_t`` on the training rows,
    ``MSE_t = sum_i w_i (y_i - y_t(x_i))^2 / sum_i w_i``, has not improved for
    ``n_tolerant_layers`` consecutive layers; the prefix of lowest ``MSE_t`` is
    kept. The margin-distribution machinery of :class:`mddf.MDDFClassifier` is
    for classification and takes no part here.

    The trees are the binned trees of :mod:`mddf.trees` with the squared-error
    criterion (:func:`mddf.trees.grow_regression_tree`): the layer input is
    quantised once per layer to at most 256 bins per feature (lossless for a
    feature with at most 256 distinct values), every leaf holds the weighted
    mean of its rows' targets, and trees are grown fully unless a depth limit
    is set (min_samples_split 2, min_samples_leaf 1, as scikit-learn's).

    Parameters
    ----------
    n_estimators : int, default=100
        Trees per forest.
    forest_types : tuple of {"rf", "crf", "et"}, default=("rf", "rf", "crf", "crf")
        The forests of each layer: gcForest's two random forests and two
        completely-random forests. ``"rf"``: bootstrap, the best squared-error
        split over ``max_features`` candidate features (``RandomForestRegressor``).
        ``"crf"``: no bootstrap, one random feature and a random threshold per
        split (``ExtraTreesRegressor(max_features=1)``). ``"et"``: no bootstrap,
        one random threshold for each of ``max_features`` candidate features and
        the best of them (``ExtraTreesRegressor``, DF21's ``"erf"``). Random
        thresholds are drawn uniformly among the bin boundaries inside the node,
        i.e. uniformly in rank.
    max_features : int, float in (0, 1], "sqrt", "log2" or None, default=1.0
        Candidate features per split of the ``"rf"`` and ``"et"`` trees, as
        scikit-learn's forests read it (a float is a fraction of the layer's
        columns, None or 1.0 all of them). The default of 1.0 makes ``"rf"``
        scikit-learn's ``RandomForestRegressor`` default and DF21's regression
        random forest (``max_features="auto"``, all features, in the
        scikit-learn versions DF21 targets): for regression the bootstrap alone
        decorrelates the random forests, and the completely-random forests
        bring the diversity.
    n_folds : int, default=3
        k of the k-fold out-of-fold predictions (gcForest's choice, as
        :class:`mddf.MDDFClassifier`). The folds are shuffled, not stratified.
    max_depth : int or None, default=None
        Depth limit of every tree; None grows the trees fully (gcForest and
        DF21 do).
    max_depth_factor : int or None, default=None
        Trees of layer t are limited to depth ``max_depth_factor * (t + 1)``, as
        :class:`mddf.MDDFClassifier` grows them; with ``max_depth`` too, the
        smaller limit applies.
    max_layers : int, default=20
        Most layers grown.
    n_tolerant_layers : int, default=2
        Growth stops when the out-of-fold MSE has not improved (see ``tol``) for
        this many consecutive layers.
    tol : float >= 0, default=0.0
        A layer improves on the best so far when its out-of-fold MSE is lower by
        more than ``tol`` times the weighted variance of y, i.e. when its
        out-of-fold R^2 is higher by more than ``tol``.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Which columns of X are categorical, as for :class:`mddf.MDDFClassifier`:
        each is replaced by ordinal codes of the categories seen in training,
        unseen categories and missing values becoming NaN (missing values).
    n_jobs : int or None, default=None
        Parallel forest fits and predictions (joblib threads, or the backend
        ``joblib.parallel_config`` selects). Results do not depend on it: every
        seed is drawn before dispatch.
    random_state : int, RandomState or None, default=None
    verbose : int, default=0
        1 prints one line per layer, ``[CascadeForestRegressor] layer t``
        followed by the out-of-fold MSE and R^2 of the prediction after the
        layer and the seconds the layer took.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X is a DataFrame with string column names.
    is_categorical_ : ndarray of bool ``(n_features_in_,)`` or None
    categories_ : list or None
        As for :class:`mddf.MDDFClassifier`.
    layers_ : list of RegressionForestBlock
        The kept layers (best prefix).
    n_layers_ : int
    train_history_ : list of dict, one per grown layer (also the discarded ones)
        ``layer``, ``oof_mse`` and ``oof_r2`` (of ``y_t`` on the training rows,
        weighted by the sample weights), ``forest_oof_mse`` (each forest's own),
        ``max_depth``, ``model_bytes`` and ``fit_seconds``.
    oof_features_ : list of ndarray of float32 (n_samples, n_forests)
        The out-of-fold augmented features ``h_t`` of the training rows, one
        array per kept layer. Their columns, as those of :meth:`transform`, are
        named by :meth:`get_feature_names_out`: ``layer<t>_<forest><j>_prediction``,
        forest ``j``'s prediction (0-based position in ``forest_types``), e.g.
        ``layer2_rf0_prediction``, ``layer2_rf1_prediction``, ``layer2_crf2_prediction``.
    stop_reason_ : str
    layer_importances_ : ndarray of shape ``(n_layers_, n_features_in_ + 1)``
        Impurity-based importances of each kept layer: row t gives the share of
        the weighted variance decrease of layer t's trees (every tree of every
        forest and fold model, each tree's decrease divided by its root's
        weight, as scikit-learn's ``compute_feature_importances(normalize=False)``)
        that went to each raw input feature, and in its last column the share
        that went to the augmented features ``h_{t-1}`` (0 for the first layer).
        Each row sums to 1 (a row of zeros if the layer's trees never split).
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        The raw columns of ``layer_importances_`` averaged over the kept
        layers, normalised to sum to 1 (zeros if no tree split on a raw feature).
    augmented_feature_importance_ : float
        The last column of ``layer_importances_`` averaged over the kept layers.
    """

    # Tag of the verbose lines; errors name ``type(self).__name__``.
    _log_name = "CascadeForestRegressor"

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "forest_types": [tuple, list],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_depth_factor": [Interval(Integral, 1, None, closed="left"), None],
        "max_layers": [Interval(Integral, 1, None, closed="left")],
        "n_tolerant_layers": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        n_estimators=100,
        forest_types=("rf", "rf", "crf", "crf"),
        max_features=1.0,
        n_folds=3,
        max_depth=None,
        max_depth_factor=None,
        max_layers=20,
        n_tolerant_layers=2,
        tol=0.0,
        categorical_features="from_dtype",
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.n_estimators = n_estimators
        self.forest_types = forest_types
        self.max_features = max_features
        self.n_folds = n_folds
        self.max_depth = max_depth
        self.max_depth_factor = max_depth_factor
        self.max_layers = max_layers
        self.n_tolerant_layers = n_tolerant_layers
        self.tol = tol
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _layer_input(X, passed):
        """``x`` for the first layer, ``[x, h_{t-1}]`` (float32, C-contiguous) after it."""
        if passed is None:
            return X
        return np.hstack([X, passed.astype(np.float32)])

    def _check_forest_types(self):
        types = tuple(self.forest_types)
        if not types or any(kind not in REGRESSION_FOREST_TYPES for kind in types):
            raise ValueError(
                f"forest_types must be a non-empty sequence of {REGRESSION_FOREST_TYPES}, got {self.forest_types!r}"
            )
        return types

    def _layer_depth(self, t):
        """Depth limit of layer t's trees: the smaller of ``max_depth`` and ``max_depth_factor * (t + 1)``."""
        limits = [self.max_depth] if self.max_depth is not None else []
        if self.max_depth_factor is not None:
            limits.append(self.max_depth_factor * (t + 1))
        return min(limits) if limits else None

    def _check_target(self, y):
        """y as float64, with a clear error for labels that are not numbers."""
        if np.asarray(y).dtype.kind in "USO":
            try:
                np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{type(self).__name__} needs a numeric target y (real values to regress on), got values that are "
                    "not numbers; for class labels use a classifier such as mddf.MDDFClassifier"
                ) from None

    def _overflow_error(self, y):
        """The error for targets whose squared errors (the MSE the cascade monitors) overflow float64."""
        return ValueError(
            f"{type(self).__name__}: the squared errors of y overflow float64 (|y| reaches "
            f"{np.max(np.abs(y)):.3g}, and squares beyond {np.finfo(np.float64).max:.3g} are infinite), so no "
            "layer's MSE can be compared; rescale y (e.g. divide it by its standard deviation) and scale the "
            "predictions back"
        )

    # ---------------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the cascade and keep its best prefix.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            NaN marks a missing value; infinite values are rejected. Missing
            values get a bin of their own: every best split sends them to the
            side that lowers the squared error more, every random split draws
            their side, and a missing value met at prediction in a node that saw
            none goes to the child of larger training weight (see
            :mod:`mddf.trees.regression_splitting`). Categorical columns are
            ordinal-encoded (see ``categorical_features``).
        y : array-like of shape (n_samples,)
            Real-valued, finite targets.
        sample_weight : array-like of shape (n_samples,), float or None, default=None
            Non-negative, finite weights with at least one positive entry; None
            weighs every row alike. A tree's row weight is the row's count in
            its bootstrap (random forests) times its sample weight, so weights
            move the splits (weighted squared error) and the leaves' values
            (weighted means); the monitored out-of-fold MSE and the R^2 of
            ``train_history_`` are weighted means. Integer weights thus act as
            repeated rows, except for what is drawn at random: the folds and the
            bootstrap draw rows, whatever their weights, so a fold model sees a
            weighted row or not, where it would see some of its copies. A leaf
            of one row predicts that row's target whatever its weight, so on
            fully grown trees the weights act mostly through the splits, and
            shift the predictions less than repeated rows do. Rows of weight 0 never
            reach the forests and count in no error, but still get out-of-fold
            augmented features.

        Returns
        -------
        self
        """
        forest_types = self._check_forest_types()
        self._check_target(y)
        X, y = validate_tabular(
            self, X, y, reset=True, dtype=np.float32, order="C", ensure_all_finite="allow-nan", y_numeric=True
        )
        y = np.ascontiguousarray(y, dtype=np.float64)
        weight = check_sample_weight(sample_weight, X, estimator_name=type(self).__name__)
        n = len(y)
        if n < self.n_folds:
            raise ValueError(
                f"{type(self).__name__} got n_samples={n}, fewer than n_folds={self.n_folds}: "
                "the out-of-fold predictions need at least one row per fold"
            )
        rng = check_random_state(self.random_state)
        with np.errstate(over="ignore", invalid="ignore"):
            mean = np.average(y, weights=weight)
            variance = np.average((y - mean) ** 2, weights=weight)
        if not np.isfinite(variance):
            raise self._overflow_error(y)
        layers, history, oof_features = [], [], []
        passed = None
        best_mse, since_best, self.stop_reason_ = np.inf, 0, None
        for t in range(1, self.max_layers + 1):
            start = time.perf_counter()
            block = RegressionForestBlock(
                forest_types, self.n_estimators, self._layer_depth(t), self.max_features, self.n_folds, self.n_jobs
            )
            oof = block.fit(self._layer_input(X, passed), y, weight, rng)
            prediction = oof.mean(axis=1)
            with np.errstate(over="ignore", invalid="ignore"):
                mse = float(np.average((y - prediction) ** 2, weights=weight))
            if not np.isfinite(mse):
                raise self._overflow_error(y)
            record = {
                "layer": t,
                "oof_mse": mse,
                "oof_r2": float(r2_score(y, prediction, sample_weight=weight)),
                "forest_oof_mse": [
                    float(np.average((y - oof[:, j]) ** 2, weights=weight)) for j in range(oof.shape[1])
                ],
                "max_depth": block.max_depth,
                "model_bytes": block.nbytes,
                "fit_seconds": time.perf_counter() - start,
            }
            passed = oof
            layers.append(block)
            history.append(record)
            oof_features.append(oof.astype(np.float32))
            self._log_layer(record)
            if mse < best_mse - self.tol * variance:
                best_mse, best_layer, since_best = mse, t, 0
            else:
                since_best += 1
            if since_best >= self.n_tolerant_layers:
                self.stop_reason_ = (
                    f"out-of-fold MSE did not improve for {self.n_tolerant_layers} layers "
                    f"(best {best_mse:.6g} at layer {best_layer})"
                )
                break
        if self.stop_reason_ is None:
            self.stop_reason_ = f"reached max_layers={self.max_layers}"
        kept = int(np.argmin([record["oof_mse"] for record in history])) + 1  # first of ties
        self.layers_ = layers[:kept]
        self.n_layers_ = kept
        self.train_history_ = history
        self.oof_features_ = oof_features[:kept]
        self._set_importances(X.shape[1])
        return self

    def _set_importances(self, n_features):
        """``layer_importances_``, ``feature_importances_`` and ``augmented_feature_importance_`` of the kept layers."""
        rows = np.zeros((len(self.layers_), n_features + 1))
        for t, block in enumerate(self.layers_):
            raw, passed = block.importances_[:n_features], block.importances_[n_features:].sum()
            total = raw.sum() + passed
            if total > 0:
                rows[t, :n_features] = raw / total
                rows[t, n_features] = passed / total
        self.layer_importances_ = rows
        raw = rows[:, :n_features].mean(axis=0)
        self.feature_importances_ = raw / raw.sum() if raw.sum() > 0 else raw
        self.augmented_feature_importance_ = float(rows[:, n_features].mean())

    def _log_layer(self, record):
        if not self.verbose:
            return
        print(
            f"[{self._log_name}] layer {record['layer']:2d}  oof_mse={record['oof_mse']:.6g}  "
            f"oof_r2={record['oof_r2']:.4f}  {record['fit_seconds']:.1f}s",
            flush=True,
        )

    # ------------------------------------------------------------------ predict
    def _staged(self, X):
        """Validate X now, then return a generator of each kept layer's per-forest predictions ``h_t``."""
        check_is_fitted(self)
        X = validate_tabular(self, X, reset=False, dtype=np.float32, order="C", ensure_all_finite="allow-nan")
        return self._replay(X)

    def _replay(self, X):
        passed = None
        for block in self.layers_:
            passed = block.predict(self._layer_input(X, passed))
            yield passed

    def staged_predict(self, X):
        """Prediction after each kept layer, the mean of its forests' predictions.

        Yields
        ------
        ndarray of float64, shape (n_samples,); the last equals :meth:`predict`.
        """
        return (h.mean(axis=1) for h in self._staged(X))

    def predict(self, X):
        """Prediction of the last kept layer: the mean of its forests' predictions.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,)
        """
        *_, last = self.staged_predict(X)
        return last

    # ---------------------------------------------------------------- transform
    def transform(self, X, layer=None):
        """Augmented features of a kept layer: each of its forests' prediction ``h_t(X)``.

        This is what layer t passes on to layer t + 1 (beside ``x``).

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        layer : int or None
            1-based kept layer; None is the last one.

        Returns
        -------
        ndarray of float32, shape (n_samples, n_forests)
            A DataFrame under ``set_output(transform="pandas")``, its columns
            named by :meth:`get_feature_names_out` for the same ``layer``.
        """
        check_is_fitted(self)
        layer = self._check_layer(layer)
        for t, h in enumerate(self._staged(X), start=1):
            if t == layer:
                return h.astype(np.float32)

    def _layer_feature_names(self, layer=None):
        """``layer<t>_<forest><j>_prediction``, one per forest of the layer."""
        t = self._check_layer(layer)
        kinds = self.layers_[t - 1].forest_types
        return [f"layer{t}_{member_name(kind)}{j}_prediction" for j, kind in enumerate(kinds)]
