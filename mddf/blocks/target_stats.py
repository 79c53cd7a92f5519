"""Target statistics of a layer's categorical columns (and of their pairs), one set per fold model.

With ``target_statistics``, each fold of a block computes, from that fold's training rows only, the smoothed mean
target of every level of each categorical column of ``x`` (``"columns"``) and also of every pair of them
(``"pairs"``: the pair's two codes as one level), and appends them to the fold's input for every member of the fold.
The statistic of a level seen ``n`` times with target sum ``s`` is CatBoost's ``(s + a * p) / (n + a)`` (its
``countInClass`` / ``totalCount`` with a prior, https://catboost.ai/docs/concepts/algorithm-main-stages_cat-to-numberic)
with prior weight ``a`` = :data:`PRIOR_WEIGHT` and prior ``p`` the mean target of the rows it is computed from. The
target is one indicator per class (one, of class 1, for two classes), or the block's (residual) target for
regression, so a column gives as many statistics.

- A fold's **training rows** get cross-fitted statistics, as scikit-learn's ``TargetEncoder`` gives its
  ``fit_transform`` rows: they are split at random (seeded) into :data:`INNER_FOLDS` parts, and each part's rows get
  the statistics of the other parts' rows. So no row reads its own target, and every row of a part reads the same
  value for a level, as a new row does: one value a level, not the row-to-row noise of CatBoost's one-permutation
  ordered statistic, on which a forest's splits would fit (CatBoost averages that noise away over many permutations
  and boosting rounds; a forest's trees cannot).
- Its **held-out rows** and **new rows** get the statistics of every training row of the fold.
- A **missing** value (NaN, or a pair with a missing side) and a **level the rows it is computed from never saw**
  get ``p``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from ..forests import BinnedInput
from ..forests.growing import MAX_SEED

#: ``target_statistics`` values: statistics of each categorical column, or of each column and each pair of them.
KINDS = ("columns", "pairs")
#: CatBoost's prior weight ``a`` in ``(s + a * p) / (n + a)``.
PRIOR_WEIGHT = 1.0
#: The parts a fold's training rows are split into for their cross-fitted statistics (``TargetEncoder``'s ``cv``).
INNER_FOLDS = 5
#: A pair's level is ``a * PAIR_BASE + b`` for the codes ``a``, ``b`` of its two columns (codes below 2**31).
PAIR_BASE = np.int64(2**31)


@dataclass(frozen=True)
class StatisticsSpec:
    """What a block computes per fold: the ``sources`` (a column index, or a pair of them, of the layer's input)."""

    sources: tuple

    @classmethod
    def of(cls, kind, columns):
        """The spec of ``target_statistics=kind`` on the categorical ``columns`` (indices); None: none to compute."""
        columns = tuple(int(c) for c in columns)
        if kind is None or not columns:
            return None
        if kind not in KINDS:
            raise ValueError(f"target_statistics must be None, 'columns' or 'pairs', got {kind!r}")
        pairs = tuple(combinations(columns, 2)) if kind == "pairs" else ()
        return cls(tuple((c,) for c in columns) + pairs)

    def levels(self, X):
        """Each source's level of every row of ``X``, int64 ``(n, n_sources)``; -1 where a value is missing."""
        out = np.empty((X.shape[0], len(self.sources)), dtype=np.int64)
        for k, source in enumerate(self.sources):
            values = X[:, list(source)]
            missing = np.isnan(values).any(axis=1)
            codes = np.where(np.isnan(values), 0, values).astype(np.int64)
            key = codes[:, 0] if len(source) == 1 else codes[:, 0] * PAIR_BASE + codes[:, 1]
            out[:, k] = np.where(missing, -1, key)
        return out

    def weights(self, n_columns, width):
        """The matrix ``(n_columns + n_sources * width, n_columns)`` that gives each appended column's value (an
        importance, an attribution) to its source column, half to each column of a pair."""
        out = np.zeros((n_columns + len(self.sources) * width, n_columns))
        out[np.arange(n_columns), np.arange(n_columns)] = 1.0
        for k, source in enumerate(self.sources):
            for c in source:
                out[n_columns + k * width : n_columns + (k + 1) * width, c] = 1.0 / len(source)
        return out


def target_matrix(y, n_classes):
    """The targets the statistics average, float64 ``(n, width)``: one indicator per class, that of class 1 alone
    for two classes, or ``y`` itself for regression (``n_classes`` None)."""
    if n_classes is None:
        return np.asarray(y, dtype=np.float64)[:, None]
    if n_classes == 2:
        return (np.asarray(y) == 1).astype(np.float64)[:, None]
    return (np.asarray(y)[:, None] == np.arange(n_classes)).astype(np.float64)


class FoldStatistics:
    """The statistics of one fold, fitted on its training rows: each source's levels and their values, the prior.

    Attributes
    ----------
    spec : StatisticsSpec
    prior : ndarray of float64 (width,)
    tables : list (n_sources) of (levels, values)
        The sorted levels seen (int64) and their statistics ``(n_levels, width)``.
    """

    def __init__(self, spec, levels, Y, rows):
        self.spec = spec
        self.prior = Y[rows].mean(axis=0)
        self.tables = []
        for k in range(len(spec.sources)):
            key, seen = levels[rows, k], levels[rows, k] >= 0
            known, inverse = np.unique(key[seen], return_inverse=True)
            sums = np.zeros((len(known), Y.shape[1]))
            np.add.at(sums, inverse, Y[rows][seen])
            counts = np.bincount(inverse, minlength=len(known))[:, None]
            self.tables.append((known, smoothed(sums, counts, self.prior)))

    @property
    def width(self):
        """The number of statistics it appends: ``len(prior)`` per source."""
        return len(self.prior) * len(self.tables)

    def transform(self, levels):
        """The statistics of rows of the given ``levels`` (:meth:`StatisticsSpec.levels`), float32 ``(n, width)``."""
        n, w = levels.shape[0], len(self.prior)
        out = np.empty((n, self.width), dtype=np.float32)
        for k, (known, values) in enumerate(self.tables):
            columns = slice(k * w, (k + 1) * w)
            out[:, columns] = self.prior
            if len(known):
                key = levels[:, k]
                at = np.minimum(np.searchsorted(known, key), len(known) - 1)
                found = (key >= 0) & (known[at] == key)
                out[found, columns] = values[at[found]]
        return out

    def appended_to(self, X, levels):
        """``X`` (float32) with the statistics of its rows (of the given ``levels``) appended, C-contiguous."""
        return np.ascontiguousarray(np.hstack([X, self.transform(levels)]), dtype=np.float32)

    @classmethod
    def cross_fitted(cls, spec, levels, Y, rows, seed):
        """The statistics of the training ``rows`` (in their order), float32 ``(len(rows), width)``, each row's from
        the rows of the other :data:`INNER_FOLDS` parts (a random split drawn from ``seed``), so that it never reads
        its own target; a lone row has no other row to read: missing (NaN)."""
        width = Y.shape[1] * len(spec.sources)
        out = np.full((len(rows), width), np.nan, dtype=np.float32)
        if len(rows) < 2:
            return out
        parts = np.random.RandomState(seed).permutation(len(rows)) % min(INNER_FOLDS, len(rows))
        for part in range(parts.max() + 1):
            inside = parts == part
            out[inside] = cls(spec, levels, Y, rows[~inside]).transform(levels[rows[inside]])
        return out


def smoothed(sums, counts, prior):
    """``(s + a * p) / (n + a)`` with the prior weight ``a`` = :data:`PRIOR_WEIGHT`."""
    return (sums + PRIOR_WEIGHT * prior) / (counts + PRIOR_WEIGHT)


def fold_input(spec, X, levels, Y, train, seed):
    """Fold statistics fitted on the rows ``train`` and the fold's input: ``X`` with the statistics appended
    (cross-fitted for ``train``, :meth:`FoldStatistics.cross_fitted`; the fitted ones for every other row). Returns
    ``(FoldStatistics, X_fold float32)``."""
    stats = FoldStatistics(spec, levels, Y, train)
    appended = stats.transform(levels)
    appended[train] = FoldStatistics.cross_fitted(spec, levels, Y, train, seed)
    return stats, np.ascontiguousarray(np.hstack([X, appended]), dtype=np.float32)


class BlockStatistics:
    """What a block's fit with ``target_statistics`` shares across its folds: every row's levels, the targets
    (:func:`target_matrix`) and one seed a fold (the refit's last), drawn from ``rng``."""

    def __init__(self, spec, rng, X, y, n_classes, n_folds):
        self.spec = spec
        self.levels = spec.levels(X)
        self.Y = target_matrix(y, n_classes)
        self.seeds = np.random.RandomState(rng.randint(MAX_SEED)).randint(MAX_SEED, size=n_folds + 1)

    def layer(self, layer, fold, refit, categorical, prefix):
        """``(FoldStatistics, LayerFit)``: the statistics fitted on ``fold.train`` and ``layer`` with them appended
        to its input (:func:`fold_input`), binned anew (``prefix`` reused) when it was, the appended columns
        numbers."""
        if not len(fold.train):
            raise ValueError("target_statistics: a fold has no training row")
        seed = self.seeds[-1] if refit else self.seeds[fold.index]
        stats, X = fold_input(self.spec, layer.X, self.levels, self.Y, fold.train, seed)
        mask = None if categorical is None else np.r_[np.asarray(categorical, bool), np.zeros(stats.width, bool)]
        forest_input = X if layer.forest_input is layer.X else BinnedInput(X, mask, prefix)
        categories = None if layer.categories is None else np.r_[layer.categories, np.zeros(stats.width, bool)]
        return stats, replace(layer, X=X, forest_input=forest_input, categorical=mask, categories=categories)
