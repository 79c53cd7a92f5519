"""The real-data study's page: per-task tables, mean ranks with Friedman and Nemenyi, and the defaults decided by
the rules written before the runs (``docs/benchmarks/realdata.md``).

Read from the records of :mod:`benchmarks.realdata_suite` (one per table, learner, repeat and fold):

- **scores**: per table and learner, the mean of the ranking metric (accuracy, R²) over its folds and the per-fold
  standard error (the standard deviation of the folds' values, ddof=1, over the square root of their number);
  the suite mean is the mean of the tables' means;
- **ranks**: per task, the learners fitted on every table of the task, ranked on each table by their mean over
  the folds every one of them has (ties share their mean rank); the Friedman statistic of Demšar (2006),
  ``chi2_F = 12 N / (k (k + 1)) * (sum_j R_j^2 - k (k + 1)^2 / 4)`` with its chi-squared p-value (k - 1 degrees
  of freedom) and Iman and Davenport's ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)``, and the Nemenyi critical
  difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` at alpha = 0.05, ``q_alpha`` the studentized range
  quantile over the square root of 2 (:func:`nemenyi_cd`); drawn as a critical-difference diagram
  (:func:`cd_figure`), and as a scatter of the suite mean against the median fit seconds (:func:`time_figure`);
- **the defaults, by the second rule** (:data:`CANDIDATES`, :func:`judge`): a table's paired difference is the mean
  over the folds both learners have of the candidate's score minus the base's (:data:`BASES`), its SE the standard
  deviation of those per-fold differences over the square root of their number; the suite difference is the mean
  of the tables' paired differences, its standard error their standard deviation (ddof=1) over the square root of
  their number. (a) the suite difference is >= 0 and no table is worse by more than :data:`TABLE_LOSS` and two of
  its SEs (a calibration whose labels are the base's on every fold meets (a) and (b)); (b) the paper's datasets
  check (``--check paper`` records: per dataset and seed, the score over the three held-out parts together, the
  pooled accuracy or, for regression, the R² of the pooled held-out rows) loses on no dataset beyond two SE of the
  paired per-seed differences; (c) the suite difference is beyond two SE in the candidate's favour, or it is a
  data-driven step; (d) the median fit and predict seconds over the suite's fits are at most :data:`FIT_RATIO` and
  :data:`PREDICT_RATIO` times the base's. Calibration is decided on its own; of the other candidates that qualify,
  the highest suite mean becomes the default (:func:`choose`); with the targets (the new default against
  CatBoost-es, calibration's log-loss against LightGBM-es);
- **where the default is first**: per table, the best of :data:`PEERS` by its mean, the default's paired
  difference to it with the SE of the paired per-fold differences (Nadeau and Bengio's correction), and the ratio
  of the default's median fit seconds to that peer's (:func:`where_section`).
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import numpy as np

from benchmarks.harness import METRICS, PERCENT, command_provenance, not_run
from mddf.experiments.metrics import standard_error
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table

ALPHA = 0.05
#: The ranking metric of each task.
RANKING = {"classification": "accuracy", "regression": "r2"}
#: What each task reports besides its ranking metric.
SECONDARY = {"classification": ("balanced_accuracy", "log_loss"), "regression": ("rmse",)}
#: The base of each task's candidates (the defaults of 2026-11-27), the learner they are set against.
BASES = {"classification": "mdDF-base", "regression": "CascadeForest-base"}
#: The learner each task's "where the default is first" reads: the estimator's default, as the second rule made it
#: (a boosted member, its probabilities calibrated, whose labels are mdDF-gbdt's; the pair search with differences).
DEFAULTS = {"classification": "mdDF-gbdt", "regression": "CascadeForest-pairs3"}
#: The candidates of the second rule, per task: (learner, what it is, data-driven: appends or changes nothing when
#: its own out-of-fold check finds no gain).
CANDIDATES = {
    "classification": (
        ("mdDF-gbdt", "a boosted member", False),
        ("mdDF-pairs", "pair features", True),
        ("mdDF-pairs3", "pair features with differences", True),
        ("mdDF-gbdt-pairs", "a boosted member and pair features", False),
        ("mdDF-cal", "calibration", True),
    ),
    "regression": (
        ("CascadeForest-gbdt", "a boosted member", False),
        ("CascadeForest-pairs", "pair features", True),
        ("CascadeForest-pairs3", "pair features with differences", True),
        ("CascadeForest-gbdt-pairs", "a boosted member and pair features", False),
    ),
}
#: The learners of other libraries the default is set against, table by table (:func:`where_section`).
PEERS = ("HGB-es", "LightGBM-es", "XGBoost-es", "CatBoost-es", "RF-400", "ExtraTrees-400")


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


def cd_figure(ranks: dict, cd: float, title: str):
    """A critical-difference diagram (Demšar 2006): the mean ranks on an axis, the best on the left, the
    learners no more than ``cd`` apart joined by a bar, and the CD drawn above the axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = sorted(ranks, key=ranks.get)
    k = len(order)
    half = math.ceil(k / 2)
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.32 * half))
    low, high = 1, max(k, 2)
    ax.set_xlim(low - 0.6, high + 0.6)
    ax.set_ylim(-(half + 1.5), 1.6)
    ax.axis("off")
    ax.hlines(0, low, high, color="black", lw=1)
    for r in range(low, high + 1):
        ax.vlines(r, 0, 0.15, color="black", lw=1)
        ax.text(r, 0.25, str(r), ha="center", va="bottom", fontsize=9)
    if math.isfinite(cd):
        ax.hlines(1.1, low, low + cd, color="black", lw=1.5)
        ax.vlines([low, low + cd], 1.0, 1.2, color="black", lw=1.5)
        ax.text(low + cd / 2, 1.25, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    for i, m in enumerate(order):
        left = i < half
        level = -(i + 1) if left else -(k - i)
        x = ranks[m]
        end = low - 0.5 if left else high + 0.5
        ax.plot([x, x, end], [0, level, level], color="black", lw=0.8)
        ax.text(
            end,
            level,
            f"{m} ({x:.2f})  " if left else f"  {m} ({x:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize=9,
        )
    for j, group in enumerate(cliques(ranks, cd) if math.isfinite(cd) else []):
        y = -0.35 - 0.22 * j
        ax.hlines(y, ranks[group[0]] - 0.05, ranks[group[-1]] + 0.05, color="tab:red", lw=3)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def frontier(points: list, higher: bool = True) -> list:
    """The learners of ``points`` (``(name, seconds, score)``) that no other beats on both: none as fast or faster
    with a better score; fastest first."""
    better = (lambda a, b: a > b) if higher else (lambda a, b: a < b)
    kept = [
        p
        for p in points
        if not any(q is not p and q[1] <= p[1] and better(q[2], p[2]) for q in points)
        and not any(q is not p and q[1] < p[1] and q[2] == p[2] for q in points)
    ]
    return sorted(kept, key=lambda p: p[1])


def time_figure(points: list, metric: str, title: str):
    """Each learner's suite mean of the ranking metric against its median fit seconds (log axis), the frontier (the
    learners no other beats on both, :func:`frontier`) joined by a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    scale = 100 if metric in PERCENT else 1
    best = frontier(points, higher=METRICS[metric][2])
    ax.step(
        [p[1] for p in best], [scale * p[2] for p in best], where="post", color="0.6", lw=1, zorder=0, label="frontier"
    )
    for name, seconds, score in points:
        ax.scatter(seconds, scale * score, color="tab:red" if name.startswith(("mdDF", "Cascade")) else "tab:blue")
        ax.annotate(name, (seconds, scale * score), textcoords="offset points", xytext=(4, 3), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("median fit seconds per fit (log scale)")
    ax.set_ylabel(f"suite mean {metric}" + (" (%)" if scale == 100 else ""))
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


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


# ------------------------------------------------------------------------------------------ the page
def _fmt(value, se=None, *, metric):
    """A score as the page shows it (accuracy in percent), with its SE when given."""
    if value is None or not math.isfinite(value):
        return ""
    scale, digits = (100, 2) if metric in PERCENT else (1, 4)
    text = f"{scale * value:.{digits}f}"
    return text + (f" ± {scale * se:.{digits}f}" if se is not None and math.isfinite(se) else "")


def _signed(value, se, metric):
    scale, digits = (100, 2) if metric in PERCENT else (1, 4)
    if not math.isfinite(value):
        return ""
    return f"{scale * value:+.{digits}f}" + (f" ± {scale * se:.{digits}f}" if math.isfinite(se) else "")


def _tasks(results) -> dict:
    """``{task: [tables]}`` in the results' order."""
    out = {}
    for t in results.datasets:
        out.setdefault("classification" if "accuracy" in results.metrics[t] else "regression", []).append(t)
    return out


def ranked_learners(records, learners, tables) -> list:
    """The learners that have a record on every table (the ones ranked)."""
    have = {(r["dataset"], r["method"]) for r in records}
    return [m for m in learners if tables and all((t, m) in have for t in tables)]


def task_section(results, task: str, tables: list, figures: dict) -> list:
    """The lines of one task's part of the page; adds its figures to ``figures`` ({stem: figure})."""
    metric = RANKING[task]
    higher = METRICS[metric][2]
    records = [r for r in results.records if r["dataset"] in tables]
    learners = [m for m in results.methods if any(r["method"] == m for r in records)]
    scores = fold_scores(records, metric)
    unit = " (%)" if metric in PERCENT else ""
    lines = [f"### {task.capitalize()}", ""]
    head = ["table", *learners]
    rows = []
    for t in tables:
        rows.append([t, *(_fmt(*mean_se(scores.get((t, m), {}).values()), metric=metric) for m in learners)])
    suite = {m: [statistics.fmean(scores[(t, m)].values()) for t in tables if (t, m) in scores] for m in learners}
    rows.append(["suite mean", *(_fmt(statistics.fmean(v), metric=metric) if v else "" for v in suite.values())])
    rows.append(["tables", *(str(len(v)) for v in suite.values())])
    for what, digits in (("fit_s", 2), ("predict_s", 3)):
        cells = []
        for m in learners:
            values = [r[what] for r in records if r["method"] == m and r.get(what) is not None]
            cells.append(f"{statistics.median(values):.{digits}f}" if values else "")
        rows.append([f"median {what[:-2]} s per fit", *cells])
    lines += [
        f"{metric}{unit} per table: mean ± per-fold SE over the folds of all repeats; the suite mean is the mean of "
        "the tables' means (over the tables each learner has); median fit and predict seconds per fit.",
        "",
        *markdown_table(head, rows),
        "",
    ]
    for other in SECONDARY[task]:
        other_scores = fold_scores(records, other)
        cells = []
        for m in learners:
            values = [statistics.fmean(other_scores[(t, m)].values()) for t in tables if (t, m) in other_scores]
            cells.append(_fmt(statistics.fmean(values), metric=other) if values else "")
        better = "higher" if METRICS[other][2] else "lower"
        lines += [f"{other} ({better} is better), suite mean:", "", *markdown_table(learners, [cells]), ""]

    ranked = ranked_learners(records, learners, tables)
    means = common_means(scores, ranked, tables)
    test = friedman(means, ranked, higher)
    if test["ranks"]:
        order = sorted(test["ranks"], key=test["ranks"].get)
        lines += [
            f"Mean ranks of {metric} over {test['n']} tables (1 is best; the learners fitted on every table, each "
            "ranked on a table by its mean over the folds all of them have):",
            "",
            *markdown_table(order, [[f"{test['ranks'][m]:.2f}" for m in order]]),
            "",
            f"Friedman test: chi2_F = {test['chi2']:.2f} (k = {test['k']}, N = {test['n']}), p = {test['p']:.2g}; "
            f"Iman-Davenport F_F = {test['ff']:.2f}, p = {test['p_ff']:.2g}. Nemenyi critical difference at "
            f"alpha = {ALPHA}: CD = {test['cd']:.2f}.",
            "",
            f"![critical-difference diagram, {task}](realdata_cd_{task}.png)",
            "",
        ]
        figures[f"realdata_cd_{task}"] = cd_figure(
            test["ranks"], test["cd"], f"{task}: mean rank of {metric}, Nemenyi CD"
        )
    points = []
    for m in learners:
        fits = [r["fit_s"] for r in records if r["method"] == m and r.get("fit_s") is not None]
        if fits and suite[m] and len(suite[m]) == len(tables):
            points.append((m, statistics.median(fits), statistics.fmean(suite[m])))
    if points:
        figures[f"realdata_fit_time_{task}"] = time_figure(
            points, metric, f"{task}: suite mean {metric} against fit time"
        )
        lines += [f"![{metric} against fit seconds, {task}](realdata_fit_time_{task}.png)", ""]
    return lines + where_section(results, task, tables)


def paired_fold_difference(scores: dict, table: str, learner: str, other: str, folds: int) -> tuple:
    """``(mean, SE)`` over the folds both have of ``learner``'s score minus ``other``'s on one table; the SE with
    Nadeau and Bengio's correction for ``folds``-fold cross-validation (:func:`mddf.experiments.metrics.standard_error`,
    as ``mddf benchmark --data`` reports it)."""
    a, b = scores.get((table, learner), {}), scores.get((table, other), {})
    d = [a[k] - b[k] for k in sorted(set(a) & set(b))]
    if not d:
        return math.nan, math.nan
    return statistics.fmean(d), standard_error(d, 1 / (folds - 1))


def where_section(results, task: str, tables: list) -> list:
    """The lines of "where the default is first": per table, its rows and category columns, the best peer, the
    default's paired difference to it ± the per-fold SE, whether the default is first among the peers, ahead
    beyond two SE or behind beyond two SE (the SE corrected for the folds' overlapping training rows), and its median
    fit seconds over that peer's."""
    metric = RANKING[task]
    higher = METRICS[metric][2]
    default = DEFAULTS[task]
    scores = fold_scores(results.records, metric)
    rows, tally = [], {"first": 0, "ahead": 0, "behind": 0}
    sign = 1 if higher else -1
    for t in tables:
        peers = [m for m in PEERS if (t, m) in scores]
        if (t, default) not in scores or not peers:
            continue
        best = max(peers, key=lambda m: sign * statistics.fmean(scores[(t, m)].values()))
        mean, se = paired_fold_difference(scores, t, default, best, results.options.folds)
        first, beyond = sign * mean > 0, math.isfinite(se) and abs(mean) > 2 * se
        tally["first"] += first
        tally["ahead"] += first and beyond
        tally["behind"] += (not first) and beyond
        standing = "first" if first else ("tied" if mean == 0 else "behind")
        rs = [r for r in results.records if r["dataset"] == t]
        fit = {m: statistics.median(r["fit_s"] for r in rs if r["method"] == m) for m in (default, best)}
        size = rs[0].get("n_train", 0) + rs[0].get("n_test", 0)
        rows.append(
            [
                t,
                str(size),
                str(max(r.get("n_categorical", 0) for r in rs)),
                best,
                _signed(mean, se, metric),
                standing + (", beyond 2 SE" if beyond else ""),
                f"{fit[default] / fit[best]:.0f}x" if fit[best] > 0 else "",
            ]
        )
    if not rows:
        return []
    return [
        f"Where {default} is first ({task}): per table, the best of {', '.join(PEERS)} by its mean, and {default}'s "
        f"paired difference to it ± its SE over the folds, corrected for their overlapping training rows (Nadeau "
        f"and Bengio; {metric}{' in points' if metric in PERCENT else ''}); the "
        f"last column is {default}'s median fit seconds over that peer's. {default} is first on {tally['first']} "
        f"of {len(rows)} tables, beyond two SE on {tally['ahead']}; behind beyond two SE on {tally['behind']}.",
        "",
        *markdown_table(
            ["table", "rows", "category columns", "best peer", f"{default} - best peer", "", "fit time ratio"], rows
        ),
        "",
    ]


def check_records(results) -> list:
    """The paper check's records in ``--out`` (its latest settings, ``--quick`` as this run's)."""
    path = Path(results.options.out) / "results.jsonl"
    found = [
        r
        for r in ResultStore(path).records()
        if r.get("status") == "ok"
        and r.get("config", {}).get("check") == "paper"
        and r["config"].get("quick") == bool(results.options.quick)
    ]
    latest = {r["key"]: r for r in found}
    return list(latest.values())


#: The second rule's thresholds: a table worse by more than this much (accuracy as a fraction, R²) and by more
#: than two of its SEs fails (a); the median fit and predict times at most these multiples of the base's (d).
TABLE_LOSS = 0.005
FIT_RATIO, PREDICT_RATIO = 2.0, 1.5


def table_differences(scores: dict, candidate: str, base: str, tables) -> dict:
    """``{table: (mean, SE)}`` of the per-fold paired differences of the candidate's score minus the base's (SE: the
    standard deviation of the folds' differences, ddof=1, over the square root of their number)."""
    out = {}
    for t in tables:
        a, b = scores.get((t, candidate), {}), scores.get((t, base), {})
        d = [a[k] - b[k] for k in sorted(set(a) & set(b))]
        if d:
            out[t] = mean_se(d)
    return out


def median_seconds(records, learner: str, what: str) -> float:
    values = [r[what] for r in records if r["method"] == learner and r.get(what) is not None]
    return statistics.median(values) if values else math.nan


def identical_predictions(scores: dict, candidate: str, base: str, tables) -> bool:
    """Whether the candidate's score equals the base's on every fold of every table (calibration's accuracy)."""
    return all(
        scores.get((t, candidate)) == scores.get((t, base)) and scores.get((t, base)) is not None for t in tables
    )


def judge(results, check_scores: dict, task: str, candidate: str, data_driven: bool) -> dict:
    """The second rule's conditions (a)-(d) for one candidate against its task's base, with their numbers."""
    base, metric = BASES[task], RANKING[task]
    tables = _tasks(results).get(task, [])
    records = [r for r in results.records if r["dataset"] in tables]
    scores = fold_scores(records, metric)
    per_table = table_differences(scores, candidate, base, tables)
    mean, se = mean_se(m for m, _ in per_table.values())
    complete = len(per_table) == len(tables)
    worst = min(per_table, key=lambda t: per_table[t][0]) if per_table else None
    failing = [t for t, (m, e) in per_table.items() if m < -TABLE_LOSS and math.isfinite(e) and m < -2 * e]
    identical = data_driven and identical_predictions(scores, candidate, base, tables)
    a = complete and (identical or (mean >= 0 and not failing))
    losses = check_losses(check_scores, candidate, base) if any(m == candidate for _, m in check_scores) else None
    if identical:
        b = True  # its labels are the base's on every fold: no dataset can lose
    else:
        b = None if losses is None else not any(lost for _, _, lost in losses.values())
    c = complete and (data_driven or (math.isfinite(se) and mean > 2 * se))
    fit = median_seconds(records, candidate, "fit_s") / median_seconds(records, base, "fit_s")
    predict = median_seconds(records, candidate, "predict_s") / median_seconds(records, base, "predict_s")
    d = bool(fit <= FIT_RATIO and predict <= PREDICT_RATIO)
    return {
        "candidate": candidate,
        "tables": len(per_table),
        "complete": complete,
        "mean": mean,
        "se": se,
        "worst": worst,
        "worst_diff": per_table.get(worst, (math.nan, math.nan)),
        "failing": failing,
        "identical": identical,
        "losses": losses,
        "a": a,
        "b": b,
        "c": c,
        "d": d,
        "fit_ratio": fit,
        "predict_ratio": predict,
        "qualifies": bool(a and b and c and d),
        "suite_mean": _suite_mean(scores, candidate, tables),
    }


def _suite_mean(scores: dict, learner: str, tables) -> float:
    values = [statistics.fmean(scores[(t, learner)].values()) for t in tables if (t, learner) in scores]
    return statistics.fmean(values) if len(values) == len(tables) and values else math.nan


def choose(verdicts: list) -> tuple:
    """``(structural choice or None, calibration qualifies)`` by the rule: calibration on its own; of the other
    candidates that qualify, the one of highest suite mean."""
    calibrated = any(v["qualifies"] for v in verdicts if v["candidate"].endswith("-cal"))
    others = [v for v in verdicts if v["qualifies"] and not v["candidate"].endswith("-cal")]
    best = max(others, key=lambda v: v["suite_mean"])["candidate"] if others else None
    return best, calibrated


def _yes(value) -> str:
    return "not run" if value is None else ("yes" if value else "**no**")


def rule_section(results, check: list) -> list:
    """The lines of the second rule's table (each candidate's numbers for conditions (a)-(d)) and its choice."""
    check_scores = seed_scores(check)
    lines = [
        "### Defaults, by the second rule",
        "",
        "Per candidate, against the base (the defaults of 2026-11-27): (a) the suite difference ± SE (accuracy in "
        "points, R²) and the worst table's paired difference ± the SE of its per-fold differences (a table fails "
        "when worse by more than 0.5 points, 0.005 R², and by more than two such SEs); (b) the paper's datasets "
        "check, per dataset the mean over seeds of the paired difference ± SE (loses: below minus two SE); (c) beyond "
        "two SE in its favour, or a data-driven step; (d) the median fit and predict seconds over the suite's fits "
        f"over the base's (at most {FIT_RATIO}x and {PREDICT_RATIO}x).",
        "",
    ]
    chosen = {}
    for task, candidates in CANDIDATES.items():
        metric = RANKING[task]
        verdicts = [judge(results, check_scores, task, n, dd) for n, _, dd in candidates if n in results.methods]
        if not verdicts:
            continue
        rows = []
        for v in verdicts:
            worst = "identical on every fold" if v["identical"] else f"{v['worst']} {_signed(*v['worst_diff'], metric)}"
            check_text = (
                "not needed (identical labels)"
                if v["identical"]
                else "not run"
                if v["losses"] is None
                else "; ".join(
                    f"{d} {_signed(m, e, metric)}" + (" (loses)" if lost else "")
                    for d, (m, e, lost) in v["losses"].items()
                )
            )
            rows.append(
                [
                    v["candidate"],
                    f"{v['tables']}",
                    _signed(v["mean"], v["se"], metric),
                    worst,
                    _yes(v["a"]),
                    check_text,
                    _yes(v["b"]),
                    _yes(v["c"]),
                    f"{v['fit_ratio']:.2f}x / {v['predict_ratio']:.2f}x",
                    _yes(v["d"]),
                    "**yes**" if v["qualifies"] else "no",
                ]
            )
        best, calibrated = choose(verdicts)
        chosen[task] = best or ("mdDF-cal" if calibrated else BASES[task])
        estimator = "MDDFClassifier" if task == "classification" else "CascadeForestRegressor"
        choice = f"the new default is **{best}**" if best else "the base's design stays"
        if task == "classification":
            choice += "; calibration " + ("is **on** by default" if calibrated else "stays off")
        lines += [
            f"{estimator} ({task}):",
            "",
            *markdown_table(
                [
                    "candidate",
                    "tables",
                    "suite difference ± SE",
                    "worst table",
                    "(a)",
                    "paper check",
                    "(b)",
                    "(c)",
                    "fit / predict time",
                    "(d)",
                    "qualifies",
                ],
                rows,
            ),
            "",
            f"By the rule, for {estimator}: {choice}.",
            "",
        ]
    return lines + target_lines(results) + cost_lines(results, chosen)


def target_lines(results) -> list:
    """The targets: the classifier's new default against CatBoost-es (accuracy), calibration against LightGBM-es
    (log-loss)."""
    tables = _tasks(results).get("classification", [])
    accuracy = fold_scores(results.records, "accuracy")
    loss = fold_scores(results.records, "log_loss")
    out = []
    for learner, peer, scores, what in (
        (DEFAULTS["classification"], "CatBoost-es", accuracy, "accuracy"),
        ("mdDF-cal", "LightGBM-es", loss, "log_loss"),
        ("mdDF-gbdt-cal", "LightGBM-es", loss, "log_loss"),
        ("mdDF-base", "LightGBM-es", loss, "log_loss"),
    ):
        mine, theirs = _suite_mean(scores, learner, tables), _suite_mean(scores, peer, tables)
        if math.isfinite(mine) and math.isfinite(theirs):
            out.append(f"- suite mean {what}: {learner} {_fmt(mine, metric=what)}, {peer} {_fmt(theirs, metric=what)}")
    if ("mdDF-gbdt-cal" in results.methods) and tables:
        same = identical_predictions(accuracy, "mdDF-gbdt-cal", "mdDF-gbdt", tables)
        out.append(f"- mdDF-gbdt-cal's accuracy is mdDF-gbdt's on every fold of every table: {'yes' if same else 'no'}")
    return ["Targets (reported, not conditions):", "", *out, ""] if out else []


#: Issue 64's cost targets: the new default's median fit and predict seconds over today's default's (the base), and
#: the regression default's median fit over HGB-es's.
NEW_DEFAULT_FIT, NEW_DEFAULT_PREDICT, REGRESSOR_OVER_HGB = 1.0, 1.2, 10.0


#: The new defaults with layer probes (the cost page's probe rule), reported beside the rule's choice when fitted.
WITH_PROBES = {"regression": "CascadeForest-pairs3-probes"}


def cost_lines(results, chosen: dict) -> list:
    """Issue 64's cost targets, reported: each task's new default (``chosen``: task -> learner; and its probed
    twin of :data:`WITH_PROBES` when fitted) against the base, its median fit and predict seconds over the suite's
    fits, and the regression default's median fit over HGB-es's, over the suite and per table."""
    out = []
    tasks = _tasks(results)
    pairs = [*chosen.items(), *((t, x) for t, x in WITH_PROBES.items() if t in chosen and x in results.methods)]
    for task, learner in pairs:
        records = [r for r in results.records if r["dataset"] in tasks.get(task, [])]
        base = BASES[task]
        fit = median_seconds(records, learner, "fit_s") / median_seconds(records, base, "fit_s")
        predict = median_seconds(records, learner, "predict_s") / median_seconds(records, base, "predict_s")
        met = fit <= NEW_DEFAULT_FIT and predict <= NEW_DEFAULT_PREDICT
        out.append(
            f"- {task}: the new default ({learner}) fits in {fit:.2f}x and predicts in {predict:.2f}x the median "
            f"seconds of today's ({base}); target at most {NEW_DEFAULT_FIT}x and {NEW_DEFAULT_PREDICT}x: "
            + ("met" if met else "**missed**")
        )
        if task == "regression" and "HGB-es" in results.methods:
            out.append(_over_hgb(records, learner, tasks["regression"]))
    return ["Cost targets (reported, not conditions):", "", *out, ""] if out else []


def _over_hgb(records, learner, tables) -> str:
    """The regression default's median fit over HGB-es's, over the suite and per table."""
    overall = median_seconds(records, learner, "fit_s") / median_seconds(records, "HGB-es", "fit_s")
    per_table = {
        t: median_seconds([r for r in records if r["dataset"] == t], learner, "fit_s")
        / median_seconds([r for r in records if r["dataset"] == t], "HGB-es", "fit_s")
        for t in tables
    }
    above = sorted((t for t, x in per_table.items() if x > REGRESSOR_OVER_HGB), key=per_table.get, reverse=True)
    return (
        f"- regression: {learner}'s median fit is {overall:.1f}x HGB-es's over the suite (target at most "
        f"{REGRESSOR_OVER_HGB:.0f}x: " + ("met" if overall <= REGRESSOR_OVER_HGB else "**missed**") + "); per "
        "table "
        + ", ".join(f"{t} {per_table[t]:.1f}x" for t in sorted(per_table, key=per_table.get))
        + (f"; above {REGRESSOR_OVER_HGB:.0f}x: " + ", ".join(above) if above else "")
    )


def write_figures(figures: dict, out, provenance: dict):
    """Save each figure as ``<out>/<stem>.png`` and ``.pdf`` with its provenance."""
    from mddf.experiments.figures import save_figure

    for stem, fig in figures.items():
        save_figure(fig, out, stem, provenance)


def suite_page(results) -> str:
    """The results block of ``docs/benchmarks/realdata.md`` from the records; writes the figures to ``--out``."""
    o = results.options
    figures = {}
    lines = [
        f"{len(results.records)} fits recorded ({o.folds}-fold cross-validation, up to {o.repeats} repeats; "
        f"the command above).",
        "",
    ]
    for task, tables in _tasks(results).items():
        lines += task_section(results, task, tables, figures)
    lines += rule_section(results, check_records(results))
    write_figures(figures, o.out, command_provenance("realdata_suite", getattr(o, "argv", [])))
    return "\n".join(lines).rstrip() + not_run(results) + "\n"


def suite_rows(results) -> list:
    """Per table and learner: the task, its folds and every metric's mean and per-fold SE, the median seconds."""
    rows = []
    metrics = ("accuracy", "balanced_accuracy", "log_loss", "r2", "rmse")
    by = {}
    for r in results.records:
        by.setdefault((r["dataset"], r["method"]), []).append(r)
    for (t, m), rs in by.items():
        row = {"table": t, "learner": m, "folds": len(rs)}
        for metric in metrics:
            values = [r[metric] for r in rs if r.get(metric) is not None]
            if values:
                row[metric], row[f"{metric}_se"] = mean_se(values)
        row["median_fit_s"] = statistics.median(r["fit_s"] for r in rs)
        row["median_predict_s"] = statistics.median(r["predict_s"] for r in rs)
        rows.append(row)
    return rows


def check_page(results) -> str:
    """The paper check: per dataset and learner, the mean over the seeds of the pooled held-out score and the
    paired difference to the default ± SE."""
    scores = seed_scores(results.records)
    lines = []
    for task in ("classification", "regression"):
        default = BASES[task]
        datasets = [d for d in _tasks(results).get(task, [])]
        learners = [m for m in results.methods if any((d, m) in scores for d in datasets)]
        if not learners:
            continue
        metric = RANKING[task]
        rows = []
        for d in datasets:
            cells = []
            for m in learners:
                values = scores.get((d, m), {})
                if not values:
                    cells.append("")
                    continue
                text = _fmt(statistics.fmean(values.values()), metric=metric)
                if m != default and (d, default) in scores:
                    mean, se, loses = check_losses(scores, m, default).get(d, (math.nan, math.nan, False))
                    text += f" ({_signed(mean, se, metric)}{', loses' if loses else ''})"
                cells.append(text)
            rows.append([d, *cells])
        lines += [
            f"{task.capitalize()}: per dataset, the mean over the seeds of the {metric} of the held-out parts "
            f"together; in brackets the mean paired difference to {default} ± its SE over the seeds (loses: below "
            "minus two SE).",
            "",
            *markdown_table(["dataset", *learners], rows),
            "",
        ]
    return "\n".join(lines).rstrip() + not_run(results) + "\n"
