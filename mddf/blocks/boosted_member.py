"""The boosted members: ``"gbdt"``, ``"gbdt_es"``, ``"gbdt_vector"`` and any XGBoost estimator instance, a member
kind of the protocol (:mod:`mddf.blocks.member`).

A boosted member is an estimator fitted whole on each fold (:class:`mddf.blocks.members.EstimatorMember`), with
what XGBoost adds: the named kinds are XGBoost with the fixed settings of :func:`mddf.forests.make_gbdt`
(splitting the columns the block splits into category subsets into category subsets too); one with
``early_stopping_rounds`` stops on rows held out of each fold model's training rows
(:func:`fit_stopped_fold_member`); one without is fitted in stages of rounds by a layer probe
(:class:`mddf.blocks.staged_boosting.StagedBoosting`); and its outputs are explained by XGBoost's own
contributions to its margins (:func:`mddf.blocks.attribution.xgboost_attributions`).
"""

from __future__ import annotations

from dataclasses import replace

from ..forests import GBDT_KINDS, make_gbdt
from .attribution import XGBOOST_OBJECTIVES, xgboost_attributions
from .member import Capabilities, FitTask, register_member
from .members import EstimatorMember, PreparedMember, fit_fold_member, fold_member_rows, no_output
from .staged_boosting import staged_fold_member


def is_xgboost(estimator):
    """Whether ``estimator`` is an XGBoost estimator (``XGBClassifier``, ``XGBRegressor``, ...)."""
    try:
        from xgboost import XGBModel
    except ImportError:  # pragma: no cover - xgboost is a dependency
        return False
    return isinstance(estimator, XGBModel)


def stops_early(template):
    """Whether a member's template is an XGBoost estimator with ``early_stopping_rounds``: its fold models then
    hold out rows of their training rows to stop on (:func:`fit_stopped_fold_member`)."""
    return is_xgboost(template) and template.get_params().get("early_stopping_rounds") is not None


def fit_stopped_fold_member(template, seed, X, y, fit_rows, predict_rows, weight, draws, n_classes, where=None):
    """:func:`mddf.blocks.members.fit_fold_member` (same parameters and result) of an XGBoost estimator with
    ``early_stopping_rounds``: it stops on :data:`~mddf.blocks.members.STOPPING_FRACTION` of its distinct training
    rows, drawn after its resample (:func:`~mddf.blocks.members.stopping_rows`), and fits the others."""
    estimator_seed, fit_rows, stop = fold_member_rows(seed, fit_rows, draws, (y, n_classes is not None))
    part_weight, stop_weight = (None, None) if weight is None else (weight[fit_rows], weight[stop])
    prepared = PreparedMember.prepare(template, X[fit_rows], y[fit_rows], n_classes, part_weight, estimator_seed)
    prepared.where = where
    model = prepared.fit_stopping_on(X[stop], y[stop], stop_weight).model()
    if not len(predict_rows):  # the refit on every training row holds none out
        return model, no_output(n_classes)
    return model, model.output(X[predict_rows])


@register_member
class BoostedMember(EstimatorMember):
    """XGBoost as a member (see the module): a named kind of :data:`mddf.forests.GBDT_KINDS`, or an
    ``XGBClassifier`` / ``XGBRegressor`` instance of one's own settings. Dispatched first in a layer's queue (its
    rounds take several forests' time), as every member fitted whole."""

    names = GBDT_KINDS

    @classmethod
    def claims(cls, estimator):
        return is_xgboost(estimator)

    def check(self, where):
        if not isinstance(self.kind, str):
            super().check(where)

    def capabilities(self):
        """A named kind: categories, NaN, several targets, early stopping (``"gbdt_es"``, ``"gbdt_vector"``), and but
        for ``"gbdt_vector"``'s vector leaves monotone constraints and exact attributions; an instance: NaN as its
        tags say, several targets, attributions, early stopping when it has ``early_stopping_rounds``."""
        if not isinstance(self.kind, str):
            own = super().capabilities()
            return replace(own, several_targets=True, attributions=True, early_stopping=stops_early(self.kind))
        vector = self.kind == "gbdt_vector"
        return Capabilities(
            categories=True, several_targets=True, monotone=not vector, attributions=not vector,
            early_stopping=self.kind != "gbdt",
        )  # fmt: skip

    def template(self, layer):
        """A named kind's XGBoost estimator (:func:`mddf.forests.make_gbdt`, with the layer's category columns and
        monotone constraints), or the instance."""
        if isinstance(self.kind, str):
            gbdt = make_gbdt(task=self.task, categorical=layer.categorical, kind=self.kind)
            if layer.monotone is not None:  # ``monotonic_cst``
                gbdt.set_params(monotone_constraints=layer.monotone)
            return gbdt
        return self.kind

    def _fold_fit(self, template, args):
        if stops_early(template):
            return FitTask(fit_stopped_fold_member, args)
        return FitTask(fit_fold_member, args, staged_fold_member)

    def check_explainable(self, model, where, role="member"):
        """XGBoost's contributions explain its objectives :data:`~mddf.blocks.attribution.XGBOOST_OBJECTIVES`, and
        no trees whose leaves hold every class's value."""
        estimator = model.estimator
        if estimator is None:
            return
        named = f"{where} ({type(estimator).__name__})"
        if estimator.get_params().get("multi_strategy") == "multi_output_tree":
            instead = (
                "(multi_strategy='multi_output_tree'); fit with predictor='xgboost', 'forest' or None to explain the "
                "model"
                if role == "predictor"
                else "(multi_strategy='multi_output_tree', the member 'gbdt_vector'): use 'gbdt', 'gbdt_es'"
            )
            raise ValueError(
                f"{named}: XGBoost computes no contributions for trees whose leaves hold every class's value {instead}"
            )
        objective = estimator.get_params().get("objective")
        if objective not in XGBOOST_OBJECTIVES:
            raise ValueError(
                f"{named}: explain() explains XGBoost's objectives {XGBOOST_OBJECTIVES}, not {objective!r}"
            )

    def own_attributions(self, estimator, X, fast):
        """XGBoost's contributions to its margins, through its link
        (:func:`~mddf.blocks.attribution.xgboost_attributions`)."""
        return xgboost_attributions(estimator, X, fast)
