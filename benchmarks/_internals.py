"""The private parts of :mod:`mddf` that studies reach into, in one place.

Some studies measure or replay what happens inside a fit: which trees a fold model keeps, the rows early stopping
reads, the phases of a fit, the tree kernels of another revision. They need names that :mod:`mddf` does not
export. Every such name is imported here, and only here, so that a rename inside the package is mended in this
module alone.
"""

from __future__ import annotations

import numpy as np

from mddf import MDDFClassifier, _block, _block_base, _cascade, _mixture
from mddf._block_base import BinnedInput, PrefixCodes, fold_share
from mddf._forest_kinds import forest_kind
from mddf._members import make_gbdt, make_hgb
from mddf._stopping import EarlyStopping
from mddf._tabular import validate_tabular
from mddf.trees import ForestBuilder

__all__ = [
    "BinnedInput",
    "EarlyStopping",
    "FullDepthClassifier",
    "PrefixCodes",
    "categorical_prefix",
    "fit_phases",
    "fold_share",
    "forest_kind",
    "make_gbdt",
    "make_hgb",
    "stacked_input",
    "validate_tabular",
]


def fit_phases():
    """``(owner, attribute, phase)`` of every callable that makes one phase of a fit (:mod:`benchmarks.profile`).

    ``"forest loop"`` is the forests' whole tree loop, of which tree growth, packing and out-of-fold prediction
    are parts; the rest of it is resampling.
    """
    return [
        (_block_base.BinnedInput, "__init__", "binning"),
        (_block_base, "grow_tree", "tree growth"),
        (ForestBuilder, "add", "packing"),
        (ForestBuilder, "finish", "packing"),
        (ForestBuilder, "route_last", "out-of-fold prediction"),
        (_block, "grow_forest", "forest loop"),
        (_mixture.CumulativeMargin, "solve_weight", "margins and alpha"),
        (_cascade, "margins", "margins and alpha"),
        (_mixture.CumulativeMargin, "reweight", "reweighting"),
    ]


def stacked_input(cascade, X):
    """``[x, f_T]`` of the rows ``X`` as a predictor after ``cascade`` reads it, and ``predict_proba``'s output."""
    return cascade._stacked_input(X)


def categorical_prefix(cascade, n_columns):
    """The categorical mask of the first ``n_columns`` columns of the cascade's stacked input (None: none)."""
    return cascade._categorical_prefix(n_columns)


class _GrowEveryLayer(EarlyStopping):
    """Early stopping that never stops and keeps every grown layer, and remembers the rows of each.

    ``rows`` holds, per grown layer, a copy of the per-row results a live fit's early stopping reads.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows = []

    def update(self, rows, score=None):
        self.rows.append(np.array(rows, copy=True))
        self.scores.append(self.measure.score(rows, self.sample_weight) if score is None else score)
        return False

    @property
    def n_kept(self):
        return len(self.scores)


class FullDepthClassifier(MDDFClassifier):
    """:class:`mddf.MDDFClassifier` that grows ``max_layers`` layers and keeps them all (:mod:`benchmarks.stopping`).

    The public estimator keeps only the prefix its early stopping chooses and discards the layers grown beyond
    it, so the staged prediction of a longer prefix is lost. This subclass swaps the growth's early stopping for
    one that never stops and keeps every layer, and records the per-row results the live early stopping would
    have read (``monitored_rows_``): whether the argmax of the float64 mixture is the row's class, which
    ``oof_features_`` (float32) cannot always tell where rounding ties two classes. Nothing else changes: the
    layers are those of a live fit with the same parameters and seed, so the prefix any rule keeps is that fit.

    Attributes
    ----------
    monitored_rows_ : list of ndarray of bool
        Per grown layer, which monitored rows (training rows out-of-fold, or the held-out rows with
        ``validation_fraction``) the prediction after the layer classifies right.
    monitored_ : str
        ``"out-of-fold"`` or ``"validation"``.
    """

    def _begin_growth(self, X, y, sample_weight, rng=None):
        growth = super()._begin_growth(X, y, sample_weight, rng)
        live = growth.stopping
        growth.stopping = _GrowEveryLayer(
            live.n_tolerant_layers,
            tol=live.tol,
            min_gain_se=live.min_gain_se,
            min_error_reduction=live.min_error_reduction,
            monitored=live.monitored,
            sample_weight=live.sample_weight,
            measure=live.measure,
        )
        self.monitored_rows_ = growth.stopping.rows
        self.monitored_ = live.monitored
        return growth
