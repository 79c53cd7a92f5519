"""What a cascade's task adds to the growth engine (:class:`mddf.cascade.growth.CascadeGrowth`): the parts both
tasks' policies share.

The engine calls a policy through the members of :data:`mddf.cascade.seam.ENGINE_SEAM` and nothing else (the
seam's types are in :mod:`mddf.cascade.seam`): the parameters it reads (``spec``, a
:class:`~mddf.cascade.seam.GrowthSpec`), the rows a fit trains on and monitors (:meth:`TaskPolicy.training_rows`),
the task's state before the first layer and its early stopping (``new_state``, :meth:`TaskPolicy.early_stopping`),
a layer fitted on the rows still in (:meth:`TaskPolicy.fit_layer`) and added (``add_layer``: what it passes on and
what early stopping monitors), whether the steps after growth read each layer's out-of-fold output
(``keeps_outputs``), the verbose line of a layer (``log_layer``), and the task's part of the fitted cascade once
growth stops (:meth:`TaskPolicy.finish`: the kept layers' weights, importances, pair features, the ``predictor``,
the selection, calibration). A policy reads the estimator's parameters as a snapshot and the columns its validation
saw (:class:`~mddf.cascade.seam.Columns`); it never reads or writes the estimator, and it only trains: the fitted
cascade (:class:`mddf.cascade.fitted.FittedCascade`) predicts. :class:`mddf.cascade.margin_policy.MarginPolicy`
(classification: class vectors, margins and layer weights, Algorithm 2) and
:class:`mddf.cascade.residual_policy.ResidualPolicy` (regression: each member's prediction, residual targets) are
the two.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from sklearn.model_selection import train_test_split

from ..blocks.member_weights import fit_member_weights
from ..blocks.members import is_forest
from ..blocks.target_stats import StatisticsSpec
from ..forests import MAX_SUBSET_CATEGORIES, BinnedInput
from ..forests.growing import MAX_SEED
from ..utils import EarlyStopping, rescaled_weights
from .fitted import RECORDED, FittedCascade
from .monotone import monotone_constraints, pair_mask, with_appended
from .pair_step import fit_pair_features, pair_feature_names, pair_template, with_pairs
from .replay import LayerRoute
from .seam import ENGINE_SEAM, Columns, GrowthSpec, TrainingRows
from .selection import check_final_mixture, final_mixture_of
from .steps import PredictorStep, SelectionStep

__all__ = ["ENGINE_SEAM", "Columns", "TaskPolicy", "TrainingRows", "probe_note"]


class TaskPolicy:
    """The parts of a policy both tasks share; a task overrides the rest (see the module).

    Parameters
    ----------
    params : dict
        The cascade estimator's parameters (``get_params(deep=False)``), read as attributes of ``params``.
    columns : Columns or None
        The columns of the validated ``X`` (None before validation: the policy then only checks parameters).
    name : str
        What errors call the estimator (its class's name).
    log_name : str
        The tag of the verbose lines.
    """

    #: Whether the task is classification (the predictor's halves are stratified by class).
    classification = False
    #: The name of the attribute that receives the passed columns' mean share of the importances.
    passed_importance_attr = "passed_importance_"
    #: Columns the ``pair_features`` search appended to ``x`` (set by :meth:`training_rows`).
    n_appended = 0

    def __init__(self, params, columns=None, *, name, log_name, classes=None):
        check_final_mixture(params, name)  # before any work
        self.params = SimpleNamespace(**{**params, "final_mixture": final_mixture_of(params)})
        self.spec = GrowthSpec.of(self.params)  # what the engine reads of them
        self.columns = columns
        self.name = name
        self.log_name = log_name
        # monotonic_cst resolved and checked once, before any work (a classifier's with its ``classes``)
        self.monotone = monotone_constraints(self.params, columns, name, classes)

    # -------------------------------------------------------------- the layers' input
    def constraints(self):
        """The monotone constraint of each column of ``x`` (int8; :func:`mddf.cascade.monotone.monotone_constraints`),
        or None."""
        return self.monotone

    def layer_constraints(self):
        """:meth:`constraints` with the appended pair features' columns unconstrained: what a layer's block gets."""
        return with_appended(self.constraints(), self.n_appended)

    @property
    def forest_types(self):
        """Every member kind of the cascade: ``forest_types``, then ``first_layer_members``."""
        return tuple(self.params.forest_types) + tuple(self.params.first_layer_members)

    def layer_members(self, t):
        """The members of layer t's block, checked: ``forest_types``, and in the first layer ``first_layer_members``
        after them."""
        members = self.check_forest_types()
        return members + tuple(self.params.first_layer_members) if t == 1 else members

    @property
    def binned_trees(self):
        """Whether the forests grow binned trees (:mod:`mddf.trees`), which bin ``x`` once for every layer."""
        return True

    @property
    def route(self):
        """What each layer reads (:class:`mddf.cascade.replay.LayerRoute`): ``x``, then ``[x, passed]``."""
        return LayerRoute()

    def layer_input(self, X, passed, t):
        """Input of layer t (1-based) as the route says (float32, C-contiguous)."""
        return self.route.layer_input(X, passed, t)

    def layer_holds_x(self, t):
        """Whether the input of layer t begins with the columns of ``x``."""
        return self.route.holds_x(t)

    def layer_prefix(self, x_codes, t):
        """``x_codes`` (the rows' :class:`~mddf.forests.PrefixCodes`) if layer t's input begins with ``x``; else
        None."""
        return self.route.prefix(x_codes, t)

    def layer_depth(self, t):
        """Depth limit of layer t's trees, ``max_depth_factor * (t + 1)`` (None: unbounded)."""
        factor = self.params.max_depth_factor
        return None if factor is None else factor * (t + 1)

    def weigh_members(self, block, outputs, y, weight):
        """Set and return ``block.member_weights_``, the members' weights in the layer's output: None (their equal
        mean) with ``member_weights="equal"``; with ``"loss"``, those fitted on the members' out-of-fold ``outputs``
        of the rows that went through the layer, their targets ``y`` and weights ``weight``
        (:func:`mddf.blocks.member_weights.fit_member_weights`)."""
        loss = self.params.member_weights == "loss"
        block.member_weights_ = fit_member_weights(outputs, y, weight) if loss else None
        return block.member_weights_

    def categorical_prefix(self, n_columns):
        """The columns of an input of ``n_columns`` that begins with ``x`` split into category subsets; None: none.

        The categorical columns of ``x`` (of at most :data:`mddf.forests.MAX_SUBSET_CATEGORIES` categories) with
        ``categorical_splits="subset"``; the columns after ``x`` are numbers.
        """
        categorical = self.columns.is_categorical
        if self.params.categorical_splits != "subset" or categorical is None:
            return None
        mask = np.zeros(n_columns, dtype=bool)
        mask[: len(categorical)] = [
            c and len(cats) <= MAX_SUBSET_CATEGORIES for c, cats in zip(categorical, self.columns.categories)
        ]
        return mask if mask.any() else None

    def layer_categories(self, t):
        """The columns of ``x`` that hold category codes, all of them, when layer t's input begins with ``x`` (for the
        members that read categories themselves, :attr:`mddf.blocks.base.BlockBase.categories`); None otherwise."""
        categorical = self.columns.is_categorical
        if categorical is None or not np.any(categorical) or not self.layer_holds_x(t):
            return None
        return np.asarray(categorical, dtype=bool)

    def statistics_spec(self, t):
        """What layer t's folds compute with ``target_statistics``: the first layer's, of the categorical columns of
        ``x`` (:class:`mddf.blocks.target_stats.StatisticsSpec`); None for the others, or without any."""
        kind, categorical = self.params.target_statistics, self.columns.is_categorical
        if t != 1 or kind is None or categorical is None:
            return None
        return StatisticsSpec.of(kind, np.flatnonzero(categorical))

    def fit_layer(self, state, t, probe_trees=None):
        """Layer t's block fitted on its input for the rows still in: ``(block, out-of-fold outputs per member)``.
        With ``probe_trees`` m, a probe: its forests' first m trees (the block's ``probe_``)."""
        block = self.block(t, state.store, probe_trees=probe_trees)
        rows = state.active
        X = state.X if rows is None else state.X[rows]
        X = self.layer_input(X, state.train.passed if rows is None else state.train.passed[rows], t)
        categorical = self.categorical_prefix(X.shape[1]) if self.layer_holds_x(t) else None
        binning = {"categorical": categorical, "prefix": self._binned_x(state, t)}
        return block, self.fit_block(state, block, X, binning)

    def _binned_x(self, state, t):
        """``x`` binned once for every layer that begins with it; None when layer t's trees are not binned or train
        on part of the rows (confidence screening: binned on those rows)."""
        binned = self.binned_trees and any(map(is_forest, self.forest_types))
        if not binned or not self.layer_holds_x(t) or state.active is not None:
            return None
        if state.binned_x is None:
            state.binned_x = BinnedInput(state.X)
        return state.binned_x

    def importance_split(self, t, importances, n_columns):
        """Layer t's importances on the columns of ``x``, and their total on the passed columns."""
        return importances[:n_columns], importances[n_columns:].sum()

    # -------------------------------------------------------------- data and stopping
    def training_rows(self, X, y, weight, rng, pair_search=None):
        """The rows of a fit from validated ``X, y, weight``: the weights rescaled to a mean near 1
        (:func:`mddf.utils._validation.rescaled_weights`: only their ratios matter, at any scale), the
        ``validation_fraction`` rows held out, the task's checks of the rows (:meth:`check_rows`), then the
        ``pair_features`` search run on the training rows (or ``pair_search``, one already fitted on them) and its
        features appended to ``X`` and ``X_val``."""
        weight = rescaled_weights(weight)
        if self.params.validation_fraction is None:
            rows = TrainingRows(X, y, weight)
        else:
            X, X_val, y, y_val, weight, weight_val = self.split_validation(X, y, weight, rng)
            rows = TrainingRows(X, y, weight, X_val, y_val, weight_val)
        self.check_rows(rows)
        return self._with_pair_features(rows, rng, pair_search)

    def check_rows(self, rows):
        """Raise when the training rows cannot train the task's blocks; nothing unless overridden."""

    def stopping_tol(self, y, weight):
        """``tol`` on the scale of the monitored score of targets ``y``."""
        return self.params.tol

    def early_stopping(self, rows):
        """The :class:`mddf.utils.EarlyStopping` of a fit of ``rows``: it monitors the training rows out of fold, or
        the held-out rows."""
        p = self.params
        y, weight = (rows.y, rows.weight) if rows.X_val is None else (rows.y_val, rows.weight_val)
        return EarlyStopping(
            p.n_tolerant_layers,
            tol=self.stopping_tol(y, weight),
            min_gain_se=p.min_gain_se,
            min_error_reduction=p.min_error_reduction,
            monitored="out-of-fold" if rows.X_val is None else "validation",
            sample_weight=weight,
            measure=self.measure,
        )

    def split_validation(self, X, y, weight, rng):
        """Hold out ``validation_fraction`` of the rows (the weights follow their rows; stratified by class for a
        classifier); each part needs a positive weight. Returns ``X, X_val, y, y_val, weight, weight_val``."""
        fraction = self.params.validation_fraction
        try:
            X, X_val, y, y_val, *weights = train_test_split(
                X,
                y,
                *([] if weight is None else [weight]),  # the weights follow their rows; the split is as without
                test_size=fraction,
                stratify=y if self.classification else None,
                random_state=rng.randint(MAX_SEED),
            )
        except ValueError as exc:  # scikit-learn's message names test_size, not the hold-out
            raise ValueError(
                f"{self.name}: the validation_fraction={fraction} hold-out of {len(y)} rows: {exc}"
            ) from exc
        X, X_val = np.ascontiguousarray(X), np.ascontiguousarray(X_val)
        weight, weight_val = weights or (None, None)
        if weight is not None:
            for part, w in (("training", weight), ("held-out", weight_val)):
                if not np.any(w > 0):
                    raise ValueError(
                        f"{self.name}: every {part} row of the validation_fraction split has sample weight zero; "
                        "give more rows a positive weight"
                    )
        return X, X_val, y, y_val, weight, weight_val

    def _with_pair_features(self, rows, rng, search):
        """``rows`` with the ``pair_features`` search's features appended to ``X`` and ``X_val``, and the search
        (``search``, or one run on the training rows, never pairing a constrained column); ``rows`` as they are
        without ``pair_features``. Sets :attr:`n_appended`."""
        template = pair_template(self.params.pair_features, self.name)
        if template is None:
            return rows
        if search is None:
            search = fit_pair_features(
                template,
                rows.X,
                rows.y,
                rows.weight,
                pair_mask(self.columns.is_categorical, self.constraints(), rows.X.shape[1]),
                rng,
                regression=not self.classification,
                n_jobs=self.params.n_jobs,
            )
        self.n_appended = len(search.pairs_)
        X_val = None if rows.X_val is None else with_pairs(search, rows.X_val)
        X = with_pairs(search, rows.X)
        return TrainingRows(X, rows.y, rows.weight, X_val, rows.y_val, rows.weight_val, search)

    # -------------------------------------------------------------- after growth
    @property
    def keeps_outputs(self):
        """Whether a step after growth reads the out-of-fold output after each layer (``predictor_input="auto"``)."""
        return self.params.predictor is not None and self.params.predictor_input == "auto"

    def finish(self, state, layers, stop_reason, attributes):
        """The :class:`~mddf.cascade.fitted.FittedCascade` once growth keeps ``layers`` (the best prefix), from the
        engine's ``attributes`` (name -> value: the kept layers, the store, what the growth recorded) and the
        task's: the kept layers' own (:meth:`kept_attributes`), its head (:meth:`head`), the importances, the pair
        features and the steps after the layers, each fitted by its class (:mod:`mddf.cascade.steps`): the
        ``predictor``, ensemble selection and the calibration (:meth:`calibration_step`)."""
        kept = len(layers)
        fitted = {**attributes, **self.kept_attributes(state, kept), **self.importances(state, layers)}
        search = state.rows.pairs
        fitted["pair_feature_names_"] = (
            None if search is None else pair_feature_names(search, self.columns.input_names())
        )
        self.log_end(fitted, kept, len(state.history), stop_reason)
        head, templates = self.head(fitted), self.predictor_templates(state, kept)
        n_features = self.columns.n_features
        predictor, fitted["predictor_input_scores_"] = PredictorStep.fit(
            self.params, templates, head.link, state, kept, n_features
        )
        shares = fitted.get("layer_shares_")
        selection, output = SelectionStep.fit(self.params.final_mixture, head.link.classification, state, kept, shares)
        return FittedCascade(
            self.name,
            self.columns,
            self.route,
            layers,
            fitted["_model_store"],
            head,
            selection,
            predictor,
            self.calibration_step(state, kept, predictor, output),
            pair_features=search,
            background=fitted["background_"],
            record={name: fitted[name] for name in RECORDED if name in fitted},
        )

    def predictor_templates(self, state, kept):
        """The unfitted ``predictor`` of each of its inputs (:meth:`predictor_template`): ``[x, f_T]``
        (``"stacked"``) and ``x`` alone (``"raw"``); none without a ``predictor``."""
        if self.params.predictor is None:
            return {}
        n_columns = state.X.shape[1]
        return {
            "stacked": self.predictor_template(n_columns + state.oof_features[kept - 1].shape[1]),
            "raw": self.predictor_template(n_columns),
        }

    def kept_attributes(self, state, kept):
        """The task's fitted attributes of the kept prefix (e.g. the layer weights)."""
        return {}

    def kept_members(self, outputs):
        """A layer's members' out-of-fold ``outputs``, kept for ``final_mixture="selection"`` (None: not kept)."""
        return outputs if self.params.final_mixture == "selection" else None

    def calibration_step(self, state, kept, predictor, output=None):
        """The task's calibration after growth (:class:`mddf.cascade.steps.CalibrationStep`), given the fitted
        ``predictor`` step and the out-of-fold ``output`` of the selected mixture (None: the cascade's); none
        unless overridden."""
        return None

    def importances(self, state, layers):
        """``layer_importances_``, ``feature_importances_``, the passed columns' mean share (under
        :attr:`passed_importance_attr`) and ``pair_importances_`` of the kept ``layers``."""
        n_columns, n_features = state.X.shape[1], self.columns.n_features
        rows = np.zeros((len(layers), n_columns + 1))
        for t, block in enumerate(layers, start=1):
            raw, passed = self.importance_split(t, block.importances_, n_columns)
            total = np.sum(raw) + passed
            if total > 0:
                rows[t - 1, :n_columns] = raw / total
                rows[t - 1, n_columns] = passed / total
        out = {"pair_importances_": None}
        search = state.rows.pairs
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
        out[self.passed_importance_attr] = float(rows[:, n_features].mean())
        return out

    def log_end(self, fitted, kept, grown, stop_reason):
        """With ``verbose``, what to print once growth has stopped; nothing unless overridden."""


def probe_note(record):
    """What a verbose layer line says of a probed layer (``train_history_``'s ``probe_*`` keys): its probe's trees
    and whether it was grown on from them; nothing for a layer grown in full at once."""
    if "probe_trees" not in record:
        return ""
    finished = "grown in full" if record["finished"] else "decided on the probe"
    return f"  (probe of {record['probe_trees']} trees: {finished})"
