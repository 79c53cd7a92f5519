"""The one harness every study of ``benchmarks/`` is written on.

A study declares what it compares and how it reports; :meth:`Study.main` runs it::

    STUDY = Study(
        "missing",                              # python -m benchmarks.missing; results in results/missing/
        __doc__,
        datasets=[papers_split("letter"), ...],  # Dataset: a name, a loader, its task
        methods={"mdDF": lambda ctx: MDDFClassifier(random_state=ctx.seed, n_jobs=ctx.n_jobs), ...},
        protocol=TrainTest(seeds=(0, 1, 2)),     # or CrossValidation(n_folds=5, repeats=3)
        metrics=("accuracy",),                  # default: CLASSIFICATION or REGRESSION, by the dataset's task
    )
    main = STUDY.main

What every study gets:

- **one command line**: ``--datasets``, ``--methods``, ``--seeds`` and ``--rounds`` (:class:`TrainTest`) or
  ``--repeats`` and ``--folds`` (:class:`CrossValidation`), ``--n-jobs``, ``--out``, ``--quick``, ``--quiet``,
  ``--report-only``, ``--retry-failed``, and the study's own options (``options=``);
- **units**: one fit per (dataset, method, seed, round) on the training rows, scored on the test rows, or per
  (dataset, method, repeat, fold) of a repeated (stratified, for a classification task) k-fold
  cross-validation of the training rows alone; seeds (repeats) outermost, so that every method sees the same
  machine conditions, and the methods' order rotated by one from round to round;
- **metrics** (:data:`METRICS`): accuracy, balanced accuracy and log-loss; R² and RMSE; with the fit and
  predict seconds of every unit, in this process or (``fresh_process=True``) each in a spawned one;
- **mddf.experiments' records and resume**: every finished unit is appended to ``<out>/results.jsonl`` at once
  (:class:`mddf.experiments.store.ResultStore`) as a record of the runner's format
  (:func:`mddf.experiments.store.new_record`: key, dataset, method, seed, fold, status, error, the binding's
  hashes, the commit, machine and date), with ``round`` or ``repeat``, the readable settings that change its
  result (``config``) and the method's ``learner`` settings. It is bound as the runner's records are
  (:mod:`mddf.experiments.binding`): ``data_sha256`` is the hash of the rows it ran on (:class:`Bindings`),
  ``settings_sha256`` the hash of ``config`` and ``learner``. A rerun resumes a unit only from a record with its
  key and both hashes (:func:`mddf.experiments.binding.latest_bound`; a record without hashes, as the harness
  wrote before, is fitted again); it retries the units an estimator refused (a ``ValueError``) or that failed
  only with ``--retry-failed``. Records of other settings stay in the file, out of the table;
- **a table**: by default, per metric, the mean ± standard deviation over seeds (over repeats, of the means
  over their folds) per dataset and method, each method's mean rank over the datasets, the median fit and
  predict seconds, and the units refused, failed, skipped or pending; ``table=`` replaces it. It is written
  to ``<out>/<report>.md`` headed by its provenance (the ``python -m benchmarks.<name> ...`` command, commit,
  machine, date) by :func:`mddf.experiments.tables.write_markdown`, with ``rows=`` to a CSV beside it
  (:func:`~mddf.experiments.tables.write_rows`) and ``figure=`` to a PNG and a PDF.

Interleaved timing pairs: :func:`interleave` calls functions in turn, round after round, the order rotated
each round; :func:`paired_ratios` divides their times round by round, so that a slower phase of the machine
hits both sides of every ratio.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from dataclasses import fields as data_fields
from pathlib import Path
from typing import Any

import numpy as np
from sklearn import metrics
from threadpoolctl import threadpool_limits

from mddf.experiments.binding import Binding, content_sha256, latest_bound, settings_sha256
from mddf.experiments.provenance import provenance
from mddf.experiments.store import COMMON_FIELDS, ResultStore, new_record
from mddf.experiments.tables import markdown_table, mean_ranks, mean_std, write_markdown, write_rows

CLASSIFICATION = ("accuracy", "balanced_accuracy", "log_loss")
REGRESSION = ("r2", "rmse")


def _log_loss(y, proba, model):
    return metrics.log_loss(y, proba, labels=model.classes_)


#: name -> (score(y_true, what it reads, model), whether it reads predict_proba rather than predict, higher is better).
METRICS = {
    "accuracy": (lambda y, p, m: metrics.accuracy_score(y, p), False, True),
    "balanced_accuracy": (lambda y, p, m: metrics.balanced_accuracy_score(y, p), False, True),
    "log_loss": (_log_loss, True, False),
    "r2": (lambda y, p, m: metrics.r2_score(y, p), False, True),
    "rmse": (lambda y, p, m: metrics.root_mean_squared_error(y, p), False, False),
}
#: Metrics shown in percent in the default table.
PERCENT = ("accuracy", "balanced_accuracy")


# ------------------------------------------------------------------------------------------ what a study declares
@dataclass(frozen=True)
class Data:
    """A dataset's rows: the training rows, and the test rows of a train/test split (None: rows to cross-validate)."""

    X_train: Any
    y_train: Any
    X_test: Any = None
    y_test: Any = None


@dataclass(frozen=True)
class Dataset:
    """One dataset of a study.

    Parameters
    ----------
    name : str
        Its name on the command line and in the records.
    load : callable
        ``load(ctx) -> Data`` (:class:`Context`: the seed, ``quick``, the options).
    task : {"classification", "regression"}
    seeded : bool
        Whether the rows depend on the seed (a synthetic draw, values removed at random): loaded once per seed,
        else once per run.
    seeds : tuple of int, optional
        Its own default seeds (``--seeds`` replaces them).
    repeats : int, optional
        Its own number of repeats of a cross-validation, at most ``--repeats`` (a large table repeated less).
    fields : dict
        Fields added to each of its records.
    digest : callable, optional
        ``digest(ctx) -> str``: the sha256 its records are bound to, known without loading it (the files it is
        read from); by default the hash of its loaded rows (:func:`mddf.experiments.binding.content_sha256`).
    """

    name: str
    load: Callable
    task: str = "classification"
    seeded: bool = False
    seeds: tuple | None = None
    repeats: int | None = None
    fields: dict = field(default_factory=dict)
    digest: Callable | None = None


@dataclass(frozen=True)
class TrainTest:
    """Fit on the training rows, score on the test rows; one unit per (dataset, method, seed, round)."""

    seeds: tuple = (0,)
    rounds: int = 1

    def config(self, args):
        return {"protocol": "train/test"}


@dataclass(frozen=True)
class CrossValidation:
    """Repeated k-fold cross-validation of the training rows; one unit per (dataset, method, repeat, fold).

    The folds of repeat ``r`` are ``StratifiedKFold`` (a classification task) or ``KFold`` with
    ``shuffle=True, random_state=r``; the models of repeat ``r`` get ``random_state=r``.
    """

    n_folds: int = 5
    repeats: int = 1

    def config(self, args):
        return {"protocol": "cross-validation", "folds": args.folds}


@dataclass
class Context:
    """What a method's builder, a loader and a study's hooks are given about the unit at hand."""

    study: Study
    options: argparse.Namespace
    dataset: Dataset
    method: str | None = None
    seed: int = 0
    round: int = 0
    fold: int | None = None
    rows: tuple | None = None  # X, y, X_eval, y_eval of the unit, once loaded

    @property
    def n_jobs(self):
        return self.options.n_jobs

    @property
    def quick(self):
        return self.options.quick

    @property
    def task(self):
        return self.dataset.task

    def build(self):
        """A fresh estimator of this unit's method."""
        return self.study.methods_for(self.options)[self.method](self)


@dataclass(frozen=True)
class Unit:
    dataset: str
    method: str
    seed: int
    round: int = 0
    fold: int | None = None

    def key(self, cross_validated=False):
        if cross_validated:
            return f"{self.dataset}|{self.method}|repeat={self.seed}|fold={self.fold}"
        return f"{self.dataset}|{self.method}|seed={self.seed}|round={self.round}"

    def fields(self, cross_validated=False):
        """What its record holds beside the common fields (the seed and fold are among them)."""
        return {"repeat": self.seed} if cross_validated else {"round": self.round}

    def __str__(self):
        where = f"repeat {self.seed} fold {self.fold}" if self.fold is not None else f"seed {self.seed}"
        return f"{self.dataset} / {self.method} / {where}" + (f" / round {self.round}" if self.round else "")


@dataclass
class Results:
    """What a study's table is made from: the latest record of every unit asked for that is bound to its data and
    settings, and what did not run."""

    options: argparse.Namespace
    cross_validated: bool
    datasets: list
    methods: list
    metrics: dict
    records: list
    failed: list
    pending: list
    skipped: list

    def of(self, dataset=None, method=None):
        return [r for r in self.records if dataset in (None, r["dataset"]) and method in (None, r["method"])]


# ------------------------------------------------------------------------------------------ the study
@dataclass
class Study:
    """A study: datasets, methods, a protocol, metrics and a table; :meth:`main` is its command line.

    Parameters
    ----------
    name : str
        The module's name in ``benchmarks/`` (``python -m benchmarks.<name>``); ``results/<name>`` by default.
    doc : str
        The command's description (the module's docstring).
    datasets : list of Dataset, or callable
        Every dataset (``callable(options)`` when the options make them).
    methods : dict or callable
        ``{name: build(ctx) -> estimator}`` (``callable(options)`` when the options make them).
    protocol : TrainTest or CrossValidation
    metrics : tuple of str, optional
        Of :data:`METRICS`; default: :data:`CLASSIFICATION` or :data:`REGRESSION`, by each dataset's task.
    default_datasets, default_methods : sequence of str, optional
        Run when ``--datasets`` / ``--methods`` are not given (default: all).
    quick : dict
        What ``--quick`` changes: ``datasets``, ``methods``, ``seeds``, ``rounds``, ``repeats``, ``folds``.
    optional : dict
        ``{method: module}``: a method whose module does not import is left out, with a message.
    options : callable, optional
        ``options(parser)`` adds the study's own options.
    settings : callable, optional
        ``settings(options) -> dict`` of the options that change a result; part of every record's ``config``,
        and so of the settings it is bound to.
    check : callable, optional
        ``check(options, parser)`` rejects bad options (``parser.error``).
    applies : callable, optional
        ``applies(method, dataset, options) -> bool``: whether a unit exists at all.
    fit : callable, optional
        ``fit(ctx, X, y, X_eval, y_eval) -> dict`` replaces the default fit and score (:func:`fit_and_score`).
    describe : callable, optional
        ``describe(model, ctx, record) -> dict`` of a fitted model's extra fields (the default fit's records).
    skip : callable, optional
        ``skip(ctx, done) -> str or None``: why a unit is not run now (``done``: the latest records so far).
    learner_settings : callable, optional
        ``learner_settings(method) -> str`` of what fixes a method's estimator (its full parameters, defaults
        included): kept in each record as ``learner`` and part of the settings it is bound to, so that a
        changed default is fitted again, not read from the old default's records.
    table, rows, figure : callable, optional
        ``table(results) -> str`` (Markdown), ``rows(results) -> list of dict`` (the CSV; or ``{stem: list of
        dict}``, one CSV each), ``figure(results)`` (a matplotlib figure: PNG and PDF).
    report : str
        The stem of the files written to ``--out``.
    fresh_process : bool
        Run every unit in a spawned process of its own (its memory and compiled code its own).
    limit_threads : bool
        Limit the OpenMP and BLAS pools to ``--n-jobs`` threads during each unit.
    """

    name: str
    doc: str
    datasets: Any
    methods: Any
    protocol: Any = field(default_factory=TrainTest)
    metrics: tuple | None = None
    default_datasets: Sequence | None = None
    default_methods: Sequence | None = None
    quick: dict = field(default_factory=dict)
    optional: dict = field(default_factory=dict)
    options: Callable | None = None
    settings: Callable | None = None
    check: Callable | None = None
    applies: Callable | None = None
    fit: Callable | None = None
    describe: Callable | None = None
    skip: Callable | None = None
    learner_settings: Callable | None = None
    table: Callable | None = None
    rows: Callable | None = None
    figure: Callable | None = None
    report: str = "table"
    fresh_process: bool = False
    limit_threads: bool = False

    @property
    def cross_validated(self):
        return isinstance(self.protocol, CrossValidation)

    def datasets_for(self, options) -> dict:
        found = self.datasets(options) if callable(self.datasets) else self.datasets
        return {d.name: d for d in found}

    def methods_for(self, options) -> dict:
        return self.methods(options) if callable(self.methods) else self.methods

    def metrics_for(self, dataset: Dataset) -> tuple:
        return self.metrics or (CLASSIFICATION if dataset.task == "classification" else REGRESSION)

    # -------------------------------------------------------------------------------------- command line
    def parser(self) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(
            prog=f"python -m benchmarks.{self.name}",
            description=self.doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument("--datasets", help="comma-separated dataset names (default: the study's)")
        parser.add_argument("--methods", help="comma-separated method names (default: the study's)")
        if self.cross_validated:
            parser.add_argument("--repeats", type=int, help=f"repetitions of the CV (default {self.protocol.repeats})")
            parser.add_argument("--folds", type=int, help=f"folds of the CV (default {self.protocol.n_folds})")
        else:
            parser.add_argument(
                "--seeds", help="comma-separated seeds (default: " + ",".join(map(str, self.protocol.seeds)) + ")"
            )
            parser.add_argument(
                "--rounds",
                type=int,
                help=f"interleaved rounds, the methods' order rotated each round (default {self.protocol.rounds})",
            )
        parser.add_argument("--n-jobs", type=int, default=2, help="threads of each fit (default: 2)")
        parser.add_argument(
            "--out", type=Path, default=Path("results") / self.name, help="output folder (default: %(default)s)"
        )
        parser.add_argument("--quick", action="store_true", help="a tiny run on small data (a smoke test)")
        parser.add_argument("--quiet", action="store_true", help="no progress on stderr and no table on stdout")
        parser.add_argument(
            "--report-only",
            action="store_true",
            help="fit nothing: table the records in --out and list what is pending",
        )
        parser.add_argument("--retry-failed", action="store_true", help="rerun the units recorded as refused or failed")
        if self.fresh_process:
            parser.add_argument(
                "--in-process", action="store_true", help="fit in this process instead of a fresh one each"
            )
        else:
            parser.set_defaults(in_process=True)
        if self.options:
            self.options(parser)
        return parser

    def parse(self, argv=None) -> argparse.Namespace:
        parser = self.parser()
        args = parser.parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)
        quick = self.quick if args.quick else {}
        datasets, methods = self.datasets_for(args), self.methods_for(args)
        args.dataset_names = _names(
            args.datasets, quick.get("datasets") or self.default_datasets or list(datasets), datasets, "dataset", parser
        )
        args.method_names = _names(
            args.methods, quick.get("methods") or self.default_methods or list(methods), methods, "method", parser
        )
        if self.cross_validated:
            args.repeats = args.repeats or quick.get("repeats") or self.protocol.repeats
            args.folds = args.folds or quick.get("folds") or self.protocol.n_folds
        else:
            args.seed_list = [int(s) for s in args.seeds.split(",")] if args.seeds else None
            args.rounds = args.rounds or quick.get("rounds") or self.protocol.rounds
        for method, module in self.optional.items():
            if method in args.method_names and importlib.util.find_spec(module) is None:
                args.method_names.remove(method)
                say(args, f"{method} is not installed: its column is left out (pip install {module})")
        if self.check:
            self.check(args, parser)
        return args

    def seeds_of(self, dataset: Dataset, args) -> list:
        if self.cross_validated:
            return list(range(min(args.repeats, dataset.repeats or args.repeats)))
        quick = self.quick.get("seeds") if args.quick else None
        return list(args.seed_list or quick or dataset.seeds or self.protocol.seeds)

    def units(self, args) -> list:
        """Every unit asked for, in the order they run: rounds, then seeds (repeats), datasets, folds, methods."""
        datasets = self.datasets_for(args)
        out = []
        rounds = 1 if self.cross_validated else args.rounds
        seeds = sorted({s for name in args.dataset_names for s in self.seeds_of(datasets[name], args)})
        for r in range(rounds):
            for seed in seeds:
                for name in args.dataset_names:
                    if seed not in self.seeds_of(datasets[name], args):
                        continue
                    shift = r % len(args.method_names)
                    methods = args.method_names[shift:] + args.method_names[:shift]
                    methods = [m for m in methods if not self.applies or self.applies(m, name, args)]
                    folds = range(args.folds) if self.cross_validated else [None]
                    out += [Unit(name, m, seed, r, fold) for fold in folds for m in methods]
        return out

    def config(self, args) -> dict:
        """The readable settings of a run that change its results (``--quick``, the protocol, :attr:`settings`):
        every record's ``config``, and part of the settings it is bound to."""
        return {
            "quick": bool(args.quick),
            **self.protocol.config(args),
            **(self.settings(args) if self.settings else {}),
        }

    # -------------------------------------------------------------------------------------- running
    def main(self, argv=None) -> int:
        """Run the study (``python -m benchmarks.<name>``); returns the exit status: 1 if a unit failed, else 0."""
        args = self.parse(argv)
        _LOADED.clear()  # data loaded by an earlier run of this process, with other options, is not reused
        args.out.mkdir(parents=True, exist_ok=True)
        store = ResultStore(args.out / "results.jsonl")
        store.repair()  # a record cut short by the last run is removed once, not warned about at every read
        units = self.units(args)
        bindings = Bindings(self, args, keep_data=not self.in_fresh_processes(args))
        current = self.bound(store.records(), units, bindings)

        def done(unit):
            status = current.get(unit.key(self.cross_validated), {}).get("status")
            return status == "ok" or (status is not None and not args.retry_failed)

        todo = [u for u in units if not done(u)]
        pending, skipped = (todo, []) if args.report_only else ([], [])
        for i, unit in enumerate([] if args.report_only else todo, 1):
            why = self.skip(self.context(args, unit), list(current.values())) if self.skip else None
            if why:
                skipped.append((unit, why))
                say(args, f"[{i}/{len(todo)}] {unit}: skipped, {why}")
                continue
            record = self.record(args, unit, bindings)
            store.append(record)
            current[record["key"]] = record
            say(args, f"[{i}/{len(todo)}] {unit}: {_outcome(record)}")
        results = self.results(args, units, current, pending, skipped)
        self.write(results)
        return 1 if any(r.get("status") == "failed" for r in results.failed) else 0

    def in_fresh_processes(self, args) -> bool:
        """Whether this run fits each unit in a spawned process of its own."""
        return self.fresh_process and not args.in_process

    def record(self, args, unit: Unit, bindings: Bindings) -> dict:
        """Fit and score ``unit`` and return its record (:func:`mddf.experiments.store.new_record`): ``ok``,
        ``refused`` (a ``ValueError``: the estimator refuses this data, too few rows of a class, ...) or
        ``failed``, bound to the unit's data and settings (:class:`Bindings`)."""
        cv, binding, results = self.cross_validated, None, {}
        try:
            binding = bindings(unit)  # loads the data (its hash) inside the try: a loading error is recorded
            if self.in_fresh_processes(args):
                results = in_fresh_process(run_unit, _module_of(self), args, unit)
            else:
                results = run_unit(self, args, unit)
            status, error = "ok", None
        except ValueError as exc:
            status, error = "refused", str(exc)[-2000:]
        except Exception as exc:  # noqa: BLE001  (recorded, and the study goes on)
            status, error = "failed", f"{type(exc).__name__}: {exc}"[-2000:]
        fields = {**unit.fields(cv), **self.datasets_for(args)[unit.dataset].fields, **results}
        fields.update(config=bindings.config, **bindings.learner(unit.method))
        fields = {k: v for k, v in fields.items() if k not in COMMON_FIELDS}
        return new_record(unit.key(cv), unit.dataset, unit.method, unit.seed, unit.fold, status=status, error=error,
                          binding=binding, **fields)  # fmt: skip

    def bound(self, records, units, bindings: Bindings) -> dict:
        """``{unit key: its latest record of the unit's data and settings}`` of ``records``: what this run resumes.

        Only the units with a record are bound (their data loaded for its hash); a unit whose data does not load
        resumes nothing, and says why when it runs. Records of other data or settings (another ``--quick``,
        another study writing to the same folder) are never read as this run's.
        """
        cv, keys = self.cross_validated, {r.get("key") for r in records}
        known = {}
        for unit in units:
            if unit.key(cv) in keys and unit.key(cv) not in known:
                try:
                    known[unit.key(cv)] = bindings(unit)
                except Exception:  # noqa: BLE001  (the unit runs, and its record says why)
                    continue
        return latest_bound(records, known)

    def results(self, args, units, latest, pending, skipped) -> Results:
        """The :class:`Results` of ``units``: the record of each in ``latest`` (:meth:`bound`, and what this run
        added), split into those that ran and the rest."""
        cv = self.cross_validated
        chosen = [latest[u.key(cv)] for u in units if u.key(cv) in latest]
        datasets = self.datasets_for(args)
        return Results(
            options=args,
            cross_validated=cv,
            datasets=list(args.dataset_names),
            methods=list(args.method_names),
            metrics={name: self.metrics_for(datasets[name]) for name in args.dataset_names},
            records=[r for r in chosen if r.get("status") == "ok"],
            failed=[r for r in chosen if r.get("status") != "ok"],
            pending=pending,
            skipped=skipped,
        )

    def recorded(self, argv=()) -> Results:
        """What ``--report-only`` with ``argv`` would table, read from ``--out`` without fitting or writing anything
        (the data of the units with a record is loaded for its hash, and not kept): for a study that reads
        another's results (a decision that needs both halves of a study)."""
        args = self.parse([*argv, "--report-only", "--quiet"])
        units = self.units(args)
        latest = self.bound(ResultStore(args.out / "results.jsonl").records(), units, Bindings(self, args))
        pending = [u for u in units if latest.get(u.key(self.cross_validated), {}).get("status") is None]
        return self.results(args, units, latest, pending, [])

    def context(self, args, unit) -> Context:
        return Context(self, args, self.datasets_for(args)[unit.dataset], unit.method, unit.seed, unit.round, unit.fold)

    def write(self, results: Results):
        args = results.options
        prov = command_provenance(self.name, args.argv)
        text = (self.table or default_table)(results)
        write_markdown(text, args.out / f"{self.report}.md", prov)
        rows = self.rows(results) if self.rows else None
        for stem, some in (rows if isinstance(rows, dict) else {self.report: rows}).items():
            if some:
                write_rows(some, args.out / f"{stem}.csv", prov)
        if self.figure and results.records:
            from mddf.experiments.figures import save_figure

            save_figure(self.figure(results), args.out, self.report, prov)
        if not args.quiet:
            print(text)


def main_by_flag(flag: str, when: Study, otherwise: Study):
    """The ``main`` of a module with two studies: ``when`` if ``flag`` is on the command line, else ``otherwise``
    (a selection by cross-validation on the training rows beside a test comparison, say)."""

    def main(argv=None) -> int:
        """Run the study the command line chooses; return its exit status."""
        given = sys.argv[1:] if argv is None else argv
        return (when if flag in given else otherwise).main(argv)

    return main


def _names(given, default, known, what, parser) -> list:
    names = [n.strip() for n in given.split(",") if n.strip()] if given else list(default)
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return names


def _module_of(study: Study) -> tuple:
    """Where a spawned process finds the study: its module and its report (a module may declare several)."""
    return f"benchmarks.{study.name}", study.report


def _outcome(record) -> str:
    if record["status"] != "ok":
        return (
            f"{record['status']}: " + (record.get("error") or "").splitlines()[0]
            if record.get("error")
            else record["status"]
        )
    shown = [f"{k} {record[k]:.4f}" for k in METRICS if isinstance(record.get(k), float)][:2]
    return ", ".join([*shown, *([f"fit {record['fit_s']:.1f}s"] if "fit_s" in record else [])]) or "done"


def command_provenance(name: str, argv) -> dict:
    """The provenance of a file a study writes now: ``python -m benchmarks.<name> <argv>``, commit, machine, date."""
    return provenance(command=shlex.join(["python", "-m", f"benchmarks.{name}", *map(str, argv)]))


def say(args, message: str):
    """A line of progress on stderr, unless ``--quiet``."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------ what a record is bound to
class Bindings:
    """What the units of one run are bound to (:class:`mddf.experiments.binding.Binding`), each hash made once.

    ``data_sha256``: the dataset's ``digest(ctx)``, else the hash of its loaded rows (every field of its
    :class:`Data`: :func:`mddf.experiments.binding.content_sha256`), once per dataset (per seed for a seeded
    one); with ``keep_data=False`` the rows are loaded for the hash and not kept (the units run in other
    processes, or the run only reads records). ``settings_sha256``: the hash of the run's :attr:`config`
    (:meth:`Study.config`) and of the method's :meth:`learner` settings.
    """

    def __init__(self, study: Study, args, keep_data: bool = False):
        self.study, self.args, self.keep_data = study, args, keep_data
        self.config = study.config(args)
        self._data, self._learners = {}, {}

    def learner(self, method: str) -> dict:
        """``{"learner": its settings}`` (:attr:`Study.learner_settings`), or {} for a study without them."""
        if self.study.learner_settings is None:
            return {}
        if method not in self._learners:
            self._learners[method] = self.study.learner_settings(method)
        return {"learner": self._learners[method]}

    def data_sha256(self, ctx: Context) -> str:
        """The sha256 of the data of ``ctx``'s dataset (and seed); what its loading raised, raised again for each
        of its units without loading it again."""
        key = (ctx.dataset.name, ctx.seed if ctx.dataset.seeded else None)
        if key not in self._data:
            try:
                if ctx.dataset.digest is not None:
                    self._data[key] = ctx.dataset.digest(ctx)
                else:
                    data = load_data(ctx) if self.keep_data else ctx.dataset.load(ctx)
                    self._data[key] = content_sha256(*(getattr(data, f.name) for f in data_fields(data)))
            except Exception as exc:
                self._data[key] = exc
        if isinstance(self._data[key], Exception):
            raise self._data[key]
        return self._data[key]

    def __call__(self, unit: Unit) -> Binding:
        """The :class:`~mddf.experiments.binding.Binding` of ``unit``."""
        settings = {"config": self.config, **self.learner(unit.method)}
        return Binding(self.data_sha256(self.study.context(self.args, unit)), settings_sha256(settings))


# ------------------------------------------------------------------------------------------ one unit
_LOADED: dict = {}


def load_data(ctx: Context) -> Data:
    """The dataset's rows for ``ctx`` (the last two kept during a run, so that a dataset is loaded once, not per
    method)."""
    key = (ctx.dataset.name, ctx.seed if ctx.dataset.seeded else None)
    if key not in _LOADED:
        while len(_LOADED) >= 2:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = ctx.dataset.load(ctx)
    return _LOADED[key]


def unit_rows(ctx: Context, data: Data):
    """``X, y, X_eval, y_eval`` of a unit: the split's, or its fold's of the training rows."""
    if ctx.fold is None:
        return data.X_train, data.y_train, data.X_test, data.y_test
    from sklearn.model_selection import KFold, StratifiedKFold

    splitter = StratifiedKFold if ctx.task == "classification" else KFold
    folds = splitter(ctx.options.folds, shuffle=True, random_state=ctx.seed).split(data.X_train, data.y_train)
    fit, held_out = list(folds)[ctx.fold]
    X, y = data.X_train, np.asarray(data.y_train)
    rows = X.iloc if hasattr(X, "iloc") else X
    return rows[fit], y[fit], rows[held_out], y[held_out]


def run_unit(study, args, unit) -> dict:
    """The fit and scores of one unit (``study``: the :class:`Study`, or its module and report in a fresh process)."""
    if isinstance(study, tuple):
        module, report = study
        found = vars(importlib.import_module(module)).values()
        study = next(s for s in found if isinstance(s, Study) and s.report == report)
    ctx = study.context(args, unit)
    ctx.rows = unit_rows(ctx, load_data(ctx))
    with threadpool_limits(limits=ctx.n_jobs) if study.limit_threads else nullcontext():
        return (study.fit or fit_and_score)(ctx, *ctx.rows)


def timed_fit(model, X, y, X_eval):
    """Fit ``model`` and predict ``X_eval``: ``(predicted, fit seconds, predict seconds)``, wall clock."""
    start = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(X_eval)
    return predicted, fit_s, time.perf_counter() - start


def scores(names, model, X_eval, y_eval, predicted) -> dict:
    """``{metric: value}`` of a fitted model on the evaluation rows (None where a metric cannot be computed)."""
    out, proba = {}, None
    for name in names:
        score, reads_proba, _ = METRICS[name]
        if reads_proba and proba is None:
            proba = model.predict_proba(X_eval)
        try:
            out[name] = float(score(y_eval, proba if reads_proba else predicted, model))
        except ValueError:  # a held-out class the model never saw, say
            out[name] = None
    return out


def fit_and_score(ctx: Context, X, y, X_eval, y_eval) -> dict:
    """The default unit: build the method's estimator, fit it, predict the evaluation rows, score them."""
    model = ctx.build()
    predicted, fit_s, predict_s = timed_fit(model, X, y, X_eval)
    record = {**scores(ctx.study.metrics_for(ctx.dataset), model, X_eval, y_eval, predicted)}
    record.update(fit_s=fit_s, predict_s=predict_s, n_train=len(y), n_test=len(y_eval))
    if ctx.study.describe:
        record.update(ctx.study.describe(model, ctx, record))
    return record


def in_fresh_process(function, *args):
    """``function(*args)`` in a spawned process of its own, for measurements.

    The process starts with nothing imported or compiled, so a fit's time, peak memory
    (``ru_maxrss``) and compiled code are its own, not those of the fits before it.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


# ------------------------------------------------------------------------------------------ tables
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


# ------------------------------------------------------------------------------------------ interleaved timing
def interleave(calls: dict, rounds: int = 1, *, offset: int = 0, clock=time.perf_counter):
    """Call every function of ``calls`` once per round, in turn, the order rotated by one each round.

    Round ``r`` starts with the function at position ``(r + offset) % len(calls)``, so that none always runs
    first. Returns ``(seconds, values)``: ``{name: [seconds of its call in each round]}`` and ``{name: the value
    its last call returned}``.
    """
    names = list(calls)
    seconds, values = {n: [] for n in names}, {}
    for r in range(rounds):
        shift = (r + offset) % len(names)
        for name in names[shift:] + names[:shift]:
            start = clock()
            values[name] = calls[name]()
            seconds[name].append(clock() - start)
    return seconds, values


def paired_ratios(seconds: dict, numerator: str, denominator: str) -> list:
    """Round by round, ``numerator``'s seconds over ``denominator``'s (:func:`interleave`'s first result)."""
    return [a / b for a, b in zip(seconds[numerator], seconds[denominator]) if b > 0]
