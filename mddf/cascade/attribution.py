"""A cascade's output attributed to the columns of ``x``, layer by layer, so that the attributions still add up.

Each layer's members are explained on their own input (:func:`mddf.blocks.attribution.block_attributions`): the
columns of ``x``, and the class vectors (or, for the regressor, the predictions) that the layer before passed on,
as the prediction computes them (the fitted cascade's replay of the layers, read by :class:`AttributionVisitor`),
bit for bit: the sums of their attributions
differ from them by rounding, which moves a value lying on a split's threshold to its other side.
An :class:`Attributed` value carries, for a set of rows, its attributions to the columns of ``x`` and its base
value, the same for every row, from which they add up to it. Composition keeps that sum:

- a member's attribution to a passed column k is shared among the columns of ``x`` in proportion to the
  attributions of that column, ``phi_i(u_k) / sum_i phi_i(u_k)`` (the generalized DeepSHAP rescale rule of
  Chen, Lundberg and Lee, Nature Communications 2022), as long as they do not cancel much: their sum at least
  :data:`CANCELLING` times the sum of their absolute values. A member's TreeSHAP value for u_k does not vanish
  with ``u_k - E u_k`` (the trees compare u_k with what their splits expect, not with its mean), so the rule's
  shares, which grow as that sum vanishes, would multiply it without bound. Below that, the shares move
  continuously to ``|phi_i(u_k)| / sum_i |phi_i(u_k)|`` (``w`` times the rule's plus ``1 - w`` times these,
  ``w`` the sum's share of :data:`CANCELLING` times the absolute sum), so that no share exceeds 3 in magnitude;
  a column nothing moved is shared equally;
- a regressor of several targets passes on each member's prediction of every target (K columns a member): each
  target's attributions are carried beside the others', and a member's attribution to any passed column is shared
  by that column's (one more passed column to the rule above); a target's prediction adds up from its own;
- the mixture of the layers, ``(1 - beta_t) mix_{t-1} + beta_t h_t`` (eqs. 7 and 9, kept normalised), is linear:
  attributions and bases mix alike, and so do the predictor's output and the cascade's (``predictor_weight_``),
  and the members by their ``selection_weights_`` (``final_mixture="selection"``);
- the temperature calibration ``q = softmax(log(p + eps) / T)`` is taken through its steps, each a sum or a map
  of one value: the logarithm of each class's smoothed share by the rescale rule
  (:func:`mddf.blocks.attribution.rescaled`: its attributions scaled by the ratio of the changes of the logarithm
  and of the share), then the softmax the same way (:func:`mddf.blocks.attribution.through_softmax`); the base is
  the calibration of the base.

The base value of the cascade is thus its output composed from its members' expected outputs (the trees'
expectations over their training rows), not the output of some row: the attributions of a row add up to its
prediction less that base (the path-dependent base; ``explain()`` centres them on a background by default:
:mod:`.background`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..blocks.attribution import (
    block_attributions,
    check_explainable,
    model_attributions,
    rescaled,
    through_softmax,
    xgboost_attributions,
)
from .replay import Visitor

#: Below this share of the sum of their absolute values, the attributions of a passed column are taken to cancel,
#: and their shares move towards those of their absolute values (see the module).
CANCELLING = 0.5


@dataclass
class Attributed:
    """A value of a set of rows attributed to the columns of ``x``.

    Attributes
    ----------
    base : ndarray ``shape``, or ``(n,) + shape``
        The base value: the same for every row, or each row's (the rows that confidence screening let out of the
        cascade early keep the base of the layer they left at).
    values : ndarray ``(n, d) + shape``
        Each row's attributions to the ``d`` columns of ``x``; ``base + values.sum(axis=1)`` is the row's value.
    """

    base: np.ndarray
    values: np.ndarray

    @property
    def output(self):
        return self.base + self.values.sum(axis=1)

    def mixed(self, other, share, rows=None):
        """``(1 - share) self + share other`` for the rows ``rows`` of ``self`` (``other`` holds those rows; None:
        every row); the other rows keep their own."""
        if rows is None:
            return Attributed(
                (1 - share) * self.base + share * other.base, (1 - share) * self.values + share * other.values
            )
        base = np.array(np.broadcast_to(self.base, (len(self.values),) + np.shape(other.base)))
        values = self.values.copy()
        base[rows] = (1 - share) * base[rows] + share * other.base
        values[rows] = (1 - share) * values[rows] + share * other.values
        return Attributed(base, values)


def column_shares(values):
    """``(n, d, k)``: how much of a member's attribution to each passed column goes to each column of ``x``, from
    the attributions ``values`` ``(n, d, k)`` of those columns (each ``[:, :, c]`` sums to 1; see the module)."""
    moved = values.sum(axis=1, keepdims=True)
    gross = np.abs(values).sum(axis=1, keepdims=True)
    weight = np.clip(np.abs(moved) / np.where(gross > 0, CANCELLING * gross, 1.0), 0.0, 1.0)
    rescale = values / np.where(moved != 0, moved, 1.0)
    absolute = np.abs(values) / np.where(gross > 0, gross, 1.0)
    shares = weight * rescale + (1.0 - weight) * absolute
    return np.where(gross > 0, shares, 1.0 / values.shape[1])


def on_x(member_values, n_x, passed_values, holds_x=True):
    """Members' attributions to a layer's input ``(n, m, D, w)`` (the columns of ``x`` first when ``holds_x``, then
    the passed columns, whose attributions are ``passed_values`` ``(n, n_x, D - n_x)``, or None before the first
    layer) as attributions to the ``n_x`` columns of ``x``, ``(n, m, n_x, w)``."""
    n, m, _, w = member_values.shape
    out = member_values[:, :, :n_x] if holds_x else np.zeros((n, m, n_x, w))
    at = n_x if holds_x else 0
    if passed_values is not None and member_values.shape[2] > at:
        out = out + np.einsum("nmkw,nik->nmiw", member_values[:, :, at:], column_shares(passed_values))
    return out


def calibrated(proba, calibration):
    """The attributions of ``calibration.apply(p)`` from those of the class shares ``p`` (:class:`Attributed`)."""
    beta, eps = 1.0 / calibration.temperature, calibration.smoothing
    shares, base = np.maximum(proba.output, 0.0), proba.base
    logits, base_logits = beta * np.log(shares + eps), beta * np.log(np.maximum(base, 0.0) + eps)
    logit_values = rescaled(proba.values, logits - base_logits, beta / (shares + eps))
    out_base, out_values = through_softmax(logits, base_logits, logit_values)
    return Attributed(out_base, out_values)


def pairs_of(fitted):
    """The pairs ``(a, b, operation)`` of the fitted cascade's appended features (none without ``pair_features``)."""
    return [] if fitted.pair_features is None else list(fitted.pair_features.pairs_)


class AttributionVisitor(Visitor):
    """The attributions of a fitted cascade's prediction (the classifier's ``predict_proba``, an :class:`Attributed`
    of shape ``(n_classes,)``; the regressor's ``predict``, of shape ``()``, or ``(n_outputs,)``), read from its
    replay of the rows (:meth:`mddf.cascade.fitted.FittedCascade.replay`): each layer's members explained on the
    input the replay gave them, the rows screening let through included, then the ``predictor`` or calibration (see
    the module).
    ``fast``: the trees' path contributions instead of exact TreeSHAP."""

    def __init__(self, fitted, fast):
        self.fitted, self.fast = fitted, fast
        self.d = fitted.columns.n_features + len(pairs_of(fitted))  # the columns of x, pairs appended
        self.passed = None  # the attributions of what the last layer passed on
        self.weights = None  # the members' weights in the last layer's output (None: equal)
        self.proba = None  # the classifier's mixture
        self.selected = None  # the members' mixture of final_mixture="selection" so far

    def layer(self, visit):
        if visit.layer_input is None:  # no row is still in the cascade
            return
        base, values = block_attributions(visit.block, visit.layer_input, self.fast)
        at = slice(None) if visit.rows is None else visit.rows
        previous = None if self.passed is None else self.passed.values[at]
        if self.fitted.classification:
            members = on_x(values, self.d, previous, self.fitted.route.holds_x(visit.t))
            self._class_vectors(visit, base, members)
            self._select(visit.t, Attributed(base, members.transpose(0, 2, 1, 3)))
        else:  # several targets: the passed columns are each member's K predictions side by side, member by member
            previous = None if previous is None else previous.reshape(len(previous), self.d, -1)
            self._predictions(base, on_x(values, self.d, previous).transpose(0, 2, 1, 3), visit.block)
            self._select(visit.t, self.passed)

    def _select(self, t, members):
        """Add layer t's ``members`` (an :class:`Attributed` of base ``(m, ...)`` and values ``(n, d, m, ...)``) to
        the selected mixture by their ``selection_weights_`` (nothing without them)."""
        weights = self.fitted.selection_weights
        if weights is None:
            return
        w = weights[t - 1][: len(members.base)]
        part = Attributed(np.tensordot(w, members.base, axes=(0, 0)), np.tensordot(members.values, w, axes=([2], [0])))
        if self.selected is not None:
            part = Attributed(self.selected.base + part.base, self.selected.values + part.values)
        self.selected = part

    def _class_vectors(self, visit, base, values):
        weights = visit.block.member_weights_  # the block's (weighted) mean class vector
        h = Attributed(np.average(base, axis=0, weights=weights), np.average(values, axis=1, weights=weights))
        fed = h
        if self.fitted.passed_features != "mean":  # every member's class vector, side by side
            fed = Attributed(base.reshape(-1), values.transpose(0, 2, 1, 3).reshape(len(values), self.d, -1))
        if self.proba is None:  # the first layer: every row goes through it
            self.proba, self.passed = h, fed
        else:
            self.proba = self.proba.mixed(h, visit.share, visit.rows)
            self.passed = self.passed.mixed(fed, visit.share, visit.rows)

    def _predictions(self, base, values, block):
        """Keep the attributions of what the regression ``block`` passes on from its members' ``base`` ``(m, K)``
        and ``values`` ``(n, d, m, K)``: an :class:`Attributed` of shape ``(m, K)`` (``(m,)`` for one target), the
        previous layers' prediction added to each member's with ``target="residual"``."""
        output = Attributed(base, values) if block.n_outputs > 1 else Attributed(base[:, 0], values[..., 0])
        if self.passed is not None and self.fitted.residual:
            prediction = _mean(self.passed, self.weights)
            output = Attributed(output.base + prediction.base, output.values + np.expand_dims(prediction.values, 2))
        self.passed, self.weights = output, block.member_weights_

    def end(self, fitted, X, last):
        cascade = self.proba if fitted.classification else _mean(self.passed, self.weights)
        if self.selected is not None:
            cascade = self.selected
        if fitted.predictor_model is None:
            return cascade if fitted.calibration is None else calibrated(cascade, fitted.calibration)
        return self._with_predictor(fitted, X, cascade, last)

    def _with_predictor(self, fitted, X, cascade, last):
        """The attributions of the ``predictor``'s output (mixed with the cascade's by its weight), whose input is
        :meth:`mddf.cascade.fitted.FittedCascade.predictor_rows`."""
        raw = fitted.predictor_input == "raw"
        Z = fitted.predictor_rows(X, None if raw else last.passed)
        model = fitted.predictor_model
        if fitted.classification:
            check_explainable(model, "predictor", role="predictor")
            base, values = model_attributions(model, Z, None, False, self.fast, len(fitted.classes))
            predicted = Attributed(base, on_x(values[:, None], self.d, None if raw else self.passed.values)[:, 0])
        else:
            if not hasattr(model, "get_booster"):
                raise ValueError(
                    f"predictor ({type(model).__name__}): explain() attributes the regressor's predictor 'xgboost' only"
                )
            base, values = xgboost_attributions(model, Z, self.fast)
            values = on_x(values[:, None], self.d, None if raw else self.passed.values)[:, 0, :, 0]
            predicted = Attributed(base[0], values)
        w = fitted.predictor_weight
        return predicted if w == 1.0 else cascade.mixed(predicted, w)


def _mean(passed, weights):
    """The mean over the members of their predictions' attributions (the regression cascade's prediction, of every
    target), weighted by ``weights`` (a block's ``member_weights_``; None: equal)."""
    base = np.average(passed.base, axis=0, weights=weights)
    return Attributed(base, np.average(passed.values, axis=2, weights=weights))
