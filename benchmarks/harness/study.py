"""The study: its command line, its units, and running them into ``<out>/results.jsonl`` (:class:`Study`)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mddf.experiments.provenance import provenance
from mddf.experiments.store import BINDING_FIELDS, ResultStore, latest_bound, new_record
from mddf.experiments.tables import write_markdown, write_rows

from . import units as unit_work
from .declarations import (
    CLASSIFICATION,
    METRICS,
    REGRESSION,
    Context,
    CrossValidation,
    Dataset,
    Results,
    TrainTest,
    Unit,
    checkpoints,
)
from .report import default_table

#: The fields :func:`~mddf.experiments.store.new_record` puts first in every record, in order.
COMMON_FIELDS = ("key", "dataset", "method", "seed", "fold", "status", "error", *BINDING_FIELDS)


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
        unit_work.LOADED.clear()  # data loaded by an earlier run of this process, with other options, is not reused
        args.out.mkdir(parents=True, exist_ok=True)
        store = ResultStore(args.out / "results.jsonl")
        store.repair()  # a record cut short by the last run is removed once, not warned about at every read
        units = self.units(args)
        bindings = unit_work.Bindings(self, args, keep_data=not self.in_fresh_processes(args))
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
            if record["status"] == "ok":
                checkpoints(self, args, unit).path.unlink(missing_ok=True)
            current[record["key"]] = record
            say(args, f"[{i}/{len(todo)}] {unit}: {_outcome(record)}")
        results = self.results(args, units, current, pending, skipped)
        self.write(results)
        return 1 if any(r.get("status") == "failed" for r in results.failed) else 0

    def in_fresh_processes(self, args) -> bool:
        """Whether this run fits each unit in a spawned process of its own."""
        return self.fresh_process and not args.in_process

    def record(self, args, unit: Unit, bindings: unit_work.Bindings) -> dict:
        """Fit and score ``unit`` and return its record (:func:`mddf.experiments.store.new_record`): ``ok``,
        ``refused`` (a ``ValueError``: the estimator refuses this data, too few rows of a class, ...) or
        ``failed``, bound to the unit's data and settings (:class:`~.units.Bindings`)."""
        cv, binding, results = self.cross_validated, None, {}
        try:
            binding = bindings(unit)  # loads the data (its hash) inside the try: a loading error is recorded
            if self.in_fresh_processes(args):
                results = unit_work.in_fresh_process(run_found_unit, _module_of(self), args, unit)
            else:
                results = unit_work.run_unit(self, args, unit)
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

    def bound(self, records, units, bindings: unit_work.Bindings) -> dict:
        """``{unit key: its latest record of the unit's data and settings}`` of ``records``: what this run resumes.

        Only the units with a record are bound (their data loaded for its hash); a unit whose data does not load
        resumes nothing, and says why when it runs. Records of other data or settings (another ``--quick``,
        another study writing to the same folder) are never read as this run's.
        """
        cv, keys = self.cross_validated, {r.get("key") for r in records}
        known, unread = {}, {}
        for unit in units:
            if unit.key(cv) in keys and unit.key(cv) not in known:
                try:
                    known[unit.key(cv)] = bindings(unit)
                except Exception as exc:  # noqa: BLE001  (the unit runs, and its record says why)
                    unread.setdefault(unit.dataset, exc)
        for dataset, exc in unread.items():  # said even with --quiet: a table would otherwise miss them silently
            print(f"{self.name}: the records of {dataset} are not read: its data did not load ({exc})", file=sys.stderr)
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
        latest = self.bound(ResultStore(args.out / "results.jsonl").records(), units, unit_work.Bindings(self, args))
        pending = [u for u in units if latest.get(u.key(self.cross_validated), {}).get("status") is None]
        return self.results(args, units, latest, pending, [])

    def context(self, args, unit) -> Context:
        return Context(self, args, self.datasets_for(args)[unit.dataset], unit.method, unit.seed, unit.round, unit.fold)

    def write(self, results: Results):
        args = results.options
        prov = command_provenance(self.name, args.argv)
        text = (self.table or default_table)(results)
        write_markdown(text, args.out / f"{self.report}.md", prov)
        written = [f"{self.report}.md"]
        rows = self.rows(results) if self.rows else None
        for stem, some in (rows if isinstance(rows, dict) else {self.report: rows}).items():
            if some:
                write_rows(some, args.out / f"{stem}.csv", prov)
                written.append(f"{stem}.csv")
        if self.figure and results.records:
            from mddf.experiments.figures import save_figure

            written += [path.name for path in save_figure(self.figure(results), args.out, self.report, prov)]
        if not args.quiet:
            print(text)
            print(f"wrote {', '.join(written)} in {args.out}")


def main_by_flag(flag: str, when, otherwise):
    """The ``main`` of a module with two studies: ``when`` if ``flag`` is on the command line, else ``otherwise``
    (a selection by cross-validation on the training rows beside a test comparison, say); each a :class:`Study`, or
    the ``main`` of another choice, for a module with more."""

    def main(argv=None) -> int:
        """Run the study the command line chooses; return its exit status."""
        given = sys.argv[1:] if argv is None else argv
        chosen = when if flag in given else otherwise
        return (chosen.main if isinstance(chosen, Study) else chosen)(argv)

    return main


def _names(given, default, known, what, parser) -> list:
    names = [n.strip() for n in given.split(",") if n.strip()] if given else list(default)
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return names


def run_found_unit(where: tuple, args, unit) -> dict:
    """:func:`~.units.run_unit` of the study ``where`` names, ``(module, report)`` (:func:`_module_of`): what a
    spawned process runs, finding the study by importing its module."""
    found = vars(importlib.import_module(where[0])).values()
    study = next(s for s in found if isinstance(s, Study) and s.report == where[1])
    return unit_work.run_unit(study, args, unit)


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
