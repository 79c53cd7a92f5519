"""An XGBoost member fitted in stages of boosting rounds: the probe's first rounds, then the rest.

A layer probe (:mod:`mddf.cascade.probing`) grows a share of each member's trees first. A forest's trees are independent
draws (:class:`mddf.forests.growing.StagedForest`); a boosted member's rounds are not, but XGBoost continues a
booster's training where it stopped (``fit(..., xgb_model=booster)``): ``k`` rounds, then ``n - k`` more, give the
booster of ``n`` rounds at once, bit for bit (its histogram cuts come from the same rows, and each round's trees
from the margins of the rounds before). :class:`StagedBoosting` fits the ``"gbdt"`` member (and any XGBoost
estimator without early stopping) so; every other member is fitted in full by the probe.
"""

from __future__ import annotations

from .members import PreparedMember, fold_member_rows, no_output


def can_stage(template):
    """Whether a member's template is an XGBoost estimator whose rounds can be fitted in stages: no early stopping
    and no callbacks, which would stop or change a stage."""
    try:
        from xgboost import XGBModel
    except ImportError:  # pragma: no cover - xgboost is a dependency
        return False
    if not isinstance(template, XGBModel):
        return False
    params = template.get_params()
    return params.get("early_stopping_rounds") is None and not params.get("callbacks")


def staged_fold_member(template, seed, X, y, fit_rows, predict_rows, weight, draws, n_classes, where=None):
    """The fit of :func:`mddf.blocks.members.fit_fold_member` (same parameters) as a :class:`StagedBoosting`, no round
    fitted yet; None when the template cannot be fitted in stages (:func:`can_stage`)."""
    if not can_stage(template):
        return None
    return StagedBoosting(template, seed, X, y, fit_rows, predict_rows, weight, draws, n_classes, where)


class StagedBoosting:
    """A fold fit of an XGBoost member grown in stages of rounds, with its held-out outputs at each (see the module).

    ``grow(k)`` fits the first ``k`` rounds (or continues to them), :meth:`output` gives the held-out rows' outputs
    of the rounds fitted so far (or of their first ones), :meth:`probe` both for a probe, :meth:`finish` gives
    ``(FoldModel, output)``:
    ``staged.grow(n_estimators).finish()`` is :func:`mddf.blocks.members.fit_fold_member`'s fit, bit for bit, the
    estimator's ``n_estimators`` its template's. The parameters are :func:`~mddf.blocks.members.fit_fold_member`'s.
    """

    def __init__(self, template, seed, X, y, fit_rows, predict_rows, weight, draws, n_classes, where=None):
        estimator_seed, rows = fold_member_rows(seed, fit_rows, draws)
        weight = None if weight is None else weight[rows]
        self.prepared = PreparedMember.prepare(template, X[rows], y[rows], n_classes, weight, estimator_seed, where)
        self.n_estimators = int(template.get_params()["n_estimators"])
        self.X_out, self.n_classes = X[predict_rows], n_classes
        self.n_grown = 0

    def grow(self, rounds):
        """Fit the rounds up to ``rounds`` (at most ``n_estimators``), continuing those fitted; return self."""
        rounds = min(rounds, self.n_estimators)
        estimator = self.prepared.estimator
        if rounds <= self.n_grown or estimator is None:  # nothing more, or a fit on one class (no booster)
            self.n_grown = max(self.n_grown, rounds)
            return self
        if self.n_grown == 0:
            estimator.set_params(n_estimators=rounds)
            self.prepared.fit()
        else:
            booster = estimator.get_booster()
            estimator.set_params(n_estimators=rounds - self.n_grown)
            self.prepared.fit(xgb_model=booster)
        self.n_grown = rounds
        return self

    def output(self, rounds=None):
        """The held-out rows' outputs of the rounds fitted so far (of the first ``rounds`` of them)."""
        if not len(self.X_out):
            return no_output(self.n_classes)
        if rounds is None or rounds >= self.n_grown or self.prepared.estimator is None:
            return self.prepared.model().output(self.X_out)
        return self.prepared.model().output(self.X_out, iteration_range=(0, rounds))

    def probe(self, first, rounds):
        """The probe's outputs: those of the first ``first`` and of the first ``rounds`` rounds, one fit of
        ``rounds`` rounds (the first ones read with XGBoost's ``iteration_range``)."""
        self.grow(rounds)
        return self.output(first), self.output()

    def finish(self):
        """``(FoldModel, output)`` of the rounds fitted, the estimator's ``n_estimators`` set back to its
        template's."""
        if self.prepared.estimator is not None:
            self.prepared.estimator.set_params(n_estimators=self.n_estimators)
        return self.prepared.model(), self.output()
