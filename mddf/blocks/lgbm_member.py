"""The LightGBM members: ``"lgbm"``, ``"lgbm_es"`` and any LightGBM estimator instance, a member kind of the
protocol (:mod:`mddf.blocks.member`).

A LightGBM member is an estimator fitted whole on each fold (:class:`mddf.blocks.members.EstimatorMember`), with
what LightGBM adds: the named kinds are ``LGBMClassifier`` (``LGBMRegressor``) with the fixed settings of
:func:`mddf.forests.make_lgbm`, given the columns the block splits into category subsets as LightGBM's
categorical features (:func:`fit_lgbm_fold_member`); ``"lgbm_es"`` (and any instance with ``early_stopping_round``)
stops on rows held out of each fold model's training rows, as ``"gbdt_es"`` does; and its outputs are explained by
LightGBM's own contributions to its raw scores (``pred_contrib=True``, exact TreeSHAP), through its link
(:func:`mddf.blocks.attribution.contribution_attributions`). LightGBM fits one target: on a 2-D ``y`` (several
regression targets) each fold model is one regressor a target (:class:`PerTargetLightGBM`), stopped on the same
held-out rows. lightgbm is a dependency of mddf (``"lgbm_es"`` is the regressor's default member); in an environment
without it, naming a kind is a one-line error that says how to install it. A layer probe fits it in full (no stages).
"""

from __future__ import annotations

import inspect
import sys
import warnings
from dataclasses import replace

import numpy as np
from sklearn.base import clone

from ..forests import LGBM_KINDS, make_lgbm
from ..forests.boosting import lgbm_params, require_lightgbm
from .attribution import contribution_attributions
from .member import Capabilities, FitTask, register_member
from .members import EstimatorMember, FoldModel, PreparedMember, fold_member_rows, no_output

#: The objectives of LightGBM members whose outputs are explained, and the link from their raw scores.
LGBM_LINKS = {"regression": "identity", "binary": "logistic", "multiclass": "softmax"}


def is_lightgbm(estimator):
    """Whether ``estimator`` is a LightGBM estimator (``LGBMClassifier``, ``LGBMRegressor``); never imports lightgbm."""
    if "lightgbm" not in sys.modules or sys.modules["lightgbm"] is None:
        return False
    return isinstance(estimator, sys.modules["lightgbm"].LGBMModel)


def stops_early(template):
    """Whether a LightGBM template has ``early_stopping_round``: its fold models then stop on held-out rows."""
    return bool(template.get_params().get("early_stopping_round"))


def _held_out(estimator, X, y, weight):
    """LightGBM's ``fit`` arguments of the rows ``X, y`` (weights ``weight``) to stop on: ``eval_X`` / ``eval_y``
    from lightgbm 4.7 on, ``eval_set`` before."""
    extra = {} if weight is None else {"eval_sample_weight": [weight]}
    if "eval_X" in inspect.signature(estimator.fit).parameters:
        return {"eval_X": (X,), "eval_y": (y,), **extra}
    return {"eval_set": [(X, y)], **extra}


def fit_lgbm_fold_member(
    template, seed, X, y, fit_rows, predict_rows, weight, draws, n_classes, where, categorical, unstopped_rounds=None
):
    """:func:`mddf.blocks.members.fit_fold_member` (same parameters and result) of a LightGBM estimator, the columns
    marked in ``categorical`` (or none: None) given as its categorical features. With ``early_stopping_round`` it
    stops on :data:`~mddf.blocks.members.STOPPING_FRACTION` of its distinct training rows, drawn after its resample
    as ``"gbdt_es"``'s (:func:`~mddf.blocks.members.stopping_rows`), and fits the others; with none to spare, every
    round, or ``unstopped_rounds`` when given (a named kind: the rounds of ``"lgbm"``, not its cap)."""
    stopping = stops_early(template)
    drawn = fold_member_rows(seed, fit_rows, draws, (y, n_classes is not None) if stopping else None)
    estimator_seed, fit_rows, stop = drawn if stopping else (*drawn, None)
    part_weight = None if weight is None else weight[fit_rows]
    prepared = PreparedMember.prepare(template, X[fit_rows], y[fit_rows], n_classes, part_weight, estimator_seed, where)
    extra, held_out = {}, None
    if categorical is not None and np.any(categorical):
        extra["categorical_feature"] = np.flatnonzero(categorical).tolist()
    if prepared.estimator is not None and stopping:
        if len(stop):
            y_stop = y[stop] if prepared.classes is None else np.searchsorted(prepared.classes, y[stop])
            held_out = (X[stop], y_stop, None if weight is None else weight[stop])
        else:
            prepared.estimator.set_params(early_stopping_round=None)
            if unstopped_rounds is not None:
                prepared.estimator.set_params(n_estimators=unstopped_rounds)
    if prepared.estimator is not None and np.ndim(prepared.y) == 2:  # several targets: one regressor a target
        prepared.estimator = PerTargetLightGBM.fit(prepared, extra, held_out)
    else:
        prepared.fit(**extra, **({} if held_out is None else _held_out(prepared.estimator, *held_out)))
    fitted = prepared.model()
    model = LightGBMFoldModel(fitted.estimator, fitted.classes, fitted.n_classes, where, fitted.importance_scale)
    if fitted.n_outputs > 1:  # set on a model of several targets only, as FoldModel's
        model.n_outputs = fitted.n_outputs
    if not len(predict_rows):  # the refit on every training row holds none out
        return model, no_output(n_classes)
    return model, model.output(X[predict_rows])


class PerTargetLightGBM:
    """Several regression targets fitted by LightGBM, which fits one: ``estimators``, one fitted ``LGBMRegressor`` a
    target (clones of one seeded template, each stopped on the same held-out rows' own target), predicting
    ``(n, K)``."""

    def __init__(self, estimators):
        self.estimators = estimators

    @classmethod
    def fit(cls, prepared, extra, held_out):
        """Fit a clone of ``prepared``'s estimator on each target column of its rows (``extra``: more arguments of
        its ``fit``), stopping on the held-out rows ``held_out`` ``(X, y (m, K), weight)`` with that target's column
        of their ``y`` (None: no stopping)."""
        estimators = []
        for k in range(prepared.y.shape[1]):
            one = clone(prepared.estimator)
            stop = {} if held_out is None else _held_out(one, held_out[0], held_out[1][:, k], held_out[2])
            estimators.append(one.fit(prepared.X, prepared.y[:, k], **prepared.fit_params, **extra, **stop))
        return cls(estimators)

    def predict(self, X):
        return np.column_stack([estimator.predict(X) for estimator in self.estimators])


def _boosters(estimator):
    """The fitted LightGBM estimators of a fold model's ``estimator``: itself, or one a target."""
    return estimator.estimators if isinstance(estimator, PerTargetLightGBM) else [estimator]


class LightGBMFoldModel(FoldModel):
    """A fitted LightGBM member (one fold): a :class:`~mddf.blocks.members.FoldModel` whose importances are its
    total gains a column, normalised, as XGBoost's ``feature_importances_`` are."""

    @property
    def importances(self):
        """The total gains a column over the rounds it predicts with (summed over the targets' regressors),
        summing to ``importance_scale`` (1 for a classifier); None for a model of one class or without a split."""
        if self.estimator is None:
            return None
        gains = sum(
            np.asarray(booster.booster_.feature_importance("gain"), dtype=np.float64)
            for booster in _boosters(self.estimator)
        )
        total = gains.sum()
        return gains / total * self.importance_scale if total > 0 else None


def warn_too_few_rows(template, fold, layer, position):
    """Warn (once a layer, as ``layer.warned`` records) when ``fold``'s distinct training rows are fewer than two of
    LightGBM's smallest leaves (``min_child_samples``): its fold model cannot split, and predicts a constant."""
    smallest = int(template.get_params().get("min_child_samples") or 1)
    rows = len(np.unique(fold.fit_rows))
    key = ("too few rows", position)
    if rows >= 2 * smallest or key in layer.warned:
        return
    layer.warned.add(key)
    warnings.warn(
        f"forest_types[{position}] ({type(template).__name__}): a fold model trains on {rows} distinct rows, fewer "
        f"than the {2 * smallest} LightGBM needs to split once (min_child_samples={smallest} rows a leaf), so it "
        "predicts a constant; with so few rows use the forests, or a LightGBM estimator with a smaller "
        "min_child_samples",
        UserWarning,
        stacklevel=3,
    )


@register_member
class LightGBMMember(EstimatorMember):
    """LightGBM as a member (see the module): a named kind of :data:`mddf.forests.LGBM_KINDS`, or an
    ``LGBMClassifier`` / ``LGBMRegressor`` instance of one's own settings (its categories not given unless it names
    them)."""

    names = LGBM_KINDS

    @classmethod
    def claims(cls, estimator):
        return is_lightgbm(estimator)

    def check(self, where):
        if isinstance(self.kind, str):
            require_lightgbm(f"{where} ({self.kind!r})")
        else:
            super().check(where)

    def capabilities(self):
        """A named kind: categories, NaN, several targets (one regressor a target), monotone constraints, exact
        attributions, early stopping (``"lgbm_es"``); an instance: NaN as its tags say, several targets,
        attributions, early stopping when it has ``early_stopping_round``."""
        if not isinstance(self.kind, str):
            own = super().capabilities()
            return replace(own, several_targets=True, attributions=True, early_stopping=stops_early(self.kind))
        return Capabilities(
            categories=True,
            several_targets=True,
            monotone=True,
            attributions=True,
            early_stopping=self.kind == "lgbm_es",
        )

    def template(self, layer):
        """A named kind's estimator (:func:`mddf.forests.make_lgbm`, with the layer's monotone constraints), or the
        instance."""
        if not isinstance(self.kind, str):
            return self.kind
        lgbm = make_lgbm(task=self.task, kind=self.kind)
        if layer.monotone is not None:  # ``monotonic_cst``
            lgbm.set_params(monotone_constraints=list(layer.monotone))
        return lgbm

    def fit_task(self, fold, layer, position):
        """:func:`fit_lgbm_fold_member` on ``fold``, a named kind given the layer's category columns; a warning, once
        a layer, when the fold's rows are too few for LightGBM to split once (:func:`warn_too_few_rows`)."""
        warn_too_few_rows(self.template(layer), fold, layer, position)
        task = super().fit_task(fold, layer, position)
        named = isinstance(self.kind, str)
        categorical = layer.categorical if named else None
        unstopped = lgbm_params(self.task, "lgbm")["n_estimators"] if named else None
        return FitTask(fit_lgbm_fold_member, task.args + (categorical, unstopped))

    def check_explainable(self, model, where, role="member"):
        """LightGBM's contributions explain its objectives of :data:`LGBM_LINKS`."""
        estimator = None if model.estimator is None else _boosters(model.estimator)[0]
        if estimator is not None and estimator.objective_ not in LGBM_LINKS:
            raise ValueError(
                f"{where} ({type(estimator).__name__}): explain() explains LightGBM's objectives "
                f"{tuple(LGBM_LINKS)}, not {estimator.objective_!r}"
            )

    def own_attributions(self, estimator, X, fast):
        """LightGBM's contributions to its raw scores (exact TreeSHAP, ``fast`` or not), through its link; with
        several targets, each target's regressor's contributions to its prediction."""
        boosters = _boosters(estimator)
        contributions = np.concatenate(
            [np.asarray(b.predict(X, pred_contrib=True), dtype=np.float64).reshape(len(X), -1) for b in boosters],
            axis=1,
        )
        margins = np.column_stack(
            [np.asarray(b.predict(X, raw_score=True), dtype=np.float64).reshape(len(X), -1) for b in boosters]
        )
        contributions = contributions.reshape(len(X), margins.shape[1], X.shape[1] + 1)
        return contribution_attributions(contributions, margins, LGBM_LINKS[boosters[0].objective_])
