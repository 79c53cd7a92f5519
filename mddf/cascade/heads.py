"""The task heads of a fitted cascade: how the kept layers' members' outputs become the cascade's output.

A head sends validated rows (their ``x``, pair features appended) through the kept layers as the fit sent its held-out
rows, each layer reading ``x`` and what the layer before passed on (:class:`~mddf.cascade.replay.LayerRoute`), and
yields a :class:`~mddf.cascade.replay.LayerVisit` after each. Asked for attributions (an :class:`Explaining`), it
explains each layer's members on the input the prediction gives them (exact TreeSHAP for the trees,
:func:`mddf.blocks.attribution.block_attributions`), takes their attributions to the passed columns back to the
columns of ``x`` (:func:`mddf.cascade.attribution.on_x`) and mixes them as it mixes the values, by the same code
(:mod:`mddf.margin.carried`). The task is the head, and nothing else branches on it:

- :class:`ClassVectorHead`, the classifier's: each layer's members' (weighted) mean class vector joins the mixture
  with its share beta_t (eqs. 7 and 9, :class:`mddf.margin.state.ClassVectorMixture`); with confidence screening,
  only the rows still in go through a layer;
- :class:`PredictionHead`, the regressor's: each member's prediction of y is passed on (a residual member's output
  plus the previous prediction) and the layer predicts their mean (:class:`.prediction_mean.PredictionMean`).

Each gives the ``predictor`` step its link (how a predictor's output, and its attributions, are read).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..blocks.attribution import block_attributions, model_attributions, xgboost_attributions
from ..blocks.attribution import check_explainable as check_explainable_model
from ..blocks.members import fit_member, seeded_clone
from ..forests import PrefixCodes
from ..margin.carried import Attributed, Carried
from ..margin.state import ClassVectorMixture
from ..utils import ACCURACY, NEGATIVE_MSE, squared_errors
from .attribution import on_x
from .prediction_mean import PredictionMean
from .replay import LayerVisit
from .screening import still_in


@dataclass(frozen=True)
class Explaining:
    """What ``explain()`` asks of a replay: the attributions to the ``d`` columns of ``x`` (pairs appended), exact
    TreeSHAP or (``fast``) the trees' path contributions."""

    d: int
    fast: bool = False


def _on_x(block, layer_input, explaining, previous, holds_x):
    """A block's members' attributions for ``layer_input`` taken to the columns of ``x``: base ``(m, w)`` and values
    ``(n, d, m, w)``, ``previous`` the attributions ``(n, d, c)`` of the passed columns (None before layer 2)."""
    base, values = block_attributions(block, layer_input, explaining.fast)
    return base, on_x(values, explaining.d, previous, holds_x).transpose(0, 2, 1, 3)


def class_vector_layer(route, block, t, share, X, mixture, rows, x_codes, explaining=None):
    """Send rows through the classifier's fitted layer ``block`` (layer t): its class vectors join ``mixture`` with
    ``share``. Only the rows still in (``rows``, indices into ``X``; None: all) go through; ``x_codes`` are their
    ``x``'s. Returns their layer input and the members' class vectors ``(n, m, k)`` as a :class:`Carried`, with their
    attributions when ``explaining`` (None, None when no row is still in)."""
    passed = mixture.carried_passed
    if rows is None:
        layer_input = route.layer_input(X, mixture.passed, t)
    elif len(rows):
        layer_input = route.layer_input(X[rows], mixture.passed[rows], t)
        passed = passed.rows(rows)
    else:
        return None, None
    members = Carried(block.predict_proba(layer_input, route.prefix(x_codes, t)))
    if explaining is not None:
        previous = None if passed is None else passed.attributed.values
        members = Carried(members.value, Attributed(*_on_x(block, layer_input, explaining, previous, route.holds_x(t))))
    mixture.add_layer(members, share, rows, block.member_weights_)
    return layer_input, members


@dataclass(frozen=True)
class ClassProbabilities:
    """The classifier's link: a ``predictor`` is fitted on the class indices and gives class probabilities, scored by
    accuracy and explained through its classes' columns."""

    n_classes: int
    classification = True

    def fit_predictor(self, template, Z, y, weight, seed):
        """The predictor ``template`` fitted on ``Z``, as the model that predicts and the estimator ``predictor_``."""
        model = fit_member(template, Z, y, self.n_classes, weight, random_state=seed, where="predictor")
        model.predict_proba(Z[:16])  # an unusable output is an error at fit, naming the predictor
        return model, model.estimator

    def predictor_output(self, model, Z):
        return model.predict_proba(Z)

    def score(self, output, y, weight):
        """The accuracy of class probabilities ``output`` (what early stopping monitors)."""
        return ACCURACY.score(output.argmax(axis=1) == y, weight)

    def predictor_attributions(self, model, Z, fast):
        """``(base (k,), values (n, Z's columns, k))`` of the predictor's probabilities."""
        check_explainable_model(model, "predictor", role="predictor")
        base, values = model_attributions(model, Z, None, False, fast, self.n_classes)
        return base, values

    def on_x(self, base, values, d, passed):
        """The predictor's attributions taken to the columns of ``x`` (``passed``: those of its passed columns)."""
        return Attributed(base, on_x(values[:, None], d, passed)[:, 0])


@dataclass(frozen=True)
class Predictions:
    """The regressor's link: a ``predictor`` is fitted on y and gives predictions (float64), scored by their negative
    mean squared error and explained for XGBoost alone."""

    classification = False

    def fit_predictor(self, template, Z, y, weight, seed):
        """The predictor ``template`` fitted on ``Z = [x, h_T]``, as the model that predicts and ``predictor_``."""
        estimator = seeded_clone(template, seed)
        estimator.fit(Z, y, **({} if weight is None else {"sample_weight": weight}))
        sample = np.asarray(estimator.predict(Z[:16]))  # an unusable output is an error at fit, naming the predictor
        name = f"predictor ({type(estimator).__name__})"
        if sample.shape != (len(Z[:16]),):
            shape = (len(Z[:16]),)
            raise ValueError(f"{name}: predict returned shape {sample.shape}; expected {shape}, one value per row")
        finite = np.isfinite(sample)
        if not finite.all():  # as a member's: a NaN is not a shape complaint
            raise ValueError(
                f"{name}: predict returned non-finite values (NaN or infinity) in {int((~finite).sum())} of "
                f"{len(sample)} rows; it must give finite predicted values"
            )
        return estimator, estimator

    def predictor_output(self, model, Z):
        return np.asarray(model.predict(Z), dtype=np.float64)

    def score(self, output, y, weight):
        """The negative mean squared error of predictions ``output``."""
        return NEGATIVE_MSE.score(squared_errors(y, output), weight)

    def predictor_attributions(self, model, Z, fast):
        if not hasattr(model, "get_booster"):
            raise ValueError(
                f"predictor ({type(model).__name__}): explain() attributes the regressor's predictor 'xgboost' only"
            )
        return xgboost_attributions(model, Z, fast)

    def on_x(self, base, values, d, passed):
        return Attributed(base[0], on_x(values[:, None], d, passed)[:, 0, :, 0])


@dataclass
class ClassVectorHead:
    """The classifier's head (see the module).

    Attributes
    ----------
    classes : ndarray, or list of ndarray (one per label of a multi-label fit)
    shares, alphas : ndarray ``(n_layers,)``
        The kept layers' shares beta_t and weights alpha_t.
    thresholds : ndarray ``(n_layers,)`` or None
        The screening thresholds (None without screening).
    passed_features : str
        ``"mean"`` or ``"per_forest"``.
    """

    classes: object
    shares: np.ndarray
    alphas: np.ndarray
    thresholds: np.ndarray | None = None
    passed_features: str = "mean"

    classification = True

    @property
    def link(self):
        return ClassProbabilities(len(self.classes))

    def output_shape(self, layers):
        """The shape of a row's output: its classes'."""
        return (len(self.classes),)

    def output_names(self, layers):
        return [str(c) for c in self.classes]

    def visits(self, route, layers, X, explaining=None):
        """The :class:`LayerVisit` after each of the kept ``layers`` for rows ``X``, each layer mixed in with its share;
        with screening ``thresholds``, only the rows still in go through a layer."""
        mixture, x_codes = ClassVectorMixture(self.passed_features), PrefixCodes(X)
        rows, thresholds = None, self.thresholds  # the rows still in the cascade: every row until a threshold screens
        for t, (block, share) in enumerate(zip(layers, self.shares), start=1):
            layer_input, members = class_vector_layer(route, block, t, share, X, mixture, rows, x_codes, explaining)
            yield LayerVisit(t, block, share, rows, layer_input, mixture.carried_passed, mixture.carried_proba, members)
            if thresholds is not None and t < len(thresholds) and (rows is None or len(rows)):
                still = still_in(rows, mixture.proba, thresholds[t - 1])
                if rows is not None or len(still) < len(X):
                    rows, x_codes = still, PrefixCodes(X[still])

    def attributes(self):
        """The estimator's fitted attributes of the head."""
        return {
            "classes_": self.classes,
            "alphas_": self.alphas,
            "layer_shares_": self.shares,
            "screening_thresholds_": self.thresholds,
        }


@dataclass
class PredictionHead:
    """The regressor's head (see the module): ``residual``, its members fit what the previous layers left."""

    residual: bool = False
    name: str = "CascadeForestRegressor"

    classification = False
    classes = None
    link = Predictions()

    def output_shape(self, layers):
        """The shape of a row's output: ``()`` for one target, ``(n_outputs,)`` for several."""
        n_outputs = layers[0].n_outputs
        return () if n_outputs == 1 else (n_outputs,)

    def output_names(self, layers):
        """``output0``, ``output1``, ... for several targets (y's columns in order); None for one."""
        shape = self.output_shape(layers)
        return [f"output{k}" for k in range(shape[0])] if shape else None

    def visits(self, route, layers, X, explaining=None):
        """The regressor's :class:`LayerVisit` after each of the kept ``layers`` for rows ``X``."""
        mean, x_codes = PredictionMean(self.residual, self.name), PrefixCodes(X)
        for t, block in enumerate(layers, start=1):
            layer_input = route.layer_input(X, mean.passed, t)
            output = Carried(block.predict(layer_input, route.prefix(x_codes, t)))
            if explaining is not None:  # several targets: the passed columns are each member's K predictions
                passed = mean.carried_passed
                previous = None if passed is None else passed.attributed.values.reshape(len(X), explaining.d, -1)
                base, values = _on_x(block, layer_input, explaining, previous, True)
                one = block.n_outputs == 1
                output = Carried(
                    output.value, Attributed(base[:, 0], values[..., 0]) if one else Attributed(base, values)
                )
            mean.add_layer(mean.passed_on(output), block.member_weights_)
            passed = mean.carried_passed
            yield LayerVisit(t, block, None, None, layer_input, passed, mean.carried_prediction, passed)

    def attributes(self):
        return {}
