"""Growing one forest tree by tree on a layer's shared input, with each row's output from the trees that never saw it.

A forest is grown one tree at a time by :func:`grow_forest`: each tree trains on
the whole layer input with a row weight that is zero outside its training rows
(a bootstrap, a weighted resample, or a fold's rows), is kept in the forest's
storage as soon as it is grown, and adds its output to the rows it did not
train on (the held-out fold, or each row's out-of-bag trees). The trees are
grown by a :class:`TreeGrower` (:mod:`mddf.trees` on a
:class:`~mddf.forests.BinnedInput`, ``tree_method="hist"``, stored as a
:class:`~mddf.forests.BinnedForest` or :class:`~mddf.forests.BinnedRegressionForest`)
or by :class:`ExactTrees` (scikit-learn's trees on float values,
``tree_method="exact"``, stored as a :class:`~mddf.forests.CompactForest`).
:func:`fit_forest` fits a forest of either task on a fold, as a
:class:`ForestSpec` states it, and gives the held-out rows' outputs; :func:`fit_oob_forest` fits a bagged classification
forest on every row and gives their out-of-bag class vectors. The tasks differ
in the trees' criterion (Gini for class indices, the squared error for
targets, :mod:`mddf.trees.criterion`) and the width of the output (the classes,
or one value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..trees import TreeSettings, grow_tree
from .binned import ForestBuilder
from .binned_input import MAX_CATEGORY_SPLITS, MIN_CATEGORY_COUNT, BinnedInput
from .compact import CompactForest
from .kinds import forest_kind
from .sampling import Bootstrap

#: Seeds are drawn below this bound (numpy's ``RandomState`` takes 32-bit seeds).
MAX_SEED = np.iinfo(np.int32).max


def criterion(n_classes, n_outputs=1):
    """The split criterion of a forest's trees (:data:`mddf.trees.criterion.CRITERIA`): ``"gini"`` for
    ``n_classes`` classes, ``"squared_error"`` for a regression forest (``n_classes`` None) of one target,
    ``"squared_error_multi"`` of ``n_outputs`` > 1."""
    if n_classes is not None:
        return "gini"
    return "squared_error" if n_outputs == 1 else "squared_error_multi"


def n_outputs(y):
    """Targets a row of regression targets ``y`` holds: 1 for ``(n,)``, K for ``(n, K)``."""
    return 1 if y.ndim == 1 else y.shape[1]


class TreeGrower:
    """The trees of one forest of :mod:`mddf.trees`, grown on a :class:`BinnedInput` and packed as they come.

    Parameters
    ----------
    kind : str
        The forest kind (:mod:`mddf.forests.kinds`): its split rule and how many candidate features.
    max_depth : int or None
    max_features : int, float, str or None
        The block's ``max_features`` setting (:meth:`mddf.forests.ForestKind.n_candidates`).
    X : BinnedInput
    y : ndarray of int64 (class indices) or float64 (targets, ``(n,)`` or ``(n, K)``)
    n_classes : int or None
        Classes of a classification forest; None for regression.
    monotone : tuple of int or None, default=None
        A monotone constraint per column (:func:`mddf.trees.grow_tree`); None: none.
    """

    def __init__(self, kind, max_depth, max_features, X, y, n_classes, monotone=None):
        forest = forest_kind(kind)
        self.X, self.y, self.n_classes, self.monotone = X, y, n_classes, monotone
        outputs = 1 if n_classes is not None else n_outputs(y)
        self.width = n_classes or outputs  # columns of a tree's output
        self.criterion = criterion(n_classes, outputs)
        self.tree_classes = n_classes or (outputs if outputs > 1 else 0)  # what grow_tree's n_classes reads
        self.settings = TreeSettings(
            -1 if max_depth is None else int(max_depth),
            forest.n_candidates(max_features, X.codes.shape[1]),
            forest.split_rule,
            MAX_CATEGORY_SPLITS,
            MIN_CATEGORY_COUNT,
        )
        self.builder = ForestBuilder(X.binner, n_classes, outputs)

    def add(self, weight, seed, keep=True):
        """Grow one tree on the rows' ``weight`` (0: not in the tree's sample); keep it in the forest if ``keep``.

        A tree not kept serves :meth:`accumulate_last` only.
        """
        X = self.X
        tree = grow_tree(
            X.codes,
            self.y,
            weight,
            X.n_bins,
            X.missing_bin,
            X.categorical,
            self.tree_classes,
            self.settings,
            seed,
            self.criterion,
            self.monotone,
        )
        self.builder.add(tree, keep)

    def accumulate_last(self, rows, out):
        """Add the last tree's output for the rows ``rows`` of the input to ``out`` ``(len(rows), n_classes or 1)``."""
        self.builder.route_last(self.X.codes, rows, self.X.has_missing, out)

    def finish(self):
        """The forest of the trees kept: a :class:`~mddf.forests.BinnedForest` or, for regression, a
        :class:`~mddf.forests.BinnedRegressionForest`."""
        return self.builder.finish()


class ExactTrees:
    """scikit-learn's trees on the float layer input, compacted as they are fitted (classification,
    ``tree_method="exact"``).

    NaN in the input are scikit-learn's missing values: each split sends them to
    the side it chooses (the best one for ``DecisionTreeClassifier``, a random
    one for ``ExtraTreeClassifier``), or to the child with more samples when the
    node had none. The interface is :class:`TreeGrower`'s; ``max_features`` is the block's
    setting (:meth:`~mddf.forests.ForestKind.max_features`).
    """

    def __init__(self, kind, max_depth, max_features, X, y, n_classes):
        forest = forest_kind(kind)
        self.tree_class = forest.exact_tree
        self.max_features = forest.max_features(max_features)
        self.max_depth, self.X, self.y, self.n_classes = max_depth, X, y, n_classes
        self.width = n_classes
        self.compact = CompactForest.growing(n_classes, X.shape[1])
        self._last = self._rows = self._X_rows = None
        # scikit-learn's trees find the features with NaN only when they check their input
        self.check_input = bool(np.isnan(X).any())
        if self.check_input:
            check_exact_trees_missing(kind)

    def add(self, weight, seed, keep=True):
        """Fit one tree on the rows' ``weight``; keep it, compacted, if ``keep`` (:meth:`TreeGrower.add`)."""
        tree = self.tree_class(max_features=self.max_features, max_depth=self.max_depth, random_state=seed)
        # check_input=False: X is validated once per layer (float32), not once per tree; with NaN the
        # check also tells the tree which features have missing values
        tree.fit(self.X, self.y, sample_weight=weight, check_input=self.check_input)
        if keep:
            self.compact.add_tree(tree, tree.classes_.astype(np.intp))
        self._last = tree  # at most one full scikit-learn tree alive per worker

    def accumulate_last(self, rows, out):
        """Add the last tree's class probabilities of the rows ``rows`` to ``out`` ``(len(rows), n_classes)``."""
        if rows is not self._rows:  # the held-out rows are the same for every tree: slice them once
            self._rows, self._X_rows = rows, self.X[rows]
        out[:, self._last.classes_.astype(np.intp)] += self._last.predict_proba(self._X_rows, check_input=False)

    def finish(self):
        """The :class:`~mddf.forests.CompactForest` of the trees kept."""
        self._last = None
        return self.compact.finish()


def forest_trees(kind, max_depth, max_features, X, y, n_classes, monotone=None):
    """The tree grower of one forest: :mod:`mddf.trees` on a :class:`BinnedInput`, scikit-learn's trees on floats.

    ``y`` holds class indices (``n_classes`` classes) or, with ``n_classes`` None, targets; ``monotone`` a monotone
    constraint per column (:class:`TreeGrower`; a ``ValueError`` with scikit-learn's trees).
    """
    if isinstance(X, BinnedInput):
        labels = y if n_classes is None else y.astype(np.int64, copy=False)
        return TreeGrower(kind, max_depth, max_features, X, labels, n_classes, monotone)
    if monotone is not None:
        raise ValueError("monotone constraints are honoured by tree_method='hist' forests, not 'exact'")
    return ExactTrees(kind, max_depth, max_features, X, y, n_classes)


@dataclass(frozen=True, eq=False)
class ForestSpec:
    """One forest fit of :func:`fit_forest` and :func:`staged_forest`: the forest, its rows and its outputs.

    Random forests (``"rf"``) draw ``len(rows)`` rows uniformly with replacement
    from ``rows`` for each tree (the bootstrap); the other kinds train every
    tree on ``rows``. With ``draws`` (a weighted bootstrap over ``rows``) every
    tree of any kind trains on its own weighted resample. A row's weight is its
    count in the draw times ``weight``, so sample weights move the splits and
    the leaves but not the bootstrap. The trees are the ones
    :func:`~mddf.forests.make_forest` (classification, ``n_classes`` classes) or
    :func:`~mddf.forests.make_regression_forest` (``n_classes`` None) builds (same
    split rules, same ``max_features``); the forest keeps its first ``n_kept``
    (None: all).

    Attributes
    ----------
    kind : {"rf", "crf", "et"}
    n_estimators, max_depth : int, int or None
    max_features : int, float, str or None
        The block's setting (:meth:`ForestKind.n_candidates`).
    seed : int
    X : BinnedInput or ndarray of float32 (n, d)
        The layer input: binned (``tree_method="hist"``), or float values for
        scikit-learn's trees (``"exact"``, classification only).
    y : ndarray (n,)
        Class indices, or the targets.
    rows : ndarray of int
        Training rows, repeated rows counted as many times.
    weight : ndarray (n,) or None
        Row weights multiplying the draws' counts.
    predict_rows : ndarray of int
        The held-out rows.
    n_classes : int or None, default=None
        Classes of a classification forest; None for regression.
    draws : weighted bootstrap over ``rows``, or None, default=None
    n_kept : int or None, default=None
    monotone : tuple of int or None, default=None
        A monotone constraint per column of ``X`` (:func:`mddf.trees.grow_tree`); None: none.
    """

    kind: str
    n_estimators: int
    max_depth: int | None
    max_features: int | float | str | None
    seed: int
    X: object
    y: np.ndarray
    rows: np.ndarray
    weight: np.ndarray | None
    predict_rows: np.ndarray
    n_classes: int | None = None
    draws: object = None
    n_kept: int | None = None
    monotone: tuple | None = None


def _forest_spec(spec=None, /, *fields, **named):
    """``spec`` if it is a :class:`ForestSpec`, else the one of the fields given (the former signature of
    :func:`fit_forest`: ``ForestSpec``'s fields in order, or by name)."""
    if isinstance(spec, ForestSpec):
        if fields or named:
            raise TypeError("fit_forest takes a ForestSpec alone, or its fields without one")
        return spec
    return ForestSpec(*(() if spec is None else (spec,)), *fields, **named)


def fit_forest(spec=None, /, *fields, **named):
    """Fit one forest on the rows ``spec.rows`` of the shared layer input and predict ``spec.predict_rows`` (runs in
    a worker).

    Parameters
    ----------
    spec : ForestSpec
        The fit. ``ForestSpec``'s fields in its place, in order or by name, are taken as the one of them.

    Returns
    -------
    (forest, output): the fitted forest and its mean output of ``predict_rows``, class
    probabilities ``(len(predict_rows), n_classes)`` or predictions ``(len(predict_rows),)``.
    """
    staged = staged_forest(spec, *fields, **named)
    return staged.grow(staged.n_estimators).finish()


def staged_forest(spec=None, /, *fields, **named):
    """The fit of :func:`fit_forest` (same parameters) as a :class:`StagedForest`, no tree grown yet."""
    spec = _forest_spec(spec, *fields, **named)
    growth = ForestGrowth(
        forest_trees(spec.kind, spec.max_depth, spec.max_features, spec.X, spec.y, spec.n_classes, spec.monotone),
        spec.n_estimators,
        spec.seed,
        len(spec.y),
        spec.rows,
        spec.weight,
        bootstrap=forest_kind(spec.kind).bootstrap or spec.draws is not None,
        predict_rows=spec.predict_rows,
        draws=spec.draws,
        n_kept=spec.n_kept,
    )
    return StagedForest(growth, spec.n_classes)


def fold_share(n_estimators, n_folds, fold):
    """The trees fold model ``fold`` of a forest keeps with ``fold_trees="share"``: its share of ``n_estimators``.

    ``n_estimators // n_folds``, one more for the first ``n_estimators % n_folds`` folds, and at least one.
    """
    share, rest = divmod(n_estimators, n_folds)
    return max(1, share + (fold < rest))


def fit_oob_forest(
    kind, n_estimators, max_depth, max_features, seed, X, y, weight, n_classes, rows=None, monotone=None
):
    """Fit one bootstrapped forest on every row (or on ``rows``); its out-of-bag class vectors.

    Each tree draws its bootstrap rows uniformly and receives D_t as weights of
    the rows it drew. scikit-learn's own forests (since 1.8) draw the bootstrap
    in proportion to ``sample_weight`` instead; then the heavily weighted rows,
    the misclassified ones, are almost never out of bag, whether a row has an
    out-of-bag estimate depends on its label, and the next layer learns that
    (its out-of-bag accuracy then overstates its test accuracy; see
    ``docs/benchmarks/cascade-defaults.md``). Uniform
    bootstrap keeps out-of-bag membership independent of the labels. Rows left
    out of ``rows`` (of sample weight 0) are out of every bag, and a row that is
    in every bag (about 0.37^n_estimators of them) gets the uninformative
    ``1 / n_classes`` in every column. The parameters are the fields of :class:`ForestSpec` of the same names.

    Returns
    -------
    (forest, ndarray of float64 (n, n_classes)): the forest and every row's out-of-bag class vector.
    """
    staged = staged_oob_forest(
        kind, n_estimators, max_depth, max_features, seed, X, y, weight, n_classes, rows, monotone
    )
    return staged.grow(n_estimators).finish()


def staged_oob_forest(
    kind, n_estimators, max_depth, max_features, seed, X, y, weight, n_classes, rows=None, monotone=None
):
    """The fit of :func:`fit_oob_forest` (same parameters) as a :class:`StagedForest`, no tree grown yet."""
    growth = ForestGrowth(
        forest_trees(kind, max_depth, max_features, X, y, n_classes, monotone),
        n_estimators,
        seed,
        len(y),
        np.arange(len(y)) if rows is None else rows,
        weight,
        bootstrap=True,
        predict_rows="oob",
    )
    return StagedForest(growth, n_classes)


class StagedForest:
    """A forest fit of :func:`fit_forest` or :func:`fit_oob_forest` grown in stages, with its outputs at each.

    ``grow(k)`` grows the forest to ``k`` trees, :meth:`output` gives the outputs of the trees grown so far as the
    fit gives them (held-out rows' mean outputs, ``[:, 0]`` for regression; every row's out-of-bag class
    vector), and :meth:`finish` ends it: ``staged.grow(n_estimators).finish()`` is the fit, bit for bit.

    Parameters
    ----------
    growth : ForestGrowth
    n_classes : int or None
        Classes of a classification forest; None for regression.
    """

    def __init__(self, growth, n_classes):
        self.growth, self.n_classes = growth, n_classes

    @property
    def n_estimators(self):
        return self.growth.n_estimators

    def grow(self, n_trees):
        """Grow the forest to ``n_trees`` trees (at most ``n_estimators``); return self."""
        self.growth.grow(n_trees)
        return self

    def output(self):
        """The outputs of the trees grown so far (a new array)."""
        growth = self.growth
        if growth.oob:
            return self._oob_proba(growth.output_sum, growth.output_count)
        return self._held_out(growth.output_sum / growth.n_grown)

    def probe(self, first, trees):
        """The probe's outputs: those of the first ``first`` trees and of the first ``trees`` (grown in turn)."""
        early = self.grow(first).output()
        return early, self.grow(trees).output()

    def finish(self):
        """``(forest, output)``: the forest of the trees grown and their outputs."""
        forest, output = self.growth.finish()
        if self.growth.oob:
            return forest, self._oob_proba(*output)
        return forest, self._held_out(output)

    def _held_out(self, mean):
        return mean if self.n_classes is not None or self.growth.trees.y.ndim == 2 else mean[:, 0]

    def _oob_proba(self, sums, counts):
        """Each row's mean out-of-bag class vector; ``1 / n_classes`` for a row in every bag so far."""
        seen = counts > 0
        proba = np.full((len(counts), self.n_classes), 1.0 / self.n_classes)
        proba[seen] = sums[seen] / counts[seen, None]
        return proba


def grow_forest(trees, n_estimators, seed, n, rows, weight, bootstrap, predict_rows, draws=None, n_kept=None):
    """Grow one forest tree by tree on the rows ``rows`` of the shared layer input.

    Each tree is fitted on the whole layer input with a row weight that is zero
    outside its training rows, so no fold or bootstrap copy of the data is ever
    made, and it is packed at once (``trees``: a :class:`TreeGrower`, or
    scikit-learn's trees in :class:`ExactTrees`). The parameters are
    :class:`ForestGrowth`'s, which grows the trees.

    Returns
    -------
    (forest, output): the forest and, for held-out rows, the mean output of its trees
    ``(len(predict_rows), width)``; for ``"oob"``, the sum of each row's outputs over the trees
    whose bootstrap left it out ``(n, width)`` and their number ``(n,)``.
    """
    growth = ForestGrowth(trees, n_estimators, seed, n, rows, weight, bootstrap, predict_rows, draws, n_kept)
    growth.grow(n_estimators)
    return growth.finish()


class ForestGrowth:
    """One forest being grown, tree by tree: stopped after any number of trees and resumed to the same forest.

    The trees are drawn from one generator seeded with ``seed`` in a fixed order (a tree's seed, then its
    rows), so a forest grown to ``k`` trees and then on to ``n_estimators`` is bit for bit the forest grown to
    ``n_estimators`` at once: the cascade's layer probes grow a share of a layer's trees first
    (:mod:`mddf.cascade.probing`) and finish only the layers that may be kept.

    Parameters
    ----------
    trees : TreeGrower or ExactTrees
        ``add(weight, seed, keep)``, ``accumulate_last(rows, out)`` and ``finish()``.
    n_estimators, seed : int
    n : int
        Rows of the layer input.
    rows : ndarray of int
        Training rows of the forest, repeated rows counted as many times (a
        weighted resample of a fold).
    weight : ndarray (n,) or None
        Per-row weight multiplying the row counts (sample weights, or D_t in
        ``sample_weight`` mode).
    bootstrap : bool
        Each tree draws ``len(rows)`` rows with replacement from ``rows``:
        uniformly, unlike scikit-learn >= 1.8 forests, which draw the bootstrap in
        proportion to ``sample_weight`` (see :func:`fit_oob_forest`),
        unless ``draws`` is given.
    predict_rows : ndarray of int, or "oob"
        Rows whose outputs are returned: the held-out fold, or ``"oob"`` for
        each row's mean over the trees whose bootstrap left it out.
    draws : Bootstrap over ``rows``, or None
        Draws of the bootstrap in proportion to D_t: every tree then trains on its
        own weighted resample of ``rows``.
    n_kept : int or None
        The forest keeps its first ``n_kept`` trees (None: all); every tree gives
        its outputs of ``predict_rows``.

    Attributes
    ----------
    n_grown : int
        Trees grown so far.
    output_sum : ndarray of float64
        The sum of the grown trees' outputs of ``predict_rows`` ``(len(predict_rows), width)``, or of
        each row's out-of-bag outputs ``(n, width)``.
    output_count : ndarray of float64 (n,) or None
        With ``"oob"``, how many grown trees left each row out of their bootstrap; else None.
    """

    def __init__(self, trees, n_estimators, seed, n, rows, weight, bootstrap, predict_rows, draws=None, n_kept=None):
        self.trees, self.n_estimators, self.n, self.rows, self.weight = trees, n_estimators, n, rows, weight
        self.rng = np.random.RandomState(seed)
        self.bootstrap = bootstrap
        self.draws = Bootstrap(rows) if bootstrap and draws is None else draws
        self.base_counts = None if bootstrap else np.bincount(rows, minlength=n).astype(np.float64)
        self.oob = isinstance(predict_rows, str)
        if self.oob:
            self.predict_rows = None
            self.output_sum, self.output_count = np.zeros((n, trees.width)), np.zeros(n)
        else:
            self.predict_rows = np.asarray(predict_rows, dtype=np.int64)
            self.output_sum, self.output_count = np.zeros((len(self.predict_rows), trees.width)), None
        self.n_kept = n_estimators if n_kept is None else n_kept
        self.n_grown = 0

    def _tree_weight(self, counts):
        """A tree's row weights: its draws' ``counts`` times ``weight``; the counts alone when every drawn row has
        weight 0 (D_t at the margin target on all of them), as a fold without weight fits its rows uniformly."""
        if self.weight is None:
            return counts
        weight = counts * self.weight
        return weight if weight.sum() > 0 else counts

    def grow(self, n_trees):
        """Grow trees until ``n_trees`` (at most ``n_estimators``) are grown; return self."""
        trees, n = self.trees, self.n
        for t in range(self.n_grown, min(n_trees, self.n_estimators)):
            tree_seed = self.rng.randint(MAX_SEED)
            counts = self.draws.counts(self.rng, n, len(self.rows)) if self.bootstrap else self.base_counts
            trees.add(self._tree_weight(counts), tree_seed, t < self.n_kept)
            if self.oob:
                out = np.flatnonzero(counts == 0)
                if len(out):
                    last = np.zeros((len(out), trees.width))
                    trees.accumulate_last(out, last)
                    self.output_sum[out] += last
                    self.output_count[out] += 1
            else:
                trees.accumulate_last(self.predict_rows, self.output_sum)  # in place: no per-tree output array
            self.n_grown = t + 1
        return self

    def finish(self):
        """The forest of the trees grown (kept ones), with the outputs :func:`grow_forest` returns."""
        forest = self.trees.finish()
        if not self.oob:
            return forest, self.output_sum / self.n_grown
        return forest, (self.output_sum, self.output_count)


def check_exact_trees_missing(kind):
    """Raise if scikit-learn's tree class of forest ``kind`` does not accept NaN.

    ``DecisionTreeClassifier`` (random forests) handles missing values since
    scikit-learn 1.3 and ``ExtraTreeClassifier`` (completely-random and
    extremely-randomised forests) since 1.6, both below the supported minimum; the check guards against a version
    that does not.
    """
    tree_class = forest_kind(kind).exact_tree
    if not tree_class().__sklearn_tags__().input_tags.allow_nan:
        raise ValueError(
            f"tree_method='exact': scikit-learn's {tree_class.__name__} (forest type {kind!r}) does not accept "
            "missing values (NaN) in this scikit-learn version; use tree_method='hist', whose trees handle NaN"
        )
