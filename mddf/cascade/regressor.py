"""The gcForest-style cascade forest for regression (Zhou and Feng's cascade, DF21's ``CascadeForestRegressor``)."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions

from ..blocks.members import check_forest_types
from ..utils import check_sample_weight, validate_tabular
from .base import CascadeBase, check_predictor_instance
from .layer_features import member_name
from .multioutput import check_multioutput_params, check_target_shape
from .pair_step import pair_template
from .prediction_mean import LARGEST_TARGET, overflow_error
from .replay import FinalOutput, Stages
from .residual_policy import ResidualPolicy
from .seam import Columns

__all__ = ["LARGEST_TARGET", "TARGETS", "CascadeForestRegressor"]

#: What the layers after the first fit: the target itself, or what the previous layers left of it.
TARGETS = ("y", "residual")


class CascadeForestRegressor(CascadeBase, RegressorMixin, TransformerMixin, BaseEstimator):
    """Cascade forest for regression: layers of forests passing out-of-fold predictions on.

    The cascade of gcForest (Zhou and Feng) for a real-valued target. Layer 1 trains its members on the input ``x``;
    layer t >= 2 on ``[x, h_{t-1}(x)]``, where ``h_{t-1}(x)`` holds the value each member of layer t-1 predicts (one
    column per member). Every training row gets its ``h_t`` from k-fold cross-fitting: each member is trained on k-1
    folds and predicts the held-out one, so no training row's augmented features come from a model that saw it; new
    rows get the mean of the k fold models. The prediction after layer t is the mean of its members' predictions,
    ``y_t(x) = mean_j h_t^j(x)``, and the cascade's prediction is that of its last kept layer, or by default ensemble
    selection's (``final_mixture``).

    With ``target="y"`` (the reading of DF21's ``CascadeForestRegressor``, which concatenates each layer's predictions
    to ``x`` and predicts their mean) every layer's members fit ``y``. With ``target="residual"`` (the default;
    boosting's reading) layer t's members fit what the previous layers left, ``r_t = y - y_{t-1}(x)`` with the
    out-of-fold ``y_{t-1}`` of the training rows, and ``h_t^j = y_{t-1} + (member j's prediction of r_t)``, so that
    ``y_t`` is the sum of the layers' mean corrections; the input of each layer is ``[x, h_{t-1}]`` in both readings.

    Growth stops after ``max_layers`` layers, or once the out-of-fold mean squared error of ``y_t`` on the training
    rows, ``MSE_t = sum_i w_i (y_i - y_t(x_i))^2 / sum_i w_i`` (or its value on held-out rows, ``validation_fraction``),
    has not improved for ``n_tolerant_layers`` consecutive layers; the prefix of lowest ``MSE_t`` is kept. The
    margin-distribution machinery of :class:`mddf.MDDFClassifier` is for classification and takes no part here; growth,
    early stopping, the final ``predictor`` and ``model_dir`` are the classifier's.

    A 2-D ``y`` (n_samples, n_outputs >= 2) fits several targets at once (multi-output trees, every output passed on,
    :meth:`predict` ``(n_samples, n_outputs)``): see :ref:`the user guide <multi-output>` for what it supports.

    The trees are the binned trees of :mod:`mddf.trees` with the squared-error criterion: the layer input quantised
    once per layer to at most 256 bins per feature, every leaf the weighted mean of its rows' targets, trees grown
    fully unless a depth limit is set (min_samples_split 2, min_samples_leaf 1, as scikit-learn's).

    Parameters
    ----------
    n_estimators : int, default=100
        Trees per forest.
    forest_types : tuple of {"rf", "crf", "et", "gbdt", "gbdt_es", "lgbm", "lgbm_es", "catboost_es"} or regressors, \
default=("rf", "rf", "crf", "crf", "lgbm_es")
        The members of each layer: gcForest's two random forests and two completely-random forests, and by default
        LightGBM's ``LGBMRegressor`` with its rounds stopped early on held-out rows (``"lgbm_es"``; ``"lgbm"``: 100
        rounds); ``"et"``: extremely-randomised trees (DF21's ``"erf"``); ``"gbdt"``: XGBoost's ``XGBRegressor``
        with its defaults pinned, one thread (``"gbdt_es"``: stopped early); ``"catboost_es"``: CatBoost's, if
        installed; a regressor instance is cloned for every fold model, its ``random_state`` drawn from
        ``random_state``. ``n_estimators``, ``max_features`` and the depth limits apply to the forests.
        See :ref:`the user guide <regression-members>`.
    target : {"residual", "y"}, default="residual"
        What the members of layer t >= 2 fit: ``"residual"`` the out-of-fold residual of the previous layers,
        the prediction becoming the sum of the layers' mean corrections; ``"y"`` the target (DF21's reading),
        less its mean (``target_offset_``, added back to what the estimator returns: an offset of y keeps its
        precision). Both pass each member's prediction of y on beside ``x`` (see above), and cost the same
        trees; the residual layers lower the bias of the cascade on smooth targets.
    max_features : int, float in (0, 1], "sqrt", "log2" or None, default=0.5
        Candidate features per split of the ``"rf"`` and ``"et"`` trees, as scikit-learn's forests read it (a
        float is a fraction of the layer's columns; None or 1.0 all of them, scikit-learn's and DF21's default).
    predictor : None, "xgboost", "hgb", "forest" or an estimator instance, default=None
        None: the cascade predicts (the mean of the last kept layer's members). Otherwise a regressor trained
        after the cascade on ``[x, h_T]`` with the out-of-fold ``h_T`` makes :meth:`predict` (DF21's
        ``use_predictor``): XGBoost, scikit-learn's HistGradientBoosting, a random forest of ``4 * n_estimators``
        trees, or the instance given. See :ref:`the user guide <members-and-predictor>`.
    predictor_input : {"stacked", "auto"}, default="stacked"
        What the ``predictor`` reads: ``[x, h_T]``, or (``"auto"``) the best by held-out mean squared error of
        the predictor on ``x`` alone and mixtures ``(1 - w) y_cascade + w y_predictor``, w in 0, 0.05, ..., 1,
        chosen on a 2-fold split of the training rows. Ignored without a ``predictor``.
    pair_features : None, "auto", "all_operations" or PairFeatures, default="all_operations"
        Before the first layer, search the training rows for log-ratios, products and differences of pairs of
        numeric columns that a probe tree reads better than the two columns (:class:`mddf.PairFeatures`'
        search, its settings from the instance given; ``"all_operations"``: its defaults with every operation;
        ``"auto"``: its defaults, log-ratios and products; the cascade sets its seed, threads and categorical
        columns) and append them to ``x`` for every layer, at fit and prediction. Nothing is appended, and the
        model is the one without the search, when no pair helps. None: no search. See :ref:`the user guide
        <pair-features>`.
    target_statistics : None, "columns" or "pairs", default=None
        Each first-layer fold model reads, beside ``x``, the smoothed mean target of each categorical column's
        level (``"pairs"``: also of each pair of them), of the first layer's target ``y``, computed from its fold's
        training rows only (cross-fitted for those rows, as ``TargetEncoder``): no row reads its own target. Unseen
        levels and missing values get the prior. None: none. See :ref:`the user guide <target-statistics>`.
    final_mixture : {"cascade", "selection", "auto"}, default="auto"
        The last kept layer's mean, or (``"selection"``) ensemble selection's mixture (Caruana et al. 2004): 25
        greedy rounds, with replacement, each adding the kept layers' member (or layer mean) that most lowers the
        out-of-fold squared error, weights ``selection_weights_``; ``"auto"``: the selection, or the last layer's
        mean with a ``predictor``. See :ref:`the user guide <final-mixture>`.
    n_folds : int, default=3
        k of the k-fold out-of-fold predictions (gcForest's choice, as :class:`mddf.MDDFClassifier`). The folds are
        shuffled, not stratified.
    fold_trees : {"all", "share", "refit"}, default="all"
        What the k fold models of a forest keep for new rows, as for :class:`mddf.MDDFClassifier`: every tree (the
        mean of the k fold models), ``"share"``, the first ``n_estimators / k`` trees of each, or ``"refit"``, none:
        each member is refitted once on every training row.
    later_layer_trees : int, float in (0, 1] or None, default=0.5
        Trees per forest in the layers after the first, as for :class:`mddf.MDDFClassifier` (by default half of
        ``n_estimators``; None: all of them).
    first_layer_members : tuple of members, default=()
        Members fitted in the first layer only, after those of ``forest_types``, as for :class:`mddf.MDDFClassifier`.
    member_weights : {"equal", "loss"}, default="equal"
        A layer's prediction is its members' mean or (``"loss"``) their weighted mean, the weights minimising
        the out-of-fold squared error (as for :class:`mddf.MDDFClassifier`, which minimises the log-loss).
    max_depth : int or None, default=None
        Depth limit of every tree; None grows the trees fully (gcForest and DF21 do).
    max_depth_factor : int or None, default=None
        Trees of layer t are limited to depth ``max_depth_factor * (t + 1)``, as :class:`mddf.MDDFClassifier` grows
        them; with ``max_depth`` too, the smaller limit applies.
    max_layers : int, default=20
        Most layers grown.
    n_tolerant_layers : int, default=2
        Growth stops when the out-of-fold MSE has not improved (see ``tol``) for this many consecutive layers.
    probe_trees : float in (0, 1) or None, default=0.25
        Each layer after the first grows this share of its forests' trees (and XGBoost members' rounds) first and
        the rest only when the probe says the layer may be kept; a layer that may not is decided on its probe,
        so the tolerance layers cost a share of a layer, and the layers kept are those of growing every layer in
        full in all but rare fits. None grows every layer in full. Not used with ``validation_fraction``. See
        :ref:`layer probes <probes>`.
    tol : float >= 0, default=0.0
        A layer improves on the best so far when its out-of-fold MSE is lower by more than ``tol`` times the
        weighted variance of y, i.e. when its out-of-fold R^2 is higher by more than ``tol`` (with
        ``validation_fraction``, of the held-out rows' MSE and variance).
    min_error_reduction : float in [0, 1), default=0.0
        A layer must also lower the monitored MSE below the best layer's by more
        than this fraction of it (as :class:`mddf.MDDFClassifier`'s, whose
        default is 0.005; the regressor keeps 0, the plain rule, having no
        benchmark that says otherwise).
    min_gain_se : float >= 0, default=0.0
        A layer must also lower the monitored MSE by more than ``min_gain_se`` standard errors of the mean
        paired difference of the rows' squared errors, ``d_i = e_best,i - e_i`` between the best layer so far
        and this one: ``mean(d) > min_gain_se * std(d) / sqrt(n)`` (weighted with ``sample_weight``, rescaled to
        a mean near 1: n is about the number of rows). 0 is the plain "any improvement" rule; a positive value
        stops sooner on noisy targets, with fewer layers, at some risk to accuracy.
    validation_fraction : float in (0, 1) or None, default=None
        None monitors the out-of-fold MSE of the training rows. A float holds
        out that fraction of the rows (drawn at random, not stratified), trains
        on the rest and monitors the held-out MSE.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Which columns of X are categorical, as for :class:`mddf.MDDFClassifier`:
        each is replaced by ordinal codes of the categories seen in training,
        unseen categories and missing values becoming NaN (missing values).
    categorical_splits : {"subset", "ordinal"}, default="subset"
        How the trees split a categorical column: into two sets of categories (ordered by their mean target, as
        HistGradientBoosting and LightGBM do), or at thresholds of its codes (``"ordinal"``). See :ref:`the user
        guide <categorical-columns>`.
    n_jobs : int or None, default=None
        Parallel forest fits and predictions (joblib); the results do not depend on it.
    random_state : int, RandomState or None, default=None
    verbose : int, default=0
        1 prints one line per layer, ``[CascadeForestRegressor] layer t``
        followed by the out-of-fold MSE and R^2 of the prediction after the
        layer (and their held-out values, with ``validation_fraction``) and
        the seconds the layer took.
    model_dir : None, "auto", str or path-like, default=None
        Where the fitted forests are kept: None in memory; a folder or ``"auto"`` (a temporary folder) keeps
        them on disk, as :class:`mddf.MDDFClassifier`'s ``model_dir`` does (same files, same memory bound, same
        pickling, :meth:`to_memory` and :meth:`relocate_model_dir`), with bit-identical predictions.
    background_rows : int, default=100
        Training rows the fit keeps, as the model reads them, as :meth:`explain`'s default background
        (``background_``), drawn at random from a stream of their own (no other draw of ``random_state`` moves):
        they are the user's rows, stored in the model and its pickle. 0 keeps none.
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Per column 1 (the prediction never decreases with it), -1 or 0, or a dict {name: 1 or -1}; None: none. Not
        with estimator members; pair features skip constrained columns: :ref:`the user guide <monotone>`.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X is a DataFrame with string column names.
    is_categorical_ : ndarray of bool ``(n_features_in_,)`` or None
    categories_ : list or None
        As for :class:`mddf.MDDFClassifier`.
    fitted_cascade_ : FittedCascade
        As for :class:`mddf.MDDFClassifier`.
    layers_ : list of RegressionForestBlock
        The kept layers (best prefix).
    model_dir_ : str or None
        The folder that holds the fitted forests; None in memory.
    predictor_, predictor_input_, predictor_weight_, predictor_input_scores_ : object or None
        The fitted ``predictor``, what predicts (``"stacked"``, ``"blend"``, ``"raw"`` or ``"cascade"``), its
        weight w and the held-out scores (negative MSE) of the candidates (``"auto"``); None without a
        ``predictor``.
    selection_weights_ : ndarray ``(n_layers_, n_members)`` or None
        Each kept layer's members' weights in the prediction (``final_mixture="selection"``); None otherwise.
    n_layers_ : int
    pair_features_, pair_feature_names_, pair_importances_ : object or None
        The fitted pair search, the names of the appended features and their mean share of the importances;
        None without ``pair_features``.
    train_history_ : list of dict, one per grown layer (also the discarded ones)
        ``layer``, ``oof_mse`` and ``oof_r2`` (of ``y_t`` on the training rows, weighted by the sample weights),
        ``forest_oof_mse`` (each member's own, of its ``h_t``), ``max_depth``, ``model_bytes``, with
        ``validation_fraction`` ``val_mse`` and ``val_r2`` (of the held-out rows), and ``fit_seconds``.
    oof_features_ : list of ndarray of float32 (n_samples, n_members)
        Per kept layer, the out-of-fold ``h_t`` of the training rows; columns named by
        :meth:`get_feature_names_out` (``layer<t>_<member><j>_prediction``).
    target_offset_ : float or ndarray ``(n_outputs,)``
        With ``target="y"``, the mean of y, which the layers (``layers_``, ``predictor_``) fit y less of and the
        estimator adds back to its predictions, layer features and explanations; 0.0 with ``"residual"``.
    stop_reason_ : str
    background_ : DataFrame or ndarray ``(n_background, n_features_in_)``, or None
        The rows kept by ``background_rows`` as ``X`` gave them (to pass back); None with ``background_rows=0``.
    layer_importances_ : ndarray of shape ``(n_layers_, n_features_in_ + 1)``
        Each kept layer's share of its trees' weighted variance decrease per input column, the augmented
        features ``h_{t-1}`` last; each row sums to 1. See :ref:`the user guide <importances>`.
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        The raw columns of ``layer_importances_`` averaged over the kept
        layers, normalised to sum to 1 (zeros if no tree split on a raw feature).
    augmented_feature_importance_ : float
        The last column of ``layer_importances_`` averaged over the kept layers.
    """

    # Tag of the verbose lines; errors name ``type(self).__name__``.
    _log_name = "CascadeForestRegressor"

    _parameter_constraints = {
        **CascadeBase._parameter_constraints,
        "predictor": [None, StrOptions({"xgboost", "hgb", "forest"}), HasMethods(["fit", "predict"])],
        "target": [StrOptions(set(TARGETS))],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        n_estimators=100,
        forest_types=("rf", "rf", "crf", "crf", "lgbm_es"),
        target="residual",
        max_features=0.5,
        predictor=None,
        predictor_input="stacked",
        pair_features="all_operations",
        target_statistics=None,
        final_mixture="auto",
        n_folds=3,
        fold_trees="all",
        later_layer_trees=0.5,
        first_layer_members=(),
        member_weights="equal",
        max_depth=None,
        max_depth_factor=None,
        max_layers=20,
        n_tolerant_layers=2,
        probe_trees=0.25,
        tol=0.0,
        min_error_reduction=0.0,
        min_gain_se=0.0,
        validation_fraction=None,
        categorical_features="from_dtype",
        categorical_splits="subset",
        n_jobs=None,
        random_state=None,
        verbose=0,
        model_dir=None,
        background_rows=100,
        monotonic_cst=None,
    ):
        self.n_estimators = n_estimators
        self.forest_types = forest_types
        self.target = target
        self.max_features = max_features
        self.predictor = predictor
        self.predictor_input = predictor_input
        self.pair_features = pair_features
        self.target_statistics = target_statistics
        self.final_mixture = final_mixture
        self.n_folds = n_folds
        self.fold_trees = fold_trees
        self.later_layer_trees = later_layer_trees
        self.first_layer_members = first_layer_members
        self.member_weights = member_weights
        self.max_depth = max_depth
        self.max_depth_factor = max_depth_factor
        self.max_layers = max_layers
        self.n_tolerant_layers = n_tolerant_layers
        self.probe_trees = probe_trees
        self.tol = tol
        self.min_error_reduction = min_error_reduction
        self.min_gain_se = min_gain_se
        self.validation_fraction = validation_fraction
        self.categorical_features = categorical_features
        self.categorical_splits = categorical_splits
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.model_dir = model_dir
        self.background_rows = background_rows
        self.monotonic_cst = monotonic_cst

    def _policy(self, columns=None):
        columns = Columns.of(self) if columns is None else columns
        return ResidualPolicy(self._params(), columns, name=type(self).__name__, log_name=self._log_name)

    def _validate_training_data(self, X, y, sample_weight):
        """Check the parameters that need no data, validate X, y and the weights (ones without ``sample_weight``);
        y as float64."""
        name = type(self).__name__
        check_forest_types(self.forest_types, "regression")
        check_forest_types(self.first_layer_members, "regression", name="first_layer_members", empty=True)
        check_predictor_instance(self.predictor)
        pair_template(self.pair_features, name)  # its parameters checked before any work
        if np.asarray(y).dtype.kind in "USO":
            try:
                np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{name} needs a numeric target y (real values to regress on), got values that are not numbers; "
                    "for class labels use a classifier such as mddf.MDDFClassifier"
                ) from None
        several = {"multi_output": True} if len(check_target_shape(y, name)) == 2 else {}  # several targets
        if several:
            check_multioutput_params(self.get_params(deep=False), name)
        X, y = validate_tabular(
            self,
            X,
            y,
            reset=True,
            dtype=np.float32,
            order="C",
            ensure_all_finite="allow-nan",
            y_numeric=True,
            **several,
        )
        y = np.ascontiguousarray(y, dtype=np.float64)
        largest = float(np.max(np.abs(y)))
        if largest > LARGEST_TARGET:
            raise overflow_error(name, "|y|", largest)
        # target="y": every layer fits y less its mean (a mean of 1e12 would leave the trees' squared errors and the
        # float32 features passed on no digit of the target's spread), added back to what the estimator shows
        self.target_offset_ = np.mean(y, axis=0) if self.target == "y" else 0.0
        if self.target == "y":
            y = y - self.target_offset_
        weight = check_sample_weight(sample_weight, X, estimator_name=name)
        if len(y) < self.n_folds:
            raise ValueError(
                f"{name} got n_samples={len(y)}, fewer than n_folds={self.n_folds}: "
                "the out-of-fold predictions need at least one row per fold"
            )
        return X, y, weight

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
            :mod:`mddf.trees.squared_error`). Categorical columns are
            ordinal-encoded (see ``categorical_features``).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Real-valued, finite targets (several targets: ``n_outputs >= 2`` columns, see the class; a 2-D y of one
            column is refused: pass ``y.ravel()``) of magnitude at most about 3.4e38, the
            largest float32 (the layers pass their predictions on as float32
            features); larger targets raise a ``ValueError``, as do predictions
            beyond it that a residual cascade passes on, at fit or prediction.
        sample_weight : array-like of shape (n_samples,), float or None, default=None
            Non-negative, finite weights with a positive entry; None weighs every row alike. Only their ratios
            matter (they are rescaled first, equal weights to exactly 1). A tree's row weight is the
            row's count in its bootstrap times its sample weight, so weights move the splits (weighted squared
            error) and the leaves' values (weighted means); the monitored MSE and R^2 are weighted means.
            Integer weights act as repeated rows but for what is drawn at random. Rows of weight 0 reach no
            forest but get out-of-fold features. See :ref:`the user guide <sample-weights>`.

        Returns
        -------
        self
        """
        return self._fit_in_store(X, y, sample_weight)

    # ------------------------------------------------------------------ predict
    def staged_predict(self, X):
        """Prediction after each kept layer, the mean of its members' predictions of y, the last equal to
        :meth:`predict`: with a ``predictor`` or ``final_mixture="selection"`` (the default's), the last stage is
        what :meth:`predict` returns; the stages before are the layers' means.

        Yields
        ------
        ndarray of float64, shape (n_samples,) (or (n_samples, n_outputs))
        """
        return iter([self._shifted(stage) for stage in self._replayed(X, Stages())])

    def predict(self, X):
        """Prediction of the last kept layer (the mean of its members'), or the ``predictor``'s for ``[x, h_T(x)]``
        (or ``x``), or, when ``predictor_weight_`` w is below 1, ``(1 - w)`` times the cascade's plus w times the
        predictor's; with ensemble selection (the default's), ``sum_{t, j} w_tj h_t^j(x)`` of ``selection_weights_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,), or (n_samples, n_outputs) for a model of several targets
        """
        return self._shifted(self._replayed(X, FinalOutput()).value)

    # ------------------------------------------------ target="y": the offset back
    def _offset(self):
        """``target_offset_`` when it is not 0 (a model fitted before it was kept has 0.0: :mod:`.versions`), else
        None."""
        return self.target_offset_ if np.any(self.target_offset_) else None

    def _shifted(self, output):
        """Predictions of y - ``target_offset_`` as predictions of y."""
        offset = self._offset()
        return output if offset is None else output + offset

    def _shown_features(self, features):
        """Members' predictions of y - ``target_offset_``, ``(n, n_members * n_outputs)`` float32, as of y."""
        offset = self._offset()
        if offset is None:
            return features
        per_member = np.tile(np.atleast_1d(offset), features.shape[1] // np.size(offset))
        return (features + per_member).astype(np.float32)

    def _fitted_attributes(self, fitted):
        attributes = fitted.attributes()
        if self._offset() is not None and attributes.get("oof_features_") is not None:
            attributes["oof_features_"] = [self._shown_features(f) for f in attributes["oof_features_"]]
        return attributes

    def _shown(self, found):
        offset = self._offset()
        if offset is not None:
            found.base_values = found.base_values + offset
        return found

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:  # a 2-D y (several targets), unless a setting that refuses one is given
            check_multioutput_params(self.get_params(deep=False), type(self).__name__)
            tags.target_tags.multi_output = True
        except ValueError:
            tags.target_tags.multi_output = False
        return tags

    def _layer_feature_names(self, layer=None):
        """``layer<t>_<member><j>_prediction``, one per member of the layer; with several targets
        ``layer<t>_<member><j>_output<k>_prediction``, member by member."""
        t = self._check_layer(layer)
        block = self.layers_[t - 1]
        names = [f"layer{t}_{member_name(kind)}{j}" for j, kind in enumerate(block.forest_types)]
        if block.n_outputs == 1:
            return [f"{name}_prediction" for name in names]
        return [f"{name}_output{k}_prediction" for name in names for k in range(block.n_outputs)]
