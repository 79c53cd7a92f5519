"""The steps of a fitted cascade after its layers: ensemble selection, the ``predictor`` and the calibration.

Each is one class, fitted once growth stops (by :meth:`mddf.cascade.policy.TaskPolicy.finish`) and applied to the
cascade's output, a :class:`~mddf.margin.carried.Carried`: the value, and when ``explain()`` asked for them its
attributions, by the same method (``apply``), the linear ones through :mod:`mddf.margin.carried`. In order:

- :class:`SelectionStep` (``final_mixture="selection"``): the members of every kept layer mixed by their weights
  (:mod:`.selection`), in place of the head's output;
- :class:`PredictorStep` (``predictor``): an estimator on ``[x, f_T]`` (or ``x`` alone) whose output, read through
  the head's link, predicts, or is blended with the cascade's (:mod:`.final_predictor`);
- :class:`CalibrationStep` (``calibration``): the classifier's temperature on the probabilities that predict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._runtime.threads import one_blas_thread, one_thread
from ..blocks.members import check_accepts_nan
from ..margin.calibration import fit_temperature
from ..margin.carried import Carried, blend, plus, weighted_sum
from .attribution import calibrated
from .final_predictor import fit_final_predictor
from .selection import fit_selection


@dataclass
class SelectionStep:
    """Ensemble selection's mixture of the kept layers' members: ``weights`` ``(n_layers, n_members)``, one a member
    (a layer's own members first, 0 beyond them)."""

    weights: np.ndarray

    @classmethod
    def fit(cls, final_mixture, classification, state, kept, shares):
        """``(step, output)``: with ``final_mixture="selection"`` ensemble selection over the kept layers' members'
        out-of-fold outputs (:func:`mddf.cascade.selection.fit_selection`) and the selected mixture's out-of-fold
        output of the training rows; ``(None, None)`` otherwise."""
        found, output = fit_selection(final_mixture, classification, state, kept, shares)
        weights = found["selection_weights_"]
        return (None if weights is None else cls(weights)), output

    def visits(self, visits):
        """The replay's visits, each with ``selected``, the members of the layers so far mixed by their weights."""
        total = None
        for visit in visits:
            members = visit.members
            total = plus(total, weighted_sum(members, self.weights[visit.t - 1][: members.value.shape[1]]))
            yield replace(visit, selected=total)

    def apply(self, output, X, last, explaining=None):
        """The selected mixture, in place of the head's ``output``."""
        return last.selected

    def attributes(self):
        return {"selection_weights_": self.weights}


@dataclass
class PredictorStep:
    """The fitted ``predictor``: the ``model`` that predicts (None when the cascade does: ``input="cascade"``) and
    the estimator shown as ``predictor_``; what it reads (``input``: ``"stacked"``, ``"blend"``, ``"raw"`` or
    ``"cascade"``), its weight in ``(1 - weight) * cascade + weight * predictor``, the head's ``link`` (how its
    output is read) and ``n_features``, the columns of the user's ``x``."""

    model: object
    estimator: object
    input: str
    weight: float
    link: object
    n_features: int

    @classmethod
    def fit(cls, params, templates, link, state, kept, n_features):
        """``(step, scores)``: the ``predictor`` fitted after growth (:func:`mddf.cascade.final_predictor.
        fit_final_predictor`, the task's ``link`` fitting and scoring it) and ``predictor_input_scores_``; ``(None,
        None)`` without a ``predictor``."""
        found = fit_final_predictor(params, templates, link, state, kept)
        if found["predictor_input_"] is None:
            return None, None
        model, estimator = found["_predictor_model"], found["predictor_"]
        step = cls(model, estimator, found["predictor_input_"], found["predictor_weight_"], link, n_features)
        return step, found["predictor_input_scores_"]

    @property
    def reads_x_only(self):
        """Whether it predicts from ``x`` alone (``input="raw"``): the layers are not read."""
        return self.model is not None and self.input == "raw"

    def rows(self, X, passed):
        """Its input for rows ``X`` (pairs appended): ``[x, passed]``, or ``x`` alone with ``input="raw"``."""
        Z = X if self.input == "raw" else np.hstack([X, passed.astype(np.float32)])
        return np.ascontiguousarray(Z, dtype=np.float32)

    def apply(self, output, X, last, explaining=None):
        """Its output for rows ``X`` (``last``: the last kept layer's visit), blended with the cascade's ``output`` by
        its weight; the cascade's as it is when the cascade predicts."""
        if self.model is None:
            return output
        raw = self.input == "raw"
        Z = self.rows(X, None if raw else last.passed.value)
        if np.isnan(Z[:, : self.n_features]).any():
            check_accepts_nan(self.estimator, "predictor")
        with one_blas_thread():
            value = one_thread(self.link.predictor_output, self.model, Z)
        predicted = Carried(value)
        if explaining is not None:
            base, values = self.link.predictor_attributions(self.model, Z, explaining.fast)
            passed = None if raw else last.passed.attributed.values
            predicted = Carried(value, self.link.on_x(base, values, explaining.d, passed))
        return blend(output, predicted, self.weight)

    def attributes(self):
        return {
            "predictor_": self.estimator,
            "predictor_input_": self.input,
            "predictor_weight_": self.weight,
        }


@dataclass
class CalibrationStep:
    """The classifier's fitted ``calibration`` (a :class:`mddf.margin.calibration.TemperatureCalibration`, or a
    multi-label fit's one a label)."""

    calibration: object

    @classmethod
    def fit(cls, output, y, weight):
        """The temperature of the out-of-fold class probabilities ``output`` (:func:`mddf.margin.calibration.
        fit_temperature`) when it lowers their log-loss; None (the probabilities as they are) when it does not."""
        fitted = fit_temperature(output, y, weight)
        return cls(fitted) if fitted.log_loss_after < fitted.log_loss_before else None

    def apply(self, output, X=None, last=None, explaining=None):
        """The calibrated probabilities of the class shares ``output``, with their attributions when it carries them
        (the logarithm and the softmax taken through their steps: :func:`mddf.cascade.attribution.calibrated`)."""
        value = self.calibration.apply(output.value)
        if output.attributed is None:
            return Carried(value)
        return Carried(value, calibrated(output.attributed, self.calibration))

    def attributes(self):
        return {"calibration_": self.calibration}
