"""The inner parts of a fit that studies reach into, in one place.

Some studies measure or replay what happens inside a fit: which trees a fold model keeps, the rows early stopping
reads, the phases of a fit, the tree kernels of another revision. The names they need come from the public seams
(:mod:`mddf.forests`, :mod:`mddf.utils`); the cascade's own methods and module are reached through the estimator
here, and only here, so that a rename inside the package is mended in this module alone.
"""

from __future__ import annotations

import inspect

import numpy as np

from mddf import MDDFClassifier
from mddf.forests import BinnedInput, ForestBuilder, PrefixCodes, fold_share, forest_kind, growing, make_gbdt, make_hgb
from mddf.utils import EarlyStopping, validate_tabular

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
    # the module whose margins and CumulativeMargin the fit calls: the classifier's policy's
    cascade = inspect.getmodule(type(MDDFClassifier()._policy()))
    return [
        (BinnedInput, "__init__", "binning"),
        (growing, "grow_tree", "tree growth"),
        (ForestBuilder, "add", "packing"),
        (ForestBuilder, "finish", "packing"),
        (ForestBuilder, "route_last", "out-of-fold prediction"),
        (growing, "grow_forest", "forest loop"),
        (cascade.CumulativeMargin, "solve_weight", "margins and alpha"),
        (cascade, "margins", "margins and alpha"),
        (cascade.CumulativeMargin, "reweight", "reweighting"),
    ]


def stacked_input(cascade, X):
    """``[x, f_T]`` of the rows ``X`` as a predictor after ``cascade`` reads it, and the cascade's own output."""
    x = cascade.fitted_cascade_.rows(cascade._validated(X))  # the pair features appended
    passed, output = cascade._staged(X)[-1]  # after the last kept layer
    return np.hstack([x, passed.astype(np.float32)]), output


def categorical_prefix(cascade, n_columns):
    """The categorical mask of the first ``n_columns`` columns of the cascade's stacked input (None: none)."""
    return cascade._policy().categorical_prefix(n_columns)


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

    def _policy(self, columns=None):
        policy = super()._policy(columns)
        live_stopping = policy.early_stopping

        def early_stopping(rows):  # the growth's early stopping, swapped for one that keeps every layer
            live = live_stopping(rows)
            every = _GrowEveryLayer(
                live.n_tolerant_layers,
                tol=live.tol,
                min_gain_se=live.min_gain_se,
                min_error_reduction=live.min_error_reduction,
                monitored=live.monitored,
                sample_weight=live.sample_weight,
                measure=live.measure,
            )
            self.monitored_rows_, self.monitored_ = every.rows, live.monitored
            return every

        policy.early_stopping = early_stopping
        return policy
