"""Forests: the kinds a block grows, how it grows them tree by tree, and how the fitted forests are stored.

The second layer of mddf, on top of :mod:`mddf.trees` (one tree) and below the
blocks and cascades (see :mod:`mddf` for the layers). One concern per module:

- :mod:`~mddf.forests.kinds`: the forest kinds, :data:`FORESTS` (``"rf"``,
  ``"crf"``, ``"et"``: bootstrap, candidate features, split rule) and the
  scikit-learn forests each is equivalent to (:func:`make_forest`,
  :func:`make_regression_forest`);
- :mod:`~mddf.forests.boosting`: the boosted trees a block or a cascade uses
  beside its forests, the ``"gbdt"`` member (:func:`make_gbdt`), the ``"lgbm"``
  member (:func:`make_lgbm`), the ``"catboost_es"`` member
  (:func:`make_catboost`) and the ``"hgb"`` predictor (:func:`make_hgb`);
- :mod:`~mddf.forests.binned_input`: :class:`BinnedInput`, a layer's input
  binned once for all its trees, and :class:`PrefixCodes`, the codes of the
  rows being predicted;
- :mod:`~mddf.forests.growing`: growing one forest tree by tree on the shared
  input (:func:`grow_forest`), with the held-out rows' outputs
  (:func:`fit_forest` of a :class:`ForestSpec`, either task) or the out-of-bag ones
  (:func:`fit_oob_forest`), by a :class:`TreeGrower` (binned trees) or
  :class:`ExactTrees` (scikit-learn's trees);
- :mod:`~mddf.forests.stored`: :class:`StoredForest`, the one base of the
  stored forests: their arrays, and the checks that run before they are trusted;
- :mod:`~mddf.forests.binned`: the forests of binned trees as node words,
  :class:`BinnedForest` (class probabilities) and
  :class:`BinnedRegressionForest` (means), packed as they grow by
  :class:`ForestBuilder`;
- :mod:`~mddf.forests.compact`: :class:`CompactForest`, scikit-learn's trees
  (``tree_method="exact"``) compacted;
- :mod:`~mddf.forests.attribution`: a stored forest's output attributed to its
  features, the mean of its trees' attributions (``attributions`` of both stored forests).

Classification and regression differ here only where the task does: the
trees' criterion and the width of the output.
"""

from .binned import BinnedForest, BinnedRegressionForest, ForestBuilder, PackedForest
from .binned_input import MAX_SUBSET_CATEGORIES, BinnedInput, PrefixCodes
from .boosting import (
    CATBOOST_KINDS,
    CATBOOST_PARAMS,
    GBDT_KINDS,
    GBDT_PARAMS,
    LGBM_KINDS,
    LGBM_PARAMS,
    make_catboost,
    make_gbdt,
    make_hgb,
    make_lgbm,
)
from .compact import CompactForest
from .growing import ExactTrees, ForestSpec, TreeGrower, fit_forest, fit_oob_forest, fold_share, grow_forest
from .kinds import (
    FOREST_KINDS,
    FORESTS,
    MAX_FEATURES,
    ForestKind,
    forest_kind,
    make_forest,
    make_regression_forest,
    resolve_max_features,
)
from .stored import StoredForest

__all__ = [
    "FOREST_KINDS",
    "FORESTS",
    "GBDT_KINDS",
    "GBDT_PARAMS",
    "LGBM_KINDS",
    "LGBM_PARAMS",
    "CATBOOST_KINDS",
    "CATBOOST_PARAMS",
    "MAX_FEATURES",
    "MAX_SUBSET_CATEGORIES",
    "BinnedForest",
    "BinnedInput",
    "BinnedRegressionForest",
    "CompactForest",
    "ExactTrees",
    "ForestBuilder",
    "ForestKind",
    "ForestSpec",
    "PackedForest",
    "PrefixCodes",
    "StoredForest",
    "TreeGrower",
    "fit_forest",
    "fit_oob_forest",
    "fold_share",
    "forest_kind",
    "grow_forest",
    "make_forest",
    "make_gbdt",
    "make_hgb",
    "make_lgbm",
    "make_catboost",
    "make_regression_forest",
    "resolve_max_features",
]
