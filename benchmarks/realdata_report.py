"""The real-data study's page: per-task tables, mean ranks with Friedman and Nemenyi, and the defaults decided by
the rules written before the runs (``docs/benchmarks/realdata.md``).

Read from the records of :mod:`benchmarks.realdata_suite` (one per table, learner, repeat and fold):

- **scores**: per table and learner, the mean of the ranking metric (accuracy, R²) over its folds and the per-fold
  standard error; the suite mean is the mean of the tables' means;
- **ranks**: per task, the learners fitted on every table of the task, ranked on each table by their mean over
  the folds every one of them has, with the Friedman test and the Nemenyi critical difference
  (:mod:`benchmarks.realdata_statistics`), drawn as a critical-difference diagram and as a scatter of the suite
  mean against the median fit seconds (:mod:`benchmarks.realdata_figures`);
- **the defaults, by the second rule** (:mod:`benchmarks.realdata_rule`);
- **where the default is first**: per table, the best of :data:`~benchmarks.realdata_rule.PEERS` by its mean, the
  default's paired difference to it with the SE of the paired per-fold differences (Nadeau and Bengio's
  correction), and the ratio of the default's median fit seconds to that peer's (:func:`where_section`).
"""

from __future__ import annotations

import math
import statistics

from benchmarks import realdata_rule
from benchmarks.harness import METRICS, PERCENT, command_provenance, not_run
from benchmarks.realdata_figures import cd_figure, time_figure, write_figures
from benchmarks.realdata_rule import (
    BASES,
    PEERS,
    RANKING,
    SECONDARY,
    check_records,
    rule_section,
    shown_difference,
    shown_score,
    tables_by_task,
)
from benchmarks.realdata_statistics import (
    ALPHA,
    check_losses,
    common_means,
    fold_scores,
    friedman,
    mean_se,
    paired_fold_difference,
    seed_scores,
)
from mddf.experiments.tables import markdown_table


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
        rows.append([t, *(shown_score(*mean_se(scores.get((t, m), {}).values()), metric=metric) for m in learners)])
    suite = {m: [statistics.fmean(scores[(t, m)].values()) for t in tables if (t, m) in scores] for m in learners}
    rows.append(["suite mean", *(shown_score(statistics.fmean(v), metric=metric) if v else "" for v in suite.values())])
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
            cells.append(shown_score(statistics.fmean(values), metric=other) if values else "")
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


def where_section(results, task: str, tables: list, default: str | None = None, peers=PEERS) -> list:
    """The lines of "where the default is first": per table, its rows and category columns, the best peer, the
    default's paired difference to it ± the per-fold SE, whether the default is first among the peers, ahead
    beyond two SE or behind beyond two SE (the SE corrected for the folds' overlapping training rows), and its median
    fit seconds over that peer's. ``default`` (the rule's default of the task when None) and ``peers``: another
    study's learners."""
    metric = RANKING[task]
    higher = METRICS[metric][2]
    default = default or realdata_rule.DEFAULTS[task]  # read when called: the page follows the rule's
    scores = fold_scores(results.records, metric)
    rows, tally = [], {"first": 0, "ahead": 0, "behind": 0}
    sign = 1 if higher else -1
    for t in tables:
        present = [m for m in peers if (t, m) in scores]
        if (t, default) not in scores or not present:
            continue
        best = max(present, key=lambda m: sign * statistics.fmean(scores[(t, m)].values()))
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
                shown_difference(mean, se, metric),
                standing + (", beyond 2 SE" if beyond else ""),
                f"{fit[default] / fit[best]:.0f}x" if fit[best] > 0 else "",
            ]
        )
    if not rows:
        return []
    return [
        f"Where {default} is first ({task}): per table, the best of {', '.join(peers)} by its mean, and {default}'s "
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


def suite_page(results) -> str:
    """The results block of ``docs/benchmarks/realdata.md`` from the records; writes the figures to ``--out``."""
    o = results.options
    figures = {}
    lines = [
        f"{len(results.records)} fits recorded ({o.folds}-fold cross-validation, up to {o.repeats} repeats; "
        f"the command above).",
        "",
    ]
    for task, tables in tables_by_task(results).items():
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
        datasets = [d for d in tables_by_task(results).get(task, [])]
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
                text = shown_score(statistics.fmean(values.values()), metric=metric)
                if m != default and (d, default) in scores:
                    mean, se, loses = check_losses(scores, m, default).get(d, (math.nan, math.nan, False))
                    text += f" ({shown_difference(mean, se, metric)}{', loses' if loses else ''})"
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
