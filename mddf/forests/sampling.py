"""Weighted draws of training rows: Algorithm 1's resampling by D_t and the forests' bootstrap (Walker's alias
method, compiled)."""

from __future__ import annotations

import numpy as np

from .._runtime.compile_cache import njit
from .._runtime.dispatch import entry_point, zeros


def weighted_resample(indices, distribution, rng):
    """Draw ``len(indices)`` rows with replacement, row i with probability proportional to D(i).

    Algorithm 1's "re-sample a training set with the distribution D_t",
    restricted to the rows a fold trains on.

    Parameters
    ----------
    indices : ndarray of int
        Rows eligible for this fit.
    distribution : ndarray
        D_t over all training rows.
    rng : numpy.random.RandomState

    Returns
    -------
    ndarray of int, sorted (so forests see rows in a stable order).
    """
    p = distribution[indices]
    total = p.sum()
    if total <= 0:
        p = None
    else:
        p = p / total
    return np.sort(rng.choice(indices, size=len(indices), replace=True, p=p))


@entry_point("alias_table", lambda: [zeros((np.float64, 1))])
@njit(cache=True, nogil=True)
def alias_table(p):
    """Walker's alias table for drawing index i with probability ``p[i] / sum(p)`` in O(1).

    Vose's construction. A draw takes a uniform index j and keeps it with
    probability ``accept[j]``, else takes ``alias[j]``; a table is built once
    per layer and fold in O(n), and every tree then draws its resample in O(n),
    where inverse-CDF draws cost O(n log n) with scattered memory reads (slower
    on the benchmark datasets; see ``docs/benchmarks/trees.md``).

    Parameters
    ----------
    p : ndarray of float64 (n,), positive

    Returns
    -------
    accept : ndarray of float64 (n,)
    alias : ndarray of int64 (n,)
    """
    n = p.shape[0]
    accept = p * (n / p.sum())
    alias = np.arange(n)
    small = np.empty(n, np.int64)
    large = np.empty(n, np.int64)
    n_small = n_large = 0
    for i in range(n):
        if accept[i] < 1.0:
            small[n_small] = i
            n_small += 1
        else:
            large[n_large] = i
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        s = small[n_small]
        big = large[n_large - 1]
        alias[s] = big
        accept[big] -= 1.0 - accept[s]
        if accept[big] < 1.0:  # the donor fell below its share: it becomes a small one
            n_large -= 1
            small[n_small] = big
            n_small += 1
    # what is left differs from 1 by rounding only
    for i in range(n_large):
        accept[large[i]] = 1.0
    for i in range(n_small):
        accept[small[i]] = 1.0
    return accept, alias


class Bootstrap:
    """Repeated draws with replacement from ``rows``: uniform, or with probabilities ``p`` from one alias table.

    Each draw takes one uniform variate u of the caller's ``RandomState``: with
    ``x = u * len(rows)``, the integer part of x is the slot j and, with ``p``,
    the fractional part is the coin of Walker's method (keep j with probability
    ``accept[j]``, else take ``alias[j]``), so a draw costs one variate and a
    table lookup. A tree's draws become its row counts in one compiled pass
    (:meth:`counts`), without materialising the drawn rows.

    Parameters
    ----------
    rows : ndarray of int
        Rows eligible for the draws.
    p : ndarray (len(rows),), non-negative, or None
        Their probabilities up to a constant (D_t restricted to ``rows``); rows of
        probability 0 are never drawn. None: uniform (the forests' bootstrap).
    """

    def __init__(self, rows, p=None):
        rows = np.asarray(rows, dtype=np.int64)
        if p is None:
            if not len(rows):
                raise ValueError("there are no rows to draw from")
            self.rows = rows
            self.accept, self.alias = np.empty(0), np.empty(0, dtype=np.int64)
            return
        p = np.asarray(p, dtype=np.float64)
        if rows.shape != p.shape:
            raise ValueError(f"rows and p must have the same shape, got {rows.shape} and {p.shape}")
        positive = p > 0
        if not positive.any():
            raise ValueError("the sample distribution puts no weight on the rows to draw from")
        self.rows = rows[positive]
        self.accept, self.alias = alias_table(p[positive])

    def counts(self, rng, n, size):
        """How often each of rows ``0..n-1`` is drawn in ``size`` draws, as float64 ``(n,)``, using ``rng``
        (numpy.random.RandomState)."""
        counts = np.zeros(n)
        _count_draws(rng.random_sample(size), self.rows, self.accept, self.alias, counts)
        return counts

    def draw(self, rng, size):
        """``size`` rows drawn with replacement, sorted: the draws of :meth:`counts` from the same state of ``rng``."""
        n = int(self.rows.max()) + 1
        return np.repeat(np.arange(n), self.counts(rng, n, size).astype(np.int64))


@entry_point(
    "count_draws", lambda: [zeros((np.float64, 1), (np.int64, 1), (np.float64, 1), (np.int64, 1), (np.float64, 1))]
)
@njit(cache=True, nogil=True)
def _count_draws(u, rows, accept, alias, counts):
    """Add to ``counts`` the rows that the uniform variates ``u`` draw (see :class:`Bootstrap`).

    The uniform and the alias draws are two loops, so that neither tests which it is per draw; ``u * m``
    rounded up to ``m`` takes the last slot.
    """
    m = len(rows)
    if len(accept):
        for i in range(len(u)):
            x = u[i] * m
            j = int(x)
            if j >= m:
                j = m - 1
            if x - j >= accept[j]:
                j = alias[j]
            counts[rows[j]] += 1.0
    else:
        for i in range(len(u)):
            j = int(u[i] * m)
            if j >= m:
                j = m - 1
            counts[rows[j]] += 1.0
