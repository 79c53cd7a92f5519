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

Every stage and its report (``--report-only`` too) read the tables of both suites, the real-data suite's from
``$MDDF_REALDATA`` and the broad suite's from ``$MDDF_REALDATA_BROAD`` (:mod:`benchmarks.realdata`); without them
the study stops with exit status 2, naming the folder it looked in.

Examples
--------
MDDF_REALDATA=/path/to/realdata MDDF_REALDATA_BROAD=/path/to/realdata-broad python -m benchmarks.ahead --n-jobs 2
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
#: Parameters the cascades gained after the screen's first records: left out of a learner's settings at the value
#: with which the model is the one before them, bit for bit (the values mddf's table of earlier layouts gives them
#: for pickles made before them), so that the records made before them stay bound to the same learner.
ADDED_SINCE_THE_SCREEN_BEGAN = {
    "member_weights": "equal",
    "later_layer_trees": None,
    "final_mixture": "cascade",
    "first_layer_members": (),
}


# ------------------------------------------------------------------------------------------ the rule's stages
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


def design_parameters(params: dict, design) -> dict:
    """``params`` with a design's changes: its parameters (a dict), or (a callable of ``params``) those it derives
    from them, so that designs that change the same parameter (the members) combine."""
    return {**params, **(design(params) if callable(design) else design)}


@dataclasses.dataclass(frozen=True)
class Rule:
    """One run of the rule of docs/benchmarks/ahead.md: the suite it reads, today's defaults it measures against
    (pinned), the designs (``task -> design -> its parameters``, or a callable of today's), the peers fitted in the
    screen and in the full run, and the names of its outputs (``name``: the study, its results folders and reports).
    """

    name: str
    doc: str
    suite: str
    today: dict
    designs: dict
    screen_peers: tuple = PEERS
    full_peers: tuple = (*PEERS, *README_PEERS)
    added_since: dict = dataclasses.field(default_factory=dict)
    letter_price: dict = dataclasses.field(default_factory=dict)

    # -------------------------------------------------------------------------------------- learners
    def split_name(self, name: str) -> tuple[str, tuple[str, ...]] | None:
        """``(task, designs)`` of a learner's name (``mdDF`` today's classifier, ``mdDF-ts+later`` a combination);
        None for a name that is neither (a peer)."""
        for task, prefix in PREFIX.items():
            if name == prefix:
                return task, ()
            if name.startswith(prefix + "-"):
                designs = tuple(name[len(prefix) + 1 :].split("+"))
                if all(d in self.designs[task] for d in designs) and len(set(designs)) == len(designs):
                    return task, designs
        return None

    def task_of(self, name: str) -> str | None:
        found = self.split_name(name)
        return found[0] if found else None

    def parameters(self, name: str) -> dict:
        """A learner's cascade parameters: today's default of its task and its designs' own, in order."""
        task, designs = self.split_name(name)
        params = dict(self.today[task])
        for design in designs:
            params = design_parameters(params, self.designs[task][design])
        return params

    def learner_settings(self, name: str) -> str | None:
        """A cascade's full parameters as text (its records are bound to them; ``added_since``, the parameters the
        cascades gained after the rule's first records, left out at their earlier value); None for the peers."""
        from mddf import CascadeForestRegressor, MDDFClassifier

        if self.task_of(name) is None:
            return None
        cls = MDDFClassifier if self.task_of(name) == "classification" else CascadeForestRegressor
        params = cls(**self.parameters(name)).get_params(deep=False)
        unchanged = {k for k, earlier in self.added_since.items() if params[k] == earlier}
        return repr(sorted((k, v) for k, v in params.items() if k not in ("random_state", "n_jobs", *unchanged)))

    def cascade(self, name: str):
        def build(ctx):
            from mddf import CascadeForestRegressor, MDDFClassifier

            cls = MDDFClassifier if self.task_of(name) == "classification" else CascadeForestRegressor
            quick = realdata_suite.QUICK_CASCADE if ctx.quick else {}
            return cls(**{**self.parameters(name), **quick, "random_state": ctx.seed, "n_jobs": ctx.n_jobs})

        return build

    def singles(self) -> list:
        """Today's defaults and every design alone."""
        return [f"{PREFIX[t]}{'-' + d if d else ''}" for t in self.designs for d in ("", *self.designs[t])]

    def methods(self, options) -> dict:
        """Today's defaults, the designs, the combinations named in ``--learners`` and the peers."""
        named = [m for m in (getattr(options, "methods", None) or "").split(",") if m]
        cascades = dict.fromkeys([*self.singles(), *(m for m in named if self.task_of(m))])
        peers = dict.fromkeys((*self.screen_peers, *self.full_peers))
        return {**{m: self.cascade(m) for m in cascades}, **{p: realdata_suite.peer(p) for p in peers}}

    # -------------------------------------------------------------------------------------- the suite
    def manifest(self) -> dict:
        return {e["name"]: e for e in realdata.manifest(suite=self.suite)}

    def suite_datasets(self, options) -> list:
        """The suite's tables, smallest first; in the full run, a table of :data:`ONE_REPEAT_ROWS` rows or more
        repeated once (the screen repeats every table once)."""
        entries = self.manifest()
        found = sorted(realdata.datasets(suite=self.suite), key=lambda d: (entries[d.name]["rows"], d.name))
        once = ONE_REPEAT_ROWS
        return [dataclasses.replace(d, repeats=1 if entries[d.name]["rows"] >= once else None) for d in found]

    def task_of_dataset(self, name: str) -> str:
        if name in realdata_suite.PAPER_CLASSIFICATION:
            return "classification"
        if name in realdata_suite.PAPER_REGRESSION:
            return "regression"
        return self.manifest()[name]["task"]

    def mostly_categorical(self, name: str) -> bool:
        entry = self.manifest()[name]
        return entry["n_categorical"] * 2 >= entry["features"]

    def applies(self, method: str, dataset: str, options) -> bool:
        return self.task_of(method) in (None, self.task_of_dataset(dataset))

    # -------------------------------------------------------------------------------------- the screen
    def screen(self, records, task: str) -> dict:
        """The screen of one task: every recorded design's measures, the buyers, the savers, the combinations to
        fit and the candidates of the full run."""
        tables = tables_of(records, task)
        recorded = {r["method"] for r in records}
        learners = [m for m in recorded if self.task_of(m) == task and m != DEFAULTS[task]]
        found = {m: price.paired_measures(records, task, m, tables) for m in sorted(learners)}
        single = {self.split_name(m)[1][0]: v for m, v in found.items() if len(self.split_name(m)[1]) == 1}
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

    def screens(self, records) -> dict:
        """``{task: its screen}`` (:meth:`screen`) of every task with a table recorded."""
        return {task: self.screen(records, task) for task in DEFAULTS if tables_of(records, task)}

    def screen_report(self, results, found: dict) -> str:
        """The screen's report of ``found`` (:meth:`screens` of the results' records)."""
        lines = []
        for task, s in found.items():
            n = len(tables_of(results.records, task))
            lines += [f"## {task.capitalize()} ({n} tables, the screen's repeat)", ""]
            lines += markdown_table(measure_header(task, SCREEN_TIME), measure_rows(task, s["measures"], SCREEN_TIME))
            lines += ["", *self.member_lines(results.records, task, s["measures"])]
            lines += [f"- Buyers: {', '.join(s['buyers']) or 'none'}; savers: {', '.join(s['savers']) or 'none'}."]
            todo = [c for c in s["combinations"] if not results.of(method=c)]
            lines.append(f"- Combinations: {', '.join(s['combinations']) or 'none'}.")
            if todo:
                lines.append(f"- Not fitted yet: {', '.join(todo)}.")
            lines += [f"- Candidates of the full run: {', '.join(s['candidates']) or 'none'}.", ""]
            lines += self.target_lines(results, task) + [""]
        return "\n".join(lines)

    def screen_learners(self, found: dict) -> list:
        """The learners a screen report reads: today's defaults, the designs, the screen's peers and the
        combinations the screens ``found`` name; ``--learners`` with them fits the combinations not yet fitted and
        reports them with the rest."""
        combined = (c for s in found.values() for c in s["combinations"])
        return list(dict.fromkeys([*self.singles(), *self.screen_peers, *combined]))

    def member_lines(self, records, task: str, found: dict) -> list:
        """Per learner and table it loses beyond condition (iv)'s bound, its first layer's members' own out-of-fold
        scores (mean over the folds) beside today's default's, where the records hold them (``member_scores``)."""
        lines = []
        for learner, measures in found.items():
            for table in sorted(measures["worse"]):
                mine, today = (self.first_layer_scores(records, m, table) for m in (learner, DEFAULTS[task]))
                if mine and today:
                    lines.append(f"- `{learner}` on {table}: first layer's members {mine}; today's {today}.")
        return lines

    def first_layer_scores(self, records, learner: str, table: str) -> str:
        """``"rf .912, crf .880, ..."``: each first-layer member of ``learner`` and its mean out-of-fold score on
        ``table`` over the recorded folds ("" without ``member_scores``)."""
        found = [r["member_scores"][0] for r in records if r["method"] == learner and r["dataset"] == table]
        found = [scores for scores in found if scores]
        if not found or len({len(s) for s in found}) != 1:
            return ""
        params = self.parameters(learner)
        kinds = [*params["forest_types"], *params.get("first_layer_members", ())]
        names = [k if isinstance(k, str) else type(k).__name__ for k in kinds]
        means = [statistics.fmean(column) for column in zip(*found)]
        return ", ".join(f"{name} {value:.4g}" for name, value in zip(names, means))

    # -------------------------------------------------------------------------------------- the full run
    def full_report(self, results) -> str:
        """The full run's report: per task, the rule's conditions (i)-(iv) of every learner against today's
        default, the targets, and where today's default and each learner meeting (i)-(iv) is first among the
        peers."""
        lines = []
        for task in DEFAULTS:
            tables = tables_of(results.records, task)
            if not tables:
                continue
            recorded = {r["method"] for r in results.records if self.task_of(r["method"]) == task}
            found = {
                m: price.paired_measures(results.records, task, m, tables) for m in sorted(recorded - {DEFAULTS[task]})
            }
            lines += [f"## {task.capitalize()} ({len(tables)} tables)", ""]
            lines += markdown_table(measure_header(task, FULL_TIME), measure_rows(task, found, FULL_TIME))
            passing = candidates(found, FULL_TIME)
            lines += ["", *self.member_lines(results.records, task, found)]
            lines += [f"- Meet (i)-(iv), in the order (v) checks them: {', '.join(passing) or 'none'}.", ""]
            lines += self.target_lines(results, task) + [""]
            for learner in (DEFAULTS[task], *passing):
                lines += realdata_report.where_section(results, task, tables, learner, self.full_peers)
        return "\n".join(lines)

    def suite_means(self, records, task: str) -> dict:
        """``{learner: suite mean}`` over the tables every learner of the task has a fold of."""
        metric = realdata_rule.RANKING[task]
        learners = sorted({r["method"] for r in records if self.task_of(r["method"]) in (None, task)})
        scores = realdata_statistics.fold_scores(records, metric)
        return realdata_statistics.common_means(scores, learners, tables_of(records, task))

    def target_lines(self, results, task: str) -> list:
        """The suite means; each cascade's mean rank among it and the peers recorded, beside the best peer's in that
        ranking; for the classifier, CatBoost-es's margin on every table and on the mostly categorical ones."""
        means = self.suite_means(results.records, task)
        if not means:
            return []
        learners = sorted(next(iter(means.values())))
        peers = [m for m in learners if self.task_of(m) is None]
        scale = 100 if task == "classification" else 1
        suite = {m: statistics.fmean(means[t][m] for t in means) for m in learners}
        lines = [
            f"Suite means over the {len(means)} tables every learner has; a cascade's mean rank among it and the "
            f"peers ({', '.join(peers) or 'none recorded'}; 1 the best), with the best peer's in the same ranking:",
            "",
        ]
        body = []
        for m in sorted(learners, key=lambda m: -suite[m]):
            rank = ""
            if self.task_of(m) and peers:
                ranks = realdata_statistics.friedman(means, [m, *peers])["ranks"]
                best = min(peers, key=ranks.get)
                rank = f"{ranks[m]:.2f} ({best} {ranks[best]:.2f})"
            body.append([m, f"{scale * suite[m]:.3f}", rank])
        lines += markdown_table(["learner", "suite mean", "mean rank with the peers"], body)
        if task == "classification" and "CatBoost-es" in learners:
            lines += self.catboost_lines(means, suite, learners)
        return [""] + lines

    def catboost_lines(self, means: dict, suite: dict, learners: list) -> list:
        """Each classifier's suite mean against CatBoost-es's, on every table and on the mostly categorical ones."""
        mixed = [t for t in means if self.mostly_categorical(t)]
        lines = []
        for m in learners:
            if self.task_of(m) == "classification":
                gap = suite[m] - suite["CatBoost-es"]
                line = f"- `{m}` - CatBoost-es: {100 * gap:+.2f} points (target +{100 * CATBOOST_MARGIN:.1f})"
                if mixed:
                    mgap = statistics.fmean(means[t][m] - means[t]["CatBoost-es"] for t in mixed)
                    line += f"; on the {len(mixed)} mostly categorical tables {100 * mgap:+.2f} (target >= -0.3)"
                lines.append(line + ".")
        return lines

    # -------------------------------------------------------------------------------------- the study
    def report(self, results) -> str:
        """The stage's report (:meth:`full_report`, or :meth:`screen_report` and the ``--learners`` line of its
        combinations); writes the frontier figures ``<name>_<stage>_frontier_<task>.png`` to ``--out``."""
        figures = {
            f"{self.name}_{results.options.stage}_frontier_{task}": price.frontier_figure(results, task, self.task_of)
            for task in DEFAULTS
            if tables_of(results.records, task)
        }
        provenance = command_provenance(self.name, results.options.argv)
        realdata_figures.write_figures(figures, results.options.out, provenance)
        if results.options.stage == "full":
            return self.full_report(results)
        found = self.screens(results.records)
        command = f"python -m benchmarks.{self.name} --learners {','.join(self.screen_learners(found))}"
        return (
            f"{self.screen_report(results, found)}\nThe screen with its combinations (fits those not yet fitted): "
            f"`{command}`.\n"
        )

    def settings(self, options) -> dict:
        return {"stage": options.stage, "suite": self.suite}

    def check_options(self, options, parser):
        if options.stage == "screen" and options.repeats not in (None, 1):
            parser.error("the screen is one repeat: --repeats 1 or nothing")
        tasks = {self.task_of_dataset(n) for n in options.dataset_names}
        if not any(self.task_of(m) in (None, *tasks) for m in options.method_names):
            parser.error("no learner of the tables' tasks among --learners")

    def check_report(self, results) -> str:
        """Condition (v), price's condition (e) (:func:`benchmarks.price.check_report`) over this rule's names."""
        return price.check_report(results, self.task_of)

    def check_applies(self, method: str, dataset: str, options) -> bool:
        return self.task_of(method) == self.task_of_dataset(dataset)

    def study(self, stage: str) -> Study:
        """The stage's study: the screen's one repeat, or the full run's three."""
        screen = stage == "screen"
        return Study(
            self.name,
            self.doc,
            datasets=self.suite_datasets,
            methods=self.methods,
            protocol=CrossValidation(n_folds=realdata_suite.FOLDS, repeats=1 if screen else 3),
            default_methods=(*self.singles(), *self.screen_peers) if screen else (*DEFAULTS.values(), *self.full_peers),
            quick={
                "datasets": realdata_suite.QUICK_TABLES,
                "methods": ("mdDF", "mdDF-share", "CascadeForest", "CascadeForest-share", "HGB-es")
                if "share" in self.designs["classification"]
                else ("mdDF", "mdDF-stop", "CascadeForest", "CascadeForest-stop", "HGB-es"),
                "repeats": 1,
                "folds": 2,
            },
            optional={"LightGBM-es": "lightgbm", "CatBoost-es": "catboost"},
            learner_settings=self.learner_settings,
            options=options,
            settings=self.settings,
            check=self.check_options,
            applies=self.applies,
            fit=realdata_suite.fit,
            describe=realdata_suite.describe,
            table=self.report,
            rows=realdata_report.suite_rows,  # the real-data suite's CSV, which the README's block reads
            report=self.name,
            limit_threads=True,
        )

    def paper_check(self) -> Study:
        """Condition (v): the price rule's paper's-datasets check of the learners named in ``--learners``."""
        return Study(
            self.name,
            self.doc,
            datasets=realdata_suite.paper_datasets,
            methods=lambda options: {m: b for m, b in self.methods(options).items() if self.task_of(m)},
            protocol=CrossValidation(n_folds=realdata_suite.PAPER_FOLDS, repeats=realdata_suite.PAPER_SEEDS),
            default_methods=tuple(DEFAULTS.values()),
            learner_settings=self.learner_settings,
            quick={"datasets": ("satimage", "diabetes"), "methods": ("mdDF", "CascadeForest"), "repeats": 2},
            options=options,
            settings=lambda options: {"check": "paper"},
            applies=self.check_applies,
            fit=realdata_suite.fit,
            describe=realdata_suite.describe,
            table=self.check_report,
            report=f"{self.name}_check",
            limit_threads=True,
        )

    def against_rf(self) -> Study:
        """Letter's price: each classifier named in ``--learners`` against a 400-tree random forest."""
        classifiers = lambda options: {  # noqa: E731
            m: b for m, b in self.methods(options).items() if self.task_of(m) == "classification"
        }
        return price.against_rf(
            self.name, self.doc, classifiers, self.learner_settings, self.letter_price, "target", f"{self.name}_rf"
        )

    def main(self, argv=None) -> int:
        """``python -m benchmarks.<name>``: the screen, ``--stage full``, ``--check paper`` or ``--against-rf``, their
        results in ``results/<name>-screen``, ``results/<name>``, ``results/<name>_check``, ``results/<name>_rf``
        unless ``--out`` says otherwise."""
        return realdata.run_reporting_errors(self.name, self._main, argv)

    def _main(self, argv=None) -> int:
        given = sys.argv[1:] if argv is None else list(argv)
        stage = "full" if "--stage=full" in given or "full" in _after(given, "--stage") else "screen"
        if not any(a == "--out" or a.startswith("--out=") for a in given):
            folder = "_check" if "--check" in given else "_rf" if "--against-rf" in given else None
            folder = self.name + (folder or ("" if stage == "full" else "-screen"))
            given += ["--out", str(Path("results") / folder)]
        if "--against-rf" in given:
            return self.against_rf().main(given)
        return main_by_flag("--check", self.paper_check(), self.study(stage))(given)


def combinations(task: str, buyers: list, savers: list) -> list:
    """The stage's combinations, in the rule's order, at most :data:`MAX_COMBINATIONS`."""
    found = [(b, s) for b in buyers for s in savers if b != s]
    if len(buyers) >= 2:
        found.append(tuple(buyers[:2]))
        if savers and savers[0] not in buyers[:2]:
            found.append((*buyers[:2], savers[0]))
    names = [f"{PREFIX[task]}-{'+'.join(c)}" for c in found]
    return list(dict.fromkeys(names))[:MAX_COMBINATIONS]


def options(parser):
    realdata_suite.options(parser)
    parser.add_argument(
        "--stage", choices=("screen", "full"), default="screen", help="the rule's stage (default: screen)"
    )


def _after(given: list, flag: str) -> list:
    return [given[i + 1] for i, a in enumerate(given[:-1]) if a == flag]


#: The issue's targets of letter's price: fit and prediction at most these times a 400-tree random forest's.
LETTER_PRICE = {"letter": (8, 6)}
#: Issue 79's run of the rule, on the 44 tables, against the defaults of 2026-11-28.
RULE = Rule(
    "ahead",
    __doc__,
    SUITE,
    price.TODAY,
    DESIGNS,
    added_since=ADDED_SINCE_THE_SCREEN_BEGAN,
    letter_price=LETTER_PRICE,
)


def main(argv=None) -> int:
    return RULE.main(argv)


if __name__ == "__main__":
    sys.exit(main())
