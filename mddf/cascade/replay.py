"""One pass of new rows through a fitted cascade's kept layers, and the visitors that read it.

:func:`class_vector_visits` and :func:`prediction_visits` send validated rows (their ``x``, pair features
appended) through the kept layers as the fit sent its held-out rows: each layer reads ``x`` and what the layer
before passed on (:class:`LayerRoute`), the classifier's layers join the mixture of class vectors with their
shares and, with confidence screening, only the rows still in go through a layer (a screened row keeps the
outputs of the layer it left at); the regressor's pass on each member's prediction of y (a residual member's
output plus the previous prediction). After each layer they yield a :class:`LayerVisit`.

:meth:`mddf.cascade.fitted.FittedCascade.replay` hands the visits to a visitor: :class:`FinalOutput`
(``predict``, ``predict_proba``), :class:`Stages` (the staged methods), :class:`LayerFeatures` (``transform``) and
the attribution visitor of ``explain()`` (:class:`mddf.cascade.attribution.AttributionVisitor`) are the four.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..forests import PrefixCodes
from ..margin.state import ClassVectorMixture
from .screening import still_in

#: The largest magnitude of the targets, and of the predictions the layers pass on: the layer features are
#: float32 (the next layer's input, ``transform`` and ``oof_features_``).
LARGEST_TARGET = float(np.finfo(np.float32).max)


@dataclass(frozen=True)
class LayerRoute:
    """What a layer reads: ``x``, then (``"preconc"``) ``[x, passed]``, or (``"stacking"``) what the layer before
    passed on alone, or (``"raw"``) ``x`` alone (the classifier's ``input_features``; the regressor's is
    ``"preconc"``)."""

    input_features: str = "preconc"

    def layer_input(self, X, passed, t):
        """Input of layer t (1-based) as a C-contiguous float32 array."""
        if t == 1 or self.input_features == "raw":
            return X
        if self.input_features == "stacking":
            return np.ascontiguousarray(passed, dtype=np.float32)
        return np.hstack([X, as_columns(passed).astype(np.float32, copy=False)])

    def holds_x(self, t):
        """Whether the input of layer t begins with the columns of ``x``."""
        return t == 1 or self.input_features != "stacking"

    def prefix(self, x_codes, t):
        """``x_codes`` (the rows' :class:`~mddf.forests.PrefixCodes`) if layer t's input begins with ``x``; else
        None."""
        return x_codes if self.holds_x(t) else None


def as_columns(passed):
    """What a layer passes on as columns ``(n, n_members * K)``: a multi-output regressor's ``(n, n_members, K)``
    member by member, each member's K outputs side by side; a 2-D array as it is."""
    return passed.reshape(len(passed), -1)


@dataclass(frozen=True)
class LayerVisit:
    """Layer ``t`` of a replay: its ``block`` and ``share`` (the classifier's; None for the regressor), the rows that
    went through it (``rows``, indices; None: every row) and their ``layer_input`` (None when no row did), then for
    every row what it passes on (``passed``) and the cascade's output after it (``output``: the mixture's class
    shares, or the mean prediction); ``members``: each member's output of the rows that went through it (class
    vectors ``(n, m, k)``, or predictions of y ``(n, m)``), and with ``final_mixture="selection"`` ``selected``, the
    selected mixture of the members of the layers so far (:func:`mddf.cascade.selection.selected_visits`)."""

    t: int
    block: object
    share: float | None
    rows: np.ndarray | None
    layer_input: np.ndarray | None
    passed: np.ndarray
    output: np.ndarray
    members: np.ndarray | None = None
    selected: np.ndarray | None = None


def class_vector_layer(route, block, t, share, X, mixture, rows, x_codes):
    """Send rows through the classifier's fitted layer ``block`` (layer t): its class vectors join ``mixture`` with
    ``share``. Only the rows still in (``rows``, indices into ``X``; None: all) go through; ``x_codes`` are their
    ``x``'s. Returns their layer input and the members' class vectors ``(n, m, k)`` (None, None when no row is still
    in)."""
    if rows is None:
        layer_input = route.layer_input(X, mixture.passed, t)
    elif len(rows):
        layer_input = route.layer_input(X[rows], mixture.passed[rows], t)
    else:
        return None, None
    members = block.predict_proba(layer_input, route.prefix(x_codes, t))
    mixture.add_layer(members, share, rows, block.member_weights_)
    return layer_input, members


def class_vector_visits(route, passed_features, layers, shares, thresholds, X):
    """The classifier's :class:`LayerVisit` after each of the kept ``layers`` for rows ``X``, each layer mixed in
    with its share; with screening ``thresholds``, only the rows still in go through a layer."""
    mixture, x_codes = ClassVectorMixture(passed_features), PrefixCodes(X)
    rows = None  # the rows still in the cascade: every row until a threshold screens some
    for t, (block, share) in enumerate(zip(layers, shares), start=1):
        layer_input, members = class_vector_layer(route, block, t, share, X, mixture, rows, x_codes)
        visit = LayerVisit(t, block, share, rows, layer_input, mixture.passed, mixture.proba, members)
        if thresholds is not None and t < len(thresholds) and (rows is None or len(rows)):
            still = still_in(rows, mixture.proba, thresholds[t - 1])
            if rows is not None or len(still) < len(X):
                rows, x_codes = still, PrefixCodes(X[still])
        yield visit


def overflow_error(name, what, largest):
    """The error for targets, or predictions passed on, beyond :data:`LARGEST_TARGET` (``name``: the estimator's)."""
    return ValueError(
        f"{name}: {what} reaches {largest:.3g}, beyond {LARGEST_TARGET:.3g}, the largest "
        "float32: the predictions each layer passes on to the next (float32 features, as transform returns "
        "them) would overflow to infinity; rescale y (e.g. divide it by its standard deviation) and scale "
        "the predictions back"
    )


def passed_on(output, previous, residual, name):
    """Each member's prediction of y, ``h_t``, from a regression block's ``output`` and the previous layers'
    prediction (0.0 before the first); ``residual``: the members fit what the previous layers left. A ``ValueError``
    when it exceeds :data:`LARGEST_TARGET` (the float32 layer features would be infinite)."""
    if residual:  # (several targets: the output is (n, n_members, K), the previous prediction (n, K))
        shape = (-1, 1, np.shape(previous)[1]) if np.ndim(previous) == 2 else (-1, 1)
        output = output + np.reshape(previous, shape)
    largest = float(np.max(np.abs(output), initial=0.0))
    if largest > LARGEST_TARGET:
        raise overflow_error(name, "the largest prediction a layer passes on, |h_t|,", largest)
    return output


def prediction_visits(route, layers, residual, name, X):
    """The regressor's :class:`LayerVisit` after each of the kept ``layers`` for rows ``X``."""
    passed, prediction, x_codes = None, 0.0, PrefixCodes(X)
    for t, block in enumerate(layers, start=1):
        layer_input = route.layer_input(X, passed, t)
        passed = passed_on(block.predict(layer_input, route.prefix(x_codes, t)), prediction, residual, name)
        prediction = np.average(passed, axis=1, weights=block.member_weights_)  # the members' (weighted) mean
        yield LayerVisit(t, block, None, None, layer_input, passed, prediction, passed)


class Visitor:
    """What reads a replay: :meth:`layer` after each kept layer (True: the replay stops there), then :meth:`end`,
    whose value the replay returns; when :meth:`reads_layers` says the result needs no layer (a ``predictor`` on
    ``x`` alone), the replay sends the rows through none."""

    def reads_layers(self, fitted):
        """Whether the result needs the layers (False: a ``predictor`` on ``x`` alone)."""
        return True

    def layer(self, visit):
        """Read a :class:`LayerVisit`; True stops the replay."""
        return False

    def end(self, fitted, X, last):
        """The replay's result, given the fitted cascade, the rows ``X`` (pairs appended) and the last visit read
        (None when no layer was)."""
        return last


class FinalOutput(Visitor):
    """What predicts: the ``predictor``'s output (mixed with the cascade's by its weight), or the cascade's last
    output, calibrated (:meth:`mddf.cascade.fitted.FittedCascade.final_output`)."""

    def reads_layers(self, fitted):
        return not fitted.predictor_reads_x_only

    def end(self, fitted, X, last):
        return fitted.final_output(X, last)


class Visits(Visitor):
    """Every :class:`LayerVisit`, in order."""

    def __init__(self):
        self.visits = []

    def layer(self, visit):
        self.visits.append(visit)

    def end(self, fitted, X, last):
        return self.visits


class Stages(Visits):
    """The output after each kept layer, both cascades' staged predictions: the cascade's own, calibrated, but the
    last, which is what predicts (as :class:`FinalOutput`)."""

    def end(self, fitted, X, last):
        return [fitted.calibrated(visit.output) for visit in self.visits[:-1]] + [fitted.final_output(X, last)]


class LayerFeatures(Visitor):
    """What kept layer ``t`` passes on (float32); the replay stops there."""

    def __init__(self, t):
        self.t = t

    def layer(self, visit):
        return visit.t == self.t

    def end(self, fitted, X, last):
        return as_columns(last.passed).astype(np.float32)
