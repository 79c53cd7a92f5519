"""One layer of the regression cascade: forests of binned regression trees, cross-fitted over k folds.

The regression counterpart of :class:`mddf._block.ForestBlock` (gcForest's
layer, Zhou and Feng): each forest gives every training row a predicted value
from fold models that never saw that row, and gives new rows the mean of its
fold models. The trees are those of :mod:`mddf.trees` for regression
(:func:`~mddf.trees.grow_tree` with the squared error), grown on the layer input
quantised once per layer to at most 256 bins per feature
(:class:`mddf._block_base.BinnedInput`).
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold

from ._block_base import BinnedInput, BlockBase, TreeGrower, grow_forest
from ._forest_kinds import forest_kind
from .trees._compile_notice import announce_compilation
from .trees.grower import GROW_SQUARED_ERROR


def make_regression_forest(kind, n_estimators, max_depth, max_features, random_state):
    """A forest of the regression block, as the scikit-learn estimator it is equivalent to.

    :class:`RegressionForestBlock` grows these trees itself on binned features
    (see :func:`_fit_regression_forest`), with the same split rules: ``"rf"``
    is ``RandomForestRegressor(max_features=max_features)``, ``"crf"``
    ``ExtraTreesRegressor(max_features=1)`` and ``"et"``
    ``ExtraTreesRegressor(max_features=max_features)`` (:mod:`mddf._forest_kinds`).
    """
    return forest_kind(kind).make("regression", n_estimators, max_depth, max_features, random_state)


def _fit_regression_forest(
    kind, n_estimators, max_depth, max_features, seed, X, y, rows, weight, predict_rows, n_kept=None
):
    """Grow one forest on the rows ``rows`` of the shared layer input; its mean prediction of ``predict_rows``.

    Random forests (``"rf"``) draw ``len(rows)`` rows uniformly with
    replacement from ``rows`` for each tree (the bootstrap); the other kinds
    train every tree on ``rows``. A row's weight is its count in the draw
    times its sample weight ``weight``, so sample weights move the splits and
    the leaves' weighted means but not the bootstrap. The forest keeps its
    first ``n_kept`` trees (None: all).

    Returns
    -------
    (BinnedRegressionForest, ndarray of float64 (len(predict_rows),))
    """
    trees = TreeGrower(kind, max_depth, max_features, X, y, None)
    forest, prediction = grow_forest(
        trees, n_estimators, seed, len(y), rows, weight, forest_kind(kind).bootstrap, predict_rows, n_kept=n_kept
    )
    return forest, prediction[:, 0]


class RegressionForestBlock(BlockBase):
    """The forests of one layer of the regression cascade, cross-fitted over k folds.

    Parameters
    ----------
    forest_types : sequence of {"rf", "crf", "et"}
        One entry per forest (see :func:`make_regression_forest`).
    n_estimators : int
        Trees per forest.
    max_depth : int or None
        Depth limit of every tree of this layer.
    max_features : int, float, "sqrt", "log2" or None
        Candidate features per split of the ``"rf"`` and ``"et"`` trees
        (:func:`mddf._forest_kinds.resolve_max_features`); completely-random trees draw one.
    n_folds : int
        k: the rows are split into k folds (shuffled, not stratified); for each
        fold, each forest is trained on the other folds and predicts the
        held-out one. New rows get the mean of the k fold models.
    n_jobs, store, name, fold_trees
        Parallel fits and predictions, where the fitted forests are kept, and
        what a forest's fold models keep for new rows (see
        :class:`mddf._block_base.BlockBase`).

    Missing values (NaN) in the layer input are handled by the trees
    (:mod:`mddf.trees.squared_error`); the predicted values never hold NaN.

    Attributes
    ----------
    models_ : list (n_forests) of lists (n_folds) of BinnedRegressionForest
        Each forest's fold models (with a :class:`mddf._storage.ModelStore`, their
        :class:`mddf._storage.StoredModel` handles).
    forests_ : list (n_folds) of lists (n_forests)
        The same models, fold first.
    importances_ : ndarray of float64 (d,)
        Impurity-based importance of each input column: a tree's weighted
        variance decrease per feature divided by its root's weight (scikit-learn's
        ``compute_feature_importances(normalize=False)``), averaged over every
        tree of every forest and fold model. In squared units of the target; not
        normalised.
    """

    splitter = KFold

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
    ):
        super().__init__(forest_types, n_folds, n_jobs, store, name, fold_trees)
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_features = max_features

    def fit(self, X, y, sample_weight, rng, categorical=None, prefix=None):
        """Fit the block and return the out-of-fold predictions of the training rows.

        Parameters
        ----------
        X : ndarray of float32 (n, d), C-contiguous
            Layer input; NaN marks a missing value.
        y : ndarray of float64 (n,)
        sample_weight : ndarray of float64 (n,)
            Non-negative row weights. Rows of weight 0 never reach a tree but
            still get out-of-fold predictions (the folds are drawn over all rows).
        rng : numpy.random.RandomState
            Source of every seed of this layer (the folds', then each forest's),
            consumed in a fixed order so that results do not depend on ``n_jobs``.
        categorical : ndarray of bool (d,) or None
            Columns the trees split into subsets of categories
            (:class:`mddf._block_base.BinnedInput`); None: none.
        prefix : BinnedInput or None
            The first columns of ``X`` already binned (the cascade's ``x``).

        Returns
        -------
        ndarray of float64, shape (n, n_forests): each forest's out-of-fold predictions.
        """
        for kind in self.forest_types:
            forest_kind(kind)
        announce_compilation(GROW_SQUARED_ERROR)  # the first fit of a fresh install compiles the trees
        self.n_features_in_ = X.shape[1]
        X = BinnedInput(X, categorical, prefix)
        y = np.ascontiguousarray(y, dtype=np.float64)
        weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        tasks, slots = [], []
        for i, train, test, seeds in self._folds(rng, y, weight > 0):
            for j, kind in enumerate(self.forest_types):
                n_kept = self._kept_trees(self.n_estimators, i)
                args = (
                    kind,
                    self.n_estimators,
                    self.max_depth,
                    self.max_features,
                    seeds[j],
                    X,
                    y,
                    train,
                    weight,
                    test,
                    n_kept,
                )
                tasks.append(self._task(f"m{j}-fold{i}", _fit_regression_forest, *args))
                slots.append((j, test))
        return self._gather(tasks, slots, len(y), ())

    def predict(self, X):
        """Each forest's prediction of new rows, averaged over its fold models.

        Returns
        -------
        ndarray of float64, shape (n, n_forests)
        """
        return self._predict_members(X, _predict_binned, ())


def _predict_binned(forest, codes, has_missing):
    return forest.predict_binned(codes, has_missing)
