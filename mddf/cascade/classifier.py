"""The margin-distribution deep forest estimator (Lv, Yang and Zhou, Algorithm 2)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, _fit_context
from sklearn.preprocessing import LabelEncoder
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from ..blocks.classifier import TREE_METHODS, WEIGHTINGS
from ..blocks.members import check_forest_types
from ..utils import check_label_types, check_sample_weight, check_weighted_classes, validate_tabular
from .base import CascadeBase, check_predictor_instance
from .layer_features import member_name
from .margin_policy import MarginPolicy
from .multilabel import MultiLabelPolicy, is_multi_column, split_labels, validate_multilabel
from .pair_step import pair_template
from .replay import FinalOutput, Stages
from .seam import Columns


class MDDFClassifier(CascadeBase, ClassifierMixin, TransformerMixin, BaseEstimator):
    """Margin-distribution deep forest (mdDF).

    A cascade of forest blocks (Algorithm 1). Layer t trains its forests on ``[x, f_{t-1}(x)]`` ("preconc") drawn
    according to the sample distribution D_t, and gives every training row an out-of-fold class vector h_t. Its margins
    gamma_t (eq. 46) fix the layer weight alpha_t, the minimiser of the mean margin-distribution loss (eq. 48) of the
    cumulative margin ``F_t = F_{t-1} + alpha_t gamma_t`` (Algorithm 2, line 6). The augmented feature passed on is
    ``f_t = f_{t-1} + alpha_t h_t`` (eq. 7) and the next distribution is ``D_{t+1} proportional to l_md(F_t)`` (eq. 47).
    The prediction is ``argmax_j f_T^j(x)`` (eq. 9); ``MDDFClassifier(**mddf.PAPER_CONFIG)`` is the paper's exact
    configuration (:ref:`the cascade <cascade>`, :ref:`how it reads the paper <reading-the-paper>`).

    A multi-label ``y`` (a 2-D 0/1 indicator, as ``RandomForestClassifier`` takes it) gets one block per label in every
    layer, every label's binary class vector passed on (MLDF, Yang et al. 2020) and one margin rule shared by the
    labels, a row's margin the mean of its binary margins (eq. 46 per label); :meth:`predict` returns an indicator
    matrix, :meth:`predict_proba` a list of ``(n_samples, 2)`` arrays. What it does not take yet, and how it grows and
    calibrates: :ref:`the user guide <multi-label>`.

    Reference: S.-H. Lv, L. Yang, Z.-H. Zhou, "Forest Representation Learning Guided by Margin Distribution" (Algorithms
    1-2, equations 5-9 and 45-48, configuration of Section 5.2).

    Parameters
    ----------
    n_estimators : int, default=100
        Trees per forest (Section 5.2: 100).
    forest_types : tuple of {"rf", "crf", "et", "gbdt", "gbdt_es", "gbdt_vector", "lgbm", "lgbm_es", "catboost_es"} \
or estimators, default=("rf", "rf", "crf", "crf", "gbdt")
        The members of each block: random forests, completely-random forests and (beyond the paper) ``"gbdt"``,
        XGBoost with its defaults pinned, one thread (``"gbdt_es"``: its rounds stopped early on held-out rows;
        ``"gbdt_vector"``: also one tree a round for all classes; ``"lgbm"``, ``"lgbm_es"``: LightGBM's;
        ``"catboost_es"``: CatBoost's, if installed); ``("rf", "rf", "crf", "crf")`` is the paper's mdDF,
        ``("rf",) * 4`` its mdDF_SF. Also ``"et"`` (extremely-randomised trees) or any classifier with
        ``predict_proba`` (cloned per fold model, its ``random_state`` drawn from ``random_state``). See :ref:`the
        user guide <members-and-predictor>`.
    predictor : None, "xgboost", "hgb", "forest" or an estimator instance, default=None
        None: the cascade predicts (eq. 9). Otherwise an estimator trained after the cascade on ``[x, f_T]``
        with the out-of-fold ``f_T`` makes :meth:`predict` and :meth:`predict_proba` (DF21's
        ``use_predictor``): XGBoost, scikit-learn's HistGradientBoosting, a random forest of ``4 *
        n_estimators`` trees, or the instance given. See :ref:`the user guide <members-and-predictor>`.
    predictor_input : {"stacked", "auto"}, default="stacked"
        What the ``predictor`` reads: ``[x, f_T]`` (``"stacked"``), or (``"auto"``) the best by held-out
        accuracy of the predictor on ``x`` alone and mixtures ``(1 - w) p_cascade + w p_predictor``, w in
        0, 0.05, ..., 1, chosen on a 2-fold split of the training rows. Ignored without a ``predictor``.
    pair_features : None, "auto", "all_operations" or PairFeatures, default=None
        Before the first layer, search the training rows for log-ratios and products of numeric column pairs that a
        probe tree reads better than the two columns (:class:`mddf.PairFeatures`' search; ``"auto"``: its defaults;
        ``"all_operations"``: differences too) and append them to ``x`` for every layer. Nothing is appended, and the
        model is the one without the search, when no pair helps. See :ref:`the user guide <pair-features>`.
    target_statistics : None, "columns" or "pairs", default=None
        Each first-layer fold model reads, beside ``x``, the smoothed mean target of each categorical column's
        level (``"pairs"``: also of each pair of them), per class (one for two classes), computed from its fold's
        training rows only (cross-fitted for those rows, as ``TargetEncoder``): no row reads its own target. Unseen
        levels and missing values get the prior. None: none. See :ref:`the user guide <target-statistics>`.
    final_mixture : {"cascade", "selection", "auto"}, default="cascade"
        The layers' mixture (eq. 9), ensemble selection's over all kept layers' members (``selection_weights_``;
        not in the paper), or ``"auto"``: that unless a predictor predicts. See :ref:`the user guide <final-mixture>`.
    calibration : None or "temperature", default="temperature"
        ``"temperature"``: :meth:`predict_proba` returns ``(p + eps) ** (1 / T)`` renormalised, eps and T
        fitted on the out-of-fold mixture that predicts (the labels unchanged; kept only when it lowers the
        out-of-fold log-loss, and not with a predictor that predicts). None: the mixture's probabilities as
        they are (the paper's). See :ref:`the user guide <calibration>`.
    n_folds : int, default=3
        k of the k-fold class vectors (Section 5.2 leaves it open; every class needs k training rows).
    fold_trees : {"all", "share", "refit"}, default="all"
        What the k fold models of a forest keep for new rows: every tree (Algorithm 1), their first ``n_estimators / k``
        trees (the same layers, k times fewer trees a new row), or nothing, a forest refitted on every training row
        predicting instead (not in the paper). See :ref:`the settings <settings>`.
    later_layer_trees : int, float in (0, 1] or None, default=None
        Trees per forest in the layers after the first: that many, or (a float) that share of ``n_estimators``,
        rounded (at least 1); None: ``n_estimators`` (Lyu, He and Zhou 2022: a second layer needs fewer trees). See
        :ref:`the user guide <later-layer-trees>`.
    first_layer_members : tuple of members, default=()
        Members fitted in the first layer only, after those of ``forest_types`` (a richer first layer: Arnould et
        al. 2021), e.g. ``("catboost_es",)``. See :ref:`the user guide <later-layer-trees>`.
    member_weights : {"equal", "loss"}, default="equal"
        A layer's class vector h_t (passed on and predicted) is its members' mean (Algorithm 1) or (``"loss"``)
        their weighted mean, the weights non-negative, summing to 1, minimising the out-of-fold log-loss of the
        mixture at its best temperature (Breiman's stacking, 1996). See :ref:`the user guide <member-weights>`.
    class_vectors : {"kfold", "oob"}, default="kfold"
        Algorithm 1's k-fold cross-fitting, or one bootstrap fit per forest with out-of-bag class vectors
        (about k times cheaper; the other members are cross-fitted either way).
    screening_accuracy : float in (0, 1] or None, default=None
        Confidence screening (Pang, Ting, Zhao and Zhou, ICDM 2018; not in the paper): after each layer the
        rows whose output is confident enough to keep this out-of-fold accuracy leave the cascade with it, at
        fit and at prediction. None: off. Not with a ``predictor``. See :ref:`the user guide <screening>`.
    max_depth_factor : int or None, default=16
        Trees of layer t are limited to depth ``max_depth_factor * (t + 1)`` (Section 5.2's grid {2, 4, 8,
        16}); None grows them fully.
    max_layers : int, default=20
        Most layers grown.
    n_tolerant_layers : int, default=2
        Growth stops once this many consecutive layers have not improved the monitored accuracy; the prefix of
        highest accuracy is kept. See :ref:`early stopping <stopping>`.
    probe_trees : float in (0, 1) or None, default=None
        Each layer after the first grows this share of its forests' trees (and XGBoost members' rounds) first and
        the rest only when the probe says the layer may be kept; a layer that may not is decided on its probe,
        so the tolerance layers cost a share of a layer. None grows every layer in full. Not used with
        ``validation_fraction`` or ``screening_accuracy``. See :ref:`layer probes <probes>`.
    tol : float, default=0.0
        An improvement must exceed the best accuracy by more than ``tol``.
    min_error_reduction : float in [0, 1), default=0.005
        ... and lower the best layer's error ``e`` below ``e * (1 - min_error_reduction)`` (DF21's delta, made
        relative). 0 is gcForest's "any improvement" rule (the paper does not say how mdDF stops).
    min_gain_se : float >= 0, default=0.0
        ... and beat the best layer by more than this many standard errors of a paired comparison of their
        rows (McNemar: ``b - c > min_gain_se * sqrt(b + c)``).
    validation_fraction : float in (0, 1) or None, default=None
        None monitors the out-of-fold accuracy; a float holds out that stratified fraction of the rows,
        trains on the rest and monitors their accuracy.
    input_features : {"preconc", "stacking", "raw"}, default="preconc"
        Input of layers t >= 2: ``[x, f_{t-1}]`` (mdDF), ``f_{t-1}`` (mdDF_ST) or ``x`` (mdDF_NP).
    passed_features : {"mean", "per_forest"}, default="mean"
        What the next layer sees: the block's mean class vector (the paper's f_t) or every forest's side by
        side (gcForest's).
    margin_optimization : bool, default=True
        False turns the margin machinery off: gcForest's cascade (uniform D_t, alpha_t = 1, ``f_t = h_t``).
    cumulative_margin : {"normalized", "additive"}, default="normalized"
        How Algorithm 2 reads ``sum_{l<=t} alpha_l gamma_l``: divided by ``sum alpha`` (alpha in the simplex,
        Section 3), or literally. See :ref:`the user guide <cumulative-margin>`.
    margin_mean : float in (0, 1), default=0.8
        gamma of eq. 48, the margin mean the loss aims at (the paper's grid {0.7, ..., 0.95}).
    margin_tradeoff : float > 0, default=0.05
        mu of eq. 48, the weight of deviations above the mean (the paper's grid {0.01, 0.05, 0.1}).
    alpha_solver : {"sgd", "exact"}, default="sgd"
        Projected mini-batch SGD from alpha = 1 (the paper's), or the exact minimiser of eq. 48.
    weighting : {"resample", "resample_fold", "sample_weight"}, default="resample"
        How D_t reaches the forests: each tree's own weighted resample (Algorithm 1), one resample per fold,
        or sample weights. See :ref:`the user guide <weighting>`.
    tree_method : {"hist", "exact"}, default="hist"
        The trees: binned ones compiled with numba (at most 256 bins a feature, scikit-learn's split rules),
        or scikit-learn's on the float values. See :ref:`the user guide <trees>`.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Which columns are categories, as in HistGradientBoosting: by default a DataFrame's ``category``,
        string and ``object`` columns; they are encoded as ordinal codes, unseen categories as missing.
        See :ref:`the user guide <categorical-columns>`.
    categorical_splits : {"subset", "ordinal"}, default="subset"
        How trees split a categorical column: into two sets of categories, or its codes at a threshold.
    n_jobs : int or None, default=None
        Parallel workers of joblib (the forests and fold models of a layer); the results do not depend on it.
    random_state : int, RandomState or None, default=None
        Every seed is drawn from it in a fixed order: bit-identical results for any ``n_jobs``.
    verbose : int, default=0
        1 prints a line per layer (its weights, accuracies, margin ratio, seconds) and one when growth stops.
    model_dir : None, "auto", str or path-like, default=None
        None keeps the fitted models in memory; a folder (or ``"auto"``, a temporary one that belongs to the
        model) keeps them on disk as they are fitted, which bounds a fit's memory (DF21's ``partial_mode``);
        predictions are bit-identical. See :ref:`the user guide <model-dir>`.
    background_rows : int, default=100
        Training rows the fit keeps, as the model reads them, as :meth:`explain`'s default background
        (``background_``), drawn at random from a stream of their own (no other draw of ``random_state`` moves):
        they are the user's rows, stored in the model and its pickle. 0 keeps none.
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Per column 1 (the positive class's probability never decreases with it), -1 or 0, or a dict {name: 1 or -1};
        binary y only; None: none. Its limits are the regressor's: :ref:`the user guide <monotone>`.

    Attributes
    ----------
    classes_ : ndarray (n_classes,), or list of ndarray (one per label) for a multi-label ``y``
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X is a DataFrame with string column names.
    is_categorical_, categories_ : ndarray of bool and list, or None
        The categorical columns and their categories in code order; None without one.
    fitted_cascade_ : FittedCascade
        What the fit produced, whole: every prediction, ``transform``, stage and explanation replays it, and the
        other fitted attributes below are read from it (the documentation's architecture page).
    layers_ : list of ForestBlock
        The kept layers (best prefix).
    n_layers_ : int
    model_dir_ : str or None
        The folder of the fitted models; None in memory.
    alphas_ : ndarray ``(n_layers_,)``
        The kept layers' weights in the prediction (sum to 1 with ``cumulative_margin="normalized"``).
    layer_shares_ : ndarray ``(n_layers_,)``
        beta_t, each layer's share when it joined the mixture ``(1 - beta_t) mix_{t-1} + beta_t h_t``.
    screening_thresholds_ : ndarray ``(n_layers_,)`` or None
        Each kept layer's confidence threshold (``screening_accuracy``).
    train_history_ : list of dict
        One record per grown layer, kept or not: accuracies, weights, margin statistics, loss, seconds. See
        :ref:`the user guide <fitted-model>`.
    oof_features_ : list of ndarray (float32)
        Per kept layer, the out-of-fold ``f_t / sum_{l<=t} alpha_l`` of the training rows (no leakage);
        columns named by :meth:`get_feature_names_out`.
    stop_reason_ : str
    background_ : DataFrame or ndarray ``(n_background, n_features_in_)``, or None
        The rows kept by ``background_rows`` as ``X`` gave them (to pass back); None with ``background_rows=0``.
    predictor_, predictor_input_, predictor_weight_, predictor_input_scores_ : object or None
        The fitted ``predictor``, what predicts (``"stacked"``, ``"blend"``, ``"raw"`` or ``"cascade"``), its
        weight w and the held-out scores of the candidates (``"auto"``); None without a ``predictor``.
    pair_features_, pair_feature_names_, pair_importances_ : object or None
        The fitted pair search, the names of the appended features and their mean share of the importances;
        None without ``pair_features``.
    selection_weights_ : ndarray ``(n_layers_, n_members)`` or None
    calibration_ : TemperatureCalibration or None
        ``temperature``, ``smoothing`` and the out-of-fold log-loss before and after; None when not applied.
    feature_importances_ : ndarray ``(n_features_in_,)``
        Impurity importance of each input column, every kept layer counting alike (an appended pair feature
        credited half to each of its columns). See :ref:`the user guide <importances>`.
    layer_importances_ : ndarray ``(n_layers_, n_features_in_ + 1)``
        Each kept layer's shares, the class-vector columns last.
    class_vector_importance_ : float
        The class-vector columns' mean share.
    """

    # Tag of the verbose lines; errors name ``type(self).__name__``.
    _log_name = "mdDF"

    _parameter_constraints = {
        **CascadeBase._parameter_constraints,
        "predictor": [None, StrOptions({"xgboost", "hgb", "forest"}), HasMethods(["fit", "predict_proba"])],
        "class_vectors": [StrOptions({"kfold", "oob"})],
        "input_features": [StrOptions({"preconc", "stacking", "raw"})],
        "passed_features": [StrOptions({"mean", "per_forest"})],
        "margin_optimization": ["boolean"],
        "cumulative_margin": [StrOptions({"normalized", "additive"})],
        "margin_mean": [Interval(Real, 0, 1, closed="neither")],
        "margin_tradeoff": [Interval(Real, 0, None, closed="neither")],
        "alpha_solver": [StrOptions({"sgd", "exact"})],
        "weighting": [StrOptions(set(WEIGHTINGS))],
        "tree_method": [StrOptions(set(TREE_METHODS))],
        "screening_accuracy": [Interval(Real, 0, 1, closed="right"), None],
        "calibration": [None, StrOptions({"temperature"})],
    }

    def __init__(
        self,
        *,
        n_estimators=100,
        forest_types=("rf", "rf", "crf", "crf", "gbdt"),
        predictor=None,
        predictor_input="stacked",
        pair_features=None,
        target_statistics=None,
        final_mixture="cascade",
        calibration="temperature",
        n_folds=3,
        fold_trees="all",
        later_layer_trees=None,
        first_layer_members=(),
        member_weights="equal",
        class_vectors="kfold",
        screening_accuracy=None,
        max_depth_factor=16,
        max_layers=20,
        n_tolerant_layers=2,
        probe_trees=None,
        tol=0.0,
        min_error_reduction=0.005,
        min_gain_se=0.0,
        validation_fraction=None,
        input_features="preconc",
        passed_features="mean",
        margin_optimization=True,
        cumulative_margin="normalized",
        margin_mean=0.8,
        margin_tradeoff=0.05,
        alpha_solver="sgd",
        weighting="resample",
        tree_method="hist",
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
        self.predictor = predictor
        self.predictor_input = predictor_input
        self.pair_features = pair_features
        self.target_statistics = target_statistics
        self.final_mixture = final_mixture
        self.calibration = calibration
        self.n_folds = n_folds
        self.fold_trees = fold_trees
        self.later_layer_trees = later_layer_trees
        self.first_layer_members = first_layer_members
        self.member_weights = member_weights
        self.class_vectors = class_vectors
        self.screening_accuracy = screening_accuracy
        self.max_depth_factor = max_depth_factor
        self.max_layers = max_layers
        self.n_tolerant_layers = n_tolerant_layers
        self.probe_trees = probe_trees
        self.tol = tol
        self.min_error_reduction = min_error_reduction
        self.min_gain_se = min_gain_se
        self.validation_fraction = validation_fraction
        self.input_features = input_features
        self.passed_features = passed_features
        self.margin_optimization = margin_optimization
        self.cumulative_margin = cumulative_margin
        self.margin_mean = margin_mean
        self.margin_tradeoff = margin_tradeoff
        self.alpha_solver = alpha_solver
        self.weighting = weighting
        self.tree_method = tree_method
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
        classes = getattr(self, "classes_", None)
        name = type(self).__name__
        policy = MultiLabelPolicy if isinstance(classes, list) else MarginPolicy
        return policy(self._params(), columns, classes, name=name, log_name=self._log_name)

    @property
    def _multilabel(self):
        """Whether the model was fitted on a multi-label ``y`` (``classes_`` a list)."""
        return isinstance(getattr(self, "classes_", None), list)

    def _validate_training_data(self, X, y, sample_weight):
        """Check the parameters that need no data, validate X, y and the weights, set ``classes_``; ``y`` as column
        indices of ``classes_``."""
        name = type(self).__name__
        check_forest_types(self.forest_types)
        check_forest_types(self.first_layer_members, name="first_layer_members", empty=True)
        check_predictor_instance(self.predictor)
        pair_template(self.pair_features, name)  # its parameters checked before any work
        if self.target_statistics is not None and self.class_vectors == "oob":
            raise ValueError(f"{name}: target_statistics needs class_vectors='kfold' (each fold computes its own)")
        if self.screening_accuracy is not None and self.predictor is not None:
            raise ValueError(
                f"{name}: screening_accuracy and predictor cannot be combined, as a screened row's prediction is the "
                "output of the layer it left at; set predictor=None or screening_accuracy=None"
            )
        if is_multi_column(y):
            if np.asarray(y).dtype.kind == "f" and np.isnan(np.asarray(y)).any():
                raise ValueError(f"{name}: y contains NaN; every row needs a 0 or 1 for every label")
            kind = type_of_target(y)
            if kind != "multilabel-indicator":
                raise ValueError(
                    f"{name}: a 2-D y must be a multi-label 0/1 indicator (type_of_target 'multilabel-indicator'), "
                    f"got {kind!r}; multi-class multi-output y is not supported"
                )
            return validate_multilabel(self, X, y, sample_weight)
        check_label_types(y, estimator_name=name)
        X, y = validate_tabular(self, X, y, reset=True, dtype=np.float32, order="C", ensure_all_finite="allow-nan")
        weight = None if sample_weight is None else check_sample_weight(sample_weight, X, estimator_name=name)
        check_classification_targets(y)
        encoder = LabelEncoder().fit(y)
        self.classes_ = encoder.classes_
        if len(self.classes_) < 2:
            raise ValueError(
                f"y has only one class ({self.classes_.tolist()[0]!r}); {name} needs samples of at least 2 classes"
            )
        y = encoder.transform(y)
        check_weighted_classes(y, weight, self.classes_, estimator_name=name)
        return X, y, weight

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the cascade (Algorithm 2) and keep its best prefix.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            NaN marks a missing value; infinite values are rejected. With
            ``tree_method="hist"`` missing values get a bin of their own and
            every best split chooses the side they go to (the better of the two
            by the Gini criterion), every completely-random split draws it; a
            missing value met at prediction in a node that saw none goes to the
            child of larger training weight (see :mod:`mddf.trees`). With
            ``"exact"``, scikit-learn's trees handle them alike. Class vectors
            never hold NaN.
            Categorical columns are ordinal-encoded (see ``categorical_features``);
            categories unseen at training are missing values.
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels (any hashable values, at least two classes), or a multi-label 0/1 indicator matrix
            (``type_of_target(y) == "multilabel-indicator"``, every label taking both values): see the class.
        sample_weight : array-like of shape (n_samples,), float or None, default=None
            Non-negative, finite weights, every class of a positive total; None weighs every row alike. Only
            their ratios matter (they are rescaled first, equal weights to exactly 1). D_1 is
            proportional to w and every later distribution keeps the factor, ``D_{t+1}(i) proportional to
            w_i l_md(F_t(i))`` (eq. 47), whichever ``weighting``; the mean loss of eq. 48, the monitored
            accuracy and the margin statistics are weighted means, so integer weights act as repeated rows
            but for what is drawn at random. Rows of weight 0 reach no forest but get out-of-fold class
            vectors; with ``validation_fraction`` the weights follow their rows. See :ref:`the user guide
            <sample-weights>`.

        Returns
        -------
        self
        """
        return self._fit_in_store(X, y, sample_weight)

    # ------------------------------------------------------------------ predict
    def staged_predict_proba(self, X):
        """Class probabilities after each kept layer, the last equal to :meth:`predict_proba`.

        Stage t is the cascade's mixture after layer t, ``f_t / sum_{l<=t} alpha_l``, calibrated by ``calibration_``
        when there is one (the temperature fitted on the last kept layer's mixture, applied to every stage: the
        labels are the mixture's). With a ``predictor`` that predicts (or ``final_mixture="selection"``), the last stage
        is what :meth:`predict_proba` returns; the stages before are the cascade's.

        Yields
        ------
        ndarray of float64, shape (n_samples, n_classes)
            One per kept layer (``n_layers_``); with a multi-label ``y``, a list of ``n_labels`` arrays
            ``(n_samples, 2)``, as :meth:`predict_proba`.
        """
        stages = self._replayed(X, Stages())  # X checked now, fitted-ness first
        return iter([self._per_label(stage) for stage in stages])

    def staged_predict(self, X):
        """Predicted labels after each kept layer, those of :meth:`staged_predict_proba`; the last equal to
        :meth:`predict`.

        Yields
        ------
        ndarray of shape (n_samples,), or ``(n_samples, n_labels)`` with a multi-label ``y``
        """
        return (self._labels_of(proba) for proba in self.staged_predict_proba(X))

    def predict_proba(self, X):
        """Class probabilities ``f_T(x) / sum_t alpha_t``: a convex combination of the layers' class vectors (eq. 9),
        calibrated by ``calibration_`` when there is one. With a multi-label ``y``, a list of ``n_labels`` arrays
        ``(n_samples, 2)``, each label's probabilities of its ``classes_``, as scikit-learn's multi-label
        classifiers return them.

        With a ``predictor``, its probabilities for ``[x, f_T(x)]`` (or ``x``) instead, or, when
        ``predictor_weight_`` w is below 1, ``(1 - w)`` times the cascade's plus w times the predictor's. With
        ``final_mixture="selection"``, ``sum_{t, j} w_tj h_t^j(x)`` of ``selection_weights_``, calibrated.
        """
        return self._per_label(self._replayed(X, FinalOutput()).value)

    def predict(self, X):
        """``argmax_j f_T^j(x)`` (eq. 9), or the most probable class of :meth:`predict_proba` with a ``predictor``;
        with multi-label ``y`` each label's more probable value, an indicator matrix ``(n_samples, n_labels)``."""
        return self._labels_of(self.predict_proba(X))  # checks fitted-ness before classes_ is read

    def _per_label(self, output):
        """A multi-label output ``(n, 2L)`` as scikit-learn's list of L arrays ``(n, 2)``; else as it is."""
        return split_labels(output, len(self.classes_)) if self._multilabel else output

    def _labels_of(self, proba):
        """The most probable class of each row (of each label, as columns, for a list of per-label arrays)."""
        if isinstance(proba, list):
            return np.column_stack([c[p.argmax(axis=1)] for c, p in zip(self.classes_, proba)])
        return self.classes_[proba.argmax(axis=1)]

    def _layer_feature_names(self, layer=None):
        """``layer<t>_class_<label>``, or ``layer<t>_<member><j>_class_<label>`` per member with ``"per_forest"``."""
        t = self._check_layer(layer)
        if self._multilabel:
            classes = [f"label{k}_class_{c}" for k, labels in enumerate(self.classes_) for c in labels]
        else:
            classes = [f"class_{label}" for label in self.classes_]
        if self.passed_features == "mean":
            return [f"layer{t}_{c}" for c in classes]
        members = [f"{member_name(kind)}{j}" for j, kind in enumerate(self.layers_[t - 1].forest_types)]
        return [f"layer{t}_{m}_{c}" for m in members for c in classes]
