"""Outputs carried through the cascade's mixtures with or without their attributions: one algebra for both.

A cascade's output is built from its members' outputs by maps that are the same at fit, at prediction and in
``explain()``: the layers' mixture (eqs. 7 and 9, ``(1 - beta_t) mix_{t-1} + beta_t h_t``), a layer's (weighted)
mean of its members, the members side by side, a weighted sum over every layer's members (ensemble selection), a
blend of two outputs (the ``predictor``'s). A :class:`Carried` holds a set of rows' value, computed as prediction
computes it, and, when attributions are asked for, an :class:`Attributed` of it: a base value and each row's
attributions to the columns of ``x``, which add up to the value. Each map is written once, below, for the value and
its attributions together: the maps are linear, so attributions and bases map as the values do.

The member axis of members' outputs: axis 1 of a value ``(n, m, ...)``, axis 0 of a base ``(m, ...)``, axis 2 of
attributions ``(n, d, m, ...)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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


@dataclass(frozen=True)
class Carried:
    """A set of rows' output ``value`` and, when asked for, its attributions ``attributed`` (None: not asked)."""

    value: np.ndarray
    attributed: Attributed | None = None

    def rows(self, rows):
        """The rows ``rows`` (indices; None: all) of this output (a base of every row taken at them too)."""
        if rows is None:
            return self
        a = self.attributed
        if a is not None:
            base = a.base[rows] if np.ndim(a.base) == np.ndim(a.values) - 1 else a.base
            a = Attributed(base, a.values[rows])
        return Carried(self.value[rows], a)


def _attributed(*outputs):
    """Whether the outputs carry attributions (all of them, or none)."""
    return all(o is not None and o.attributed is not None for o in outputs)


def member_mean(members, weights=None):
    """The (``weights``-weighted) mean over the members of their outputs ``members`` (a :class:`Carried`)."""
    value = np.average(members.value, axis=1, weights=weights)
    if not _attributed(members):
        return Carried(value)
    a = members.attributed
    return Carried(
        value, Attributed(np.average(a.base, axis=0, weights=weights), np.average(a.values, axis=2, weights=weights))
    )


def side_by_side(members):
    """The members' outputs ``(n, m, k)`` side by side as columns ``(n, m * k)``, member by member."""
    value = members.value.reshape(members.value.shape[0], -1)
    if not _attributed(members):
        return Carried(value)
    a = members.attributed
    return Carried(value, Attributed(a.base.reshape(-1), a.values.reshape(a.values.shape[0], a.values.shape[1], -1)))


def mixed(previous, layer, share, rows=None):
    """``(1 - share) previous + share layer`` for the rows ``rows`` of ``previous`` (``layer`` holds those rows; None:
    every row), the other rows as they were; ``layer`` itself when ``previous`` is None (nothing before) or ``share``
    is 1 with every row. The arrays are new ones: ``previous``'s are not written in place."""
    if rows is None and (previous is None or share == 1.0):
        return layer
    if rows is None:
        value = (1.0 - share) * previous.value + share * layer.value
    else:
        value = previous.value.copy()
        value[rows] = layer.value if share == 1.0 else (1.0 - share) * previous.value[rows] + share * layer.value
    if not _attributed(previous, layer):
        return Carried(value)
    before, after = previous.attributed, layer.attributed
    if rows is None:
        return Carried(value, Attributed((1 - share) * before.base + share * after.base,
                                         (1 - share) * before.values + share * after.values))  # fmt: skip
    base = np.array(np.broadcast_to(before.base, (len(before.values),) + np.shape(after.base)))
    values = before.values.copy()
    base[rows] = (1 - share) * base[rows] + share * after.base
    values[rows] = (1 - share) * values[rows] + share * after.values
    return Carried(value, Attributed(base, values))


def weighted_sum(members, weights):
    """``sum_j w_j h_j`` of the members' outputs ``members`` by their weights ``weights``."""
    value = np.tensordot(members.value, weights, axes=([1], [0]))
    if not _attributed(members):
        return Carried(value)
    a = members.attributed
    return Carried(
        value, Attributed(np.tensordot(weights, a.base, axes=(0, 0)), np.tensordot(a.values, weights, axes=([2], [0])))
    )


def plus(first, second):
    """``first + second`` (None: ``second`` alone)."""
    if first is None:
        return second
    value = first.value + second.value
    if not _attributed(first, second):
        return Carried(value)
    a, b = first.attributed, second.attributed
    return Carried(value, Attributed(a.base + b.base, a.values + b.values))


def blend(first, second, w):
    """``(1 - w) * first + w * second``: exactly one of them at w = 0 or 1."""
    if w == 0.0:
        return first
    if w == 1.0:
        return second
    return mixed(first, second, w)
