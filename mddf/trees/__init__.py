"""Decision trees grown on binned features, compiled with numba (``tree_method="hist"``).

The forests' trees are grown on features quantised once per layer to at most
256 ordered bins (as LightGBM, XGBoost's ``hist`` method and DF21 do), with
scikit-learn's split rules. One concern per module, as in scikit-learn's
``sklearn/ensemble/_hist_gradient_boosting``:

- :mod:`~mddf.trees.binning`: :class:`FeatureBinner`, the bin edges of each
  feature and the uint8 bin codes of any rows, missing values (NaN) in a bin
  of their own;
- :mod:`~mddf.trees.splitting`: the split rules on one feature of a node (its
  best Gini threshold, a completely-random one, or the Gini score of a random
  one for extremely-randomised trees, each with the side its missing values go
  to) and the random generator;
- :mod:`~mddf.trees.grower`: :func:`grow_tree`, growing one tree depth first
  (node stack, candidate-feature draws, row partitions) into flat node arrays,
  with its Gini importance per feature;
- :mod:`~mddf.trees.predictor`: :func:`add_tree_proba`, routing rows through
  one grown tree to its leaves' class distributions;
- :mod:`~mddf.trees.forest`: :class:`BinnedForest`, a layer forest's trees
  stored compactly by their bins, predicting new float rows.

Regression trees (squared-error criterion, leaves holding weighted means) have
modules of their own, one concern each as above:
:mod:`~mddf.trees.regression_splitting`,
:mod:`~mddf.trees.regression_grower` (:func:`grow_regression_tree`),
:mod:`~mddf.trees.regression_predictor` (:func:`add_tree_values`) and
:mod:`~mddf.trees.regression_forest` (:class:`BinnedRegressionForest`).

numba's on-disk cache of a compiled function is invalidated only by changes to
its own file, not to the functions it calls from other modules: after editing
``splitting.py``, ``regression_splitting.py`` or ``binning.py``, delete ``mddf/trees/__pycache__``.
"""

from .binning import MAX_BINS, FeatureBinner
from .forest import BinnedForest
from .grower import grow_tree
from .predictor import add_tree_proba
from .regression_forest import BinnedRegressionForest
from .regression_grower import grow_regression_tree
from .regression_predictor import add_tree_values

__all__ = [
    "MAX_BINS",
    "BinnedForest",
    "BinnedRegressionForest",
    "FeatureBinner",
    "add_tree_proba",
    "add_tree_values",
    "grow_regression_tree",
    "grow_tree",
]
