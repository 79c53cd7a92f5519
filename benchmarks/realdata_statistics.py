"""The real-data study's statistics: per-fold scores and their standard errors, mean ranks with the Friedman test and
the Nemenyi critical difference (Demšar 2006), and the paper check's per-seed scores.

- **scores**: per table and learner, the mean of the ranking metric (accuracy, R²) over its folds and the per-fold
  standard error (the standard deviation of the folds' values, ddof=1, over the square root of their number);
  the suite mean is the mean of the tables' means;
- **ranks**: per task, the learners fitted on every table of the task, ranked on each table by their mean over
  the folds every one of them has (ties share their mean rank); the Friedman statistic of Demšar (2006),
  ``chi2_F = 12 N / (k (k + 1)) * (sum_j R_j^2 - k (k + 1)^2 / 4)`` with its chi-squared p-value (k - 1 degrees
  of freedom) and Iman and Davenport's ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)``, and the Nemenyi critical
  difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` at alpha = 0.05, ``q_alpha`` the studentized range
  quantile over the square root of 2 (:func:`nemenyi_cd`).
"""

from __future__ import annotations

import math
import statistics

import numpy as np

from mddf.experiments.metrics import standard_error

ALPHA = 0.05


# ------------------------------------------------------------------------------------------ scores
def fold_scores(records, metric: str) -> dict:
    """``{(table, learner): {(repeat, fold): value}}`` of one metric."""
    out = {}
    for r in records:
        if r.get(metric) is not None:
            out.setdefault((r["dataset"], r["method"]), {})[(r["repeat"], r["fold"])] = float(r[metric])
    return out


def mean_se(values) -> tuple:
    """``(mean, standard error)`` of values: the standard deviation (ddof=1) over the square root of their number
    (NaN with fewer than two)."""
    values = list(values)
    if not values:
        return math.nan, math.nan
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return statistics.fmean(values), se


def common_means(scores: dict, learners, tables) -> dict:
    """``{table: {learner: mean over the folds every learner has}}``, for the tables where they share a fold."""
    out = {}
    for t in tables:
        folds = [set(scores.get((t, m), {})) for m in learners]
        common = sorted(set.intersection(*folds)) if folds else []
        if common:
            out[t] = {m: statistics.fmean(scores[(t, m)][k] for k in common) for m in learners}
    return out


# ------------------------------------------------------------------------------------------ ranks
def nemenyi_cd(k: int, n: int, alpha: float = ALPHA) -> float:
    """The Nemenyi critical difference of mean ranks of ``k`` learners over ``n`` tables (Demšar 2006, eq. 5):
    ``q_alpha * sqrt(k (k + 1) / (6 n))``, ``q_alpha`` the studentized range quantile over sqrt(2)."""
    from scipy.stats import studentized_range

    q = studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
    return float(q * math.sqrt(k * (k + 1) / (6 * n)))


def friedman(means: dict, learners, higher: bool = True, alpha: float = ALPHA) -> dict:
    """Mean ranks, the Friedman test and the Nemenyi critical difference over the tables of ``means``.

    Parameters
    ----------
    means : dict
        ``{table: {learner: score}}`` (:func:`common_means`).
    learners : sequence of str
    higher : bool
        Whether a higher score is better (rank 1 the best).

    Returns
    -------
    dict
        ``ranks`` ({learner: mean rank}), ``n`` (tables), ``k`` (learners), ``chi2`` and ``p`` (Friedman),
        ``ff`` and ``p_ff`` (Iman and Davenport), ``cd`` (Nemenyi; NaN with fewer than two tables or learners).
    """
    from scipy.stats import chi2, f, rankdata

    learners = list(learners)
    tables = [t for t in means if all(m in means[t] for m in learners)]
    n, k = len(tables), len(learners)
    if n == 0 or k == 0:
        return {
            "ranks": {},
            "n": n,
            "k": k,
            "chi2": math.nan,
            "p": math.nan,
            "ff": math.nan,
            "p_ff": math.nan,
            "cd": math.nan,
        }
    sign = -1.0 if higher else 1.0
    per_table = np.array([rankdata([sign * means[t][m] for m in learners]) for t in tables])
    ranks = per_table.mean(axis=0)
    out = {"ranks": dict(zip(learners, map(float, ranks))), "n": n, "k": k}
    if n < 2 or k < 2:
        return {**out, "chi2": math.nan, "p": math.nan, "ff": math.nan, "p_ff": math.nan, "cd": math.nan}
    statistic = 12 * n / (k * (k + 1)) * (float(np.sum(ranks**2)) - k * (k + 1) ** 2 / 4)
    denominator = n * (k - 1) - statistic
    ff = (n - 1) * statistic / denominator if denominator > 0 else math.inf
    return {
        **out,
        "chi2": statistic,
        "p": float(chi2.sf(statistic, k - 1)),
        "ff": ff,
        "p_ff": float(f.sf(ff, k - 1, (k - 1) * (n - 1))) if math.isfinite(ff) else 0.0,
        "cd": nemenyi_cd(k, n, alpha),
    }


def cliques(ranks: dict, cd: float) -> list:
    """The maximal groups of learners (sorted by mean rank) whose mean ranks differ by at most ``cd``, of two or
    more learners: the bars of a critical-difference diagram."""
    order = sorted(ranks, key=ranks.get)
    groups = []
    for i, first in enumerate(order):
        group = [m for m in order[i:] if ranks[m] - ranks[first] <= cd]
        if len(group) > 1 and not any(set(group) <= set(g) for g in groups):
            groups.append(group)
    return groups


# ------------------------------------------------------------------------------------------ the paper check
def seed_scores(records) -> dict:
    """``{(dataset, learner): {seed: score}}`` of the check's records: per seed, the accuracy of the held-out
    parts together (classification) or the R² of their rows together (regression), over the folds recorded."""
    parts = {}
    for r in records:
        parts.setdefault((r["dataset"], r["method"], r["repeat"]), []).append(r)
    out = {}
    for (d, m, seed), rs in parts.items():
        if all(r.get("n_correct") is not None for r in rs):
            score = sum(r["n_correct"] for r in rs) / sum(r["n_test"] for r in rs)
        elif all(r.get("sse") is not None for r in rs):
            n = sum(r["n_test"] for r in rs)
            total = sum(r["y_sq_sum"] for r in rs) - sum(r["y_sum"] for r in rs) ** 2 / n
            score = 1 - sum(r["sse"] for r in rs) / total
        else:
            continue
        out.setdefault((d, m), {})[seed] = score
    return out


def check_losses(scores: dict, candidate: str, default: str, k: float = 2.0) -> dict:
    """``{dataset: (mean difference, SE, loses)}``: per check dataset, the mean over the seeds both have of the
    candidate's score minus the default's, its standard error, and whether the mean is below minus ``k`` SE (two
    in the second rule)."""
    out = {}
    for d in sorted({d for d, m in scores if m == candidate}):
        a, b = scores.get((d, candidate), {}), scores.get((d, default), {})
        diffs = [a[s] - b[s] for s in sorted(set(a) & set(b))]
        if diffs:
            mean, se = mean_se(diffs)
            out[d] = (mean, se, bool(mean < -k * se) if math.isfinite(se) else False)
    return out


def paired_fold_difference(scores: dict, table: str, learner: str, other: str, folds: int) -> tuple:
    """``(mean, SE)`` over the folds both have of ``learner``'s score minus ``other``'s on one table; the SE with
    Nadeau and Bengio's correction for ``folds``-fold cross-validation (:func:`mddf.experiments.metrics.standard_error`,
    as ``mddf benchmark --data`` reports it)."""
    a, b = scores.get((table, learner), {}), scores.get((table, other), {})
    d = [a[k] - b[k] for k in sorted(set(a) & set(b))]
    if not d:
        return math.nan, math.nan
    return statistics.fmean(d), standard_error(d, 1 / (folds - 1))
