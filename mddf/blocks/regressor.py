"""One layer of the regression cascade: forests of binned regression trees and other regressors, cross-fitted.

The regression counterpart of :class:`mddf.blocks.classifier.ForestBlock` (gcForest's
layer, Zhou and Feng): each member gives every training row a predicted value
from fold models that never saw that row, and gives new rows the mean of its
fold models. The forests' trees are those of :mod:`mddf.trees` for regression
(:func:`~mddf.trees.grow_tree` with the squared error), grown on the layer input
quantised once per layer to at most 256 bins per feature
(:class:`mddf.forests.BinnedInput`); the other members (``"gbdt"`` and
regressor instances) are fitted whole, one a fold, as in the classification
block; every member is reached through the member protocol (:mod:`mddf.blocks.member`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.model_selection import KFold

from ..forests import BinnedInput
from .base import BlockBase
from .member import LayerFit, layer_categories, layer_constraints


class RegressionForestBlock(BlockBase):
    """The members of one layer of the regression cascade, cross-fitted over k folds.

    Parameters
    ----------
    forest_types : sequence of {"rf", "crf", "et", "gbdt"} or regressor instances
        One entry per member. ``"rf"``, ``"crf"``, ``"et"``: forests grown by the
        block (see :func:`mddf.forests.make_regression_forest`). ``"gbdt"``: XGBoost's
        ``XGBRegressor`` with fixed settings, one thread
        (:func:`mddf.forests.make_gbdt`). A regressor instance (``fit`` and
        ``predict``) is cloned for every fold model, its ``random_state``
        parameters drawn from the block's seeds, and never fitted itself
        (:mod:`mddf.blocks.members`). The other members get the float values of the
        layer input and the sample weights as ``sample_weight`` (a member whose
        ``fit`` takes none gets, with unequal weights, a weighted resample of its
        training rows instead, with a ``UserWarning``). Any name registered with
        :func:`mddf.blocks.member.register_member` is its kind's member.
    n_estimators : int
        Trees per forest (not used by the other members).
    max_depth : int or None
        Depth limit of every tree of this layer's forests (not used by the other members).
    max_features : int, float, "sqrt", "log2" or None
        Candidate features per split of the ``"rf"`` and ``"et"`` trees
        (:func:`mddf.forests.resolve_max_features`); completely-random trees draw one.
    n_folds : int
        k: the rows are split into k folds (shuffled, not stratified); for each
        fold, each member is trained on the other folds and predicts the
        held-out one. New rows get the mean of the k fold models.
    n_jobs, store, name, fold_trees, probe_trees
        Parallel fits and predictions, where the fitted forests are kept,
        what a forest's fold models keep for new rows, and the probe that grows
        a share of the trees first (see :class:`mddf.blocks.base.BlockBase`).

    Missing values (NaN) in the layer input are handled by the trees
    (:mod:`mddf.trees.squared_error`) and by XGBoost; a regressor instance whose
    scikit-learn tags say it does not accept NaN raises a ``ValueError`` naming
    it, at fit and at prediction. A member whose prediction is not one finite
    value per row raises a ``ValueError`` naming it.

    Attributes
    ----------
    models_ : list (n_members) of lists (n_folds)
        Each member's fold models: BinnedRegressionForest for the forests,
        :class:`mddf.blocks.members.FoldModel` for the others (with a
        :class:`mddf.storage.ModelStore`, their :class:`mddf.storage.StoredModel` handles).
    forests_ : list (n_folds) of lists (n_members)
        The same models, fold first.
    importances_ : ndarray of float64 (d,)
        Impurity-based importance of each input column: a tree's weighted
        variance decrease per feature divided by its root's weight (scikit-learn's
        ``compute_feature_importances(normalize=False)``), averaged over every
        tree of every forest and fold model. In squared units of the target; not
        normalised. A fold model of another member adds its
        ``feature_importances_`` (which scikit-learn and XGBoost normalise to sum
        to 1) times the weighted variance of its training targets, what a fully
        grown tree's importances sum to; a member without them is left out.
    """

    splitter = KFold
    task = "regression"

    def __init__(
        self,
        forest_types,
        n_estimators,
        max_depth,
        max_features,
        n_folds,
        n_jobs,
        store=None,
        name=None,
        fold_trees="all",
        probe_trees=None,
        target_statistics=None,
    ):
        super().__init__(
            forest_types,
            n_estimators,
            max_depth,
            n_folds,
            n_jobs,
            store,
            name,
            fold_trees,
            probe_trees,
            target_statistics,
        )
        self.max_features = max_features

    #: The constraint of each column of the cascade's ``x`` (int8; ``monotonic_cst``), or None: set by the cascade.
    monotone = None
    #: Every column of the cascade's ``x`` that holds category codes, when the layer's input begins with ``x`` (None
    #: otherwise): set by the cascade.
    categories = None
    #: Targets of the block: 1, or K when fitted on a 2-D ``y`` (set on such a block only).
    n_outputs = 1

    def fit(self, X, y, sample_weight, rng, categorical=None, prefix=None):
        """Fit the block and return the out-of-fold predictions of the training rows.

        Parameters
        ----------
        X : ndarray of float32 (n, d), C-contiguous
            Layer input; NaN marks a missing value.
        y : ndarray of float64 (n,) or (n, K)
            K targets: the forests grow multi-output trees (:mod:`mddf.trees.squared_error_multi`), the other
            members must take a 2-D ``y`` (XGBoost does, one tree per target a round).
        sample_weight : ndarray of float64 (n,)
            Non-negative row weights. Rows of weight 0 never reach a tree but
            still get out-of-fold predictions (the folds are drawn over all rows).
        rng : numpy.random.RandomState
            Source of every seed of this layer (the folds', then each forest's),
            consumed in a fixed order so that results do not depend on ``n_jobs``.
        categorical : ndarray of bool (d,) or None
            Columns the trees split into subsets of categories
            (:class:`mddf.forests.BinnedInput`); None: none.
        prefix : BinnedInput or None
            The first columns of ``X`` already binned (the cascade's ``x``).

        Returns
        -------
        ndarray of float64, shape (n, n_members), or (n, n_members, K): each member's out-of-fold predictions.
        """
        members = self.members()
        self._begin()
        self._check_members_take_nan(X, members)
        self.n_features_in_ = X.shape[1]
        forest_input = BinnedInput(X, categorical, prefix) if any(member.forest for member in members) else X
        y = np.ascontiguousarray(y, dtype=np.float64)
        if y.ndim == 2:
            self.n_outputs = y.shape[1]
        weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        trainable = weight > 0
        # the members fitted whole get the sample weights only when they differ (equal weights change nothing)
        equal = not (trainable.any() and np.ptp(weight[trainable]) > 0)
        layer = LayerFit(
            X,
            forest_input,
            y,
            None,
            categorical,
            self.n_estimators,
            self.max_depth,
            self.max_features,
            resample_weight=weight,
            weights_name="its sample weights",
            weights_equal=equal,
            monotone=layer_constraints(self.monotone, X.shape[1], (1,)),
            categories=layer_categories(self.categories, X.shape[1]),
        )
        tasks, slots = [], []
        statistics = self._statistics(rng, X, y, None)  # of the block's target: the residual with target="residual"
        for fold in self._folds(rng, y, trainable):
            fold = replace(fold, weight=weight)  # the forests' bootstrap is uniform: no draws
            fold_layer = self._fold_layer(layer, fold, statistics, categorical, prefix)
            for j, member in enumerate(members):
                tasks.append(self._member_task(fold, j, member, fold_layer))
                slots.append((j, fold.test))
        return self._gather(tasks, slots, len(y), self._width)

    @property
    def _width(self):
        return () if self.n_outputs == 1 else (self.n_outputs,)

    def predict(self, X, prefix=None):
        """Each member's prediction of new rows, averaged over its fold models.

        ``prefix``: the :class:`mddf.forests.PrefixCodes` of the ``x`` that ``X`` begins with, or None.

        Returns
        -------
        ndarray of float64, shape (n, n_members), or (n, n_members, K)
        """
        return self._predict_members(X, self._width, prefix)
