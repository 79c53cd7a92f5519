"""The seam between the growth engine (:class:`mddf.cascade.growth.CascadeGrowth`) and a task's policy: its types,
in one module that imports neither side.

- :data:`ENGINE_SEAM`: the members of a policy the engine calls, and nothing else;
- :class:`GrowthSpec`: the parameters the engine itself reads (a policy's ``spec``), not the estimator's all;
- :class:`Columns`: what the validation of a fit's ``X`` learned of its columns;
- :class:`TrainingRows`: the validated rows of a fit, held-out rows and pair search included;
- :class:`FittedLayer` and :class:`LayerOutcome`: a layer the policy fitted, and what it makes of the layer once
  added.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np

#: The members of a policy that the growth engine uses: the whole of the seam.
ENGINE_SEAM = (
    "spec",
    "training_rows",
    "new_state",
    "early_stopping",
    "fit_layer",
    "add_layer",
    "keeps_outputs",
    "log_layer",
    "finish",
)


@dataclass(frozen=True)
class GrowthSpec:
    """The parameters the growth engine reads: ``random_state`` (its generator), ``model_dir`` (the store),
    ``max_layers`` (the end of growth), and what decides whether a layer is probed first (``probe_trees``,
    the trees of each layer (``n_estimators``, ``later_layer_trees``: :meth:`layer_trees`), ``forest_types``,
    ``screening_accuracy``: a screened fit is never probed)."""

    random_state: object
    model_dir: object
    max_layers: int
    n_estimators: int
    forest_types: tuple
    probe_trees: float | None = None
    screening_accuracy: float | None = None
    later_layer_trees: int | float | None = None

    @classmethod
    def of(cls, params):
        """The specification of the estimator's parameters ``params`` (a namespace; the regressor's, which has no
        ``screening_accuracy``, screens no row)."""
        return cls(
            params.random_state,
            params.model_dir,
            params.max_layers,
            params.n_estimators,
            tuple(params.forest_types),
            params.probe_trees,
            getattr(params, "screening_accuracy", None),
            params.later_layer_trees,
        )

    def layer_trees(self, t):
        """The trees of each forest of layer t (1-based): ``n_estimators`` in the first layer and, with
        ``later_layer_trees`` (an int, or a share of ``n_estimators``, rounded, at least 1), that many in the others."""
        later = self.later_layer_trees
        if t == 1 or later is None:
            return self.n_estimators
        if isinstance(later, Integral):
            return int(later)
        return max(1, int(round(later * self.n_estimators)))


@dataclass(frozen=True)
class Columns:
    """What the validation of a fit's ``X`` learned of its columns: their number and names (None: no names), and
    which are categorical with their categories (None: none) and the encoder of their categories (None: none)."""

    n_features: int
    names: np.ndarray | None = None
    is_categorical: np.ndarray | None = None
    categories: list | None = None
    encoder: object = None

    @classmethod
    def of(cls, estimator):
        """The columns a fitted (or validated) estimator saw: its ``n_features_in_``, ``feature_names_in_``,
        ``is_categorical_``, ``categories_`` and category encoder; None before it saw any."""
        if not hasattr(estimator, "n_features_in_"):
            return None
        return cls(
            estimator.n_features_in_,
            getattr(estimator, "feature_names_in_", None),
            estimator.is_categorical_,
            estimator.categories_,
            estimator._category_encoder,
        )

    def input_names(self):
        """The names of x's columns: ``feature_names_in_``, or ``x0, x1, ...``."""
        return np.asarray([f"x{j}" for j in range(self.n_features)]) if self.names is None else self.names


@dataclass(frozen=True)
class TrainingRows:
    """The validated rows of a fit: the training rows (``y`` encoded as the task reads it, ``X`` with the pair
    features appended) and their weights (None: equal), the held-out rows of ``validation_fraction`` (None without
    it), and the fitted pair search (None without ``pair_features``)."""

    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray | None
    X_val: np.ndarray | None = None
    y_val: np.ndarray | None = None
    weight_val: np.ndarray | None = None
    pairs: object = None


@dataclass(frozen=True)
class FittedLayer:
    """Layer ``t``'s block, fitted, with its out-of-fold outputs per member and the ``perf_counter`` it began at."""

    t: int
    block: object
    outputs: np.ndarray
    start: float


@dataclass(frozen=True)
class LayerOutcome:
    """What the policy makes of an added layer: its ``train_history_`` record, the monitored per-row results early
    stopping reads, why growth must stop whatever they show (None: it may go on), and each member's out-of-fold
    output of every training row, kept for ``final_mixture="selection"`` (None: not kept)."""

    record: dict
    monitored: np.ndarray
    stop_reason: str | None = None
    members: np.ndarray | None = None
