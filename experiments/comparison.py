"""The practitioner's table and figure: every method against the best, with what is significant (:mod:`.metrics`)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from .defaults import BASELINE
from .metrics import MIN_PAIRED_SCORES, WINNER_RULE, apart, compare, metric_of, metrics_of, paired_difference
from .runbook import SECONDS, run_seconds
from .tables import and_list, csv_text, markdown_table, plus_minus

WINNER = "★"
TIED = "≈"


@dataclass
class DatasetComparison:
    """The comparison of the methods on one dataset."""

    dataset: str
    task: str
    metric: str  #: the ranking metric
    ranking: list  #: the :class:`~.metrics.Comparison` of each method on the ranking metric, best first
    #: ``{metric: {method: Comparison}}`` of the task's other metrics (of several targets: each target's R² too)
    others: dict = field(default_factory=dict)
    #: ``{method: {"total", "selection", "fit", "compile"}}``: mean seconds per run (compile: None if unmeasured)
    seconds: dict = field(default_factory=dict)
    adapted: dict = field(default_factory=dict)  #: ``{method: (runs adapted, runs, [reasons])}``
    #: ``{method: what is shown instead of a result}``: ``"skipped"``, ``"-"``, or ``"failed on k of n folds: ..."``
    missing: dict = field(default_factory=dict)
    n_runs: int = 0  #: folds (runs) of the best method
    #: the methods beyond 2 standard errors ahead of the baseline (None: no baseline, or too few paired folds)
    ahead_of_baseline: list | None = None
    targets: tuple = ()  #: several targets' names (their runs' records name them)

    @property
    def winner(self) -> str | None:
        return next((c.method for c in self.ranking if c.winner), None)

    def mean(self, metric: str, method: str) -> float | None:
        """``method``'s mean on ``metric`` (None without one)."""
        rows = {c.method: c for c in self.ranking} if metric == self.metric else self.others.get(metric, {})
        return rows[method].mean if method in rows else None


def comparison_of(
    records, dataset: str, methods, metric: str, task: str, test_train_ratio: float = 0.0
) -> DatasetComparison:
    """Compare ``methods`` on ``dataset`` from its ``records`` (each run's latest, already checked)."""
    mine = [r for r in records if r.get("dataset") == dataset and r.get("method") in methods]
    targets = next((r["targets"] for r in mine if r.get("targets")), ())
    failed = {}  # method -> "failed on k of n folds: <first line of its first error>"
    for m in dict.fromkeys(r["method"] for r in mine):
        runs = [r for r in mine if r["method"] == m]
        if errors := [r for r in runs if r.get("status") == "error"]:
            first = str(errors[0].get("error") or "an error").strip().splitlines()[0][:160]
            failed[m] = f"failed on {len(errors)} of {len(runs)} folds: {first}"
    ok = [r for r in mine if r.get("status") == "ok" and r["method"] not in failed]
    names = [m.name for m in metrics_of(task, targets)]
    scores = {name: {m: {} for m in methods} for name in names}  # {metric: {method: {(seed, fold, fraction): score}}}
    for r, name in ((r, name) for r in ok for name in names if r.get(name) is not None):
        scores[name][r["method"]][(r.get("seed"), r.get("fold"), r.get("fraction", 1.0))] = r[name]  # a fold's rows
    by_metric = {
        name: compare(values, metric_of(name).greater_is_better, test_train_ratio) for name, values in scores.items()
    }
    ranking = by_metric.pop(metric)
    ahead = None
    if BASELINE in scores[metric] and len(ranking) > 1:
        base, sign = scores[metric][BASELINE], 1 if metric_of(metric).greater_is_better else -1
        paired = {m: paired_difference(scores[metric][m], base, test_train_ratio) for m in scores[metric]}
        if all(paired[c.method][2] >= MIN_PAIRED_SCORES for c in ranking):
            ahead = [c.method for c in ranking if sign * paired[c.method][0] > 0 and apart(*paired[c.method])]
    seconds, adapted = {}, {}
    for m in methods:
        if not (runs := [r for r in ok if r["method"] == m]):
            continue
        compiled = [r["compile_seconds"] for r in runs if r.get("compile_seconds") is not None]
        seconds[m] = {key: statistics.fmean(run_seconds(r, key) for r in runs) for key in SECONDS}
        seconds[m]["compile"] = statistics.fmean(compiled) if compiled else None
        if changed := [r for r in runs if r.get("adapted")]:
            reasons = sorted({f"{', '.join(r['adapted'])}: {r.get('adapted_because', '')}" for r in changed})
            adapted[m] = (len(changed), len(runs), reasons)
    ranked, skipped = {c.method for c in ranking}, {r["method"] for r in mine if r.get("status") == "skipped"}
    missing = {m: failed.get(m) or ("skipped" if m in skipped else "-") for m in methods if m not in ranked}
    others = {name: {c.method: c for c in rows} for name, rows in by_metric.items()}
    shown = (ranking, others, seconds, adapted, missing, ranking[0].n if ranking else 0, ahead, tuple(targets))
    return DatasetComparison(dataset, task, metric, *shown)


def _digits(metric: str) -> int:
    """The decimals the table shows of ``metric`` (in its scale: percent or plain)."""
    return 2 if metric_of(metric).scale == 100 else 4


def _shown(metric: str, mean: float) -> str:
    """``mean`` as the table shows it."""
    return f"{metric_of(metric).scale * mean:.{_digits(metric)}f}"


def ties_for_best(comparison: DatasetComparison) -> list[str]:
    """The methods whose mean is the best's to the digits shown, best first, when two or more and no winner, else []."""
    ranking = comparison.ranking
    if not ranking or ranking[0].winner:
        return []
    top = _shown(comparison.metric, ranking[0].mean)
    tied = [c.method for c in ranking if _shown(comparison.metric, c.mean) == top]
    return tied if len(tied) > 1 else []


def _value(metric: str, mean: float, se: float, bold: bool = False) -> str:
    scale = metric_of(metric).scale
    return plus_minus(scale * mean, scale * se, _digits(metric), bold=bold)


def _difference(metric: str, c, ties=()) -> str:
    if c.method in ties:
        return "best (tie)"
    if c.best:
        return "best"
    scale, digits = metric_of(metric).scale, _digits(metric)
    if math.isnan(c.diff):
        return "-"
    text = f"{scale * c.diff:+.{digits}f}"
    text = f"{0:.{digits}f}" if float(text) == 0 else text.replace("-", "−")
    return text if math.isnan(c.diff_se) else f"{text} ± {scale * c.diff_se:.{digits}f}"


def _seconds(s: dict | None) -> list[str]:
    if not s:
        return ["-", "-", "-"]
    total = f"{s['total']:.2f}"
    if s["selection"] > 0:
        total += f" ({s['selection']:.2f} + {s['fit']:.2f})"
    return [total, f"{s['predict']:.3f}", "-" if s["compile"] is None else f"{s['compile']:.2f}"]


def dataset_markdown(comparison: DatasetComparison, title: str) -> list[str]:
    """The lines of one dataset's table (without the shared footer)."""
    metric = comparison.metric
    shown = metrics_of(comparison.task, comparison.targets)
    other_metrics = [m.name for m in shown if m.name != metric and comparison.others[m.name]]
    header = (
        ["Method", metric_of(metric).shown, "Δ to best"]
        + [metric_of(m).shown for m in other_metrics]
        + ["seconds (selection + fit)", "predict s", "compile s"]
    )
    rows, ties = [], ties_for_best(comparison)
    for c in comparison.ranking:
        mark = f" {WINNER}" if c.winner else f" {TIED}" if c.tied else ""
        cells = [f"{'**' + c.method + '**' if c.winner else c.method}{mark}", _value(metric, c.mean, c.se, c.winner)]
        cells.append(_difference(metric, c, ties))
        for m in other_metrics:
            other = comparison.others[m].get(c.method)
            cells.append("-" if other is None else _value(m, other.mean, other.se))
        cells += _seconds(comparison.seconds.get(c.method))
        rows.append(cells)
    for method, text in comparison.missing.items():
        rows.append([method, text, "-"] + ["-"] * len(other_metrics) + _seconds(None))
    return [f"### {title}", "", *markdown_table(header, rows, [":---"] + ["---:"] * (len(header) - 1)), ""]


def verdict(comparison: DatasetComparison) -> str:
    """The winner, or why there is none; when no method beats the baseline beyond 2 standard errors; when the best
    ranked method's log-loss is worse than the baseline's; and the methods left out as they failed."""
    text = _ranking_verdict(comparison)
    label = metric_of(comparison.metric).label
    if comparison.ahead_of_baseline == []:
        text += f" No method beats {BASELINE} by more than 2 standard errors on {label}."
    best = comparison.ranking[0].method if comparison.ranking else BASELINE
    mine, base = comparison.mean("log_loss", best), comparison.mean("log_loss", BASELINE)
    if best != BASELINE and None not in (mine, base) and mine > base:
        text += (
            f" {best}, ranked best on {label}, has a worse log-loss than {BASELINE} ({mine:.4f} against {base:.4f}): "
            "its probabilities are less reliable than the class shares (calibrate them before reading them as such)."
        )
    failed = [m for m, why in comparison.missing.items() if why.startswith("failed")]
    if failed:
        text += f" Left out of the comparison, as they failed on some fold: {', '.join(failed)}."
    return text


def _ranking_verdict(comparison: DatasetComparison) -> str:
    if not comparison.ranking:
        return f"{comparison.dataset}: no method has a result."
    best = comparison.ranking[0]
    label = metric_of(comparison.metric).label
    fewest = min(c.n_common for c in comparison.ranking)
    ties = ties_for_best(comparison)
    lead = f"{best.method} has the best mean"
    if ties:
        lead = f"{and_list(ties)} tie for the best mean ({_shown(comparison.metric, best.mean)})"
    if len(comparison.ranking) > 1 and fewest < MIN_PAIRED_SCORES:
        return (
            f"{comparison.dataset}: {lead} on {label}; too few scores for a significance "
            f"statement ({fewest} paired folds, fewer than {MIN_PAIRED_SCORES})."
        )
    if best.winner:
        return (
            f"{comparison.dataset}: {best.method} is best on {label}, by more than 2 standard errors over every "
            "other method."
        )
    tied = [c.method for c in comparison.ranking[1:] if c.tied and c.method not in ties]
    if len(comparison.ranking) < 2:
        return f"{comparison.dataset}: only {best.method} has a result; nothing to compare."
    if not tied:
        return f"{comparison.dataset}: no winner on {label}: {lead}."
    return (
        f"{comparison.dataset}: no winner on {label}: {lead}, but "
        f"{', '.join(tied)} {'is' if len(tied) == 1 else 'are'} within 2 standard errors of {'them' if ties else 'it'}."
    )


def to_markdown(comparisons, titles: dict, notes=()) -> str:
    """Every dataset's table, then the verdicts and the notes (protocol, rule, times, adaptations, methods)."""
    lines = []
    for comparison in comparisons:
        lines += dataset_markdown(comparison, titles[comparison.dataset])
    footer = [verdict(c) for c in comparisons] + list(notes)
    footer.append(
        f"{WINNER_RULE} Mean ± standard error over the folds; Δ to best: the mean paired difference to the best "
        "method on the ranking metric, ± its standard error."
    )
    footer.append("seconds: mean per fold of choosing hyper-parameters (selection) and of the final fit; predict s: "
                  "of predicting the test rows' labels and probabilities; compile s: a warm-up fit of a tiny model of "
                  "the same kind on a few training rows just before, in the same process, which holds numba's "
                  "compilation of the tree code and is left out of the fit time.")  # fmt: skip
    for comparison in comparisons:
        for method, (changed, runs, reasons) in comparison.adapted.items():
            footer.append(f"{comparison.dataset}, {method}: adapted to a small class in {changed} of {runs} folds "
                          f"({'; '.join(reasons)}).")  # fmt: skip
    lines += [f"- {note}" for note in footer]
    return "\n".join(lines) + "\n"


def to_csv(comparisons) -> str:
    """One row per dataset and method: each metric's mean and standard error, the difference to the best, marks."""
    header, rows = None, []
    for comparison in comparisons:
        names = [m.name for m in metrics_of(comparison.task, comparison.targets)]
        for c in comparison.ranking:
            row = {"dataset": comparison.dataset, "method": c.method, "ranking_metric": comparison.metric, "n": c.n}
            for name in names:
                other = c if name == comparison.metric else comparison.others[name].get(c.method)
                row[name] = "" if other is None else round(other.mean, 6)
                row[f"{name} se"] = "" if other is None or math.isnan(other.se) else round(other.se, 6)
            row["diff to best"] = round(c.diff, 6) if not math.isnan(c.diff) else ""
            row["diff se"] = round(c.diff_se, 6) if not math.isnan(c.diff_se) else ""
            row["winner"] = int(c.winner)
            row["within 2 se of best"] = int(c.tied or c.best)
            s = comparison.seconds.get(c.method) or {}
            for key in (*SECONDS, "compile"):
                value = s.get(key)
                row[f"{key} seconds"] = "" if value is None else round(value, 4)
            adapted = comparison.adapted.get(c.method)
            row["adapted runs"] = adapted[0] if adapted else 0
            rows.append(row)
            header = header or list(row)
        for method, text in comparison.missing.items():
            rows.append({"dataset": comparison.dataset, "method": method, "ranking_metric": comparison.metric, "n": 0})
            rows[-1][names[0]] = "error" if text.startswith("failed") else text
            if text.startswith("failed"):
                rows[-1]["error"] = text
    return csv_text(rows)


def plot(comparisons, subtitle: str = ""):
    """The figure: a panel per dataset, each method's mean ± 2 standard errors, marked as its table marks it."""
    from .figures import plt

    n = max(1, len(comparisons))
    cols = min(n, 3)
    rows_n = math.ceil(n / cols)
    height = max(2.4, 0.42 * max((len(c.ranking) for c in comparisons), default=3) + 1.3)
    fig, axes = plt.subplots(rows_n, cols, figsize=(4.6 * cols, height * rows_n), squeeze=False)
    for ax, comparison in zip(axes.flat, comparisons):
        metric, ranking = metric_of(comparison.metric), comparison.ranking
        bars = {
            c.method: (metric.scale * c.mean, 0.0 if math.isnan(c.se) else 2 * metric.scale * c.se) for c in ranking
        }
        spanned = [bars[c.method] for c in ranking if c.method != BASELINE] or list(bars.values())
        low, high = min(m - e for m, e in spanned), max(m + e for m, e in spanned)
        pad = 0.08 * (high - low) or 0.01 * abs(high) or 0.01
        low, high = low - pad, high + pad
        ties = ties_for_best(comparison)  # drawn as the best is: one colour for a tie
        for y, c in enumerate(ranking):
            told = c.best or c.n_common >= MIN_PAIRED_SCORES
            top = c.best or c.tied or c.method in ties
            colour = "#d4a017" if c.winner else "#1f77b4" if top else "#8c8c8c" if told else "black"
            mean, err = bars[c.method]
            if not low <= mean <= high:  # the baseline, far behind: at the edge, its value written
                edge, side = (low, "<") if mean < low else (high, ">")
                ax.plot(edge, y, side, ms=8, color=colour, clip_on=False)
                inward = dict(xytext=(7, 0), ha="left") if side == "<" else dict(xytext=(-7, 0), ha="right")
                ax.annotate(f"{mean:.4g}", (edge, y), textcoords="offset points", va="center", fontsize=7, **inward)
                continue
            marker = dict(fmt="*", ms=12) if c.winner else dict(fmt="o", ms=6)
            ax.errorbar(mean, y, xerr=err, **marker, color=colour, capsize=3)
        ax.set_xlim(low, high)
        ax.set_yticks(range(len(ranking)), [c.method for c in ranking])
        ax.invert_yaxis()
        ax.set_xlabel(metric.shown + ("" if metric.greater_is_better else " (lower is better)"))
        few = len(ranking) > 1 and min(c.n_common for c in ranking) < MIN_PAIRED_SCORES
        verdict = f"{WINNER} {comparison.winner}" if comparison.winner else "too few scores" if few else "no winner"
        verdict = f"tie: {and_list(ties)}; {verdict}" if ties else verdict
        ax.set_title(f"{comparison.dataset} ({verdict})", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    for ax in list(axes.flat)[len(comparisons) :]:
        ax.set_visible(False)
    fig.suptitle(
        "mean ± 2 standard errors; ★ winner,\nblue: the best, its ties and those within 2 SE of it (paired), grey: "
        "behind it,\nblack: too few paired scores to tell" + (f"\n{subtitle}" if subtitle else ""),
        fontsize=9,
    )
    fig.tight_layout()
    return fig
