"""The engine that grows a cascade: layers one at a time, early stopping, and the fitted model once growth stops.

A cascade estimator (:class:`mddf.MDDFClassifier`, :class:`mddf.CascadeForestRegressor`) drives a
:class:`CascadeGrowth` as scikit-learn's HistGradientBoosting drives its ``TreeGrower``, with a policy object for
what its task adds (:class:`mddf.cascade.margin_policy.MarginPolicy`: class vectors, margins and layer weights;
:class:`mddf.cascade.residual_policy.ResidualPolicy`: residual targets). Its public steps:

- :meth:`CascadeGrowth.begin`: validate the data (the policy), run the ``pair_features`` search, claim the model
  store, set up early stopping;
- :meth:`CascadeGrowth.fit_layer` and :meth:`CascadeGrowth.add_layer`, or both as :meth:`CascadeGrowth.grow`:
  layer t's block fitted on the layer input (``x``, then ``[x, passed]``), then added: the policy turns its
  out-of-fold outputs into what the next layer reads and the monitored per-row results, and early stopping reads
  those (:class:`mddf.utils._stopping.EarlyStopping`). :class:`mddf.MDDFGridSearch` fits a first layer once and adds
  it to several growths;
- with ``probe_trees``, :meth:`CascadeGrowth.grow` fits each layer after the first as a probe (a share of its
  trees) and grows the rest only when the probe says the layer may be kept (:mod:`mddf.cascade.probing`); the
  layers decided on their probes are grown no further;
- :meth:`CascadeGrowth.finish`: keep the best prefix, set the estimator's fitted attributes (layers, history,
  out-of-fold features, importances, the policy's layer weights), then the steps after growth (the final
  ``predictor``, :mod:`mddf.cascade.final_predictor`; the policy's own, e.g. calibration).

The random stream is consumed in a fixed order (validation split, each layer's block, its weight, the
predictor), so that results do not depend on ``n_jobs``.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field, replace

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils import check_random_state

from ..blocks.members import is_forest
from ..forests import MAX_SUBSET_CATEGORIES, BinnedInput, PrefixCodes
from ..storage import open_store
from ..utils._stopping import EarlyStopping
from .final_predictor import fit_final_predictor
from .pair_step import fit_pair_features, pair_feature_names, pair_template, with_pairs
from .probing import judge_probe, probe_size


@dataclass(frozen=True)
class TrainingRows:
    """The validated rows of a fit: the training rows (``y`` encoded as the task reads it) and their weights (None:
    equal), and the held-out rows of ``validation_fraction`` (None without it)."""

    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray | None
    X_val: np.ndarray | None = None
    y_val: np.ndarray | None = None
    weight_val: np.ndarray | None = None


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
    stopping reads, and why growth must stop whatever they show (None: it may go on)."""

    record: dict
    monitored: np.ndarray
    stop_reason: str | None = None


@dataclass(eq=False)
class GrowthState:
    """The state of a growing cascade between layers.

    ``train`` and ``val`` hold what the layers pass on for the training rows (out-of-fold) and the held-out rows
    (their ``passed`` None before the first layer); ``task`` what the policy keeps (e.g. the cumulative margin).
    ``oof_features`` and ``oof_outputs`` hold, per grown layer, the training rows' out-of-fold ``passed`` and (only
    when a step after growth reads it) the cascade's out-of-fold output after that layer. ``active`` and
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
    """Grows the layers of ``cascade`` with ``policy`` (see the module); build it with :meth:`begin`.

    Attributes
    ----------
    cascade : estimator
        The cascade being fitted; :meth:`finish` sets its fitted attributes.
    policy : MarginPolicy or ResidualPolicy
    state : GrowthState
    """

    def __init__(self, cascade, policy, state):
        self.cascade, self.policy, self.state = cascade, policy, state

    @classmethod
    def begin(cls, cascade, policy, X, y, sample_weight=None, rng=None, pair_search=None):
        """Validate the data, run the pair search, claim the store: the growth before its first layer.

        ``rng`` replaces the generator drawn from ``random_state`` (used as it is, not copied), and ``pair_search``
        the ``pair_features`` search (a fitted :class:`mddf.PairFeatures` of the same rows, settings and seed):
        :class:`mddf.MDDFGridSearch` passes those of a shared first layer.
        """
        policy.check_forest_types()
        if isinstance(cascade.predictor, type):  # scikit-learn's HasMethods lets a class through
            name = cascade.predictor.__name__
            raise TypeError(f"predictor: {name} is a class; pass an instance, e.g. {name}()")
        rng = check_random_state(cascade.random_state) if rng is None else rng
        rows = policy.training_rows(X, y, sample_weight, rng)
        rows = _with_pair_features(cascade, rows, rng, pair_search)
        store = open_store(cascade.model_dir, previous=cascade.__dict__.get("_model_store"))
        cascade._model_store = store  # the fit's store: the estimator keeps it (model_dir_, prediction, pickles)
        monitored_y, monitored_weight = (rows.y, rows.weight) if rows.X_val is None else (rows.y_val, rows.weight_val)
        stopping = EarlyStopping(
            cascade.n_tolerant_layers,
            tol=policy.stopping_tol(monitored_y, monitored_weight),
            min_gain_se=cascade.min_gain_se,
            min_error_reduction=cascade.min_error_reduction,
            monitored="out-of-fold" if rows.X_val is None else "validation",
            sample_weight=monitored_weight,
            measure=policy.measure,
        )
        train, val, task = policy.new_state(rows)
        return cls(cascade, policy, GrowthState(rows, rng, train, val, task, stopping, store))

    # ------------------------------------------------------------------ one layer
    def fit_layer(self, t, probe_trees=None) -> FittedLayer:
        """Layer t's block, fitted on the layer input of the rows still in; not added yet. With ``probe_trees`` m,
        a probe: its forests' first m trees (the block's ``probe_``, :meth:`finish_layer` grows the rest)."""
        start, state, policy = time.perf_counter(), self.state, self.policy
        block = policy.block(t, state.store, probe_trees=probe_trees)
        if state.active is None:
            X = policy.layer_input(state.X, state.train.passed, t)
        else:  # the rows still in the cascade (confidence screening)
            X = policy.layer_input(state.X[state.active], state.train.passed[state.active], t)
        binning = {"categorical": self._layer_categorical(X.shape[1], t), "prefix": self._binned_x(t)}
        return FittedLayer(t, block, policy.fit_block(state, block, X, binning), start)

    def add_layer(self, layer: FittedLayer, verdict=None) -> bool:
        """Add a fitted layer: the policy's update, its record, early stopping. True: growth stops.

        ``verdict``: the layer's :class:`mddf.cascade.probing.ProbeVerdict` when it was probed; its record then has the
        probe's ``probe_*`` keys and ``finished`` (False: the layer is the probe, decided on it)."""
        state = self.state
        outcome = self.policy.add_layer(state, layer)
        if verdict is not None:
            outcome.record.update(verdict.record(), finished=layer.block.probe_ is None)
        outcome.record["fit_seconds"] = time.perf_counter() - layer.start
        state.layers.append(layer.block)
        state.history.append(outcome.record)
        state.oof_features.append(state.train.passed.astype(np.float32))
        if self.policy.reads_oof_outputs():
            state.oof_outputs.append(np.array(state.train.output, dtype=np.float64))
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
        c, state = self.cascade, self.state
        if t == 1 or state.X_val is not None or getattr(c, "screening_accuracy", None) is not None:
            return None
        if not any(map(is_forest, self.policy.forest_types)):
            return None
        return probe_size(getattr(c, "probe_trees", None), c.n_estimators)

    def judge(self, layer):
        """The :class:`mddf.cascade.probing.ProbeVerdict` of a probed layer: its monitored results with the first half
        of the probe's trees and with all of them, each tried on a scratch copy of the growth."""
        probe, stopping = layer.block.probe_, self.state.stopping
        first = self.policy.add_layer(self.state.scratch(), replace(layer, outputs=probe.first)).monitored
        rows = self.policy.add_layer(self.state.scratch(), layer).monitored
        needed = stopping.lowest_winning_score()
        m = probe.trees[1]
        return judge_probe(first, rows, stopping.measure, stopping.sample_weight, m, self.cascade.n_estimators, needed)

    def finish_layer(self, layer):
        """A probed layer grown in full (:meth:`mddf.blocks.base.BlockBase.finish`): the layer fitted without a
        probe."""
        return replace(layer, outputs=layer.block.finish())

    def _decide_on_probes(self, layer, verdict):
        """Go on from a probed layer that may not be kept, on a scratch copy, with probes of the next layers: if one
        of them may be kept, finish ``layer``, add it and go on as without probes (False); if early stopping stops
        on the probes (or ``max_layers`` is reached), the fit is the copy's: stop (True)."""
        chain = CascadeGrowth(self.cascade, self.policy, self.state.scratch())
        stopped, t = chain.add_layer(layer, verdict), layer.t
        while chain.n_kept <= len(self.state.layers):  # a probe is never kept unfinished (it cannot outscore them)
            if stopped or t >= self.cascade.max_layers:
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
        """Keep the best prefix, set the cascade's fitted attributes, then run the steps after growth."""
        cascade, state, kept = self.cascade, self.state, self.n_kept
        for block in state.layers[kept:]:
            block.discard()  # the files of the layers grown beyond the kept prefix
        for block in state.layers[:kept]:
            block.move_to(state.store)  # a layer shared in a grid search joins the selected candidate's folder
        state.store.check_claimed()
        cascade.layers_ = state.layers[:kept]
        cascade.n_layers_ = kept
        cascade.train_history_ = state.history
        cascade.oof_features_ = state.oof_features[:kept]
        cascade.stop_reason_ = state.stopping.reason or f"reached max_layers={cascade.max_layers}"
        for name, value in self.policy.kept_attributes(state, kept).items():
            setattr(cascade, name, value)
        for name, value in self._importances().items():
            setattr(cascade, name, value)
        self.policy.log_end()
        fitted = fit_final_predictor(cascade, self.policy, state, kept)
        for name, value in fitted.items():
            setattr(cascade, name, value)
        for name, value in self.policy.after_growth(state, kept).items():
            setattr(cascade, name, value)
        return cascade

    # ------------------------------------------------------------------ helpers
    def _binned_x(self, t):
        """``x`` binned once for every layer that begins with it; None when layer t's trees are not binned or train
        on part of the rows (confidence screening: binned on those rows)."""
        state, policy = self.state, self.policy
        binned = policy.binned_trees and any(map(is_forest, policy.forest_types))
        if not binned or not policy.layer_holds_x(t) or state.active is not None:
            return None
        if state.binned_x is None:
            state.binned_x = BinnedInput(state.X)
        return state.binned_x

    def _layer_categorical(self, n_columns, t):
        """The columns of layer t's input that the block splits into category subsets; None: none.

        The categorical columns of ``x`` with ``categorical_splits="subset"`` (the columns the previous layers pass
        on are numbers), for the binned trees and the ``"gbdt"`` members.
        """
        return categorical_prefix(self.cascade, n_columns) if self.policy.layer_holds_x(t) else None

    def _importances(self):
        """``layer_importances_``, ``feature_importances_``, the passed columns' mean share (under the policy's
        attribute name) and ``pair_importances_`` of the kept layers."""
        cascade, policy = self.cascade, self.policy
        n_columns, n_features = self.state.X.shape[1], cascade.n_features_in_
        rows = np.zeros((len(cascade.layers_), n_columns + 1))
        for t, block in enumerate(cascade.layers_, start=1):
            raw, passed = policy.importance_split(t, block.importances_, n_columns)
            total = np.sum(raw) + passed
            if total > 0:
                rows[t - 1, :n_columns] = raw / total
                rows[t - 1, n_columns] = passed / total
        out = {"pair_importances_": None}
        search = cascade.pair_features_
        if search is not None:  # an appended feature's share goes half to each of its two columns
            appended = rows[:, n_features:n_columns]
            out["pair_importances_"] = appended.mean(axis=0)
            for k, (a, b, _) in enumerate(search.pairs_):
                rows[:, a] += appended[:, k] / 2
                rows[:, b] += appended[:, k] / 2
            rows = np.delete(rows, np.s_[n_features:n_columns], axis=1)
        raw = rows[:, :n_features].mean(axis=0)
        out["layer_importances_"] = rows
        out["feature_importances_"] = raw / raw.sum() if raw.sum() > 0 else raw
        out[policy.passed_importance_attr] = float(rows[:, n_features].mean())
        return out


def categorical_prefix(cascade, n_columns):
    """The columns of an input of ``n_columns`` that begins with ``x`` split into category subsets; None: none.

    The categorical columns of ``x`` (of at most :data:`mddf.forests.MAX_SUBSET_CATEGORIES` categories) with
    ``categorical_splits="subset"``; the columns after ``x`` are numbers.
    """
    categorical = getattr(cascade, "is_categorical_", None)
    if getattr(cascade, "categorical_splits", "ordinal") != "subset" or categorical is None:
        return None
    mask = np.zeros(n_columns, dtype=bool)
    mask[: len(categorical)] = [
        c and len(cats) <= MAX_SUBSET_CATEGORIES for c, cats in zip(categorical, cascade.categories_)
    ]
    return mask if mask.any() else None


def _with_pair_features(cascade, rows, rng, search=None):
    """Run the ``pair_features`` search on the training rows (``pair_features_``, ``pair_feature_names_``), or take
    ``search``, one already fitted on them; return the rows with the chosen features appended to ``X`` and ``X_val``
    (as they are without a search)."""
    template = pair_template(cascade.pair_features, type(cascade).__name__)
    cascade.pair_features_ = cascade.pair_feature_names_ = None
    if template is None:
        return rows
    if search is None:
        search = fit_pair_features(
            template,
            rows.X,
            rows.y,
            rows.weight,
            cascade.is_categorical_,
            rng,
            regression=not is_classifier(cascade),
            n_jobs=cascade.n_jobs,
        )
    names = getattr(cascade, "feature_names_in_", None)
    names = np.asarray([f"x{j}" for j in range(cascade.n_features_in_)]) if names is None else names
    cascade.pair_features_, cascade.pair_feature_names_ = search, pair_feature_names(search, names)
    X_val = None if rows.X_val is None else with_pairs(search, rows.X_val)
    return TrainingRows(with_pairs(search, rows.X), rows.y, rows.weight, X_val, rows.y_val, rows.weight_val)
