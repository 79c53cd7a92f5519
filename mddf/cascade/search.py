"""Choosing mdDF's margin parameters and depth factor on the training data (Section 5.2 grids).

The paper chooses gamma (``margin_mean``) from {0.7, 0.75, 0.8, 0.85, 0.9, 0.95}, mu
(``margin_tradeoff``) from {0.01, 0.05, 0.1} and the depth factor from {2, 4, 8, 16}, but does
not say on which data. :class:`MDDFGridSearch` selects them with the training rows only, by the
accuracy the cascade itself monitors, and shares the work the algorithm allows to share.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
import time
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, TransformerMixin, _fit_context, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from ..storage import ModelStore, temporary_folders_removed_on_sigterm
from ..utils import LayerOutputMixin, SaveMixin
from .base import begin_growth, set_fitted
from .classifier import MDDFClassifier
from .layer_features import checked_layer

#: The candidate sets of the paper's Section 5.2 (eq. 48's gamma and mu, and the depth factor).
PAPER_PARAM_GRID = {
    "margin_mean": (0.7, 0.75, 0.8, 0.85, 0.9, 0.95),
    "margin_tradeoff": (0.01, 0.05, 0.1),
    "max_depth_factor": (2, 4, 8, 16),
}

#: Parameters that do not enter the first layer's fit (Algorithm 2, line 4 at t = 1 uses D_1,
#: which is uniform or proportional to the sample weights): candidates that differ only in these
#: share one first layer.
AFTER_FIRST_LAYER = frozenset(
    {
        "margin_mean",
        "margin_tradeoff",
        "alpha_solver",
        "cumulative_margin",
        "max_layers",
        "n_tolerant_layers",
        "tol",
        "min_gain_se",
        "min_error_reduction",
        "screening_accuracy",
        "verbose",
        "background_rows",
    }
)


class _Candidate:
    """One point of the grid: its estimator, its growth state and how its search ended."""

    def __init__(self, index, params, estimator, group):
        self.index = index
        self.params = params
        self.estimator = estimator
        self.group = group
        self.growth = None
        self.store = None
        self.finished = False
        self.pruned_at = None
        self.score = -np.inf
        self.n_grown = 0
        self.n_kept = 0

    def begin(self, X, y, sample_weight, rng, pair_search=None):
        """The candidate's growth before its first layer, from the generator ``rng`` (used as it is) and, when given,
        the pair search of a candidate that shares its first layer (the same rows, settings and seed)."""
        self.growth = begin_growth(self.estimator, X, y, sample_weight, rng=rng, pair_search=pair_search)
        self.store = self.growth.state.store
        return self.growth

    def record(self, growth):
        """Update the score, the layers grown and the length of the best prefix from ``growth``."""
        accuracies = growth.scores
        self.n_grown = len(accuracies)
        self.n_kept = int(np.argmax(accuracies)) + 1
        self.score = float(accuracies[self.n_kept - 1])

    @property
    def active(self):
        return not self.finished and self.pruned_at is None


class MDDFGridSearch(SaveMixin, LayerOutputMixin, MetaEstimatorMixin, ClassifierMixin, TransformerMixin, BaseEstimator):
    """Grid search over mdDF's parameters, selected by the cascade's own monitored accuracy.

    Every candidate is the cascade ``clone(estimator).set_params(**params)`` grown on all the
    training rows, and the one whose kept prefix has the highest monitored accuracy is
    selected: the out-of-fold accuracy of ``f_t`` (the quantity early stopping already
    monitors, from Algorithm 1's k-fold class vectors, so no row is held back from training),
    or the held-out accuracy when ``estimator`` has a ``validation_fraction``. The selected
    cascade is the fitted model; nothing is refitted. With a ``predictor`` on the cascade, the
    candidates are still compared by the cascade's own accuracy, not the predictor's (which
    would need held-out rows the predictor was not trained on); only the selected cascade fits
    its predictor, once, at the end of the search, and predicts with it.

    Work is shared where the algorithm allows it. The first layer depends only on D_1 (uniform,
    or proportional to ``sample_weight``), not on gamma or mu (eq. 48 enters at line 6 of
    Algorithm 2), so candidates that differ only in parameters of :data:`AFTER_FIRST_LAYER` fit
    one first layer between them; each continues from a copy of the random generator as it
    stands after that layer, so every candidate equals the stand-alone fit
    ``clone(estimator).set_params(**params).fit(X, y)`` exactly (with an integer
    ``random_state``). Candidates then grow breadth-first, one layer at a time. After each
    layer in ``halving_layers``, successive halving keeps, within each group that shares a
    first layer, the ``ceil(n / halving_factor)`` still-growing candidates of highest monitored
    accuracy so far (ties go to the earlier grid point); the others stop there and cannot be
    selected. Halving within groups keeps the best gamma and mu of every depth factor to the
    end, so a small depth factor, whose first layers are shallow, is not dropped for being slow
    to start. ``halving_layers=()`` grows every candidate until it stops.

    Parameters
    ----------
    estimator : MDDFClassifier or None, default=None
        The cascade whose parameters are searched (its other parameters, ``random_state``
        and ``n_jobs`` included, are kept); None is ``MDDFClassifier()``. With a folder as
        its ``model_dir``, each candidate writes its layers into a subfolder of its own,
        ``candidate-<grid index>`` (its ``model_dir``); a search fitted into the folder
        again first deletes the previous search's subfolders. The layers of pruned
        candidates are deleted as they are pruned, and the other candidates' folders at
        the end, so that only ``best_estimator_``'s remains (a first layer it shares with
        another candidate is moved into it). With ``"auto"`` every candidate has a
        temporary folder, and only ``best_estimator_``'s outlives the search.
    param_grid : dict of str to sequence, or None, default=None
        Candidate values per parameter of ``estimator``; the grid is their product, in
        ``itertools.product`` order. None is :data:`PAPER_PARAM_GRID`, the paper's sets for
        ``margin_mean`` (gamma), ``margin_tradeoff`` (mu) and ``max_depth_factor``.
    halving_layers : tuple of int, default=(2, 3)
        Layers after which candidates are halved (see above); () disables halving.
    halving_factor : int >= 2, default=3
        Each halving keeps 1 / ``halving_factor`` of a group's growing candidates (at least one).
    verbose : int, default=0
        1 prints a line per halving and per candidate at the end of the search.

    Attributes
    ----------
    best_estimator_ : MDDFClassifier
        The selected cascade, fitted on all the training rows.
    best_params_ : dict
        Its grid values.
    best_score_ : float
        Its monitored accuracy (out-of-fold or held-out) at the end of its kept prefix.
    best_index_ : int
        Its position in the grid.
    cv_results_ : dict of lists
        Per grid point: ``params``, ``param_<name>``, ``score`` (monitored accuracy of the
        best prefix grown, also for pruned candidates), ``n_layers_grown``, ``n_layers_kept``,
        ``pruned_at_layer`` (0 when never pruned), ``rank`` (1 is selected; pruned candidates
        rank after every candidate that completed).
    n_layer_fits_ : int
        Layers (forest blocks) fitted in the search, the shared first layers counted once.
    search_seconds_ : float
        Wall-clock seconds of the search.
    classes_, n_features_in_, feature_names_in_
        Those of ``best_estimator_``.
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "param_grid": [dict, None],
        "halving_layers": [tuple, list],
        "halving_factor": [Interval(Integral, 2, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __init__(self, *, estimator=None, param_grid=None, halving_layers=(2, 3), halving_factor=3, verbose=0):
        self.estimator = estimator
        self.param_grid = param_grid
        self.halving_layers = halving_layers
        self.halving_factor = halving_factor
        self.verbose = verbose

    def _candidates(self):
        """The grid's candidates, each with the key of the first layer it shares."""
        base = MDDFClassifier() if self.estimator is None else self.estimator
        if not isinstance(base, MDDFClassifier):
            raise TypeError(f"estimator must be an MDDFClassifier, got {type(base).__name__}")
        grid = PAPER_PARAM_GRID if self.param_grid is None else self.param_grid
        names = list(grid)
        known = base.get_params(deep=False)
        unknown = [name for name in names if name not in known]
        if unknown:
            raise ValueError(f"param_grid names parameters MDDFClassifier does not have: {unknown}")
        values = [list(grid[name]) for name in names]
        if any(len(v) == 0 for v in values):
            raise ValueError("every parameter of param_grid needs at least one candidate value")
        candidates = []
        folder = self._model_folder(base)
        for index, combination in enumerate(itertools.product(*values)):
            params = dict(zip(names, combination))
            group = tuple((name, repr(value)) for name, value in params.items() if name not in AFTER_FIRST_LAYER)
            estimator = clone(base).set_params(**params)
            if folder is not None:  # every candidate writes its own files
                estimator.set_params(model_dir=os.path.join(folder, f"candidate-{index:03d}"))
            estimator._validate_params()  # the candidates are grown without going through their fit
            candidates.append(_Candidate(index, params, estimator, group))
        return candidates

    @staticmethod
    def _model_folder(base):
        """The absolute folder of ``base.model_dir`` when it is a folder (not None or ``"auto"``), else None."""
        model_dir = base.get_params(deep=False).get("model_dir")
        if model_dir is None or (isinstance(model_dir, str) and model_dir == "auto"):
            return None
        return os.path.abspath(os.fspath(model_dir))

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Grow every candidate (sharing first layers, halving), select the best and keep it fitted.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Passed to every candidate (see :meth:`MDDFClassifier.fit`).

        Returns
        -------
        self
        """
        model_dir = None if self.estimator is None else self.estimator.get_params(deep=False).get("model_dir")
        with temporary_folders_removed_on_sigterm(model_dir):
            return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        """The search of :meth:`fit`."""
        start = time.perf_counter()
        candidates = self._candidates()
        folder = None if self.estimator is None else self._model_folder(self.estimator)
        if folder is not None:  # the previous search's candidate folders go
            ModelStore.claim(folder)
        # Every candidate starts from the same generator state, as a stand-alone fit would.
        initial_rng = copy.deepcopy(check_random_state(candidates[0].estimator.random_state))
        self.n_layer_fits_ = 0
        self._grow_first_layers(candidates, X, y, sample_weight, initial_rng)
        halving = {int(t) for t in self.halving_layers}
        t = 1
        while any(c.active for c in candidates):
            t += 1
            for candidate in candidates:
                if candidate.active:
                    self._grow(candidate, t)
            if t in halving:
                self._halve(candidates, t)
        self._select(candidates)
        self.search_seconds_ = time.perf_counter() - start
        return self

    def _grow_first_layers(self, candidates, X, y, sample_weight, initial_rng):
        """Fit layer 1 once per group and add it to every candidate of the group."""
        groups = {}
        for candidate in candidates:
            groups.setdefault(candidate.group, []).append(candidate)
        for members in groups.values():
            growth = members[0].begin(X, y, sample_weight, copy.deepcopy(initial_rng))
            first_layer = growth.fit_layer(1)
            after_first_layer = copy.deepcopy(growth.state.rng)  # the generator as it stands after the shared layer
            self.n_layer_fits_ += 1
            for candidate in members:
                own = growth
                if candidate is not members[0]:  # the group's first layer and pair search are the leader's
                    shared = growth.state.rows.pairs
                    own = candidate.begin(X, y, sample_weight, copy.deepcopy(initial_rng), shared)
                    own.state.rng = copy.deepcopy(after_first_layer)
                candidate.finished = own.add_layer(first_layer) or candidate.estimator.max_layers <= 1
                candidate.record(own)

    def _grow(self, candidate, t):
        growth = candidate.growth
        candidate.finished = growth.grow(t) or t >= candidate.estimator.max_layers
        self.n_layer_fits_ += 1
        candidate.record(growth)

    def _halve(self, candidates, t):
        """Successive halving after layer t, within each group that shares a first layer."""
        groups = {}
        for candidate in candidates:
            if candidate.active:
                groups.setdefault(candidate.group, []).append(candidate)
        for members in groups.values():
            keep = math.ceil(len(members) / self.halving_factor)
            ranked = sorted(members, key=lambda c: (-c.score, c.index))
            for candidate in ranked[keep:]:
                candidate.pruned_at = t
                for block in candidate.growth.state.layers[1:]:  # its own layers' files (the first may be shared)
                    block.discard()
                candidate.growth = None  # its layers are not needed any more
            if self.verbose:
                print(f"[mdDF search] after layer {t}: kept {keep} of {len(members)} candidates", flush=True)

    def _select(self, candidates):
        """The completed candidate of highest score (then fewer kept layers, then grid order)."""
        completed = [c for c in candidates if c.pruned_at is None]
        order = sorted(completed, key=lambda c: (-c.score, c.n_kept, c.index))
        order += sorted((c for c in candidates if c.pruned_at is not None), key=lambda c: (-c.score, c.index))
        best = order[0]
        set_fitted(best.estimator, best.growth.finish())  # also moves a shared first layer into its own folder
        for c in candidates:  # the other candidates' folders (model_dir)
            if c is not best and c.store is not None:
                c.store.destroy()
        rank = {c.index: r for r, c in enumerate(order, start=1)}
        self.best_estimator_ = best.estimator
        self.best_params_ = dict(best.params)
        self.best_score_ = best.score
        self.best_index_ = best.index
        self.cv_results_ = {
            "params": [c.params for c in candidates],
            **{f"param_{name}": [c.params[name] for c in candidates] for name in best.params},
            "score": [c.score for c in candidates],
            "n_layers_grown": [c.n_grown for c in candidates],
            "n_layers_kept": [c.n_kept for c in candidates],
            "pruned_at_layer": [c.pruned_at or 0 for c in candidates],
            "rank": [rank[c.index] for c in candidates],
        }
        for c in candidates:
            c.growth = None
        self.classes_ = best.estimator.classes_
        self.n_features_in_ = best.estimator.n_features_in_
        if hasattr(best.estimator, "feature_names_in_"):
            self.feature_names_in_ = best.estimator.feature_names_in_
        if self.verbose:
            params = ", ".join(f"{k}={v}" for k, v in self.best_params_.items())
            print(
                f"[mdDF search] selected {params}: monitored accuracy {self.best_score_:.4f}, "
                f"{best.n_kept} layers kept, {self.n_layer_fits_} layers fitted in all",
                flush=True,
            )

    # Prediction and features are the selected cascade's.
    def predict(self, X):
        """Labels of the selected cascade (eq. 9)."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def predict_proba(self, X):
        """Class probabilities of the selected cascade."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    def staged_predict_proba(self, X):
        """Class probabilities of the selected cascade after each kept layer."""
        check_is_fitted(self)
        return self.best_estimator_.staged_predict_proba(X)

    def staged_predict(self, X):
        """Labels of the selected cascade after each kept layer."""
        check_is_fitted(self)
        return self.best_estimator_.staged_predict(X)

    def transform(self, X, layer=None):
        """Augmented feature of a kept layer of the selected cascade (see :meth:`MDDFClassifier.transform`).

        Its columns are named by :meth:`get_feature_names_out`, as the selected cascade names them.
        """
        check_is_fitted(self)
        return self.best_estimator_.transform(X, layer=layer)

    def fit_transform(self, X, y, layer=None, sample_weight=None):
        """Fit, then return the selected cascade's out-of-fold features of the training rows (no leakage)."""
        self.fit(X, y, sample_weight=sample_weight)
        return self.best_estimator_.oof_features_[checked_layer(layer, self.best_estimator_.n_layers_) - 1]

    def _layer_feature_names(self, layer=None):
        """The selected cascade's names (see :meth:`MDDFClassifier.get_feature_names_out`)."""
        return self.best_estimator_.get_feature_names_out(layer=layer)

    @property
    def n_layers_(self):
        """Layers kept by the selected cascade."""
        check_is_fitted(self)
        return self.best_estimator_.n_layers_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = ["float32"]
        return tags
