"""Ahead of CatBoost: the designs of issue 79 against today's defaults on the 44 tables of both real-data suites.

The rule, the screen and the combinations it forms were written before this study ran
(``docs/benchmarks/ahead.md``, "The rule"). Today's defaults are price's (:data:`benchmarks.price.TODAY`), pinned;
each design is a parameter value on top of them (:data:`DESIGNS`), and a combination is named by its designs
joined with ``+`` (``mdDF-ts+later``), its parameters the designs' together. Beside them the peers: HGB-es,
LightGBM-es and CatBoost-es.

Two stages, each in its own results folder. ``--stage screen`` (the default; ``results/ahead-screen``): the first
repeat of the protocol (5 folds) on every table; its report names each design a buyer or a saver, the
combinations to fit next (the ``--learners`` line that fits them, on the same stage) and the candidates of the full
run. ``--stage full`` (``results/ahead``): 5 folds repeated 3 times (once on the tables of 20,000 rows or more),
the candidates named in ``--learners``; its report is the rule's verdict, the frontier figures and the targets.
``--check paper`` runs the rule's condition (v), the price rule's paper's-datasets check, of the designs named in
``--learners``. ``--against-rf`` measures the target of letter's price: each classifier named in ``--learners`` and
a 400-tree random forest fitted on letter's training rows, in turn for three rounds (price's ``--against-rf``).

Outputs in ``--out``: ``ahead.md`` (the stage's report), ``ahead.csv`` (per table and learner: every metric's
mean over the folds and its standard error, the folds, the median seconds), the frontier figures
``ahead_<stage>_frontier_<task>.png`` (suite mean score against median fit and median predict seconds),
``ahead_check.md`` after ``--check paper`` and ``ahead_rf.md`` after ``--against-rf``.

Examples
--------
python -m benchmarks.ahead --n-jobs 2
python -m benchmarks.ahead --report-only  # the buyers, savers, candidates and the --learners line of the combinations
python -m benchmarks.ahead --stage full --n-jobs 2 --learners mdDF,mdDF-ts+later,HGB-es,LightGBM-es,CatBoost-es
MDDF_DATA=/path/to/data python -m benchmarks.ahead --check paper --learners mdDF,mdDF-ts+later --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.ahead --against-rf --learners mdDF,mdDF-ts+later,RF-400 --rounds 3
python -m benchmarks.ahead --quick
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import (
    price,
    realdata,
    realdata_figures,
    realdata_report,
    realdata_rule,
    realdata_statistics,
    realdata_suite,
)
from benchmarks.harness import CrossValidation, Study, command_provenance, main_by_flag
from mddf.experiments.tables import markdown_table

SUITE = "all"
#: A table of this many rows or more is cross-validated once in the full run.
ONE_REPEAT_ROWS = 20_000
DEFAULTS = price.DEFAULTS
PREFIX = {"classification": "mdDF", "regression": "CascadeForest"}
FORESTS = price.FORESTS
#: task -> design -> its parameters on top of today's default (the page's table of designs).
DESIGNS = {
    "classification": {
        "weighted": {"member_weights": "loss"},
        "pairs": {"pair_features": "all_operations"},
        "select": {"final_mixture": "selection"},
        "later": {"later_layer_trees": 0.5},
        "share": {"fold_trees": "share"},
        "ts": {"target_statistics": "columns"},
        "tsp": {"target_statistics": "pairs"},
        "lgbm": {"forest_types": (*FORESTS, "lgbm_es")},
    },
    "regression": {
        "weighted": {"member_weights": "loss"},
        "select": {"final_mixture": "selection"},
        "later": {"later_layer_trees": 0.5},
        "share": {"fold_trees": "share"},
        "ts": {"target_statistics": "columns"},
        "tsp": {"target_statistics": "pairs"},
        "lgbm": {"forest_types": (*FORESTS, "lgbm_es")},
    },
}
PEERS = ("HGB-es", "LightGBM-es", "CatBoost-es")
#: Fitted in the full run beside the rule's peers, so that the README sets the cascades against the same five
#: learners as before (they decide nothing); the targets' mean ranks are among a cascade and every peer recorded.
README_PEERS = ("XGBoost-es", "RF-400")
#: The screen's bounds: a buyer gains more than 0; a saver's fit ratio is at most 0.9 and it loses at most 0.1
#: points (0.002 R²); both raise the log-loss by at most 0.005. A candidate's time bound in the screen: 1.1.
SAVER_FIT = 0.9
SAVER_LOSS = {"classification": 0.001, "regression": 0.002}
LOG_LOSS_RISE = 0.005
SCREEN_TIME = 1.1
FULL_TIME = 1.0
#: Condition (iv)'s bound on a table is the price rule's (d), ``price.TABLE_LOSS``: 0.5 points or 0.005 R².
MAX_COMBINATIONS = 10
MAX_CANDIDATES = 3
#: The targets: the classifier's suite mean above CatBoost-es's by this much; within this of it on the mostly
#: categorical tables (half or more of their columns categories).
CATBOOST_MARGIN = 0.003


# ------------------------------------------------------------------------------------------ learners
def split_name(name: str) -> tuple[str, tuple[str, ...]] | None:
    """``(task, designs)`` of a learner's name (``mdDF`` today's classifier, ``mdDF-ts+later`` a combination);
    None for a name that is neither (a peer)."""
    for task, prefix in PREFIX.items():
        if name == prefix:
            return task, ()
        if name.startswith(prefix + "-"):
            designs = tuple(name[len(prefix) + 1 :].split("+"))
            if all(d in DESIGNS[task] for d in designs) and len(set(designs)) == len(designs):
                return task, designs
    return None


def task_of(name: str) -> str | None:
    found = split_name(name)
    return found[0] if found else None


def parameters(name: str) -> dict:
    """A learner's cascade parameters: today's default of its task and its designs' own, in order."""
    task, designs = split_name(name)
    params = dict(price.TODAY[task])
    for design in designs:
        params.update(DESIGNS[task][design])
    return params


#: Parameters the cascades gained after the screen's first records: left out of a learner's settings at the value
#: with which the model is the one before them, bit for bit (the values mddf's table of earlier layouts gives them
#: for pickles made before them), so that the records made before them stay bound to the same learner.
ADDED_SINCE_THE_SCREEN_BEGAN = {
    "member_weights": "equal",
    "later_layer_trees": None,
    "final_mixture": "cascade",
    "first_layer_members": (),
}


def learner_settings(name: str) -> str | None:
    """A cascade's full parameters as text (its records are bound to them; :data:`ADDED_SINCE_THE_SCREEN_BEGAN` at
    their earlier value left out); None for the peers."""
    from mddf import CascadeForestRegressor, MDDFClassifier

    if task_of(name) is None:
        return None
    cls = MDDFClassifier if task_of(name) == "classification" else CascadeForestRegressor
    params = cls(**parameters(name)).get_params(deep=False)
    unchanged = {k for k, earlier in ADDED_SINCE_THE_SCREEN_BEGAN.items() if params[k] == earlier}
    return repr(sorted((k, v) for k, v in params.items() if k not in ("random_state", "n_jobs", *unchanged)))


def cascade(name: str):
    def build(ctx):
        from mddf import CascadeForestRegressor, MDDFClassifier

        cls = MDDFClassifier if task_of(name) == "classification" else CascadeForestRegressor
        quick = realdata_suite.QUICK_CASCADE if ctx.quick else {}
        return cls(**{**parameters(name), **quick, "random_state": ctx.seed, "n_jobs": ctx.n_jobs})

    return build


def singles() -> list:
    """Today's defaults and every design alone."""
    return [f"{PREFIX[t]}{'-' + d if d else ''}" for t in DESIGNS for d in ("", *DESIGNS[t])]


def methods(options) -> dict:
    """Today's defaults, the designs, the combinations named in ``--learners`` and the peers."""
    named = [m for m in (getattr(options, "methods", None) or "").split(",") if m]
    cascades = dict.fromkeys([*singles(), *(m for m in named if task_of(m))])
    return {**{m: cascade(m) for m in cascades}, **{p: realdata_suite.peer(p) for p in (*PEERS, *README_PEERS)}}


# ------------------------------------------------------------------------------------------ the suite
def manifest() -> dict:
    return {e["name"]: e for e in realdata.manifest(suite=SUITE)}


def suite_datasets(options) -> list:
    """Both suites' tables, smallest first; in the full run, a table of :data:`ONE_REPEAT_ROWS` rows or more
    repeated once (the screen repeats every table once)."""
    entries = manifest()
    found = sorted(realdata.datasets(suite=SUITE), key=lambda d: (entries[d.name]["rows"], d.name))
    return [dataclasses.replace(d, repeats=1 if entries[d.name]["rows"] >= ONE_REPEAT_ROWS else None) for d in found]


def task_of_dataset(name: str) -> str:
    if name in realdata_suite.PAPER_CLASSIFICATION:
        return "classification"
    if name in realdata_suite.PAPER_REGRESSION:
        return "regression"
    return manifest()[name]["task"]


def mostly_categorical(name: str) -> bool:
    entry = manifest()[name]
    return entry["n_categorical"] * 2 >= entry["features"]


def applies(method: str, dataset: str, options) -> bool:
    return task_of(method) in (None, task_of_dataset(dataset))


# ------------------------------------------------------------------------------------------ the rule
def meets(m: dict, time_bound: float) -> dict:
    """Conditions (i)-(iv) of the rule on one learner's measures."""
    return {
        "i": m["fit"] <= time_bound and m["predict"] <= time_bound,
        "ii": m["gain"] > 2 * m["gain_se"],
        "iii": m["log_loss"] <= LOG_LOSS_RISE,
        "iv": not m["worse"],
    }


def tables_of(records, task: str) -> list:
    return sorted({r["dataset"] for r in records if r.get("task") == task})


def screen(records, task: str) -> dict:
    """The screen of one task: every recorded design's measures, the buyers, the savers, the combinations to fit
    and the candidates of the full run."""
    tables = tables_of(records, task)
    recorded = {r["method"] for r in records}
    learners = [m for m in recorded if task_of(m) == task and m != DEFAULTS[task]]
    found = {m: price.paired_measures(records, task, m, tables) for m in sorted(learners)}
    single = {split_name(m)[1][0]: v for m, v in found.items() if len(split_name(m)[1]) == 1}
    ok = {d: v for d, v in single.items() if v["log_loss"] <= LOG_LOSS_RISE}
    buyers = sorted((d for d, v in ok.items() if v["gain"] > 0), key=lambda d: -ok[d]["gain"])
    savers = sorted(
        (d for d, v in ok.items() if v["fit"] <= SAVER_FIT and v["gain"] >= -SAVER_LOSS[task]),
        key=lambda d: ok[d]["fit"],
    )
    return {
        "measures": found,
        "buyers": buyers,
        "savers": savers,
        "combinations": combinations(task, buyers, savers),
        "candidates": candidates(found, SCREEN_TIME),
    }


def combinations(task: str, buyers: list, savers: list) -> list:
    """The stage's combinations, in the rule's order, at most :data:`MAX_COMBINATIONS`."""
    found = [(b, s) for b in buyers for s in savers if b != s]
    if len(buyers) >= 2:
        found.append(tuple(buyers[:2]))
        if savers and savers[0] not in buyers[:2]:
            found.append((*buyers[:2], savers[0]))
    names = [f"{PREFIX[task]}-{'+'.join(c)}" for c in found]
    return list(dict.fromkeys(names))[:MAX_COMBINATIONS]


def candidates(found: dict, time_bound: float) -> list:
    """The learners meeting (i)-(iv) with ``time_bound``, the highest gains first, at most
    :data:`MAX_CANDIDATES`."""
    passing = [m for m, v in found.items() if all(meets(v, time_bound).values())]
    return sorted(passing, key=lambda m: -found[m]["gain"])[:MAX_CANDIDATES]


def measure_rows(task: str, found: dict, time_bound: float) -> list:
    points, digits = (100, 2) if task == "classification" else (1, 4)
    rows = []
    for m, v in sorted(found.items(), key=lambda kv: -kv[1]["gain"]):
        conditions = meets(v, time_bound)
        worse = ", ".join(f"{t} {points * d:+.{digits}f}" for t, (d, _) in sorted(v["worse"].items()))
        rows.append(
            [m, f"{points * v['gain']:+.{digits + 1}f} ± {points * v['gain_se']:.{digits + 1}f}"]
            + [
                f"{v['log_loss']:+.4f}" if task == "classification" else "",
                f"{v['fit']:.2f}x",
                f"{v['predict']:.2f}x",
                worse or "none",
            ]
            + ["yes" if all(conditions.values()) else "no: " + ", ".join(k for k, ok in conditions.items() if not ok)]
        )
    return rows


def measure_header(task: str, time_bound: float) -> list:
    gain = "gain (points) ± SE" if task == "classification" else "gain (R²) ± SE"
    return [
        "learner",
        gain,
        "log-loss rise",
        "fit ratio",
        "predict ratio",
        "tables worse",
        f"meets (i)-(iv), time {time_bound:g}",
    ]


def screens(records) -> dict:
    """``{task: its screen}`` (:func:`screen`) of every task with a table recorded."""
    return {task: screen(records, task) for task in DEFAULTS if tables_of(records, task)}


def screen_report(results, found: dict) -> str:
    """The screen's report of ``found`` (:func:`screens` of the results' records)."""
    lines = []
    for task, s in found.items():
        n = len(tables_of(results.records, task))
        lines += [f"## {task.capitalize()} ({n} tables, the screen's repeat)", ""]
        lines += markdown_table(measure_header(task, SCREEN_TIME), measure_rows(task, s["measures"], SCREEN_TIME))
        lines += ["", f"- Buyers: {', '.join(s['buyers']) or 'none'}; savers: {', '.join(s['savers']) or 'none'}."]
        todo = [c for c in s["combinations"] if not results.of(method=c)]
        lines.append(f"- Combinations: {', '.join(s['combinations']) or 'none'}.")
        if todo:
            lines.append(f"- Not fitted yet: {', '.join(todo)}.")
        lines += [f"- Candidates of the full run: {', '.join(s['candidates']) or 'none'}.", ""]
        lines += target_lines(results, task) + [""]
    return "\n".join(lines)


def full_report(results) -> str:
    """The full run's report: per task, the rule's conditions (i)-(iv) of every learner against today's default,
    the targets, and where today's default and each learner meeting (i)-(iv) is first among the peers."""
    lines = []
    for task in DEFAULTS:
        tables = tables_of(results.records, task)
        if not tables:
            continue
        learners = sorted({r["method"] for r in results.records if task_of(r["method"]) == task} - {DEFAULTS[task]})
        found = {m: price.paired_measures(results.records, task, m, tables) for m in learners}
        lines += [f"## {task.capitalize()} ({len(tables)} tables)", ""]
        lines += markdown_table(measure_header(task, FULL_TIME), measure_rows(task, found, FULL_TIME))
        passing = candidates(found, FULL_TIME)
        lines += ["", f"- Meet (i)-(iv), in the order (v) checks them: {', '.join(passing) or 'none'}.", ""]
        lines += target_lines(results, task) + [""]
        for learner in (DEFAULTS[task], *passing):
            lines += realdata_report.where_section(results, task, tables, learner, (*PEERS, *README_PEERS))
    return "\n".join(lines)


def suite_means(records, task: str) -> dict:
    """``{learner: suite mean}`` over the tables every learner of the task has a fold of."""
    metric = realdata_rule.RANKING[task]
    learners = sorted({r["method"] for r in records if task_of(r["method"]) in (None, task)})
    tables = tables_of(records, task)
    means = realdata_statistics.common_means(realdata_statistics.fold_scores(records, metric), learners, tables)
    return means


def target_lines(results, task: str) -> list:
    """The suite means; each cascade's mean rank among it and the peers recorded, beside the best peer's in that
    ranking; for the classifier, CatBoost-es's margin on every table and on the mostly categorical ones."""
    means = suite_means(results.records, task)
    if not means:
        return []
    learners = sorted(next(iter(means.values())))
    peers = [m for m in learners if task_of(m) is None]
    scale = 100 if task == "classification" else 1
    suite = {m: statistics.fmean(means[t][m] for t in means) for m in learners}
    lines = [
        f"Suite means over the {len(means)} tables every learner has; a cascade's mean rank among it and the peers "
        f"({', '.join(peers) or 'none recorded'}; 1 the best), with the best peer's in the same ranking:",
        "",
    ]
    body = []
    for m in sorted(learners, key=lambda m: -suite[m]):
        rank = ""
        if task_of(m) and peers:
            ranks = realdata_statistics.friedman(means, [m, *peers])["ranks"]
            best = min(peers, key=ranks.get)
            rank = f"{ranks[m]:.2f} ({best} {ranks[best]:.2f})"
        body.append([m, f"{scale * suite[m]:.3f}", rank])
    lines += markdown_table(["learner", "suite mean", "mean rank with the peers"], body)
    if task == "classification" and "CatBoost-es" in learners:
        mixed = [t for t in means if mostly_categorical(t)]
        for m in learners:
            if task_of(m) == task:
                gap = suite[m] - suite["CatBoost-es"]
                line = f"- `{m}` - CatBoost-es: {100 * gap:+.2f} points (target +{100 * CATBOOST_MARGIN:.1f})"
                if mixed:
                    mgap = statistics.fmean(means[t][m] - means[t]["CatBoost-es"] for t in mixed)
                    line += f"; on the {len(mixed)} mostly categorical tables {100 * mgap:+.2f} (target >= -0.3)"
                lines.append(line + ".")
    return [""] + lines


def screen_learners(found: dict) -> list:
    """The learners a screen report reads: today's defaults, the designs, the peers and the combinations the
    screens ``found`` name; ``--learners`` with them fits the combinations not yet fitted and reports them with the
    rest."""
    return list(dict.fromkeys([*singles(), *PEERS, *(c for s in found.values() for c in s["combinations"])]))


def report(results) -> str:
    """The stage's report (:func:`full_report`, or :func:`screen_report` and the ``--learners`` line of its
    combinations); writes the frontier figures ``ahead_<stage>_frontier_<task>.png`` to ``--out``."""
    figures = {
        f"ahead_{results.options.stage}_frontier_{task}": price.frontier_figure(results, task, task_of)
        for task in DEFAULTS
        if tables_of(results.records, task)
    }
    provenance = command_provenance("ahead", results.options.argv)
    realdata_figures.write_figures(figures, results.options.out, provenance)
    if results.options.stage == "full":
        return full_report(results)
    found = screens(results.records)
    command = f"python -m benchmarks.ahead --learners {','.join(screen_learners(found))}"
    return (
        f"{screen_report(results, found)}\nThe screen with its combinations (fits those not yet fitted): `{command}`.\n"
    )


def options(parser):
    realdata_suite.options(parser)
    parser.add_argument(
        "--stage", choices=("screen", "full"), default="screen", help="the rule's stage (default: screen)"
    )


def settings(options) -> dict:
    return {"stage": options.stage, "suite": SUITE}


def check_options(options, parser):
    if options.stage == "screen" and options.repeats not in (None, 1):
        parser.error("the screen is one repeat: --repeats 1 or nothing")
    tasks = {task_of_dataset(n) for n in options.dataset_names}
    if not any(task_of(m) in (None, *tasks) for m in options.method_names):
        parser.error("no learner of the tables' tasks among --learners")


def check_report(results) -> str:
    """Condition (v), price's condition (e) (:func:`benchmarks.price.check_report`) over this study's names."""
    return price.check_report(results, task_of)


def check_applies(method: str, dataset: str, options) -> bool:
    return task_of(method) == task_of_dataset(dataset)


def study(stage: str) -> Study:
    """The stage's study: the screen's one repeat, or the full run's three."""
    return Study(
        "ahead",
        __doc__,
        datasets=suite_datasets,
        methods=methods,
        protocol=CrossValidation(n_folds=realdata_suite.FOLDS, repeats=1 if stage == "screen" else 3),
        default_methods=(*singles(), *PEERS) if stage == "screen" else (*DEFAULTS.values(), *PEERS, *README_PEERS),
        quick={
            "datasets": realdata_suite.QUICK_TABLES,
            "methods": ("mdDF", "mdDF-share", "CascadeForest", "CascadeForest-share", "HGB-es"),
            "repeats": 1,
            "folds": 2,
        },
        optional={"LightGBM-es": "lightgbm", "CatBoost-es": "catboost"},
        learner_settings=learner_settings,
        options=options,
        settings=settings,
        check=check_options,
        applies=applies,
        fit=realdata_suite.fit,
        describe=realdata_suite.describe,
        table=report,
        rows=realdata_report.suite_rows,  # the real-data suite's CSV, which the README's block reads
        report="ahead",
        limit_threads=True,
    )


PAPER_CHECK = Study(
    "ahead",
    __doc__,
    datasets=realdata_suite.paper_datasets,
    methods=lambda options: {m: b for m, b in methods(options).items() if task_of(m)},
    protocol=CrossValidation(n_folds=realdata_suite.PAPER_FOLDS, repeats=realdata_suite.PAPER_SEEDS),
    default_methods=tuple(DEFAULTS.values()),
    learner_settings=learner_settings,
    quick={"datasets": ("satimage", "diabetes"), "methods": ("mdDF", "mdDF-share", "CascadeForest"), "repeats": 2},
    options=options,
    settings=lambda options: {"check": "paper"},
    applies=check_applies,
    fit=realdata_suite.fit,
    describe=realdata_suite.describe,
    table=check_report,
    report="ahead_check",
    limit_threads=True,
)


#: The issue's targets of letter's price: fit and prediction at most these times a 400-tree random forest's.
LETTER_PRICE = {"letter": (8, 6)}
AGAINST_RF = price.against_rf(
    "ahead",
    __doc__,
    lambda options: {m: b for m, b in methods(options).items() if task_of(m) == "classification"},
    learner_settings,
    LETTER_PRICE,
    "target",
    "ahead_rf",
)


def _main(argv=None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    stage = "full" if "--stage=full" in given or "full" in _after(given, "--stage") else "screen"
    if not any(a == "--out" or a.startswith("--out=") for a in given):
        folder = "ahead_check" if "--check" in given else "ahead_rf" if "--against-rf" in given else None
        folder = folder or ("ahead" if stage == "full" else "ahead-screen")
        given += ["--out", str(Path("results") / folder)]
    if "--against-rf" in given:
        return AGAINST_RF.main(given)
    return main_by_flag("--check", PAPER_CHECK, study(stage))(given)


def _after(given: list, flag: str) -> list:
    return [given[i + 1] for i, a in enumerate(given[:-1]) if a == flag]


def main(argv=None) -> int:
    return realdata.run_reporting_errors("ahead", _main, argv)


if __name__ == "__main__":
    sys.exit(main())
