"""The plan of a sweep (:func:`plan`, :class:`Task`) and its book while it executes (:class:`RunBook`)."""

from __future__ import annotations

import itertools
import math
import sys
import time
from dataclasses import dataclass, field
from functools import cached_property

from .defaults import DEEPBOOST_N_FOLDS, protocol_of
from .provenance import one_line
from .registry import MethodSpec
from .store import Binding, ResultStore, latest_bound, matches, new_record, run_key

BUDGET_METHOD = "mdDF"
#: The seconds a run record holds for its own work, by part (older records hold ``predict_proba_seconds`` apart);
#: with the warm-up's (compilation), :data:`RUN_SECONDS`.
SECONDS = {
    "total": ("total_seconds",),
    "selection": ("selection_seconds",),
    "fit": ("train_seconds",),
    "predict": ("predict_seconds", "predict_proba_seconds"),
}
RUN_SECONDS = ("compile_seconds", "total_seconds", *SECONDS["predict"])


@dataclass(frozen=True)
class Task:
    """One planned run."""

    dataset: str
    method: str
    seed: int
    fold: int | None = None
    fraction: float = 1.0
    profile: str = "paper"
    tree_budget: bool = False
    protocol: str = "paper"
    n_folds: int | None = None  # folds of the practitioner protocol's cross-validation
    binding: Binding | None = field(default=None, compare=False)
    metric: str | None = field(default=None, compare=False)  #: the ranking metric its progress line shows

    @cached_property
    def key(self) -> str:
        return run_key(self.dataset, self.method, self.seed, self.fold, self.fraction, self.profile, self.protocol)

    @cached_property
    def budget_key(self) -> str | None:
        """Key of the mdDF run whose layers set this run's number of trees."""
        if not self.tree_budget:
            return None
        return run_key(self.dataset, BUDGET_METHOD, self.seed, self.fold, self.fraction, self.profile, self.protocol)

    @property
    def rows(self) -> tuple:
        """The rows it trains and tests on: its dataset, seed, fold and fraction."""
        return self.dataset, self.seed, self.fold, self.fraction

    @property
    def label(self) -> str:
        fold = [f"fold {self.fold}"] if self.fold is not None else []
        share = [f"{self.fraction:g} of train"] if self.fraction != 1.0 else []
        return " / ".join([self.dataset, self.method, f"seed {self.seed}", *fold, *share])


def inapplicable(spec: MethodSpec, n_classes: int, image_shape, task: str = "classification") -> str | None:
    """Why ``spec`` does not run on such a dataset (``"binary only"``, ``"images only"``, ...), None when it does."""
    if task not in spec.tasks:
        return f"not for {task}"
    if spec.binary_only and n_classes != 2:
        return "binary only"
    return "images only" if spec.image_only and image_shape is None else None


def plan(datasets, specs, seeds, *, n_classes, image_shapes=None, profile="paper", fractions=(1.0,), protocol="paper",
         n_folds=None, tasks=None, bindings=None, metrics=None) -> list[Task]:  # fmt: skip
    """Every run of ``specs`` x ``datasets`` x ``seeds`` (x folds x fractions) where a method applies, mdDF first;
    ``bindings[(dataset, method)]`` its :class:`~.store.Binding`, ``metrics[dataset]`` its ranking metric."""
    image_shapes = image_shapes or {}
    n_folds, tasks, bindings, metrics = n_folds or {}, tasks or {}, bindings or {}, metrics or {}
    planned = []
    for dataset in datasets:
        k = n_folds.get(dataset)
        if protocol == "practitioner":
            folds = range(k) if k else [None]
        else:
            folds = range(DEEPBOOST_N_FOLDS) if protocol_of(dataset) == "deepboost" else [None]
        task = tasks.get(dataset, "classification")
        k = k if protocol == "practitioner" else None
        for seed, fraction, fold, spec in itertools.product(seeds, fractions, folds, specs):
            if not inapplicable(spec, n_classes[dataset], image_shapes.get(dataset), task):
                binding = bindings.get((dataset, spec.name))
                args = (int(seed), fold, float(fraction), profile, spec.tree_budget, protocol, k, binding)
                planned.append(Task(dataset, spec.name, *args, metrics.get(dataset)))
    return planned


def failure_record(task: Task, error: str, **extra) -> dict:
    """The ``error`` record of a run that produced no record of its own (its process or worker died)."""
    shown = task.protocol if task.protocol != "paper" else protocol_of(task.dataset)
    settings = {"fraction": task.fraction, "profile": task.profile, "protocol": shown}
    return new_record(
        task.key, task.dataset, task.method, task.seed, task.fold, status="error", error=error, binding=task.binding,
        **settings, **extra,
    )  # fmt: skip


def unfinished(tasks, store: ResultStore) -> list[dict]:
    """The latest records of the runs of ``tasks`` not ``ok``, in plan order (an ``error`` one for a run without)."""
    bound = latest_bound(store.records(), {t.key: t.binding for t in tasks})
    none = "no result was recorded for this run"
    records = (bound.get(task.key) or failure_record(task, none) for task in dict.fromkeys(tasks))
    return [record for record in records if record.get("status") != "ok"]


def report(tasks, store: ResultStore, notes=()) -> list[dict]:
    """Say on stderr how the runs of ``tasks`` ended, then each not ``ok``; return those (:func:`unfinished`)."""
    not_ok = unfinished(tasks, store)
    skipped = [r for r in not_ok if r.get("status") == "skipped"]
    counts = [f"{len(tasks) - len(not_ok)} of {len(tasks)} runs ok"]
    counts += [f"{len(not_ok) - len(skipped)} failed"] if len(not_ok) > len(skipped) else []
    counts += [f"{len(skipped)} skipped (dataset files missing where they ran)"] if skipped else []
    print(f"summary: {', '.join([*counts, *notes])}", file=sys.stderr)
    for rec in not_ok:
        message = one_line(rec.get("message", ""))[:200]
        why = f"skipped run: {rec['key']}: {message}" if rec in skipped else f"failed: {rec['key']}: {rec.get('error')}"
        print(why, file=sys.stderr)
    return not_ok


def bound_records(tasks, store: ResultStore) -> list[dict]:
    """The latest record of each run of ``tasks`` obtained on their data and settings, in plan order."""
    bound = latest_bound(store.records(), {t.key: t.binding for t in tasks})
    return [bound[task.key] for task in dict.fromkeys(tasks) if task.key in bound]


def run_seconds(record: dict, part: str | None = None) -> float:
    """The seconds of a run's ``part`` of its work (:data:`SECONDS`; None: :data:`RUN_SECONDS`), a missing one 0."""
    return float(sum(record.get(key) or 0.0 for key in (SECONDS[part] if part else RUN_SECONDS)))


def describe(record: dict, metric: str | None = None) -> str:
    """One line summarising a finished run: its ``metric`` (default: accuracy, or R²), its seconds and size."""
    from .metrics import METRICS

    status = record.get("status")
    if status == "skipped":
        return f"skipped: {record.get('message', '')}"
    if status != "ok":
        return f"ERROR {record.get('error', '')}"
    shown = METRICS[metric or ("accuracy" if record.get("accuracy") is not None else "r2")]
    value = shown.scale * (record.get(shown.name) if record.get(shown.name) is not None else float("nan"))
    text = f"{shown.label} {value:.2f}%" if shown.scale == 100 else f"{shown.label} {value:.4f}"
    text += f"  fit {record.get('train_seconds', 0):.1f}s"
    if record.get("selection_seconds"):
        text += f" + selection {record['selection_seconds']:.1f}s"
    if record.get("compile_seconds"):
        text += f" (compile {record['compile_seconds']:.1f}s apart)"
    shown = (("peak_rss_mb", "  peak {:.0f} MB"), ("n_layers", "  layers {}"), ("trees_k", "  k {}"))
    return text + "".join(form.format(record[key]) for key, form in shown if record.get(key) is not None)


class RunBook:
    """The runs of a sweep as they execute: those ``ok`` in ``store`` left out, a tree-budget run waiting for its mdDF
    run, each record appended as it arrives and, with ``progress``, said (``log``) under a bar on a terminal."""

    def __init__(self, tasks, store: ResultStore, *, progress=True, log=print, **run_options):
        from tqdm.auto import tqdm

        self.store = store
        store.repair()  # a record cut short by the last run is removed once, not warned about at every read
        self.run_options = {"n_jobs": -1, "registry": None, "download": False, **run_options}
        if not self.run_options.get("user_data"):
            self.run_options.pop("user_data", None)
        self.latest = store.latest()
        self.pending = [t for t in dict.fromkeys(tasks) if not self._done(t)]
        self.unfinished = {t.key for t in self.pending}  # pending or running: a tree budget not yet known
        self.bindings = {t.key: t.binding for t in tasks}
        self.running: dict = {}  # task -> (handle of the executor, start time)
        self.seconds: dict = {}  # method -> recorded seconds of its ok runs in this sweep (next_ready's order)
        self.written: list[dict] = []
        self.interactive = progress and sys.stderr.isatty()
        bar_format = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]"
        layout = dict(file=sys.stderr, unit="run", dynamic_ncols=True, bar_format=bar_format)
        self.bar = tqdm(total=len(self.pending), disable=not self.interactive, **layout)
        self.say = log if log is not print else lambda text: print(text, file=sys.stderr, flush=True)
        if self.interactive and log is print:
            self.say = lambda text: tqdm.write(text, file=sys.stderr)  # above the bar
        self.say = self.say if progress else None
        done = len(tasks) - len(self.pending)
        if progress and done:
            self.say(f"resuming: {done} of {len(tasks)} runs already finished in {store.path}")

    def _done(self, task: Task) -> bool:
        record = self.latest.get(task.key)
        return record is not None and record.get("status") == "ok" and matches(record, task.binding)

    def _budget_matches(self, task: Task, budget: dict) -> bool:
        """Whether the mdDF record ``budget`` may set ``task``'s tree budget (bound as planned, or on the same data)."""
        if task.budget_key in self.bindings:
            return matches(budget, self.bindings[task.budget_key])
        if task.binding is None:
            return True
        planned = (task.binding.data_sha256, task.binding.test_sha256)
        return (budget.get("data_sha256"), budget.get("test_sha256")) == planned

    def next_ready(self) -> Task | None:
        """The next pending run whose tree-budget run has finished (None if all wait): among the first ready rows'
        (:attr:`Task.rows`), the one whose method took longest so far (untimed first)."""
        ready, rows = [], None
        for task in self.pending:
            if rows is not None and task.rows != rows:
                break
            if task.budget_key is None or task.budget_key not in self.unfinished:
                rows = task.rows
                ready.append(task)
        return max(ready, key=self._expected_seconds) if ready else None

    def _expected_seconds(self, task: Task) -> float:
        """The mean recorded seconds of ``task``'s method's runs finished in this sweep (infinite before any)."""
        seconds = self.seconds.get(task.method)
        return sum(seconds) / len(seconds) if seconds else math.inf

    def start(self, task: Task, handle=None) -> None:
        self.pending.remove(task)
        self.running[task] = (handle, time.perf_counter())

    def kwargs_for(self, task: Task) -> dict:
        """Keyword arguments of :func:`~.runner.run_one` for ``task``, with its tree budget."""
        kwargs = {name: getattr(task, name) for name in ("dataset", "method", "seed", "fold", "fraction", "profile")}
        kwargs.update(self.run_options)
        if task.protocol != "paper":
            kwargs.update(protocol=task.protocol, n_folds=task.n_folds)
        if task.binding is not None:
            kwargs["binding"] = task.binding
        budget = self.latest.get(task.budget_key) if task.budget_key else None
        if budget and not self._budget_matches(task, budget):
            budget = None  # the mdDF run of other data or settings sets no budget
        if budget and budget.get("status") == "ok" and budget.get("n_layers"):
            kwargs.update(trees_k=int(budget["n_layers"]), trees_per_layer=budget.get("trees_per_layer"))
            kwargs["trees_k_source"] = f"layers kept by mdDF in run {task.budget_key}"
        return kwargs

    def finish(self, task: Task, record: dict) -> None:
        """Append the run's record to the store (the only writer of the file) and report it."""
        self.running.pop(task, None)
        self.unfinished.discard(task.key)
        if record.get("status") == "ok":
            self.seconds.setdefault(task.method, []).append(run_seconds(record))
        self.store.append(record)
        self.latest[task.key] = record
        self.written.append(record)
        self.bar.update(1)
        if self.say:
            self.say(f"{task.label}: {describe(record, task.metric)}")

    def show(self, description: str) -> None:
        """Describe the runs in progress on the bar (on a terminal only: a log gets one line per run)."""
        if self.interactive:
            self.bar.set_description_str(description, refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        self.bar.close()
