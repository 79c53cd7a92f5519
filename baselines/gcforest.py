"""gcForest: multi-grained scanning + cascade forest (Zhou and Feng, "Deep Forest", IJCAI 2017 / NSR 2018).

The cascade is the mdDF cascade (:class:`mddf.MDDFClassifier`) with its margin
machinery switched off, which is exactly the original cascade forest (mdDF
paper, note after eq. 9: invariant distribution D_t = D, non-additive
augmented feature f_t = h_t([x, f_{t-1}(x)]), final prediction F(x) = h_T(x)),
with each forest's class vector passed on (4 x s columns, as gcForest does)
and fully grown trees at every layer.
"""

from __future__ import annotations

import os
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from mddf import MDDFClassifier
from mddf.utils import (
    CATEGORICAL_FEATURES_CONSTRAINT,
    N_JOBS_CONSTRAINT,
    LayerOutputMixin,
    SaveMixin,
    check_label_types,
    check_sample_weight,
    check_weighted_classes,
    validate_tabular,
)

from .scanning import MultiGrainedScanner, resolve_image_shape

__all__ = ["GCForestCascade", "GCForestClassifier", "gcforest_cascade"]

# gcForest's forest block: two random forests and two completely-random forests (Algorithm 1).
GCFOREST_BLOCK = ("rf", "rf", "crf", "crf")


class GCForestCascade(MDDFClassifier):
    """The :class:`mddf.MDDFClassifier` cascade run as gcForest's cascade forest.

    Same parameters, fitting and prediction as :class:`mddf.MDDFClassifier`;
    only the names differ: verbose lines are tagged ``[gcForest]`` and errors
    name this class. Build it with :func:`gcforest_cascade`, which switches the
    margin machinery off.
    """

    _log_name = "gcForest"


def gcforest_cascade(**params):
    """The cascade forest of gcForest as an :class:`mddf.MDDFClassifier`.

    Parameters
    ----------
    **params
        Any other :class:`mddf.MDDFClassifier` parameter (n_estimators, n_folds, ...).

    Returns
    -------
    GCForestCascade (an MDDFClassifier) with ``margin_optimization=False``
    (uniform D_t, alpha_t = 1, f_t = h_t, prediction from the last layer),
    ``passed_features="per_forest"`` and ``max_depth_factor=None`` (fully grown trees).
    """
    params.setdefault("min_gain_se", 0.0)  # gcForest stops on any non-improvement
    params.setdefault("min_error_reduction", 0.0)
    params.setdefault("fold_trees", "all")  # new rows get the mean of the k fold models
    params.setdefault("pair_features", None)  # gcForest's input is x as it is
    params.setdefault("calibration", None)  # and its probabilities the last layer's class vector
    return GCForestCascade(
        forest_types=GCFOREST_BLOCK,
        margin_optimization=False,
        passed_features="per_forest",
        max_depth_factor=None,
        input_features="preconc",
        **params,
    )


class GCForestClassifier(SaveMixin, LayerOutputMixin, ClassifierMixin, TransformerMixin, BaseEstimator):
    """gcForest: optional multi-grained scanning followed by a cascade forest.

    Without ``window_sizes`` the raw features feed the cascade (the setting of
    the mdDF paper's Table 2 gcForest column). With ``window_sizes``, the
    out-of-fold class vectors of multi-grained scanning
    (:class:`~mddf.baselines.scanning.MultiGrainedScanner`, all window sizes
    concatenated) are the cascade's input, as in Zhou and Feng's Figure 4
    (without the cascade-of-cascades that cycles the grains across levels).

    Cascade (Zhou and Feng Section 2.1; mdDF paper Algorithm 1 and the note after
    eq. 9): each level has 2 random forests and 2 completely-random forests;
    each forest's k-fold out-of-fold class vector is concatenated to the input
    of the next level; samples are weighted uniformly (or by ``sample_weight``,
    see :meth:`fit`); growth stops when the
    monitored accuracy (out-of-fold, or held-out with ``validation_fraction``)
    has not improved for ``n_tolerant_layers`` levels, and the best prefix is
    kept; the prediction averages the last kept level's forests.

    Parameters
    ----------
    window_sizes : sequence of int or float, or None, default=None
        Scanning window sides (pixels, or fractions in (0, 1] of the smallest
        side). None: no multi-grained scanning.
    image_shape : tuple of int or None, default=None
        Shape of one row for scanning: ``(length,)``, ``(height, width)`` or
        ``(height, width, channels)``; None means 1-D sequences. Checked
        against the number of features whenever given.
    stride : int, default=1
        Scanning stride.
    scan_n_estimators : int, default=20
    scan_max_depth : int or None, default=10
    scan_min_samples_leaf : int, default=10
        Trees per scanning forest and their size bounds (official gcForest
        MNIST configuration; they bound the memory of the kept scanning forests).
    scan_n_folds : int, default=3
        Folds of images for the out-of-fold scanning class vectors.
    scan_max_train_windows : int or None, default=100_000
        Most window instances each scanning forest is trained on (uniform
        sample); None uses every window.
    n_estimators : int, default=100
        Trees per cascade forest (the mdDF paper's comparison: 100).
    n_folds : int, default=3
        k of the cascade's k-fold class vectors.
    max_layers : int, default=20
    n_tolerant_layers : int, default=2
    validation_fraction : float in (0, 1) or None, default=None
    class_vectors : {"kfold", "oob"}, default="kfold"
        Passed to the cascade (see :class:`mddf.MDDFClassifier`).
    tree_method : {"hist", "exact"}, default="hist"
        How the cascade's trees are grown (see :class:`mddf.MDDFClassifier`): on
        binned features, as mdDF's default, so that the two cascades compare
        with the same trees; ``"exact"`` for scikit-learn's trees, as the
        official gcForest uses.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Categorical columns of X, encoded as ordinal codes (NaN for missing and
        unseen categories) before scanning and the cascade; see
        :class:`mddf.MDDFClassifier`. Only meaningful without scanning.
    categorical_splits : {"subset", "ordinal"}, default="ordinal"
        How the cascade's binned trees split the categorical columns (see
        :class:`mddf.MDDFClassifier`); without scanning only.
    n_jobs : int or None, default=None
    random_state : int, RandomState instance or None, default=None
        Given unchanged to the scanner and then to the cascade, so without
        scanning ``GCForestClassifier(random_state=r)`` and
        ``gcforest_cascade(random_state=r)`` grow identical cascades.
    verbose : int, default=0
        1 prints one line per scanning window size and fold (``[scanning]``) and
        one per cascade level (``[gcForest] layer t``: accuracies, margin ratio, seconds).
    model_dir : None, "auto", str or path-like, default=None
        Passed to the cascade: its fitted levels are kept in that folder (or a
        temporary one of the model's own) instead of in memory (see
        :class:`mddf.MDDFClassifier`, which says what pickling such a model
        means). The scanning forests stay in memory.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X is a DataFrame with string column names.
    is_categorical_ : ndarray of bool ``(n_features_in_,)`` or None
    categories_ : list or None
        See :class:`mddf.MDDFClassifier`.
    scanner_ : MultiGrainedScanner or None
    cascade_ : GCForestCascade
        The fitted cascade (an :class:`mddf.MDDFClassifier`).
    n_layers_ : int
        Kept cascade levels.
    train_history_ : list of dict
        One record per grown level (see :class:`mddf.MDDFClassifier`).
    stop_reason_ : str
    feature_importances_ : ndarray of shape (n_cascade_features,)
        Impurity-based importance of each feature of the cascade's input,
        normalised to sum to 1 (see :class:`mddf.MDDFClassifier`; every kept
        level counts equally). Without scanning the cascade's input is ``X``, so
        there is one entry per raw feature (``n_features_in_``). With scanning it
        is the scanner's class vectors, one entry per column of
        ``scanner_.transform(X)`` (``scanner_.n_features_out_`` entries, laid out
        as ``scanner_.feature_slices_`` says), not one per raw feature.
    class_vector_importance_ : float
        Mean share of the cascade trees' impurity decrease that went to the
        class vectors passed between levels rather than to the cascade's input.
    layer_importances_ : ndarray of shape ``(n_layers_, n_cascade_features + 1)``
        Per kept level, the shares of each input feature and (last column) of the
        passed class vectors.
    """

    _parameter_constraints = {
        "window_sizes": [None, list, tuple],
        "image_shape": [None, list, tuple],
        "stride": [Interval(Integral, 1, None, closed="left")],
        "scan_n_estimators": [Interval(Integral, 1, None, closed="left")],
        "scan_max_depth": [None, Interval(Integral, 1, None, closed="left")],
        "scan_min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "scan_n_folds": [Interval(Integral, 2, None, closed="left")],
        "scan_max_train_windows": [None, Interval(Integral, 1, None, closed="left")],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_layers": [Interval(Integral, 1, None, closed="left")],
        "n_tolerant_layers": [Interval(Integral, 1, None, closed="left")],
        "validation_fraction": [None, Interval(Real, 0, 1, closed="neither")],
        "class_vectors": [StrOptions({"kfold", "oob"})],
        "tree_method": [StrOptions({"hist", "exact"})],
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
        "categorical_splits": [StrOptions({"subset", "ordinal"})],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "model_dir": [None, str, os.PathLike],
    }

    def __init__(
        self,
        *,
        window_sizes=None,
        image_shape=None,
        stride=1,
        scan_n_estimators=20,
        scan_max_depth=10,
        scan_min_samples_leaf=10,
        scan_n_folds=3,
        scan_max_train_windows=100_000,
        n_estimators=100,
        n_folds=3,
        max_layers=20,
        n_tolerant_layers=2,
        validation_fraction=None,
        class_vectors="kfold",
        tree_method="hist",
        categorical_features="from_dtype",
        categorical_splits="ordinal",
        n_jobs=None,
        random_state=None,
        verbose=0,
        model_dir=None,
    ):
        self.window_sizes = window_sizes
        self.image_shape = image_shape
        self.stride = stride
        self.scan_n_estimators = scan_n_estimators
        self.scan_max_depth = scan_max_depth
        self.scan_min_samples_leaf = scan_min_samples_leaf
        self.scan_n_folds = scan_n_folds
        self.scan_max_train_windows = scan_max_train_windows
        self.n_estimators = n_estimators
        self.n_folds = n_folds
        self.max_layers = max_layers
        self.n_tolerant_layers = n_tolerant_layers
        self.validation_fraction = validation_fraction
        self.class_vectors = class_vectors
        self.tree_method = tree_method
        self.categorical_features = categorical_features
        self.categorical_splits = categorical_splits
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.model_dir = model_dir

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        # transform returns the cascade's float32 class vectors whatever the input dtype
        tags.transformer_tags.preserves_dtype = ["float32"]
        return tags

    # -- fitting -----------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Scan (if ``window_sizes``) and grow the cascade.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Flattened images (C order of ``image_shape``) when scanning. NaN marks
            a missing value, handled by the cascade's trees (see
            :class:`mddf.MDDFClassifier`) and, when scanning, by the scanning
            forests (see :class:`~mddf.baselines.scanning.MultiGrainedScanner`);
            infinite values are rejected.
            Categorical columns are ordinal-encoded (see ``categorical_features``).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), float or None, default=None
            Non-negative, finite weights, every class of a positive total; None weighs every row alike. Without the
            margin machinery the distribution stays ``D_1 proportional to w`` at every level, carried to the
            forests by weighted resamples; the monitored accuracy is weighted. The scanning forests get every
            window with its image's weight. Rows of weight 0 train no forest but are scanned and get class
            vectors. See :ref:`the user guide <sample-weights>`.

        Returns
        -------
        self
        """
        features, y, sample_weight = self._fit_scanner(X, y, sample_weight)
        self.cascade_ = self._make_cascade().fit(features, y, sample_weight=sample_weight)
        self._copy_cascade_state()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y, layer=None, sample_weight=None):
        """Fit, then return the out-of-fold augmented feature of a kept level.

        Parameters
        ----------
        X, y : training data
        layer : int or None
            1-based kept level; None is the last.
        sample_weight : array-like of shape (n_samples,), float or None, default=None
            As in :meth:`fit`; rows of weight 0 get features too.

        Returns
        -------
        ndarray of float32, shape (n_rows, 4 * n_classes)
            Out-of-fold class vectors of the level's four forests (see
            :meth:`mddf.MDDFClassifier.fit_transform`). With
            ``validation_fraction`` the cascade only has out-of-fold vectors for
            the rows it trained on, so ``n_rows`` is smaller than ``len(X)``.
        """
        features, y, sample_weight = self._fit_scanner(X, y, sample_weight)
        self.cascade_ = self._make_cascade()
        out = self.cascade_.fit_transform(features, y, layer=layer, sample_weight=sample_weight)
        self._copy_cascade_state()
        return out

    def _fit_scanner(self, X, y, sample_weight=None):
        """Validate X, y and the weights; return the cascade's input, y and the weights (None if not given)."""
        check_label_types(y, estimator_name=type(self).__name__)
        X, y = validate_tabular(self, X, y, reset=True, dtype=np.float32, order="C", ensure_all_finite="allow-nan")
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X, estimator_name=type(self).__name__)
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:  # before scanning, which would fit its forests on one class
            raise ValueError(
                f"y has only one class ({classes.tolist()[0]!r}); "
                f"{type(self).__name__} needs samples of at least 2 classes"
            )
        check_weighted_classes(np.searchsorted(classes, y), sample_weight, classes, estimator_name=type(self).__name__)
        if self.image_shape is not None:
            resolve_image_shape(self.image_shape, X.shape[1])
        if self.window_sizes is None:
            self.scanner_ = None
            return X, y, sample_weight
        self.scanner_ = MultiGrainedScanner(
            window_sizes=self.window_sizes,
            image_shape=self.image_shape,
            stride=self.stride,
            n_estimators=self.scan_n_estimators,
            max_depth=self.scan_max_depth,
            min_samples_leaf=self.scan_min_samples_leaf,
            n_folds=self.scan_n_folds,
            max_train_windows=self.scan_max_train_windows,
            n_jobs=self.n_jobs,
            random_state=self.random_state,
            verbose=self.verbose,
        )
        return self.scanner_.fit_transform(X, y, sample_weight=sample_weight), y, sample_weight

    def _make_cascade(self):
        # arrays whatever the global transform_output: this estimator wraps its own output (set_output)
        return gcforest_cascade(
            n_estimators=self.n_estimators,
            n_folds=self.n_folds,
            max_layers=self.max_layers,
            n_tolerant_layers=self.n_tolerant_layers,
            validation_fraction=self.validation_fraction,
            class_vectors=self.class_vectors,
            tree_method=self.tree_method,
            # x's categorical columns reach the cascade's subset splits without scanning (whose class vectors
            # are numbers); the codes are already encoded, and the cascade encodes them again as they are
            categorical_features=self._cascade_categorical(),
            categorical_splits=self.categorical_splits,
            n_jobs=self.n_jobs,
            random_state=self.random_state,
            verbose=self.verbose,
            model_dir=self.model_dir,
        ).set_output(transform="default")

    def _cascade_categorical(self):
        """The cascade's ``categorical_features``: x's categorical columns with subset splits, else None."""
        if self.window_sizes is None and self.categorical_splits == "subset":
            return self.is_categorical_
        return None

    def _copy_cascade_state(self):
        self.classes_ = self.cascade_.classes_
        self.n_layers_ = self.cascade_.n_layers_
        self.train_history_ = self.cascade_.train_history_
        self.stop_reason_ = self.cascade_.stop_reason_
        self.feature_importances_ = self.cascade_.feature_importances_
        self.class_vector_importance_ = self.cascade_.class_vector_importance_
        self.layer_importances_ = self.cascade_.layer_importances_

    # -- prediction --------------------------------------------------------------------------

    def _represent(self, X):
        """The cascade's input for new rows: scanning class vectors, or X itself."""
        check_is_fitted(self)
        X = validate_tabular(self, X, reset=False, dtype=np.float32, order="C", ensure_all_finite="allow-nan")
        return X if self.scanner_ is None else self.scanner_.transform(X)

    def predict_proba(self, X):
        """Mean class vector of the last kept level's forests, ``F(x) = h_T(x)``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        features = self._represent(X)
        return self.cascade_.predict_proba(features)

    def predict(self, X):
        """``argmax_j h_T^j(x)``."""
        proba = self.predict_proba(X)
        return self.classes_[proba.argmax(axis=1)]

    def staged_predict_proba(self, X):
        """Class probabilities of each kept level (the last equals :meth:`predict_proba`)."""
        features = self._represent(X)
        yield from self.cascade_.staged_predict_proba(features)

    def staged_predict(self, X):
        """Predicted labels of each kept level."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[proba.argmax(axis=1)]

    def transform(self, X, layer=None):
        """Class vectors of a kept level's four forests, float32 (n_samples, 4 * n_classes).

        The columns are named by :meth:`get_feature_names_out` for the same
        ``layer``: ``layer<t>_<forest><j>_class_<label>``, forest j of
        ``rf0``, ``rf1``, ``crf2``, ``crf3``, each with one column per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        layer : int or None
            1-based kept level; None is the last.
        """
        features = self._represent(X)
        return self.cascade_.transform(features, layer=layer)

    def _layer_feature_names(self, layer=None):
        """``layer<t>_<forest><j>_class_<label>``: the cascade's names (see :meth:`get_feature_names_out`)."""
        return self.cascade_._layer_feature_names(layer)
