"""The CatBoost member: ``"catboost_es"`` and any CatBoost estimator instance, a member kind of the protocol
(:mod:`mddf.blocks.member`).

A CatBoost member is an estimator fitted whole on each fold (:class:`mddf.blocks.members.EstimatorMember`), with what
CatBoost adds: the named kind is ``CatBoostClassifier`` (``CatBoostRegressor``) with the settings of
:func:`mddf.forests.make_catboost`, stopped early on rows held out of each fold model's training rows as ``"gbdt_es"``
and ``"lgbm_es"`` are, given every category column of the layer's input as its ``cat_features`` (whatever their
number of levels: CatBoost reads them by its ordered target statistics and their combinations), the codes as integers
and a missing category as a level of its own (:class:`CatBoostOnCodes`); several regression targets are fitted by one
model (``loss_function="MultiRMSE"``). Its outputs are explained by CatBoost's own SHAP values of its trees
(``get_feature_importance(type="ShapValues")``, exact for its symmetric trees; ``fast`` changes nothing) to its raw
scores, through its link (:func:`mddf.blocks.attribution.contribution_attributions`). catboost is not a dependency of
mddf (the ``bench`` extra installs it); naming the kind without it is a one-line error that says how to install it. It
takes no monotone constraint, and a layer probe fits it in full.
"""

from __future__ import annotations

import sys

import numpy as np

from ..forests import CATBOOST_KINDS, make_catboost
from ..forests.boosting import require_catboost
from .attribution import contribution_attributions
from .member import Capabilities, FitTask, register_member
from .members import EstimatorMember, PreparedMember, fold_member_rows, no_output

#: The loss functions of CatBoost members whose outputs are explained, and the link from their raw scores.
CATBOOST_LINKS = {"RMSE": "identity", "MultiRMSE": "identity", "Logloss": "logistic", "MultiClass": "softmax"}
#: The integer a missing category (NaN) is given: a level of its own for CatBoost.
MISSING_CODE = -1


def is_catboost(estimator):
    """Whether ``estimator`` is a CatBoost estimator (``CatBoostClassifier``, ``CatBoostRegressor``); never imports
    catboost."""
    module = sys.modules.get("catboost")
    return module is not None and isinstance(estimator, module.CatBoost)


class CatBoostOnCodes:
    """A CatBoost estimator that reads a layer's float32 input: the columns marked in ``categories`` hold category
    codes (NaN: missing), given to CatBoost as integer ``cat_features`` (:data:`MISSING_CODE` for a missing one); the
    others as they are (NaN: CatBoost's missing value). ``fit``, ``predict``, ``predict_proba``, ``classes_`` and
    ``feature_importances_`` (CatBoost's, divided by their sum) as scikit-learn's estimators have them."""

    def __init__(self, estimator, categories):
        self.estimator = estimator
        self.categories = None if categories is None else np.flatnonzero(categories)

    def pool(self, X, y=None, weight=None):
        """``X`` (and ``y``, ``weight``) as a ``catboost.Pool`` whose category columns are integers."""
        import pandas as pd

        catboost = require_catboost("a CatBoost member")
        frame = pd.DataFrame(np.asarray(X), columns=[str(j) for j in range(X.shape[1])])
        if self.categories is None or not len(self.categories):
            return catboost.Pool(frame, y, weight=weight)
        for j in self.categories:
            codes = frame.iloc[:, j].to_numpy()
            frame[str(j)] = np.where(np.isnan(codes), MISSING_CODE, codes).astype(np.int64)
        return catboost.Pool(frame, y, cat_features=self.categories.tolist(), weight=weight)

    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Fit on ``X, y`` (weights ``sample_weight``), stopping on ``eval_set`` ``(X, y, weight)`` when given."""
        if np.ndim(y) == 2:  # several regression targets: one model
            self.estimator.set_params(loss_function="MultiRMSE")
        stop = None if eval_set is None else self.pool(*eval_set)
        if stop is None:
            self.estimator.set_params(early_stopping_rounds=None)
        self.estimator.fit(self.pool(X, y, sample_weight), eval_set=stop)
        return self

    @property
    def classes_(self):
        return np.asarray(self.estimator.classes_)

    def predict(self, X):
        return np.asarray(self.estimator.predict(self.pool(X)), dtype=np.float64)

    def predict_proba(self, X):
        return self.estimator.predict_proba(self.pool(X))

    @property
    def feature_importances_(self):
        values = np.asarray(self.estimator.get_feature_importance(), dtype=np.float64)
        total = values.sum()
        return values / total if total > 0 else values

    @property
    def loss_function(self):
        """The loss CatBoost fitted (``Logloss``, ``MultiClass``, ``RMSE``, ``MultiRMSE``, ...)."""
        return self.estimator.get_all_params()["loss_function"]

    def contributions(self, X):
        """CatBoost's SHAP values of its raw scores ``(n, k, d + 1)`` (the bias last) and the raw scores ``(n, k)``."""
        pool = self.pool(X)
        shap = np.asarray(self.estimator.get_feature_importance(pool, type="ShapValues"), dtype=np.float64)
        raw = np.asarray(self.estimator.predict(pool, prediction_type="RawFormulaVal"), dtype=np.float64)
        raw = raw.reshape(len(X), -1)
        return shap.reshape(len(X), raw.shape[1], X.shape[1] + 1), raw


def fit_catboost_fold_member(template, seed, X, y, fit_rows, predict_rows, weight, draws, n_classes, where, categories):
    """:func:`mddf.blocks.members.fit_fold_member` (same parameters and result) of a CatBoost estimator with
    ``early_stopping_rounds``, the columns marked in ``categories`` (or none: None) its ``cat_features``: it stops on
    :data:`~mddf.blocks.members.STOPPING_FRACTION` of its distinct training rows, drawn after its resample as
    ``"gbdt_es"``'s (:func:`~mddf.blocks.members.stopping_rows`), and fits the others; with none to spare, every
    round."""
    stopping = bool(template.get_params().get("early_stopping_rounds"))
    drawn = fold_member_rows(seed, fit_rows, draws, (y, n_classes is not None) if stopping else None)
    estimator_seed, fit_rows, stop = drawn if stopping else (*drawn, fit_rows[:0])
    part_weight = None if weight is None else weight[fit_rows]
    prepared = PreparedMember.prepare(template, X[fit_rows], y[fit_rows], n_classes, part_weight, estimator_seed, where)
    if prepared.estimator is not None:
        prepared.estimator = CatBoostOnCodes(prepared.estimator, categories)
        held_out = None
        if len(stop):
            y_stop = y[stop] if prepared.classes is None else np.searchsorted(prepared.classes, y[stop])
            held_out = (X[stop], y_stop, None if weight is None else weight[stop])
        prepared.fit(eval_set=held_out)
    model = prepared.model()
    if not len(predict_rows):  # the refit on every training row holds none out
        return model, no_output(n_classes)
    return model, model.output(X[predict_rows])


@register_member
class CatBoostMember(EstimatorMember):
    """CatBoost as a member (see the module): the named kind of :data:`mddf.forests.CATBOOST_KINDS`, or a
    ``CatBoostClassifier`` / ``CatBoostRegressor`` instance of one's own settings (given the category columns too,
    and stopped early when it has ``early_stopping_rounds``)."""

    names = CATBOOST_KINDS

    @classmethod
    def claims(cls, estimator):
        return is_catboost(estimator)

    def check(self, where):
        if isinstance(self.kind, str):
            require_catboost(f"{where} ({self.kind!r})")
        else:
            super().check(where)

    def capabilities(self):
        """Every category column, NaN (a missing category a level of its own), several targets (``MultiRMSE``), exact
        attributions, early stopping (with ``early_stopping_rounds``); no monotone constraint."""
        stops = isinstance(self.kind, str) or bool(self.kind.get_params().get("early_stopping_rounds"))
        return Capabilities(categories=True, several_targets=True, attributions=True, early_stopping=stops)

    def template(self, layer):
        """The named kind's estimator (:func:`mddf.forests.make_catboost`), or the instance."""
        return make_catboost(task=self.task, kind=self.kind) if isinstance(self.kind, str) else self.kind

    def fit_task(self, fold, layer, position):
        """:func:`fit_catboost_fold_member` on ``fold``, given every category column of the layer's input."""
        task = super().fit_task(fold, layer, position)
        categories = layer.categorical if layer.categories is None else layer.categories
        return FitTask(fit_catboost_fold_member, task.args + (categories,))

    def check_explainable(self, model, where, role="member"):
        """CatBoost's SHAP values explain its losses of :data:`CATBOOST_LINKS`."""
        if model.estimator is not None and model.estimator.loss_function not in CATBOOST_LINKS:
            raise ValueError(
                f"{where} (CatBoost): explain() explains CatBoost's losses {tuple(CATBOOST_LINKS)}, not "
                f"{model.estimator.loss_function!r}"
            )

    def own_attributions(self, estimator, X, fast):
        """CatBoost's SHAP values of its raw scores, through its link (exact whether ``fast`` or not)."""
        contributions, raw = estimator.contributions(X)
        return contribution_attributions(contributions, raw, CATBOOST_LINKS[estimator.loss_function])
