"""The engine that grows a cascade: layers one at a time, early stopping, and the fitted model once growth stops.

A cascade estimator (:class:`mddf.MDDFClassifier`, :class:`mddf.CascadeForestRegressor`) drives a
:class:`CascadeGrowth` as scikit-learn's HistGradientBoosting drives its ``TreeGrower``, with a policy object for
what its task adds (:class:`mddf.cascade.margin_policy.MarginPolicy`: class vectors, margins and layer weights;
:class:`mddf.cascade.residual_policy.ResidualPolicy`: residual targets). The engine calls the policy through the
members of :data:`mddf.cascade.seam.ENGINE_SEAM` only (the parameters it reads: a
:class:`mddf.cascade.seam.GrowthSpec`), never reads the estimator, and returns the fitted cascade
(:class:`mddf.cascade.fitted.FittedCascade`), which the estimator holds. Its public steps:

- :meth:`CascadeGrowth.begin`: the policy's training rows (the validation split, the ``pair_features`` search),
  the model store claimed, early stopping set up;
- :meth:`CascadeGrowth.fit_layer` and :meth:`CascadeGrowth.add_layer`, or both as :meth:`CascadeGrowth.grow`:
  layer t's block fitted on the layer input (``x``, then ``[x, passed]``), then added: the policy turns its
  out-of-fold outputs into what the next layer reads and the monitored per-row results, and early stopping reads
  those (:class:`mddf.utils.EarlyStopping`). :class:`mddf.MDDFGridSearch` fits a first layer once and adds
  it to several growths;
- with ``probe_trees``, :meth:`CascadeGrowth.grow` fits each layer after the first as a probe (a share of its
  trees) and grows the rest only when the probe says the layer may be kept (:mod:`mddf.cascade.probing`); the
  layers decided on their probes are grown no further;
- :meth:`CascadeGrowth.finish`: keep the best prefix and return the fitted cascade (layers, history, out-of-fold
  features, the model store, and the policy's: layer weights, importances, the final ``predictor``,
  calibration).

The random stream is consumed in a fixed order (validation split, each layer's block, its weight, the
predictor), so that results do not depend on ``n_jobs``.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field, replace

import numpy as np
from sklearn.utils import check_random_state

from ..blocks.members import is_forest
from ..forests import PrefixCodes
from ..storage import open_store
from ..utils import EarlyStopping
from .probing import judge_probe, probe_size
from .replay import as_columns
from .seam import FittedLayer, TrainingRows


@dataclass(eq=False)
class GrowthState:
    """The state of a growing cascade between layers.

    ``train`` and ``val`` hold what the layers pass on for the training rows (out-of-fold) and the held-out rows
    (their ``passed`` None before the first layer); ``task`` what the policy keeps (e.g. the cumulative margin).
    ``oof_features`` and ``oof_outputs`` hold, per grown layer, the training rows' out-of-fold ``passed`` and (only
    when a step after growth reads it) the cascade's out-of-fold output after that layer; ``oof_members`` (only with
    ``final_mixture="selection"``) each member's out-of-fold output. ``active`` and
    ``val_active`` are the training and held-out rows still in the cascade (confidence screening; None: all).
    """

    rows: TrainingRows
    rng: np.random.RandomState
    train: object
    val: object
    task: object
    stopping: EarlyStopping
    store: object
    binned_x: object = None  # x binned once for every layer whose input begins with it
    layers: list = field(default_factory=list)
    history: list = field(default_factory=list)
    oof_features: list = field(default_factory=list)
    oof_outputs: list = field(default_factory=list)
    oof_members: list = field(default_factory=list)
    active: np.ndarray | None = None
    val_active: np.ndarray | None = None

    def __post_init__(self):
        X_val = self.rows.X_val
        self.val_x = None if X_val is None else PrefixCodes(X_val)  # the held-out x, binned once

    def scratch(self):
        """A copy to try a layer on: what the layers change is copied (the policy's state, early stopping, the
        generator, the lists of layers), what they only read is shared (the rows, their bins, the store, the
        grown blocks and their out-of-fold arrays)."""
        shared = [self.rows, self.binned_x, self.store, self.val_x, *self.layers, *self.oof_features, *self.oof_outputs]
        shared += self.oof_members
        return copy.deepcopy(self, {id(item): item for item in shared})

    # the names the policies read
    @property
    def X(self):
        return self.rows.X

    @property
    def y(self):
        return self.rows.y

    @property
    def weight(self):
        return self.rows.weight

    @property
    def X_val(self):
        return self.rows.X_val

    @property
    def y_val(self):
        return self.rows.y_val

    @property
    def weight_val(self):
        return self.rows.weight_val


class CascadeGrowth:
    """Grows the layers of a cascade with ``policy`` (see the module); build it with :meth:`begin`.

    Attributes
    ----------
    policy : MarginPolicy or ResidualPolicy
    state : GrowthState
    """

    def __init__(self, policy, state, background=None):
        self.policy, self.state = policy, state
        self.background = background  # the training rows kept for explain() (None: none)

    @classmethod
    def begin(cls, policy, X, y, weight=None, rng=None, pair_search=None, previous_store=None, background=None):
        """The growth before its first layer, from validated ``X`` (float32, categorical columns as codes), ``y``
        (encoded as the task reads it) and ``weight`` (None: equal).

        ``rng`` replaces the generator drawn from ``random_state`` (used as it is, not copied), and ``pair_search``
        the ``pair_features`` search (a fitted :class:`mddf.PairFeatures` of the same rows, settings and seed):
        :class:`mddf.MDDFGridSearch` passes those of a shared first layer. ``previous_store``, the store of the
        estimator's previous fit, is destroyed when it is an ``"auto"`` folder (:func:`mddf.storage.open_store`).
        ``background``: the training rows the fit keeps as ``explain()``'s background (``background_``).
        """
        spec = policy.spec
        rng = check_random_state(spec.random_state) if rng is None else rng
        rows = policy.training_rows(X, y, weight, rng, pair_search)
        store = open_store(spec.model_dir, previous=previous_store)
        train, val, task = policy.new_state(rows)
        return cls(policy, GrowthState(rows, rng, train, val, task, policy.early_stopping(rows), store), background)

    # ------------------------------------------------------------------ one layer
    def fit_layer(self, t, probe_trees=None) -> FittedLayer:
        """Layer t's block, fitted on the layer input of the rows still in; not added yet. With ``probe_trees`` m,
        a probe: its forests' first m trees (the block's ``probe_``, :meth:`finish_layer` grows the rest)."""
        start = time.perf_counter()
        block, outputs = self.policy.fit_layer(self.state, t, probe_trees)
        return FittedLayer(t, block, outputs, start)

    def add_layer(self, layer: FittedLayer, verdict=None) -> bool:
        """Add a fitted layer: the policy's update, its record, early stopping. True: growth stops.

        ``verdict``: the layer's :class:`mddf.cascade.probing.ProbeVerdict` when it was probed; its record then has
        the probe's ``probe_*`` keys and ``finished`` (False: the layer is the probe, decided on it)."""
        state = self.state
        outcome = self.policy.add_layer(state, layer)
        if verdict is not None:
            outcome.record.update(verdict.record(), finished=layer.block.probe_ is None)
        outcome.record["fit_seconds"] = time.perf_counter() - layer.start
        state.layers.append(layer.block)
        state.history.append(outcome.record)
        state.oof_features.append(as_columns(state.train.passed).astype(np.float32))
        if self.policy.keeps_outputs:
            state.oof_outputs.append(np.array(state.train.output, dtype=np.float64))
        if outcome.members is not None:
            state.oof_members.append(outcome.members)
        self.policy.log_layer(outcome.record)
        if state.stopping.update(outcome.monitored):
            return True
        if outcome.stop_reason is not None:
            state.stopping.reason = outcome.stop_reason
            return True
        return False

    def grow(self, t) -> bool:
        """Fit layer t and add it; True when growth stops.

        With ``probe_trees``, layer t > 1 is probed first (:meth:`judge`): grown in full and added when it may be
        kept, else decided on its probe (:meth:`_decide_on_probes`)."""
        m = self.probe_size(t)
        if m is None:
            return self.add_layer(self.fit_layer(t))
        layer = self.fit_layer(t, probe_trees=m)
        verdict = self.judge(layer)
        if verdict.may_be_kept:
            return self.add_layer(self.finish_layer(layer), verdict)
        return self._decide_on_probes(layer, verdict)

    def probe_size(self, t):
        """The trees of layer t's probe, or None to grow it in full: the first layer (always the best so far), a
        layer without forests, and fits that monitor held-out rows or screen rows are not probed."""
        spec = self.policy.spec
        if t == 1 or self.state.X_val is not None or spec.screening_accuracy is not None:
            return None
        if not any(map(is_forest, spec.forest_types)):
            return None
        return probe_size(spec.probe_trees, spec.layer_trees(t))

    def judge(self, layer):
        """The :class:`mddf.cascade.probing.ProbeVerdict` of a probed layer: its monitored results with the first half
        of the probe's trees and with all of them, each tried on a scratch copy of the growth."""
        probe, stopping = layer.block.probe_, self.state.stopping
        first = self.policy.add_layer(self.state.scratch(), replace(layer, outputs=probe.first)).monitored
        rows = self.policy.add_layer(self.state.scratch(), layer).monitored
        needed = stopping.lowest_winning_score()
        m, n_estimators = probe.trees[1], self.policy.spec.layer_trees(layer.t)
        return judge_probe(first, rows, stopping.measure, stopping.sample_weight, m, n_estimators, needed)

    def finish_layer(self, layer):
        """A probed layer grown in full (:meth:`mddf.blocks.base.BlockBase.finish`): the layer fitted without a
        probe."""
        return replace(layer, outputs=layer.block.finish())

    def _decide_on_probes(self, layer, verdict):
        """Go on from a probed layer that may not be kept, on a scratch copy, with probes of the next layers: if one
        of them may be kept, finish ``layer``, add it and go on as without probes (False); if early stopping stops
        on the probes (or ``max_layers`` is reached), the fit is the copy's: stop (True)."""
        chain = CascadeGrowth(self.policy, self.state.scratch())
        stopped, t = chain.add_layer(layer, verdict), layer.t
        while chain.n_kept <= len(self.state.layers):  # a probe is never kept unfinished (it cannot outscore them)
            if stopped or t >= self.policy.spec.max_layers:
                self.state = chain.state
                return True
            t += 1
            probe = chain.fit_layer(t, probe_trees=self.probe_size(t))
            next_verdict = chain.judge(probe)
            if next_verdict.may_be_kept:
                break
            stopped = chain.add_layer(probe, next_verdict)
        return self.add_layer(self.finish_layer(layer), verdict)

    # ------------------------------------------------------------------ the end
    @property
    def n_kept(self):
        """The length of the best prefix so far."""
        return self.state.stopping.n_kept

    @property
    def scores(self):
        """The monitored score of every grown layer."""
        return self.state.stopping.scores

    def finish(self):
        """Keep the best prefix; return the :class:`mddf.cascade.fitted.FittedCascade`, which the estimator holds:
        the kept layers and what the growth recorded, then the policy's (:meth:`mddf.cascade.policy.TaskPolicy.finish`
        builds it)."""
        state, kept = self.state, self.n_kept
        for block in state.layers[kept:]:
            block.discard()  # the files of the layers grown beyond the kept prefix
        for block in state.layers[:kept]:
            block.move_to(state.store)  # a layer shared in a grid search joins the selected candidate's folder
        state.store.check_claimed()
        layers = state.layers[:kept]
        stop_reason = state.stopping.reason or f"reached max_layers={self.policy.spec.max_layers}"
        attributes = {
            "_model_store": state.store,
            "layers_": layers,
            "train_history_": state.history,
            "oof_features_": state.oof_features[:kept],
            "stop_reason_": stop_reason,
            "background_": self.background,
        }
        return self.policy.finish(state, layers, stop_reason, attributes)
