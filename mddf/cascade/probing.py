"""Layer probes: whether a layer may be kept, judged from a share of its trees before the rest are grown.

Early stopping grows ``n_tolerant_layers`` layers beyond the best one only to find that none beats it, and throws
them away. With ``probe_trees`` (a share of ``n_estimators``), every layer after the first grows the first m trees
of each forest (and as large a share of an XGBoost member's rounds, :mod:`mddf.blocks.staged_boosting`; its other
members in full) and the engine (:class:`mddf.cascade.growth.CascadeGrowth`) judges it here:

- the monitored score s_m of the layer with m trees, and s_h with their first h = m // 2, are the scores the
  layer would have with those outputs (its weight fitted on them, as for the full layer);
- the outputs of a forest of k trees scatter about those of its infinite forest with a variance proportional to
  1 / k, so from m to n = ``n_estimators`` trees the score moves by about f = (n - m) / n times what it moved from
  h to m: the full layer's predicted score is ``s_m + f (s_m - s_h)`` (a boosted member's rounds gain most early,
  so its share of the move from h to m rounds overstates what the later rounds add: the prediction errs towards
  growing the layer);
- its spread: the rows whose monitored result differs between h and m trees, taken as independent, give the
  variance V of ``s_m - s_h``; the full layer's score differs from the prediction by sqrt(f (1 + f) V) (the
  scatter of the trees still to grow, f V, and that of the predicted gain, f^2 V);
- the layer may be kept when ``max(s_m, predicted) + z * spread`` exceeds the score it must exceed to become the
  kept layer or to reset the tolerance (:meth:`mddf.utils._stopping.EarlyStopping.lowest_winning_score`),
  z = :data:`PROBE_Z`. Then its forests are grown on to n trees (the same trees as without the probe) and it is
  added as any layer. Otherwise it is decided on the probe: its m-tree outputs are what the next layer (probed
  too) reads, and growth stops when early stopping stops on the probes, unless a later probe may be kept, in
  which case the layer is finished first and growth goes on as without probes.

Under the normal approximation, a layer whose full score would exceed what it needs is abandoned with probability
at most 1 - Phi(z) (about one in 740 for z = 3); the rows' results are not independent (they share the trees), so the
spread is an approximation, and ``docs/benchmarks/cost.md`` reports how often the kept layers differ from those
of the fit without probes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: How many spreads above its predicted score a probed layer's full score would have to reach to be abandoned.
PROBE_Z = 3.0

#: The fewest trees a probe grows (half of them for its first score).
MIN_PROBE_TREES = 4


def probe_size(share, n_estimators):
    """The trees m a probe grows: ``round(share * n_estimators)``, at least :data:`MIN_PROBE_TREES`; None when that
    is not below ``n_estimators`` (nothing to save) or ``share`` is None."""
    if share is None:
        return None
    m = max(MIN_PROBE_TREES, int(round(share * n_estimators)))
    return m if m < n_estimators else None


@dataclass(frozen=True)
class ProbeVerdict:
    """A probed layer's scores and whether it may be kept (see the module).

    Attributes
    ----------
    trees : int
        The probe's trees m.
    score : float
        The layer's monitored score with m trees.
    predicted : float
        Its predicted score with ``n_estimators`` trees.
    spread : float
        The standard error of the prediction.
    needed : float
        The score the layer must exceed to become the kept layer or to reset the tolerance.
    """

    trees: int
    score: float
    predicted: float
    spread: float
    needed: float

    @property
    def upper(self):
        """The highest full score the probe leaves plausible: ``max(score, predicted) + PROBE_Z * spread``."""
        return max(self.score, self.predicted) + PROBE_Z * self.spread

    @property
    def may_be_kept(self):
        """Whether the layer's full score may exceed ``needed``: then the layer is grown in full."""
        return self.upper > self.needed

    def record(self):
        """The verdict as ``train_history_`` keys (``probe_*``)."""
        return {
            "probe_trees": self.trees,
            "probe_score": self.score,
            "probe_predicted": self.predicted,
            "probe_spread": self.spread,
            "probe_needed": self.needed,
        }


def judge_probe(first, rows, measure, weight, trees, n_estimators, needed):
    """The :class:`ProbeVerdict` of a layer from its monitored per-row results with h and with m trees.

    Parameters
    ----------
    first, rows : ndarray (n,)
        The monitored per-row results (:class:`mddf.utils._stopping.Measure`: rows classified right, or squared
        errors) of the layer with its first ``trees // 2`` and with its first ``trees`` trees.
    measure : Measure
    weight : ndarray (n,) or None
        The monitored rows' weights.
    trees, n_estimators : int
        m and n.
    needed : float
        :meth:`mddf.utils._stopping.EarlyStopping.lowest_winning_score`.
    """
    score_h, score_m = measure.score(first, weight), measure.score(rows, weight)
    f = (n_estimators - trees) / n_estimators
    difference = np.asarray(rows, dtype=np.float64) - np.asarray(first, dtype=np.float64)
    if weight is None:
        variance = float(np.sum(difference**2)) / len(difference) ** 2
    else:
        variance = float(np.sum((weight * difference) ** 2)) / float(np.sum(weight)) ** 2
    predicted = score_m + f * (score_m - score_h)
    spread = float(np.sqrt(f * (1.0 + f) * variance))
    return ProbeVerdict(trees, float(score_m), float(predicted), spread, float(needed))
