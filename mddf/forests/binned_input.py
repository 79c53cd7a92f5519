"""A layer's input binned once for every tree of the layer's forests, and the codes of new rows.

The forests of a layer (``tree_method="hist"``) grow their trees on one
:class:`BinnedInput`: the layer input quantised to at most 256 bins per
feature (:class:`mddf.trees.FeatureBinner`), with the columns split into
category subsets marked. :class:`PrefixCodes` bins the rows being predicted
once for every layer whose input begins with the cascade's ``x``.
"""

from __future__ import annotations

import numpy as np

from ..trees import FeatureBinner

#: The most categories on the smaller side of a best category subset (LightGBM's ``max_cat_threshold``).
MAX_CATEGORY_SPLITS = 32
#: The fewest rows a category needs in a node to be placed by a best category subset (LightGBM's
#: ``min_data_per_group``); rarer ones go right.
MIN_CATEGORY_COUNT = 1
#: Most categories of a column split into category subsets (a 256-bit set holds them and the missing code);
#: a column of more is split at thresholds of its codes.
MAX_SUBSET_CATEGORIES = 255


class BinnedInput:
    """A layer input quantised once for every tree of the block (``tree_method="hist"``).

    Parameters
    ----------
    X : ndarray of float32 (n, d)
    categorical : ndarray of bool (d,) or None
        Columns to split into subsets of categories. A column is split so only
        when each of its values among the rows has a bin of its own and there
        are at most 255 of them (so that every code, the missing one included,
        fits a 256-bit set); other columns, and every column when None, are
        split at thresholds.
    prefix : BinnedInput or None
        The binned first columns of ``X`` (the cascade's ``x``, the same rows at
        every layer): only the other columns are binned, and the codes and bin
        edges are those of binning all of ``X``.

    Attributes
    ----------
    binner : FeatureBinner
        The bin edges, fitted on the layer's training rows; kept by the fitted forests.
    codes : ndarray of uint8 (n, d), C-contiguous
        Bin of every value.
    n_bins : ndarray of int64 (d,)
        Bins of each feature, its missing bin included when it has NaN.
    missing_bin : ndarray of int64 (d,) or None
        Code of NaN in each feature that has NaN, -1 in the others (what the trees
        split on); None when the input has no NaN.
    has_missing : bool
        Whether the input has NaN.
    categorical : ndarray of uint8 (d,) or None
        1 for the columns split into category subsets; None when there is none.
    """

    def __init__(self, X, categorical=None, prefix=None):
        if prefix is None:
            self.binner = FeatureBinner().fit(X)
            self.codes = self.binner.transform(X)
        else:
            p = prefix.codes.shape[1]
            rest = FeatureBinner().fit(X[:, p:])
            self.binner = prefix.binner.joined(rest)
            self.codes = np.hstack([prefix.codes, rest.transform(X[:, p:])])
        has_missing = self.binner.has_missing_
        self.n_bins = np.array([len(e) + 1 for e in self.binner.edges_], dtype=np.int64) + has_missing
        self.has_missing = bool(has_missing.any())
        self.missing_bin = (
            np.where(has_missing, self.binner.missing_bins_, -1).astype(np.int64) if self.has_missing else None
        )
        self.categorical = None
        if categorical is not None:
            few = self.binner.missing_bins_ <= MAX_SUBSET_CATEGORIES
            subset = np.asarray(categorical, dtype=bool) & self.binner.exact_ & few
            if subset.any():
                self.categorical = subset.astype(np.uint8)


class PrefixCodes:
    """The bin codes of the columns of ``x`` in rows being predicted, computed once and reused by every layer.

    The cascade bins ``x`` once at fit (``BinnedInput(prefix=...)``), so each layer whose input
    begins with ``x`` has the same edges for those columns; a layer's rows ``[x, passed]`` are then
    binned by reusing the codes of ``x`` and binning only the columns that the previous layers pass
    on. A layer whose edges for ``x`` differ (compared value by value) bins all its columns.

    Parameters
    ----------
    X : ndarray of float32 (n, d)
        The rows' ``x``.
    """

    def __init__(self, X):
        self.X = X
        self._edges = self._codes = None

    def transform(self, binner, X):
        """Bin codes of ``X``, a layer's input beginning with ``x``, with ``binner``'s edges."""
        p = self.X.shape[1]
        if self._codes is None:
            self._edges, self._codes = binner.edges_[:p], binner.columns(0, p).transform(self.X)
        elif not all(a is b or np.array_equal(a, b) for a, b in zip(self._edges, binner.edges_[:p])):
            return binner.transform(X)
        if X.shape[1] == p:
            return self._codes
        return np.hstack([self._codes, binner.columns(p).transform(X[:, p:])])
