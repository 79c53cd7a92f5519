"""The background of ``explain()``: the training rows a fit keeps for it, and attributions centred on a background.

A cascade's attributions, as :mod:`.attribution` composes them, add up to each row's prediction from a base value
composed from its members' path-dependent expectations (the trees' training weights stand for the missing
columns). That base is no prediction of any row, and on an imbalanced table it can be far from the model's mean
prediction. Centred on a background ``B``, the attributions add up from the model's mean prediction over ``B``
instead (what shap's ``TreeExplainer`` reports as ``expected_value`` with ``feature_perturbation="interventional"``):

- first the base is made one value ``c`` for every row: a row whose base differs from ``c`` (a row that confidence
  screening let out early keeps the base of its layer) has the difference shared among its columns by
  :func:`mddf.cascade.attribution.column_shares` of its attributions, giving ``psi(x)``, with ``c + sum psi(x) =
  f(x)``; without screening ``psi = phi``;
- then ``values(x) = psi(x) - mean_{b in B} psi(b)`` per column (and class), and ``base = mean_{b in B} f(b)``:
  ``base + values(x).sum()`` is ``f(x)`` to rounding, the base is the mean prediction over ``B``, and the
  background's own attributions average to zero per column, as interventional SHAP values do.

They are not interventional SHAP values (those replace a missing column by each background row's value, a walk
of every tree per row and background row): each row's values are its path-dependent ones, less their mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np

from .attribution import column_shares

#: Training rows a fit keeps by default as ``explain()``'s background.
BACKGROUND_ROWS = 100
#: The value of ``explain(background=...)`` that keeps the attributions' path-dependent base.
PATH_DEPENDENT = "tree_path_dependent"
#: Below this (relative) gap a row's base is taken for the common one: rounding, not screening.
ROUNDING = 1e-12
#: Mixed into the seed of the background's draw, so that it is a stream of its own.
_SALT = 0x6D646466


def kept_rows(X, y, n_rows, random_state):
    """``min(n_rows, len(X))`` rows of validated ``X`` (in their order), None when ``n_rows`` is 0: a systematic
    sample over the rows sorted by their target ``y`` (ties in random order) from a random start, so that the
    classes keep their shares (a regressor's targets their spread) to one row. It is drawn by a generator of its
    own seeded from ``random_state`` (an int, a ``RandomState``, whose state is read and not moved, or None: fresh
    entropy)."""
    if not n_rows:
        return None
    if random_state is None:
        entropy = None
    elif isinstance(random_state, Integral):
        entropy = [_SALT, int(random_state)]
    else:  # a RandomState: its state, read without drawing from it
        _, keys, position, *_ = random_state.get_state()
        entropy = [_SALT, int(position), *keys.tolist()]
    rng = np.random.default_rng(entropy)
    n = min(int(n_rows), len(X))
    targets = np.atleast_2d(np.asarray(y).T)[::-1]  # a multi-label y's rows sorted by its labels, the first first
    by_target = np.lexsort((rng.random(len(X)), *targets))
    chosen = by_target[((rng.random() + np.arange(n)) * (len(X) / n)).astype(np.intp)]
    return np.array(X[np.sort(chosen)], dtype=np.float32)


@dataclass
class Centre:
    """What centring on a background needs: the common base ``level`` ``c``, each column's mean ``psi`` over the
    background ``values`` ``(n_columns,) + shape`` and the mean prediction over it ``base`` ``shape``."""

    level: np.ndarray
    values: np.ndarray
    base: np.ndarray

    @classmethod
    def of(cls, parts):
        """The centre of a background from its attributions ``parts``, ``(values, base)`` pairs of its chunks (each
        row's base given)."""
        parts = list(parts)
        bases = np.concatenate([base for _, base in parts])
        level = bases.mean(axis=0)
        total = np.zeros(parts[0][0].shape[1:])
        for values, base in parts:
            for row in common_base(values, base, level):  # one row after another: the same sum for any chunks
                total += row
        values = total / len(bases)
        return cls(level, values, level + values.sum(axis=0))

    def centred(self, values, base):
        """Rows' ``(values, base)`` centred on the background: ``psi - values`` and the mean prediction."""
        out = common_base(values, base, self.level) - self.values
        return out, np.array(np.broadcast_to(self.base, base.shape))


def common_base(values, base, level):
    """The attributions ``values`` ``(n, d) + shape`` of rows of base ``base`` ``(n,) + shape`` as attributions from
    ``level``: each row's ``base - level`` shared among its columns by their :func:`column_shares`. A gap of
    rounding (the path-dependent base of a chunk of rows moves in its last bits with the chunk) is left out, so that
    without screening the values are the same for any chunks."""
    gap = np.where(np.isclose(base, level, rtol=ROUNDING, atol=ROUNDING), 0.0, base - level)
    if not gap.any():
        return values
    shaped = values if values.ndim == 3 else values[..., None]
    shares = column_shares(shaped)
    moved = shaped + gap.reshape(len(gap), 1, -1) * shares
    return moved if values.ndim == 3 else moved[..., 0]
