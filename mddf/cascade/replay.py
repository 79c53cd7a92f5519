"""One pass of new rows through a fitted cascade's kept layers, and the visitors that read it.

A fitted cascade's head (:mod:`.heads`) sends validated rows (their ``x``, pair features appended) through the kept
layers as the fit sent its held-out rows and yields a :class:`LayerVisit` after each: each layer reads ``x`` and
what the layer before passed on (:class:`LayerRoute`). The visit's outputs are :class:`~mddf.margin.carried.Carried`:
their values, and when ``explain()`` asks for them their attributions, computed by the same code.

:meth:`mddf.cascade.fitted.FittedCascade.replay` hands the visits to a visitor: :class:`FinalOutput`
(``predict``, ``predict_proba``, and with attributions ``explain()``), :class:`Stages` (the staged methods) and
:class:`LayerFeatures` (``transform``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
    selected mixture of the members of the layers so far (:meth:`mddf.cascade.steps.SelectionStep.visits`). The
    outputs are :class:`~mddf.margin.carried.Carried`, with their attributions when ``explain()`` asked for them."""

    t: int
    block: object
    share: float | None
    rows: np.ndarray | None
    layer_input: np.ndarray | None
    passed: object
    output: object
    members: object = None
    selected: object = None


class Visitor:
    """What reads a replay: :meth:`layer` after each kept layer (True: the replay stops there), then :meth:`end`,
    whose value the replay returns; when :meth:`reads_layers` says the result needs no layer (a ``predictor`` on
    ``x`` alone), the replay sends the rows through none. ``explaining`` (a :class:`mddf.cascade.heads.Explaining`,
    or None) asks the replay for the outputs' attributions too."""

    explaining = None

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
    """What predicts: the cascade's last output through the fitted cascade's steps after the layers (ensemble
    selection, the ``predictor``, the calibration: :meth:`mddf.cascade.fitted.FittedCascade.final_output`), a
    :class:`~mddf.margin.carried.Carried` (its value, and its attributions when the replay carried them)."""

    def __init__(self, explaining=None):
        self.explaining = explaining

    def reads_layers(self, fitted):
        return not fitted.predictor_reads_x_only

    def end(self, fitted, X, last):
        return fitted.final_output(X, last, self.explaining)


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
        staged = [fitted.calibrated(visit.output).value for visit in self.visits[:-1]]
        return staged + [fitted.final_output(X, last).value]


class LayerFeatures(Visitor):
    """What kept layer ``t`` passes on (float32); the replay stops there."""

    def __init__(self, t):
        self.t = t

    def layer(self, visit):
        return visit.t == self.t

    def end(self, fitted, X, last):
        return as_columns(last.passed.value).astype(np.float32)
