"""The search behind :class:`mddf.PairFeatures`: which features of pairs of numeric columns help a shallow tree.

The gain of a feature ``g(a, b)`` is measured by probe trees (:class:`mddf.forests.probes.ProbeTrees`), as a
held-out loss over ``cv`` folds of the rows: trees of depth ``max_depth`` grown on ``(a, b)`` and on ``(a, b,
g(a, b))``, the gain being the relative reduction of the loss the feature brings, ``(loss(a, b) - loss(a, b, g)) /
loss(a, b)``, and its ``z`` the mean reduction of a row's held-out loss over its standard error (every row is held
out by one fold). Every column is binned once, and each feature tried once.

When there are more than ``max_columns`` numeric columns, a screen keeps the ``max_columns`` columns of highest
impurity importance in a probe forest (:data:`SCREEN_TREES` trees of depth :data:`SCREEN_DEPTH`, sqrt of the
columns per split, bootstrap) grown on all of them, and only pairs of those are tried.

Cost model, on at most ``max_samples`` rows: the screen's :data:`SCREEN_TREES` trees over all ``p`` numeric columns
when ``p > max_columns``, then ``m (m - 1) / 2 * (1 + len(operations)) * cv`` probe trees of two or three columns
for the ``m = min(p, max_columns)`` columns kept; with binning, every column once and every feature tried once.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from joblib import effective_n_jobs

from .._runtime.threads import Parallel, in_one_thread, one_blas_thread
from ..forests.probes import ProbeTrees, binned_columns, forest_importances
from .appended import signed_log

#: The features of a pair: ``log_ratio`` ``L(a) - L(b)`` with ``L(x) = sign(x) log(1 + |x|)`` (about ``log(a / b)``
#: for positive columns), ``product`` ``a * b`` and ``difference`` ``a - b``.
OPERATIONS = ("log_ratio", "product", "difference")
#: The probe forest of the screen: its trees, their depth.
SCREEN_TREES = 32
SCREEN_DEPTH = 8
#: Rows from which the pairs are tried in ``n_jobs`` threads: on fewer, a pair's compiled work is shorter than its
#: Python steps, which the threads take in turn (the GIL), and one thread is faster.
THREADED_MIN_ROWS = 2_000
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def pair_values(a, b, operation: str):
    """The feature of two columns, float64: ``log_ratio`` ``L(a) - L(b)`` with ``L(x) = sign(x) log(1 + |x|)``,
    ``product`` ``a * b``, ``difference`` ``a - b``; NaN where either is missing. Products and differences beyond
    float32's range are clipped to it, as the cascades read float32."""
    if operation == "log_ratio":
        return signed_log(a) - signed_log(b)
    with np.errstate(over="ignore", invalid="ignore"):
        value = a * b if operation == "product" else a - b
    return np.clip(value, -_FLOAT32_MAX, _FLOAT32_MAX)


@dataclass(frozen=True)
class SearchSettings:
    """What the search is asked: the operations tried, the folds, the probes' depth, the columns kept by the screen
    (None: every column)."""

    operations: tuple
    cv: int
    max_depth: int
    max_columns: int | None


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a search: the positions (into the columns searched) of the columns the screen kept, in order,
    and of every feature tried, ``{(i, j, operation): value}`` with ``i < j`` positions of the columns searched, its
    gain (the relative reduction of the mean held-out loss) and the mean reduction of a row's held-out loss over its
    standard error (``z``: a paired comparison over the rows)."""

    screened: np.ndarray
    gains: dict
    z: dict


def screen_columns(codes, n_bins, missing_bin, y, n_classes, max_columns, seed):
    """Positions of the ``max_columns`` binned columns of highest impurity importance in the screen's probe forest,
    in their order; ties go to the earlier column."""
    importance = forest_importances(codes, n_bins, missing_bin, y, n_classes, SCREEN_TREES, SCREEN_DEPTH, seed)
    return np.sort(np.argsort(-importance, kind="stable")[:max_columns])


def search_pairs(values, y, folds, n_classes, settings: SearchSettings, seed, n_jobs=None) -> SearchResult:
    """The out-of-fold gain of every operation's feature of every pair of the columns of ``values`` that the screen
    keeps (all of them when there are at most ``settings.max_columns``).

    ``values`` ``(n, p)`` float64 (NaN: missing); ``y`` class indices ``0 .. n_classes - 1``, or a continuous target
    with ``n_classes`` 0; ``folds`` the ``(fit rows, held-out rows)`` of each fold; ``n_jobs`` threads try the
    pairs from :data:`THREADED_MIN_ROWS` rows, one thread below (the gains do not depend on it).
    """
    codes, n_bins, missing_bin = binned_columns(values)
    kept = np.arange(values.shape[1])
    if settings.max_columns is not None and len(kept) > settings.max_columns:
        kept = screen_columns(codes, n_bins, missing_bin, y, n_classes, settings.max_columns, seed)
    probes = ProbeTrees(y, folds, n_classes == 0, n_classes, settings.max_depth, seed)
    binned = (codes, n_bins, missing_bin)
    pairs = list(combinations(kept.tolist(), 2))
    threads = n_jobs if len(y) >= THREADED_MIN_ROWS else 1
    with one_blas_thread():  # the pairs in parallel threads (the probe trees release the GIL)
        per_chunk = Parallel(n_jobs=threads, prefer="threads")(
            in_one_thread(_chunk_gains)(values, binned, probes, chunk, settings.operations)
            for chunk in _chunks(pairs, threads)
        )
    per_pair = [found for chunk in per_chunk for found in chunk]
    gains = {key: gain for found in per_pair for key, gain, _ in found}
    z = {key: value for found in per_pair for key, _, value in found}
    return SearchResult(kept, gains, z)


def _chunks(pairs, n_jobs):
    """The pairs in consecutive runs, a few per thread (a task per pair costs more in dispatch than a small table's
    pair takes); their concatenation is ``pairs``."""
    size = -(-len(pairs) // max(1, 4 * effective_n_jobs(n_jobs)))
    return [pairs[start : start + size] for start in range(0, len(pairs), max(1, size))]


def _chunk_gains(values, binned, probes, pairs, operations):
    """:func:`_pair_gains` of every pair of ``pairs``, in order."""
    return [_pair_gains(values, binned, probes, a, b, operations) for a, b in pairs]


def _pair_gains(values, binned, probes, a, b, operations):
    """``[(key, gain, z)]`` of every operation's feature of the pair of columns ``a < b``."""
    codes, n_bins, missing_bin = binned
    pair = np.ascontiguousarray(codes[:, [a, b]])
    pair_bins, pair_missing = n_bins[[a, b]], None if missing_bin is None else missing_bin[[a, b]]
    base = probes.losses(pair, pair_bins, pair_missing)
    found = []
    for operation in operations:
        f_codes, f_bins, f_missing = binned_columns(pair_values(values[:, a], values[:, b], operation)[:, None])
        losses = probes.losses(
            np.ascontiguousarray(np.column_stack([pair, f_codes])),
            np.concatenate([pair_bins, f_bins]),
            _joined_missing(pair_missing, f_missing),
        )
        found.append(((a, b, operation), *_gain(base, losses)))
    return found


def _gain(base, losses):
    """The relative reduction of the mean loss from ``base`` to ``losses`` (per row), and the mean reduction of a
    row's loss over its standard error (0 when both are 0, +-inf when the reduction is the same on every row)."""
    mean = base.mean()
    reduction = base - losses
    gain = float(reduction.mean() / mean) if mean > 0 else 0.0
    se = reduction.std(ddof=1) / np.sqrt(len(reduction)) if len(reduction) > 1 else 0.0
    if se > 0:
        return gain, float(reduction.mean() / se)
    return gain, float(np.sign(reduction.mean()) * np.inf) if reduction.mean() != 0 else 0.0


def _joined_missing(pair_missing, feature_missing):
    """The missing codes of a pair's two columns and its feature, or None when none of the three has NaN."""
    if pair_missing is None and feature_missing is None:
        return None
    first = np.full(2, -1, dtype=np.int64) if pair_missing is None else pair_missing
    last = np.full(1, -1, dtype=np.int64) if feature_missing is None else feature_missing
    return np.concatenate([first, last])
