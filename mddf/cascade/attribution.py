"""A cascade's output attributed to the columns of ``x``, layer by layer, so that the attributions still add up.

Each layer's members are explained on their own input (:func:`mddf.blocks.attribution.block_attributions`): the
columns of ``x``, and the class vectors (or, for the regressor, the predictions) that the layer before passed on,
as the prediction computes them, bit for bit (the fitted cascade's one replay carries the values and their
attributions together: :mod:`.heads`, :mod:`.steps`): the sums of their attributions differ from them by rounding,
which moves a value lying on a split's threshold to its other side. An
:class:`~mddf.margin.carried.Attributed` value carries, for a set of rows, its attributions to the columns of ``x``
and its base value, the same for every row, from which they add up to it. Composition keeps that sum:

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

import numpy as np

from ..blocks.attribution import rescaled, through_softmax
from ..margin.carried import Attributed

#: Below this share of the sum of their absolute values, the attributions of a passed column are taken to cancel,
#: and their shares move towards those of their absolute values (see the module).
CANCELLING = 0.5


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
