"""Decision trees grown on binned features, compiled with numba (``tree_method="hist"``).

The lowest layer of mddf (see :mod:`mddf` for the layers): one tree, grown,
stored and routed; the forests that gather trees are :mod:`mddf.forests`. The
trees are grown on features quantised once per layer to at most 256 ordered
bins (as LightGBM, XGBoost's ``hist`` method and DF21 do), with scikit-learn's
split rules. One concern per module, as in scikit-learn's
``sklearn/ensemble/_hist_gradient_boosting``:

- :mod:`~mddf.trees.binning`: :class:`FeatureBinner`, the bin edges of each
  feature and the uint8 bin codes of any rows, missing values (NaN) in a bin
  of their own;
- :mod:`~mddf.trees.splitting`: what the split search needs whatever the
  criterion: the random generator, random thresholds and random category subsets;
- :mod:`~mddf.trees.criterion`: what a split criterion is, the functions the
  grower calls (a node's statistics, its leaf, the best threshold or category
  subset of a feature, the score of a given one, the partition of a node's
  rows), and the registry of the criteria by name;
- :mod:`~mddf.trees.gini` and :mod:`~mddf.trees.squared_error`: the two
  criteria (classification and regression);
- :mod:`~mddf.trees.loops`: the loops over a node's rows that the criteria
  share (the partition of its rows, the score of a given split), written once
  and compiled per criterion with its per-row functions;
- :mod:`~mddf.trees.monotone`: monotone constraints (``grow_tree(monotone=...)``):
  the check of a split, its children's bounds and the best split in order,
  compiled per criterion;
- :mod:`~mddf.trees.grower`: :func:`grow_tree`, one skeleton growing a tree
  depth first (node stack, candidate-feature draws, row partitions) into flat
  node arrays, with its impurity importance per feature, compiled once per
  registered criterion;
- :mod:`~mddf.trees.nodes`: the node words that store a grown tree, one word a
  node, and their validation;
- :mod:`~mddf.trees.packing`: a grown tree packed into node words;
- :mod:`~mddf.trees.predictor`: :func:`route_trees`, routing rows through
  stored trees to their leaves;
- :mod:`~mddf.trees.attribution`: a stored tree's output attributed to its
  features for given rows, exact TreeSHAP and path contributions;
- :mod:`~mddf.trees.first_use`: :func:`uncompiled_kinds`, the kinds of input
  whose next fit compiles its tree builder (what an estimate counts);
- ``_compile_notice`` (private): the line on stderr that says what numba
  compiles, and why, when a fit or a prediction compiles mddf's code.

numba keeps the compiled code in its on-disk cache (``cache=True``), stamped
with a digest of the sources of all of mddf's compiled code (the private
``mddf._runtime.compile_cache``), not only of the compiled function's own file: after
an edit of any of these modules, even of one whose functions or constants
another module's compiled function holds (``splitting.py``, ``gini.py``,
``squared_error.py``, ``nodes.py``, ``binning.py``), numba compiles afresh on
the next call, and nothing needs deleting.
"""

from . import _compile_notice  # noqa: F401 (registers the notice of numba's compilations)
from .binning import MAX_BINS, FeatureBinner
from .first_use import uncompiled_kinds
from .grower import BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD, GrownTree, TreeSettings, grow_tree
from .predictor import PackedTrees, route_trees

__all__ = [
    "BEST",
    "COMPLETELY_RANDOM",
    "MAX_BINS",
    "RANDOM_THRESHOLD",
    "FeatureBinner",
    "GrownTree",
    "PackedTrees",
    "TreeSettings",
    "grow_tree",
    "route_trees",
    "uncompiled_kinds",
]
