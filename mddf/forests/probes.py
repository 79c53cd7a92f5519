"""Probe trees: how much a few columns tell a shallow tree, out of fold, and which columns a small forest uses.

A search for features (:class:`mddf.PairFeatures`) asks many small questions of the same rows: is this set of
two or three columns better than that one? :class:`ProbeTrees` answers one in a few passes over the rows: a tree
of depth ``max_depth`` grown on the binned columns (:func:`mddf.trees.grow_tree`, the best split of every column
at every node by Gini or squared error) on each fold's fitting rows, which are weighted 1 and the fold's held-out
rows 0 (so no rows are copied), and the held-out loss of its leaves: the log-loss of their class shares, smoothed
towards the class shares of the fitting rows by :data:`LEAF_PRIOR_ROWS` rows, or the squared error of their
means, smoothed alike towards the fitting rows' mean (so that a leaf of one extreme row predicts little of it).
:func:`forest_importances` gives the impurity importance of every column in a forest of such trees (bootstrap,
sqrt of the columns per split): a screen of wide inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._runtime.compile_cache import njit
from ..trees import BEST, TreeSettings, grow_tree
from .binned_input import BinnedInput

#: Rows of prior class shares a leaf's class shares are smoothed with (classification probes).
LEAF_PRIOR_ROWS = 5.0


def binned_columns(X):
    """``(codes, n_bins, missing_bin)`` of the columns of ``X`` binned on its rows, as :func:`~mddf.trees.grow_tree`
    takes them (``missing_bin`` None when ``X`` has no NaN)."""
    binned = BinnedInput(np.ascontiguousarray(X, dtype=np.float32))
    return binned.codes, binned.n_bins, binned.missing_bin


class ProbeTrees:
    """Shallow trees cross-fitted on fixed folds of the same rows, scored by their held-out loss.

    Parameters
    ----------
    y : ndarray (n,)
        Class indices ``0 .. n_classes - 1``, or a continuous target (``regression``).
    folds : list of (ndarray, ndarray)
        The fitting and held-out rows of each fold.
    regression : bool
    n_classes : int
        0 for regression.
    max_depth : int
        Depth of the probe trees.
    seed : int
        Seeds every probe tree (the best split of every column needs no draw but for ties).
    """

    def __init__(self, y, folds, regression, n_classes, max_depth, seed):
        self.regression, self.n_classes = regression, n_classes
        self.y = np.asarray(y, dtype=np.float64 if regression else np.int64)
        self.folds = []
        for fit_rows, held_out in folds:
            w = np.zeros(len(y))
            w[fit_rows] = 1.0
            fit = w > 0
            if regression:
                prior = np.array([self.y[fit].mean()])
            else:
                prior = (np.bincount(self.y[fit], minlength=n_classes) + 1.0) / (fit.sum() + n_classes)
            self.folds.append(_Fold(w, np.asarray(held_out, dtype=np.int64), prior))
        self.max_depth, self.seed = max_depth, seed

    def losses(self, codes, n_bins, missing_bin):
        """The held-out loss of every row (held out by one fold each) under the probe trees grown on the binned
        columns ``codes`` ``(n, d)``: its log-loss, or its squared error."""
        settings = TreeSettings(self.max_depth, codes.shape[1], BEST, 0, 0)
        missing = _missing_codes(codes, missing_bin)
        out = np.zeros(len(self.y))
        for fold in self.folds:
            tree = grow_tree(
                codes, self.y, fold.weights, n_bins, missing_bin, None, self.n_classes, settings, self.seed
            )
            tree_arrays = (tree.feature, tree.split_bin, tree.right, tree.missing_left)
            if self.regression:
                out[fold.held_out] = _held_out_squared_errors(
                    *tree_arrays, codes, missing, self.y, fold.weights, fold.held_out, fold.prior[0], LEAF_PRIOR_ROWS
                )
            else:
                shares = _held_out_class_shares(
                    *tree_arrays, codes, missing, self.y, fold.weights, fold.held_out, fold.prior, LEAF_PRIOR_ROWS
                )
                out[fold.held_out] = -np.log(shares)
        return out


@dataclass(frozen=True)
class _Fold:
    """One fold of :class:`ProbeTrees`: its row weights (1 fitting, 0 held out), its held-out rows, and the prior
    its leaves are smoothed towards (the fitting rows' class shares with one row of each class added, or their
    mean target)."""

    weights: np.ndarray
    held_out: np.ndarray
    prior: np.ndarray


def forest_importances(codes, n_bins, missing_bin, y, n_classes, n_trees, max_depth, seed):
    """Impurity importance of every column in a forest of ``n_trees`` trees of depth ``max_depth`` grown on the
    binned columns ``codes`` (bootstrap by Poisson(1) row weights, sqrt of the columns per split), summed over
    the trees; ``y`` class indices, or a float target (regression, ``n_classes`` 0)."""
    labels = np.asarray(y, dtype=np.float64 if n_classes == 0 else np.int64)
    settings = TreeSettings(max_depth, max(1, int(np.sqrt(codes.shape[1]))), BEST, 0, 0)
    rng = np.random.RandomState(seed)
    importance = np.zeros(codes.shape[1])
    for _ in range(n_trees):
        w = rng.poisson(1.0, len(labels)).astype(np.float64)
        importance += grow_tree(
            codes, labels, w, n_bins, missing_bin, None, n_classes, settings, rng.randint(2**31 - 1)
        ).importance
    return importance


def route(tree, codes, missing_bin):
    """The node index of the leaf each row of ``codes`` reaches in a grown tree (:data:`mddf.trees.GrownTree`)."""
    return _route(
        tree.feature, tree.split_bin, tree.right, tree.missing_left, codes, _missing_codes(codes, missing_bin)
    )


def _missing_codes(codes, missing_bin):
    """The missing bin of every column of ``codes``, -1 for a column without one."""
    return np.full(codes.shape[1], -1, dtype=np.int64) if missing_bin is None else missing_bin


@njit(cache=True, nogil=True)
def _route(feature, split_bin, right, missing_left, codes, missing_bin):
    n = codes.shape[0]
    leaf = np.empty(n, dtype=np.int64)
    for i in range(n):
        leaf[i] = _leaf_of(feature, split_bin, right, missing_left, codes, missing_bin, i)
    return leaf


@njit(cache=True, nogil=True, inline="always")
def _leaf_of(feature, split_bin, right, missing_left, codes, missing_bin, i):
    node = 0
    while feature[node] >= 0:
        f = feature[node]
        code = codes[i, f]
        if missing_bin[f] >= 0 and code == missing_bin[f]:
            left = missing_left[node] == 1
        else:
            left = code <= split_bin[node]
        node = node + 1 if left else right[node]
    return node


@njit(cache=True, nogil=True)
def _held_out_class_shares(feature, split_bin, right, missing_left, codes, missing_bin, y, w, held_out, prior, rows):
    """The smoothed class share of its own class in its leaf, for every held-out row: the leaves' class counts
    of the fitting rows (``w > 0``), plus ``rows`` rows of the class shares ``prior``."""
    k = prior.shape[0]
    counts = np.zeros((feature.shape[0], k))
    totals = np.zeros(feature.shape[0])
    for i in range(codes.shape[0]):
        if w[i] > 0:
            node = _leaf_of(feature, split_bin, right, missing_left, codes, missing_bin, i)
            counts[node, y[i]] += 1.0
            totals[node] += 1.0
    out = np.empty(held_out.shape[0])
    for r in range(held_out.shape[0]):
        i = held_out[r]
        node = _leaf_of(feature, split_bin, right, missing_left, codes, missing_bin, i)
        out[r] = (counts[node, y[i]] + rows * prior[y[i]]) / (totals[node] + rows)
    return out


@njit(cache=True, nogil=True)
def _held_out_squared_errors(feature, split_bin, right, missing_left, codes, missing_bin, y, w, held_out, prior, rows):
    """The squared error of every held-out row against its leaf's mean target over the fitting rows (``w > 0``),
    smoothed by ``rows`` rows of the target ``prior``."""
    sums = np.zeros(feature.shape[0])
    counts = np.zeros(feature.shape[0])
    for i in range(codes.shape[0]):
        if w[i] > 0:
            node = _leaf_of(feature, split_bin, right, missing_left, codes, missing_bin, i)
            sums[node] += y[i]
            counts[node] += 1.0
    out = np.empty(held_out.shape[0])
    for r in range(held_out.shape[0]):
        i = held_out[r]
        node = _leaf_of(feature, split_bin, right, missing_left, codes, missing_bin, i)
        error = y[i] - (sums[node] + rows * prior) / (counts[node] + rows)
        out[r] = error * error
    return out
