"""A study's default table: per metric, the mean ± standard deviation per dataset and method, the mean ranks, the
median seconds, and what did not run."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

from mddf.experiments.tables import markdown_table, plus_minus, ranks_by_dataset

from .declarations import METRICS, PERCENT, Results


def number(value, digits: int = 4, *, missing: str = "—", signed: bool = False) -> str:
    """A table cell for ``value``: a float with ``digits`` decimals (with its sign when ``signed``), None and
    NaN as ``missing``, anything else (an int, a string) as ``str(value)``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if isinstance(value, float):
        return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"
    return str(value)


def mean_std(values: Sequence[float], digits: int = 2, *, scale: float = 1.0) -> str:
    """``"mean ± std"`` of ``values`` times ``scale`` (the sample standard deviation, 0 for one value); ``""`` without
    values."""
    if not values:
        return ""
    std = scale * statistics.stdev(values) if len(values) > 1 else 0.0
    return plus_minus(scale * statistics.fmean(values), std, digits)


def mean_ranks(records: Iterable[dict], methods: Sequence[str], datasets: Sequence[str], key: str = "accuracy") -> dict:
    """``{method: mean rank}``: each method's rank by its mean ``key`` over its records on each dataset
    (:func:`~mddf.experiments.tables.ranks_by_dataset`; a record without ``key`` left out), averaged over the datasets where it has one."""
    records = [r for r in records if key in r]
    scores = {}
    for dataset in datasets:
        found = {m: [r[key] for r in records if r["dataset"] == dataset and r["method"] == m] for m in methods}
        scores[dataset] = {m: statistics.fmean(values) for m, values in found.items() if values}
    ranked = ranks_by_dataset(scores)
    return {m: statistics.fmean(ranked[m].values()) for m in methods if m in ranked}


def summary(results: Results, metric: str) -> dict:
    """``{(dataset, method): [value per seed]}``: each seed's value (over a repeat, the mean of its folds)."""
    values = {}
    for r in results.records:
        if r.get(metric) is not None:
            values.setdefault((r["dataset"], r["method"], r["seed"]), []).append(r[metric])
    out = {}
    for (dataset, method, _), vs in values.items():
        out.setdefault((dataset, method), []).append(statistics.fmean(vs))
    return out


def metric_table(results: Results, metric: str) -> list:
    """The lines of one metric's table: mean ± std per dataset and method, mean rank, median fit and predict s."""
    higher = METRICS[metric][2]
    scale = 100 if metric in PERCENT else 1
    digits = 2 if metric in PERCENT else 4
    per = summary(results, metric)
    datasets = [d for d in results.datasets if metric in results.metrics[d]]
    rows = [[d, *(mean_std(per.get((d, m), []), digits, scale=scale) for m in results.methods)] for d in datasets]
    means = [
        {"dataset": d, "method": m, "score": (1 if higher else -1) * statistics.fmean(v)} for (d, m), v in per.items()
    ]
    ranks = mean_ranks(means, results.methods, datasets, key="score")
    rows.append(["mean rank", *(f"{ranks[m]:.2f}" if m in ranks else "" for m in results.methods)])
    for what in ("fit_s", "predict_s"):
        cells = []
        for m in results.methods:
            values = [r[what] for r in results.of(method=m) if r["dataset"] in datasets and what in r]
            cells.append(f"{statistics.median(values):.{1 if what == 'fit_s' else 3}f}" if values else "")
        rows.append([f"median {what[:-2]} s", *cells])
    return markdown_table(["dataset", *results.methods], rows)


def default_table(results: Results) -> str:
    """Per metric: :func:`metric_table`; then what was not fitted."""
    over = "repeats (each the mean of its folds)" if results.cross_validated else "seeds"
    parts = []
    for metric in dict.fromkeys(m for ms in results.metrics.values() for m in ms):
        unit = " (%)" if metric in PERCENT else ""
        better = "higher" if METRICS[metric][2] else "lower"
        parts.append(
            f"{metric}{unit}, mean ± std over {over} ({better} is better); mean rank over the datasets (1 is best); "
            "median fit and predict seconds.\n\n" + "\n".join(metric_table(results, metric))
        )
    return "\n\n".join(parts) + not_run(results) + "\n"


def not_run(results: Results) -> str:
    """Markdown lists of the units refused or failed, skipped, and pending (empty when every unit ran)."""
    parts = []
    if results.failed:
        lines = [
            f"- {r['dataset']} / {r['method']} / seed {r['seed']}: {r['status']}, {r.get('error', '')}"
            for r in results.failed
        ]
        parts.append("Not fitted (left blank above, and out of the ranks on that dataset):\n\n" + "\n".join(lines))
    if results.skipped:
        parts.append("Skipped:\n\n" + "\n".join(f"- {unit}: {why}" for unit, why in results.skipped))
    if results.pending:
        groups = {}
        for u in results.pending:
            groups.setdefault(u.dataset, {}).setdefault(u.method, set()).add(u.seed)
        lines = [
            f"- {d}: " + "; ".join(f"{m} (seeds {','.join(map(str, sorted(s)))})" for m, s in by.items())
            for d, by in groups.items()
        ]
        parts.append("Pending (not fitted yet, so left out of the tables above):\n\n" + "\n".join(lines))
    return "".join(f"\n\n{p}" for p in parts)
