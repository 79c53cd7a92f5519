"""The classifier's policy: class vectors, margins and layer weights (Lv, Yang and Zhou, Algorithm 2).

For each layer the engine (:class:`mddf.cascade.growth.CascadeGrowth`) fits, :meth:`MarginPolicy.add_layer` runs lines
5-8 of Algorithm 2 on its out-of-fold class vectors h_t: the margins gamma_t (eq. 46), the layer's weight alpha_t
(line 6, eq. 48), the augmented feature ``f_t = f_{t-1} + alpha_t h_t`` (line 7, eq. 7, kept normalised) and the
next sample distribution D_{t+1} (line 8, eq. 47); with ``screening_accuracy``, the rows whose output is confident
enough leave the cascade (Pang, Ting, Zhao and Zhou, ICDM 2018). Early stopping monitors the accuracy of the
mixture ``f_t / sum alpha`` (eq. 9). After growth, the kept layers' weights and, with ``calibration``, a
temperature fitted on the kept prefix's out-of-fold mixture (:mod:`mddf.margin.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from ..blocks.classifier import ForestBlock
from ..blocks.members import check_forest_types, is_forest
from ..forests import PrefixCodes, make_gbdt, make_hgb
from ..margin.margins import margins
from ..margin.state import ClassVectorMixture, CumulativeMargin
from ..utils import ACCURACY, weighted_accuracy
from .heads import ClassProbabilities, ClassVectorHead, class_vector_layer
from .policy import TaskPolicy, probe_note
from .replay import LayerRoute
from .screening import confidence, screening_threshold, still_in
from .seam import LayerOutcome
from .steps import CalibrationStep


@dataclass(eq=False)
class MarginState:
    """What Algorithm 2 keeps between layers beside the class-vector mixtures: F_t and D_t (``cumulative``), the rows
    that may train (``trainable``: of positive weight; None: all), the training rows' weights as the margins read
    them (``row_weight``) and the screening threshold of every grown layer (``thresholds``)."""

    cumulative: CumulativeMargin
    trainable: np.ndarray | None
    row_weight: np.ndarray | None
    thresholds: list = field(default_factory=list)


class MarginPolicy(TaskPolicy):
    """The classifier's policy (see the module and :class:`~mddf.cascade.policy.TaskPolicy`); ``classes`` are the
    labels of the fit (None before validation); ``log_name`` tags its verbose lines (``mdDF``, ``gcForest``)."""

    classification = True
    measure = ACCURACY
    passed_importance_attr = "class_vector_importance_"

    def __init__(self, params, columns=None, classes=None, *, name="MDDFClassifier", log_name="mdDF"):
        super().__init__(params, columns, name=name, log_name=log_name, classes=classes)
        self.classes = classes

    # -------------------------------------------------------------- the layers
    def check_forest_types(self):
        return check_forest_types(self.params.forest_types)

    @property
    def binned_trees(self):
        return self.params.tree_method == "hist"

    @property
    def route(self):
        return LayerRoute(self.params.input_features)

    def importance_split(self, t, importances, n_columns):
        if t == 1 or self.params.input_features == "raw":
            return importances, 0.0
        if self.params.input_features == "stacking":
            return 0.0, importances.sum()
        return super().importance_split(t, importances, n_columns)  # preconc: [x, f_{t-1}]

    def block(self, t, store, probe_trees=None):
        """Layer t's untrained block, its trees limited to depth ``max_depth_factor * (t + 1)``; its models go to
        ``store``, under ``layer-<t>``."""
        c = self.params
        block = ForestBlock(
            self.layer_members(t),
            self.spec.layer_trees(t),
            self.layer_depth(t),
            c.n_folds,
            c.class_vectors,
            c.weighting,
            c.n_jobs,
            c.tree_method,
            store=store,
            name=f"layer-{t:03d}",
            fold_trees=c.fold_trees,
            probe_trees=probe_trees,
            target_statistics=self.statistics_spec(t),
        )
        block.monotone = self.layer_constraints()
        block.categories = self.layer_categories(t)
        return block

    @property
    def cross_fitted(self):
        """Whether some member is cross-fitted on ``n_folds`` stratified folds (so every class needs that many rows)."""
        return self.params.class_vectors == "kfold" or not all(map(is_forest, self.forest_types))

    # -------------------------------------------------------------- the data
    def check_rows(self, rows):
        """Every class needs ``n_folds`` training rows when a member is cross-fitted (stratified k-fold)."""
        counts = np.bincount(rows.y, minlength=len(self.classes))
        if self.cross_fitted and counts.min() < self.params.n_folds:
            small = self.classes.tolist()[int(np.argmin(counts))]
            hint = "use class_vectors='oob'" if self.params.class_vectors == "kfold" else "use forests only"
            raise ValueError(
                f"class {small!r} has {counts.min()} training samples, fewer than n_folds={self.params.n_folds}; "
                "every class needs at least n_folds samples for stratified k-fold class vectors "
                f"(lower n_folds or {hint})" + ("" if rows.X_val is None else ", after validation_fraction's hold-out")
            )

    def new_state(self, rows):
        """Algorithm 2's state before the first layer (lines 1-2): alpha_0 = 1, f_0 empty, D_1 ∝ w."""
        c = self.params
        cumulative = CumulativeMargin(
            len(rows.y),
            margin_optimization=c.margin_optimization,
            cumulative_margin=c.cumulative_margin,
            margin_mean=c.margin_mean,
            margin_tradeoff=c.margin_tradeoff,
            alpha_solver=c.alpha_solver,
            sample_weight=rows.weight,
        )
        trainable = None if rows.weight is None else rows.weight > 0  # rows of weight 0 never reach the forests
        task = MarginState(cumulative, trainable, cumulative.sample_weight)
        return ClassVectorMixture(c.passed_features), ClassVectorMixture(c.passed_features), task

    # -------------------------------------------------------------- one layer
    def fit_block(self, state, block, X, binning):
        """Line 4: layer t's block, fitted on D_t (over the rows still in); its out-of-fold class vectors per member."""
        task, y, rows = state.task, state.y, state.active
        trainable = task.trainable
        if rows is not None:  # confidence screening: the rows still in
            y, trainable = y[rows], None if trainable is None else trainable[rows]
        distribution = task.cumulative.distribution
        return block.fit(X, y, distribution, len(self.classes), state.rng, trainable, **binning)

    def add_layer(self, state, layer):
        """Lines 5-8 for a fitted layer: margins, its weight, f_t and D_{t+1}; the monitored rows are the training
        rows (or the held-out ones), every one, with the screened rows' outputs frozen at their exit layer's."""
        task, rows = state.task, state.active
        cumulative = task.cumulative
        y = state.y if rows is None else state.y[rows]
        weights = self.weigh_members(layer.block, layer.outputs, y, cumulative.sample_weight)
        h = np.average(layer.outputs, axis=1, weights=weights)
        gamma = margins(h, y)  # line 5, eq. 46
        alpha, share = cumulative.solve_weight(gamma, state.rng)  # line 6, eq. 48
        cumulative.add_layer(gamma, alpha, share)
        state.train.add_layer(layer.outputs, share, rows, weights)  # line 7: f_t (eq. 7)
        cumulative.reweight()  # line 8: D_{t+1} (eq. 47)
        correct = state.train.correct(state.y)
        record = self._layer_record(layer, h, y, correct, cumulative, task.row_weight)
        if state.X_val is not None:  # the held-out rows go through the layer and are the ones monitored
            self.through_layer(layer.block, layer.t, share, state.X_val, state.val, state.val_active, state.val_x)
            correct = state.val.correct(state.y_val)
            record["val_accuracy"] = weighted_accuracy(correct, state.weight_val)
        stop = None if self.params.screening_accuracy is None else self._screen(state, record)
        return LayerOutcome(record, correct, stop, self.kept_members(layer.outputs))

    def _layer_record(self, layer, h, y, correct, cumulative, row_weight):
        """train_history_ entry of a layer, without ``val_accuracy`` and ``fit_seconds``: ``h`` is its out-of-fold
        class vector of the rows that went through it, ``y`` their classes, ``correct`` the training rows (every one)
        the mixture classifies right, ``row_weight`` their weights."""
        return {
            "layer": layer.t,
            "alpha": float(cumulative.alphas[-1]),
            "share": float(cumulative.shares[-1]),
            "oof_accuracy": weighted_accuracy(correct, row_weight),
            "layer_oof_accuracy": weighted_accuracy(h.argmax(axis=1) == y, cumulative.sample_weight),
            "forest_oof_accuracy": [
                weighted_accuracy(member.argmax(axis=1) == y, cumulative.sample_weight)
                for member in np.moveaxis(layer.outputs, 1, 0)
            ],
            **cumulative.statistics(),
            "loss": cumulative.loss(),
            "max_depth": layer.block.max_depth,
            "model_bytes": layer.block.nbytes,
        }

    def _screen(self, state, record):
        """Confidence screening after a layer: its threshold, chosen on the out-of-fold outputs of the training rows
        still in (weighted by ``sample_weight``), and the training and held-out rows at or above it leave the
        cascade (D_{t+1} renormalised over those still in). Adds the counts to ``record``; returns why growth
        stops (too few rows left for another layer), or None."""
        n, rows = len(state.y), state.active
        rows = np.arange(n) if rows is None else rows
        proba = state.train.proba[rows]
        weight = None if state.weight is None else state.weight[rows]
        correct = proba.argmax(axis=1) == state.y[rows]
        threshold = screening_threshold(confidence(proba), correct, self.params.screening_accuracy, weight)
        state.task.thresholds.append(threshold)
        kept = confidence(proba) < threshold
        record.update(
            screening_threshold=threshold,
            rows_in=len(rows),
            screened=int(len(rows) - kept.sum()),
            screened_fraction=float(1.0 - kept.sum() / n),
        )
        if state.X_val is not None:
            record["val_rows_in"] = len(state.X_val) if state.val_active is None else len(state.val_active)
        if kept.all():  # nothing screened: every row stays in (as without screening)
            return None
        state.task.cumulative.keep_rows(np.flatnonzero(kept))
        state.active = rows[kept]
        if state.X_val is not None:
            state.val_active = still_in(state.val_active, state.val.proba, threshold)
            state.val_x = PrefixCodes(state.X_val[state.val_active])
        return self._screening_stop(state)

    def _screening_stop(self, state):
        """Why the rows still in cannot train another layer (rows of two classes or more, of positive weight, and
        for cross-fitted members ``n_folds`` rows of every class), or None when they can."""
        classes = self.classes
        y = state.y[state.active]
        counts = np.bincount(y, minlength=len(classes))
        present = np.flatnonzero(counts)
        prefix = "confidence screening"
        if len(present) < 2:
            left = f"only training rows of class {classes[present[0]]!r}" if len(present) else "no training row"
            return f"{prefix} left {left} in the cascade"
        if state.task.trainable is not None and not state.task.trainable[state.active].any():
            return f"{prefix} left no training row of positive sample weight in the cascade"
        small = present[np.argmin(counts[present])]
        if self.cross_fitted and counts[small] < self.params.n_folds:
            return (
                f"{prefix} left {counts[small]} training rows of class {classes[small]!r} in the cascade, "
                f"fewer than n_folds={self.params.n_folds}"
            )
        return None

    # -------------------------------------------------------------- the end of growth
    @property
    def keeps_outputs(self):
        return self.params.calibration is not None or super().keeps_outputs

    def kept_attributes(self, state, kept):
        """``alphas_`` and ``layer_shares_`` of the kept layers, and their screening thresholds."""
        alphas, shares = state.task.cumulative.layer_weights(kept)
        thresholds = None
        if self.params.screening_accuracy is not None:
            thresholds = np.array(state.task.thresholds[:kept])
        return {"alphas_": alphas, "layer_shares_": shares, "screening_thresholds_": thresholds}

    def head(self, fitted):
        """The classifier's head (:class:`mddf.cascade.heads.ClassVectorHead`): its classes, the kept layers' shares,
        weights and screening thresholds (``fitted``: :meth:`kept_attributes`), what the layers pass on."""
        shares, alphas, thresholds = fitted["layer_shares_"], fitted["alphas_"], fitted["screening_thresholds_"]
        return ClassVectorHead(self.classes, shares, alphas, thresholds, self.params.passed_features)

    def calibration_step(self, state, kept, predictor, output=None):
        """With ``calibration``, the temperature of the out-of-fold output that predicts (``output``, the selected
        mixture of ``final_mixture="selection"``; None: the kept prefix's mixture), when it lowers its log-loss and no
        predictor predicts (none, or ``predictor_input_="cascade"``)."""
        if self.params.calibration is None or (predictor is not None and predictor.input != "cascade"):
            return None
        output = state.oof_outputs[kept - 1] if output is None else output
        return CalibrationStep.fit(output, state.y, state.weight)

    # -------------------------------------------------------------- the predictor
    def predictor_template(self, n_columns):
        """The unfitted ``predictor``: XGBoost or HistGradientBoosting (both splitting the categorical columns of
        ``x`` into category subsets), a random forest or the instance given."""
        c = self.params
        categorical = self.categorical_prefix(n_columns)
        if c.predictor == "xgboost":
            return make_gbdt(categorical=categorical)
        if c.predictor == "hgb":
            return make_hgb(categorical=categorical)
        if c.predictor == "forest":
            return RandomForestClassifier(n_estimators=4 * c.n_estimators, max_features="sqrt", n_jobs=c.n_jobs)
        return c.predictor

    @property
    def link(self):
        """The classifier's link (:class:`mddf.cascade.heads.ClassProbabilities`): how its predictor is fitted, read
        and scored."""
        return ClassProbabilities(len(self.classes))

    def through_layer(self, block, t, share, X, mixture, rows, x_codes):
        """Send held-out rows through fitted layer ``block`` (layer t), as prediction does
        (:func:`mddf.cascade.heads.class_vector_layer`)."""
        class_vector_layer(self.route, block, t, share, X, mixture, rows, x_codes)

    # -------------------------------------------------------------- verbose
    def log_layer(self, record):
        """With ``verbose``, one line for a grown layer: its weights (with the margin machinery), the monitored
        accuracies, the margin ratio (``inf`` when the mean margin is not positive), the screened rows, seconds."""
        c = self.params
        if not c.verbose:
            return
        weights = ""
        if c.margin_optimization:
            alpha = f"alpha={record['alpha']:.4g}  " if c.cumulative_margin == "additive" else ""
            weights = f"{alpha}share={record['share']:.4f}  "
        val = f" val_acc={record['val_accuracy']:.4f}" if "val_accuracy" in record else ""
        ratio = record["margin_ratio"]
        ratio = f"{ratio:.4f}" if np.isfinite(ratio) else "inf (mean margin <= 0)"
        screened = f"rows_in={record['rows_in']} screened={record['screened']}  " if "rows_in" in record else ""
        print(
            f"[{self.log_name}] layer {record['layer']:2d}  {weights}oof_acc={record['oof_accuracy']:.4f}{val}  "
            f"margin_ratio={ratio}  {screened}{record['fit_seconds']:.1f}s{probe_note(record)}",
            flush=True,
        )

    def log_end(self, fitted, kept, grown, stop_reason):
        """With ``verbose``, one line once growth has stopped: the kept layers, why, and their ``alphas_``."""
        if not self.params.verbose:
            return
        alphas = ""
        if self.params.margin_optimization:
            alphas = "; alphas_=[" + ", ".join(f"{alpha:.4g}" for alpha in fitted["alphas_"]) + "]"
        print(f"[{self.log_name}] kept {kept} of {grown} layers: {stop_reason}{alphas}", flush=True)
