"""The real-data study's second rule (written before the runs): which candidate becomes the default, its targets
and its costs (``docs/benchmarks/realdata.md``), and how the page shows a score.

The defaults, by the second rule (:data:`CANDIDATES`, :func:`judge`): a table's paired difference is the mean
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
CatBoost-es, calibration's log-loss against LightGBM-es).
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from benchmarks.harness import PERCENT
from benchmarks.realdata_statistics import check_losses, fold_scores, mean_se, seed_scores
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table

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


#: The learners of other libraries the default is set against, table by table (:func:`~benchmarks.realdata_report.where_section`).
PEERS = ("HGB-es", "LightGBM-es", "XGBoost-es", "CatBoost-es", "RF-400", "ExtraTrees-400")


# ------------------------------------------------------------------------------------------ the page
def shown_score(value, se=None, *, metric):
    """A score as the page shows it (accuracy in percent), with its SE when given."""
    if value is None or not math.isfinite(value):
        return ""
    scale, digits = (100, 2) if metric in PERCENT else (1, 4)
    text = f"{scale * value:.{digits}f}"
    return text + (f" ± {scale * se:.{digits}f}" if se is not None and math.isfinite(se) else "")


def shown_difference(value, se, metric):
    scale, digits = (100, 2) if metric in PERCENT else (1, 4)
    if not math.isfinite(value):
        return ""
    return f"{scale * value:+.{digits}f}" + (f" ± {scale * se:.{digits}f}" if math.isfinite(se) else "")


def tables_by_task(results) -> dict:
    """``{task: [tables]}`` in the results' order."""
    out = {}
    for t in results.datasets:
        out.setdefault("classification" if "accuracy" in results.metrics[t] else "regression", []).append(t)
    return out


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
#: Issue 64's cost targets: the new default's median fit and predict seconds over today's default's (the base), and
#: the regression default's median fit over HGB-es's.
NEW_DEFAULT_FIT, NEW_DEFAULT_PREDICT, REGRESSOR_OVER_HGB = 1.0, 1.2, 10.0


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
    tables = tables_by_task(results).get(task, [])
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
            worst = (
                "identical on every fold"
                if v["identical"]
                else f"{v['worst']} {shown_difference(*v['worst_diff'], metric)}"
            )
            check_text = (
                "not needed (identical labels)"
                if v["identical"]
                else "not run"
                if v["losses"] is None
                else "; ".join(
                    f"{d} {shown_difference(m, e, metric)}" + (" (loses)" if lost else "")
                    for d, (m, e, lost) in v["losses"].items()
                )
            )
            rows.append(
                [
                    v["candidate"],
                    f"{v['tables']}",
                    shown_difference(v["mean"], v["se"], metric),
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
    tables = tables_by_task(results).get("classification", [])
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
            out.append(
                f"- suite mean {what}: {learner} {shown_score(mine, metric=what)}, {peer} {shown_score(theirs, metric=what)}"
            )
    if ("mdDF-gbdt-cal" in results.methods) and tables:
        same = identical_predictions(accuracy, "mdDF-gbdt-cal", "mdDF-gbdt", tables)
        out.append(f"- mdDF-gbdt-cal's accuracy is mdDF-gbdt's on every fold of every table: {'yes' if same else 'no'}")
    return ["Targets (reported, not conditions):", "", *out, ""] if out else []


#: The new defaults with layer probes (the cost page's probe rule), reported beside the rule's choice when fitted.
WITH_PROBES = {"regression": "CascadeForest-pairs3-probes"}


def cost_lines(results, chosen: dict) -> list:
    """Issue 64's cost targets, reported: each task's new default (``chosen``: task -> learner; and its probed
    twin of :data:`WITH_PROBES` when fitted) against the base, its median fit and predict seconds over the suite's
    fits, and the regression default's median fit over HGB-es's, over the suite and per table."""
    out = []
    tasks = tables_by_task(results)
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
