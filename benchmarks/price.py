"""A deep forest at a booster's price: the designs of the price rule against today's defaults on the real-data suite.

The rule was written before this study ran (``docs/benchmarks/price.md``, "The rule"). Today's defaults are
pinned here (:data:`TODAY`), so that the study keeps measuring against them once a default changes; each design is
a parameter value on top of them (:data:`CLASSIFIERS`, :data:`REGRESSORS`). Beside them the peers of the frontier
figures: HistGradientBoosting, LightGBM and CatBoost stopped early (the practitioner protocol's ``HGB-es``,
``LightGBM-es``, ``CatBoost-es``).

The suite and its protocol are the real-data page's (:mod:`benchmarks.realdata_suite`): the twenty tables, 5-fold
cross-validation repeated 3 times (once on the four tables of about 20,000 rows), every learner of a fold fitted
before the next fold, the same seed per repeat, records bound to the data and to each learner's full parameters.
A design's time ratio is the median over the suite's fits of its seconds over today's default's on the same fold.
``--check paper`` runs the rule's condition (e): the realdata page's paper's datasets check of the designs named
in ``--learners`` (by default, today's defaults). ``--against-rf`` measures the targets of DF21's price instead:
each classifier design named in ``--learners`` and a 400-tree random forest (``RF-400``) fitted on letter's and
adult's training rows and predicting their test rows, in turn for ``--rounds`` rounds (the order rotated each
round); per dataset, the median over rounds of a design's seconds over the forest's.

Outputs in ``--out``: ``price.md`` (the rule's table per task, the verdicts and the targets of the suite),
``price.csv`` (per table and learner), the frontier figures ``price_frontier_<task>.png`` (suite mean score
against median fit and median predict seconds), ``price_check.md`` after ``--check paper`` and ``price_rf.md``
after ``--against-rf``.

Examples
--------
MDDF_REALDATA=/path/to/realdata python -m benchmarks.price --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.price --check paper --learners mdDF,mdDF-oob-es-refit --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.price --against-rf --learners mdDF,mdDF-oob-es-refit,RF-400 --rounds 3
python -m benchmarks.price --quick
"""

from __future__ import annotations

import functools
import math
import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import realdata, realdata_figures, realdata_rule, realdata_statistics, realdata_suite
from benchmarks.data import frames
from benchmarks.harness import CrossValidation, Study, TrainTest, command_provenance, fit_and_score, main_by_flag
from mddf.experiments.provenance import PeakMemory
from mddf.experiments.tables import markdown_table

FORESTS = ("rf", "rf", "crf", "crf")
#: Today's defaults (2026-11-28), written out: the reference of every ratio, whatever the defaults become.
TODAY = {
    "classification": {
        "forest_types": (*FORESTS, "gbdt"),
        "calibration": "temperature",
        "class_vectors": "kfold",
        "fold_trees": "all",
        "n_estimators": 100,
        "probe_trees": None,
    },
    "regression": {
        "forest_types": FORESTS,
        "pair_features": "all_operations",
        "probe_trees": 0.25,
        "fold_trees": "all",
        "n_estimators": 100,
        # the defaults before the rule of docs/benchmarks/ahead.md changed them (2026-11-29)
        "later_layer_trees": None,
        "final_mixture": "cascade",
    },
}
ES, VECTOR = (*FORESTS, "gbdt_es"), (*FORESTS, "gbdt_vector")
#: name -> MDDFClassifier parameters: today's default (``mdDF``) and the rule's designs.
CLASSIFIERS = {
    "mdDF": {},
    "mdDF-es": {"forest_types": ES},
    "mdDF-vector": {"forest_types": VECTOR},
    "mdDF-oob-es": {"forest_types": ES, "class_vectors": "oob"},
    "mdDF-oob-es-refit": {"forest_types": ES, "class_vectors": "oob", "fold_trees": "refit"},
    "mdDF-oob-es-50": {"forest_types": ES, "class_vectors": "oob", "n_estimators": 50},
}
#: name -> CascadeForestRegressor parameters: today's default (``CascadeForest``) and the rule's designs.
REGRESSORS = {
    "CascadeForest": {},
    "CascadeForest-share": {"fold_trees": "share"},
    "CascadeForest-50": {"n_estimators": 50},
    "CascadeForest-50-share": {"n_estimators": 50, "fold_trees": "share"},
}
DEFAULTS = {"classification": "mdDF", "regression": "CascadeForest"}
TASKS = tuple(DEFAULTS)
PEERS = ("HGB-es", "LightGBM-es", "CatBoost-es")
#: The rule's bounds: (a) the time ratio, (b) the suite mean's loss (accuracy in points, R²), (c) the suite mean
#: log-loss's rise, (d) a table's loss beyond which it must not be (with two SE).
TIME_RATIO = 0.5
SUITE_LOSS = {"classification": 0.001, "regression": 0.002}
LOG_LOSS_RISE = 0.005
TABLE_LOSS = {"classification": 0.005, "regression": 0.005}


def parameters(name: str) -> dict:
    """A learner's cascade parameters: today's default of its task and the design's own."""
    task = "classification" if name in CLASSIFIERS else "regression"
    return {**TODAY[task], **(CLASSIFIERS | REGRESSORS)[name]}


def task_of(method: str) -> str | None:
    return "classification" if method in CLASSIFIERS else "regression" if method in REGRESSORS else None


def learner_settings(method: str) -> str | None:
    """A design's full parameters as text (its records are bound to them); None for the peers."""
    from mddf import CascadeForestRegressor, MDDFClassifier

    if task_of(method) is None:
        return None
    cls = MDDFClassifier if task_of(method) == "classification" else CascadeForestRegressor
    params = cls(**parameters(method)).get_params(deep=False)
    return repr(sorted((k, v) for k, v in params.items() if k not in ("random_state", "n_jobs")))


def applies(method: str, dataset: str, options) -> bool:
    return task_of(method) in (None, realdata_suite.task_of_dataset(dataset))


def cascade(name: str):
    """A builder of a design's cascade (``--quick``: with a few trees and layers)."""

    def build(ctx):
        from mddf import CascadeForestRegressor, MDDFClassifier

        cls = MDDFClassifier if task_of(name) == "classification" else CascadeForestRegressor
        quick = realdata_suite.QUICK_CASCADE if ctx.quick else {}
        return cls(**{**parameters(name), **quick, "random_state": ctx.seed, "n_jobs": ctx.n_jobs})

    return build


METHODS = {
    **{name: cascade(name) for name in (*CLASSIFIERS, *REGRESSORS)},
    **{name: realdata_suite.peer(name) for name in PEERS},
}


# ------------------------------------------------------------------------------------------ the rule
def paired_ratios(records, learner: str, default: str, what: str) -> list:
    """The learner's seconds (``fit_s`` or ``predict_s``) over the default's, per fold both have."""
    seconds = {}
    for r in records:
        if r["method"] in (learner, default) and r.get(what):
            seconds.setdefault((r["dataset"], r["repeat"], r["fold"]), {})[r["method"]] = r[what]
    return [s[learner] / s[default] for s in seconds.values() if learner in s and default in s]


def median(values) -> float:
    return statistics.median(values) if values else math.nan


def paired_measures(records, task: str, learner: str, tables: list) -> dict:
    """``learner`` against today's default of ``task`` on ``tables``: its suite mean difference (``gain``, the mean of
    the tables' mean paired differences; ``gain_se`` over the tables), its median fit and predict ratios (paired by
    fold), the tables worse by more than :data:`TABLE_LOSS` and beyond two standard errors (``worse``), and the mean
    log-loss difference (0 for a regression); the measures of this rule and of the ahead study's."""
    default, metric = DEFAULTS[task], realdata_rule.RANKING[task]
    per_table = realdata_rule.table_differences(
        realdata_statistics.fold_scores(records, metric), learner, default, tables
    )
    gain, gain_se = realdata_statistics.mean_se(d for d, _ in per_table.values())
    out = {
        "learner": learner,
        "tables": len(per_table),
        "gain": gain,
        "gain_se": gain_se,
        "fit": median(paired_ratios(records, learner, default, "fit_s")),
        "predict": median(paired_ratios(records, learner, default, "predict_s")),
        "worse": {t: d for t, d in per_table.items() if d[0] < -TABLE_LOSS[task] and d[0] < -2 * d[1]},
        "log_loss": 0.0,
    }
    if task == "classification":
        losses = realdata_rule.table_differences(
            realdata_statistics.fold_scores(records, "log_loss"), learner, default, tables
        )
        out["log_loss"] = statistics.fmean(d for d, _ in losses.values()) if losses else math.nan
    return out


def judge(records, task: str, design: str, tables: list) -> dict:
    """Conditions (a)-(d) of the rule for ``design`` against today's default of ``task``, with their numbers
    (:func:`paired_measures`)."""
    m = paired_measures(records, task, design, tables)
    out = {**m, "design": design}
    out["a"] = m["fit"] <= TIME_RATIO or m["predict"] <= TIME_RATIO
    out["b"] = m["gain"] >= -SUITE_LOSS[task]
    out["c"] = m["log_loss"] <= LOG_LOSS_RISE
    out["d"] = not m["worse"]
    out["meets"] = out["a"] and out["b"] and out["c"] and out["d"]
    return out


def verdicts(results, task: str) -> list:
    """The verdicts of every design of ``task`` recorded, those meeting (a)-(d) first, in the rule's order (the
    smallest product of the two median time ratios first)."""
    designs = [m for m in (CLASSIFIERS if task == "classification" else REGRESSORS) if m != DEFAULTS[task]]
    tables = sorted({r["dataset"] for r in results.records if r.get("task") == task})
    found = [judge(results.records, task, d, tables) for d in designs if results.of(method=d)]
    return sorted(found, key=lambda v: (not v["meets"], v["fit"] * v["predict"]))


def _points(results, task: str, what: str, task_of=task_of) -> list:
    """``(learner, median seconds, suite mean)`` of every learner of ``task`` on the tables all of them have
    (``task_of``: a learner's task, None for a peer; another study's names with its own)."""
    metric = realdata_rule.RANKING[task]
    learners = [m for m in results.methods if task_of(m) in (None, task) and results.of(method=m)]
    tables = sorted({r["dataset"] for r in results.records if r.get("task") == task})
    means = realdata_statistics.common_means(realdata_statistics.fold_scores(results.records, metric), learners, tables)
    if not means:
        return []
    suite = {m: statistics.fmean(means[t][m] for t in means) for m in learners}
    return [(m, realdata_rule.median_seconds(results.records, m, what), suite[m]) for m in learners]


def frontier_figure(results, task: str, task_of=task_of):
    """The suite mean score against median fit seconds and against median predict seconds (log axes), today's
    default (black), the designs (red; combinations of designs, named with ``+``, orange) and the peers (blue), the
    frontier (the learners no other beats on both) joined by a grey line; ``task_of`` as in :func:`_points`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    metric = realdata_rule.RANKING[task]
    scale = 100 if metric == "accuracy" else 1
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    markers = "osD^vP*Xhp<>dH8"  # one a learner, named in the legend: labels beside close points would overlap
    for ax, what, label in zip(axes, ("fit_s", "predict_s"), ("fit", "prediction")):
        points = _points(results, task, what, task_of)
        best = realdata_figures.frontier(points)
        ax.step([p[1] for p in best], [scale * p[2] for p in best], where="post", color="0.6", lw=1, zorder=0)
        for i, (name, seconds, score) in enumerate(points):
            colour = (
                "tab:blue"
                if task_of(name) is None
                else "black"
                if name == DEFAULTS[task]
                else "tab:orange"
                if "+" in name
                else "tab:red"
            )
            ax.scatter(seconds, scale * score, color=colour, marker=markers[i % len(markers)], label=name, alpha=0.8)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # under a decade, the minor ticks' labels collide
        ax.set_xlabel(f"median {label} seconds per fit (log scale)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("suite mean " + ("accuracy (%)" if scale == 100 else "R²"))
    title = f"{task}: the designs (red), combinations (orange), today's default (black), boosting stopped early (blue)"
    fig.suptitle(title + "; the frontier in grey", fontsize=10)
    axes[1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def _ratio(value) -> str:
    return f"{value:.2f}x" if math.isfinite(value) else "n/a"


def rule_section(results, task: str) -> list:
    """The rule's table of one task and its verdict."""
    found = verdicts(results, task)
    if not found:
        return []
    points, digits = (100, 2) if task == "classification" else (1, 4)  # accuracy in points, R² as it is
    rows = []
    for v in found:
        worse = ", ".join(
            f"{t} {points * d:+.{digits}f} ± {points * se:.{digits}f}" for t, (d, se) in sorted(v["worse"].items())
        )
        rows.append(
            [
                v["design"],
                _ratio(v["fit"]),
                _ratio(v["predict"]),
                f"{points * v['gain']:+.{digits + 1}f}",
                f"{v['log_loss']:+.4f}" if task == "classification" else "",
                worse or "none",
                "yes" if v["meets"] else "no: " + ", ".join(k for k in "abcd" if not v[k]),
            ]
        )
    difference = "suite mean difference (points)" if task == "classification" else "suite mean R² difference"
    header = ["design", "fit ratio", "predict ratio", difference, "log-loss difference"]
    header += [f"tables worse beyond {points * TABLE_LOSS[task]:g} and 2 SE", "meets (a)-(d)"]
    lines = [f"### {task.capitalize()}", "", *markdown_table(header, rows), ""]
    passing = [v["design"] for v in found if v["meets"]]
    lines.append(
        f"Meet (a)-(d), in the order (e) checks them: {', '.join(passing)}." if passing else "No design meets (a)-(d)."
    )
    return lines + [""]


def target_lines(results) -> list:
    """The regressor's median fit over HistGradientBoosting's, today's default and each design's."""
    lines = []
    for design in REGRESSORS:
        ratios = paired_ratios(results.records, design, "HGB-es", "fit_s")
        if ratios:
            lines.append(f"- `{design}`: median fit {_ratio(median(ratios))} HGB-es's over {len(ratios)} fits.")
    return lines


def report(results) -> str:
    """The rule's tables and the targets; writes the frontier figures to ``--out``."""
    figures = {f"price_frontier_{t}": frontier_figure(results, t) for t in TASKS if verdicts(results, t)}
    realdata_figures.write_figures(figures, results.options.out, command_provenance("price", results.options.argv))
    lines = ["## The rule's table", ""]
    for task in TASKS:
        lines += rule_section(results, task)
    targets = target_lines(results)
    if targets:
        lines += ["## The regressor against HistGradientBoosting", "", *targets, ""]
    return "\n".join(lines)


def rows(results) -> list:
    """Per table and learner, the mean score over the folds, its standard error and the folds (the CSV)."""
    out = []
    for task in TASKS:
        metric = realdata_rule.RANKING[task]
        scores = realdata_statistics.fold_scores(results.records, metric)
        for (table, learner), folds in sorted(scores.items()):
            if task_of(learner) in (None, task) and realdata_suite.task_of_dataset(table) == task:
                mean, se = realdata_statistics.mean_se(folds.values())
                out.append({"table": table, "learner": learner, metric: mean, "se": se, "folds": len(folds)})
    return out


def check_report(results, task_of=task_of) -> str:
    """Condition (e): per check dataset, each design's mean paired per-seed difference to today's default
    (``task_of``: a learner's task, None for a peer; another study's names with its own)."""
    scores = realdata_statistics.seed_scores(results.records)
    rows_ = []
    for design in results.methods:
        task = task_of(design)
        if task is None or design == DEFAULTS[task]:
            continue
        for dataset, (mean, se, loses) in realdata_statistics.check_losses(scores, design, DEFAULTS[task]).items():
            points = 100 if task == "classification" else 1
            rows_.append([design, dataset, f"{points * mean:+.3f} ± {points * se:.3f}", "yes" if loses else "no"])
    header = ["design", "dataset", "mean difference ± SE (per seed)", "loses beyond 2 SE"]
    return "\n".join(markdown_table(header, rows_)) if rows_ else "No design recorded beside today's default."


def options(parser):
    realdata_suite.options(parser)


def check_options(options, parser):
    tasks = {realdata_suite.task_of_dataset(n) for n in options.dataset_names}
    if not any(task_of(m) in (None, *tasks) for m in options.method_names):
        parser.error("no learner of the tables' tasks among --learners")


STUDY = Study(
    "price",
    __doc__,
    datasets=realdata_suite.suite_datasets,
    methods=METHODS,
    protocol=CrossValidation(n_folds=realdata_suite.FOLDS, repeats=realdata_suite.REPEATS),
    quick={
        "datasets": realdata_suite.QUICK_TABLES,
        "methods": ("mdDF", "mdDF-oob-es", "CascadeForest", "CascadeForest-50", "HGB-es"),
        "repeats": 1,
        "folds": 2,
    },
    optional={"LightGBM-es": "lightgbm", "CatBoost-es": "catboost"},
    learner_settings=learner_settings,
    options=options,
    check=check_options,
    applies=applies,
    fit=realdata_suite.fit,
    describe=realdata_suite.describe,
    table=report,
    rows=rows,
    report="price",
    limit_threads=True,
)
PAPER_CHECK = Study(
    "price",
    __doc__,
    datasets=realdata_suite.paper_datasets,
    methods={name: METHODS[name] for name in (*CLASSIFIERS, *REGRESSORS)},
    protocol=CrossValidation(n_folds=realdata_suite.PAPER_FOLDS, repeats=realdata_suite.PAPER_SEEDS),
    default_methods=tuple(DEFAULTS.values()),
    learner_settings=learner_settings,
    quick={"datasets": ("satimage", "diabetes"), "methods": ("mdDF", "mdDF-oob-es", "CascadeForest"), "repeats": 2},
    options=options,
    settings=lambda options: {"check": "paper"},
    check=check_options,
    applies=applies,
    fit=realdata_suite.fit,
    describe=realdata_suite.describe,
    table=check_report,
    report="price_check",
    limit_threads=True,
)

#: DF21's price (issue's targets): fit and prediction over a 400-tree random forest's, at most these.
DF21_PRICE = {"letter": (4.8, 1.3), "adult": (4.8, 2.3)}


def fit_with_peak_memory(ctx, X, y, X_eval, y_eval) -> dict:
    """The harness's unit (fit, predict, score), with ``peak_rss_mb``: the worker's peak resident memory from the
    fit's start to the end of prediction (:class:`~mddf.experiments.provenance.PeakMemory`; the data resident)."""
    peak = PeakMemory().start()
    record = fit_and_score(ctx, X, y, X_eval, y_eval)
    return {**record, "peak_rss_mb": peak.peak_mb(), "peak_method": peak.method}


def rf_report(results, targets=DF21_PRICE, label: str = "DF21's") -> str:
    """Per dataset of ``targets`` and design: the median over rounds of its fit and predict seconds over RF-400's,
    beside the target ratios (``label`` names them), and its median peak memory (MB) beside the forest's."""
    body = []
    for dataset, (fit_target, predict_target) in targets.items():
        for design in results.methods:
            if design == "RF-400" or not results.of(dataset, design):
                continue
            ratios = {}
            for what in ("fit_s", "predict_s"):
                pairs = {}
                for r in results.of(dataset):
                    if r["method"] in (design, "RF-400"):
                        pairs.setdefault(r["round"], {})[r["method"]] = r[what]
                ratios[what] = median([p[design] / p["RF-400"] for p in pairs.values() if len(p) == 2])
            accuracy = median([r["accuracy"] for r in results.of(dataset, design)])
            peaks = [_peak(results.of(dataset, m)) for m in (design, "RF-400")]
            body.append(
                [dataset, design, f"{100 * accuracy:.2f}", _ratio(ratios["fit_s"]), f"{fit_target}x"]
                + [_ratio(ratios["predict_s"]), f"{predict_target}x", *peaks]
            )
    header = ["dataset", "design", "accuracy %", "fit / RF-400", label, "predict / RF-400", label]
    header += ["peak MB", "RF-400's peak MB"]
    return "\n".join(markdown_table(header, body)) + "\n"


def _peak(records) -> str:
    peaks = [r["peak_rss_mb"] for r in records if r.get("peak_rss_mb") is not None]
    return f"{median(peaks):,.0f}" if peaks else "n/a"


def rf_options(parser):
    parser.add_argument("--learners", dest="methods", help="the same as --methods")
    parser.add_argument(
        "--against-rf", action="store_true", help="this study: the price against a 400-tree forest (kept in provenance)"
    )


def against_rf(name: str, doc: str, classifiers, learner_settings, targets: dict, label: str, report: str):
    """A study of ``classifiers`` (``options -> {name: builder}``; ``mdDF`` the default run) against a 400-tree
    random forest on the datasets of ``targets`` (``{dataset: (fit ratio, predict ratio)}``), train/test, three
    rounds in turn: price's ``--against-rf`` and the ahead study's."""
    return Study(
        name,
        doc,
        datasets=[frames(d) for d in targets],
        methods=lambda options: {**classifiers(options), "RF-400": realdata_suite.peer("RF-400")},
        protocol=TrainTest(seeds=(0,), rounds=3),
        default_methods=("mdDF", "RF-400"),
        learner_settings=learner_settings,
        settings=lambda options: {"against": "RF-400"},
        options=rf_options,
        fit=fit_with_peak_memory,
        table=functools.partial(rf_report, targets=targets, label=label),
        report=report,
        limit_threads=True,
    )


RF_PRICE = against_rf(
    "price",
    __doc__,
    lambda options: {n: METHODS[n] for n in CLASSIFIERS},
    learner_settings,
    DF21_PRICE,
    "DF21's",
    "price_rf",
)

_check_or_suite = main_by_flag("--check", PAPER_CHECK, STUDY)


def _main(argv=None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    if "--against-rf" in given:
        return RF_PRICE.main(given)
    return _check_or_suite(argv)


def main(argv=None) -> int:
    return realdata.run_reporting_errors("price", _main, argv)


if __name__ == "__main__":
    sys.exit(main())
