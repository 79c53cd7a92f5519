"""The finite voter set of the QuadBoost experiments: decision stumps on tanh-normalised features.

Roy, Marchand and Laviolette, "A general risk bound for ensembles ... QuadBoost", Section 4: "Each dataset has
been normalized using a hyperbolic tangent, whose parameters have been chosen using the training set S only. [...]
For each dataset, we generated 10 decision stumps per attribute and their complements."

Our reading (the paper does not spell out the formulas):

* normalisation: ``z = tanh((x - mean) / std)`` per attribute, ``mean`` and ``std`` measured on the training set
  (an attribute with zero spread gets ``std = 1``);
* threshold placement (``"range"``, the default): the ``n`` thresholds of an attribute are evenly spaced strictly
  inside the range of its normalised training values, ``t_k = min + k (max - min) / (n + 1)``, ``k = 1..n``. This is
  the convention of the same group's earlier stump-based majority-vote experiments (MinCq, CqBoost), and it is why
  the tanh matters: evenly spaced thresholds on the squashed scale concentrate near the bulk of the data.
  ``"quantile"`` places them at the ``k / (n + 1)`` quantiles instead;
* a stump outputs ``+1`` if ``z > t`` and ``-1`` otherwise; its complement is the negated stump. Complements are
  not stored: a voter enters the ensemble with a signed weight, and a negative weight on a stump *is* a positive
  weight on its complement (the voter class is symmetric, as Theorem 1 assumes);
* stumps that split the training set identically (consecutive thresholds with no training value between them)
  are indistinguishable to the learner; they are merged into one voter represented by the middle threshold of the
  run, and stumps that are constant on the training set are dropped (they cannot occur with ``"range"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

THRESHOLD_PLACEMENTS = ("range", "quantile")


@dataclass(frozen=True)
class StumpPool:
    """Candidate stumps and the normalisation they are defined on.

    Attributes
    ----------
    features : ndarray of int64, shape (n_voters,)
        Attribute each stump looks at.
    thresholds : ndarray of float64, shape (n_voters,)
        Threshold on the normalised attribute: the stump outputs ``+1`` where ``z > threshold``, else ``-1``.
    offset, scale : ndarray of float64, shape (n_features,)
        Normalisation ``z = tanh((x - offset) / scale)``; ``None`` when no normalisation is applied.
    """

    features: np.ndarray
    thresholds: np.ndarray
    offset: np.ndarray | None
    scale: np.ndarray | None

    @property
    def n_voters(self) -> int:
        return len(self.features)

    def normalize(self, X) -> np.ndarray:
        """The attributes on the scale the thresholds live on (float64)."""
        X = np.asarray(X, dtype=np.float64)
        if self.offset is None:
            return X
        return np.tanh((X - self.offset) / self.scale)

    def raw_thresholds(self, voters=None) -> np.ndarray:
        """Thresholds mapped back to the original attribute scale (``x > raw`` iff ``z > threshold``)."""
        idx = slice(None) if voters is None else voters
        t = self.thresholds[idx]
        if self.offset is None:
            return t.copy()
        f = self.features[idx]
        with np.errstate(divide="ignore"):  # a threshold at +-1 (tanh saturated) maps to +-inf
            return self.offset[f] + self.scale[f] * np.arctanh(t)

    def voter_matrix(self, Z, voters=None) -> np.ndarray:
        """Outputs (+1/-1, and 0 where the stump's attribute is NaN: it abstains) of the stumps on rows ``Z``.

        Parameters
        ----------
        Z : ndarray of shape (n_samples, n_features)
            Output of :meth:`normalize`.
        voters : array of int, optional
            Subset of stump indices (default: all).

        Returns
        -------
        ndarray of float32, shape (n_samples, n_selected), Fortran order so that each voter's column is contiguous.
        """
        idx = slice(None) if voters is None else np.asarray(voters)
        Zf = Z[:, self.features[idx]]
        above = Zf > self.thresholds[idx]
        H = np.asfortranarray(above, dtype=np.float32)
        H *= 2.0
        H -= 1.0
        if np.isnan(Z).any():
            H[np.isnan(Zf)] = 0.0  # a stump abstains on a missing value
        return H


def _weighted_moments(X, w):
    """Per-column mean and standard deviation of ``X`` under weights ``w``, over the non-missing entries.

    A column without any value gets mean 0 and standard deviation 0 (then scale 1).
    """
    missing = np.isnan(X)
    if not missing.any():
        total = w.sum()
        mean = (w @ X) / total
        var = (w @ np.square(X - mean)) / total
        return mean, np.sqrt(var)
    wm = np.where(missing, 0.0, w[:, None])
    total = wm.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    mean = (wm * np.where(missing, 0.0, X)).sum(axis=0) / safe
    var = (wm * np.square(np.where(missing, 0.0, X - mean))).sum(axis=0) / safe
    return mean, np.sqrt(var)


def weighted_linear_quantile(z, w, q):
    """numpy's default ("linear") quantiles of the sample in which value ``z[i]`` occurs ``w[i]`` times.

    The virtual index ``(W - 1) q`` (``W = sum(w)``, numpy's formula for this method) is located in
    the cumulative weights of the sorted values and the two neighbouring order statistics are interpolated as
    numpy does, so for integer weights the result equals ``np.quantile(np.repeat(z, w), q)``. Non-integer
    weights extend the same rule (an order statistic at position ``t`` is the first value whose cumulative
    weight exceeds ``t``).

    Parameters
    ----------
    z : ndarray of shape (n,), no NaN
    w : ndarray of shape (n,), positive
    q : ndarray of quantile levels in [0, 1]
    """
    order = np.argsort(z, kind="stable")
    zs, cum = z[order], np.cumsum(w[order])
    total = cum[-1]
    h = (total - 1.0) * q
    lo = np.floor(h)
    gamma = h - lo
    last = len(zs) - 1
    a = zs[np.minimum(np.searchsorted(cum, np.maximum(lo, 0.0), side="right"), last)]
    b = zs[np.minimum(np.searchsorted(cum, np.minimum(lo + 1.0, total - 1.0), side="right"), last)]
    diff = b - a
    return np.where(gamma >= 0.5, b - diff * (1.0 - gamma), a + diff * gamma)


def fit_stump_pool(X, n_thresholds=10, placement="range", normalization="tanh", sample_weight=None) -> StumpPool:
    """Build the stump set of Section 4 from training rows.

    With ``sample_weight`` (positive weights; drop rows of weight 0 before) the normalisation uses the weighted
    mean and standard deviation and ``"quantile"`` placement the weighted quantiles
    (:func:`weighted_linear_quantile`); ``"range"`` placement and the merging of identical splits only depend on
    which values occur. An integer weight therefore acts as repeated rows: the same pool up to floating-point
    rounding of the mean and standard deviation.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training rows (finite or NaN: statistics and thresholds use the present values of each attribute).
    n_thresholds : int, default=10
        Thresholds per attribute ("10 decision stumps per attribute").
    placement : {"range", "quantile"}, default="range"
        Where the thresholds go; see the module docstring.
    normalization : {"tanh", None}, default="tanh"
        ``"tanh"``: ``z = tanh((x - mean) / std)`` with training mean and std; ``None``: raw attributes.

    sample_weight : ndarray of shape (n_samples,), optional
        Positive weights (None: unit weights, computed by the unweighted formulas).

    Returns
    -------
    StumpPool
    """
    if placement not in THRESHOLD_PLACEMENTS:
        raise ValueError(f"placement must be one of {THRESHOLD_PLACEMENTS}, got {placement!r}")
    X = np.asarray(X, dtype=np.float64)
    has_nan = bool(np.isnan(X).any())
    if has_nan and sample_weight is None:
        sample_weight = np.ones(len(X))  # the masked statistics below need weights
        unit = True
    else:
        unit = False
    if normalization == "tanh":
        if sample_weight is None:
            offset = X.mean(axis=0)
            scale = X.std(axis=0)
        else:
            offset, scale = _weighted_moments(X, np.asarray(sample_weight, dtype=np.float64))
        scale[scale == 0] = 1.0
    elif normalization is None:
        offset = scale = None
    else:
        raise ValueError(f"normalization must be 'tanh' or None, got {normalization!r}")
    pool = StumpPool(np.zeros(0, dtype=np.int64), np.zeros(0), offset, scale)
    Z = pool.normalize(X)

    k = np.arange(1, n_thresholds + 1)
    # with missing values every statistic is taken over the non-missing entries of the attribute
    present = ~np.isnan(Z) if has_nan else None
    if placement == "range":
        if has_nan:  # fmin / fmax skip NaN (an attribute without values gets NaN: no stumps)
            lo, hi = np.fmin.reduce(Z, axis=0), np.fmax.reduce(Z, axis=0)
        else:
            lo, hi = Z.min(axis=0), Z.max(axis=0)
        grid = lo[:, None] + (hi - lo)[:, None] * (k / (n_thresholds + 1))[None, :]
    elif sample_weight is None:
        grid = np.quantile(Z, k / (n_thresholds + 1), axis=0).T  # (n_features, n_thresholds)
    else:
        levels = k / (n_thresholds + 1)
        grid = np.full((Z.shape[1], n_thresholds), np.nan)
        for f in range(Z.shape[1]):
            rows = slice(None) if present is None else present[:, f]
            z = Z[rows, f]
            if len(z) == 0:
                continue
            if unit:
                grid[f] = np.quantile(z, levels)
            else:
                grid[f] = weighted_linear_quantile(z, sample_weight[rows], levels)

    features, thresholds = [], []
    Z_sorted = np.sort(Z, axis=0)  # NaN sorts last
    n_present = np.full(Z.shape[1], len(Z)) if present is None else present.sum(axis=0)
    for f in range(Z.shape[1]):  # one searchsorted per attribute; no loop over samples or thresholds
        n = n_present[f]
        if n == 0:
            continue
        t = np.unique(grid[f])
        # number of training values at or below each threshold: two thresholds with the same count split the
        # training set identically; a count of 0 or n means a constant voter
        below = np.searchsorted(Z_sorted[:n, f], t, side="right")
        keep = (below > 0) & (below < n)
        t, below = t[keep], below[keep]
        if len(t) == 0:
            continue
        runs, start = np.unique(below, return_index=True)
        counts = np.diff(np.append(start, len(below)))
        middle = start + (counts - 1) // 2
        features.append(np.full(len(runs), f, dtype=np.int64))
        thresholds.append(t[middle])
    if features:
        return StumpPool(np.concatenate(features), np.concatenate(thresholds), offset, scale)
    return pool
