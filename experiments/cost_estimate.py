"""The time a sweep will take, said before it starts, and above :data:`ADVICE_SECONDS` the cheaper settings, from the
cost model ``cost_model.json`` (``python -m benchmarks.cost_model``; docs/benchmarks/estimate.md)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mddf.trees import uncompiled_kinds

from .registry import learner_task

_MODEL = json.loads(Path(__file__).with_name("cost_model.json").read_text(encoding="utf-8"))
#: ``{(method, group): (a, b, c, d, median, largest, fewest)}`` (``group``: a task of the practitioner protocol, or
#: ``"paper"``): a run training on ``rows`` rows (``fewest`` at least) of ``columns`` columns and ``outputs`` outputs
#: takes ``exp(a + b log rows + c log columns + d log outputs)`` s, within ``median`` times that on half its tables.
COEFFICIENTS = {(m, group): tuple(v) for group, by in _MODEL["coefficients"].items() for m, v in by.items()}
FIRST_USE = _MODEL["first_use"]  #: ``{kind: seconds}`` numba compiles on a first fit of that kind of input
#: ``{task: {learner: the suite's mean accuracy (classification) or R² (regression)}}``.
SUITE_SCORES = _MODEL["suite_scores"]
#: ``{task: (design, its parameters, fit ratio, predict ratio, worst table's difference)}``.
CHEAPER_DESIGNS = {task: tuple(v) for task, v in _MODEL["cheaper_designs"].items()}
ADVICE_SECONDS = 600.0  #: Above this estimate (seconds), the cheaper settings are named.
#: The estimator of each task that the cheaper design's parameters are for, and its name in the suite's scores.
ESTIMATORS = {"classification": "MDDFClassifier", "regression": "CascadeForestRegressor"}
SUITE_DEFAULTS = {"classification": "mdDF", "regression": "CascadeForest"}
TREE_CODE = ("mdDF", "gcForest")  #: the methods (by name's start) whose fits run mddf's tree code: the cascades


@dataclass(frozen=True)
class TableSize:
    """What a run's cost depends on: the dataset's rows (``train_rows`` in its training split), columns, classes (0: a
    regression), its learners' task, ``targets`` (a model each) and ``kinds`` of input (the first use's compilation)."""

    rows: int
    train_rows: int
    columns: int
    classes: int
    task: str
    targets: int = 1
    kinds: tuple = ("numeric",)

    @classmethod
    def of(cls, ds, task: str) -> TableSize:
        """The size of a loaded dataset ``ds`` of ``task``."""
        targets, task = int(np.shape(ds.y)[1]) if np.ndim(ds.y) == 2 else 1, learner_task(task)
        classes = 0 if task == "regression" else 2 if targets > 1 else int(ds.n_classes)
        kinds = ("regression" if task == "regression" else "numeric",)
        kinds += ("categorical",) * bool(np.any(getattr(ds, "categorical_mask", None)))
        kinds += ("missing",) * bool(np.isnan(np.asarray(ds.X_train, dtype=float)).any())
        return cls(len(ds.y), len(ds.y_train), int(ds.X_train.shape[1]), classes, task, targets, kinds)


def run_seconds(method: str, group: str, train_rows: float, columns: int, classes: int) -> float | None:
    """The modelled seconds of one run of ``method`` of ``group`` on a table of this size, on two threads, or None."""
    if (line := COEFFICIENTS.get((method, group))) is None:
        return None
    logs = np.log([max(train_rows, line[6]), max(columns, 1), max(classes - 1, 1)])
    return float(np.exp(line[0] + np.dot(line[1:4], logs)))


@dataclass(frozen=True)
class Estimate:
    """A sweep's estimated wall seconds, the runs it counts, each ``(method, group)``'s seconds, the methods it cannot
    count, and the first use's ``compile`` of the ``cold`` kinds."""

    seconds: float
    runs: int
    workers: int
    by_method: dict
    unmodelled: dict
    compile: float = 0.0
    cold: tuple = ()


def estimate(tasks, sizes: dict, workers: int = 1, cold=()) -> Estimate:
    """The :class:`Estimate` of ``tasks`` on ``sizes`` (``{name: TableSize}``), numba's cache lacking ``cold``."""
    by_method, unmodelled, runs, kinds = {}, {}, 0, set()
    for task in tasks:
        size = sizes[task.dataset]
        train = size.rows * (task.n_folds - 1) / task.n_folds if task.n_folds else size.train_rows
        group = size.task if task.protocol == "practitioner" else "paper"
        if (seconds := run_seconds(task.method, group, train * task.fraction, size.columns, size.classes)) is None:
            unmodelled[task.method] = unmodelled.get(task.method, 0) + 1
            continue
        by_method[task.method, group] = by_method.get((task.method, group), 0.0) + seconds * size.targets
        runs += 1
        kinds.update(size.kinds if task.method.startswith(TREE_CODE) else ())
    need = (kinds | {"numeric"}) & set(cold) if kinds & set(cold) else set()  # a first use compiles numeric's too
    cold = tuple(k for k in FIRST_USE if k in need)
    compile_seconds, workers = sum(FIRST_USE[k] for k in cold), max(workers, 1)
    seconds = sum(by_method.values()) / workers + compile_seconds + _MODEL["fixed_seconds"] * bool(runs)
    return Estimate(seconds, runs, workers, by_method, unmodelled, compile_seconds, cold)


def duration(seconds: float) -> str:
    """``"40 s"``, ``"12 min"``, ``"3.5 h"``."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def describe(est: Estimate) -> str:
    """The estimate on one line: time, runs, the largest method's share and error on its tables, the compilation."""
    if not est.runs:
        return f"no estimate of the time: no measured model of {', '.join(est.unmodelled)}"
    (method, group), seconds = max(est.by_method.items(), key=lambda item: item[1])
    median, worst = COEFFICIENTS[(method, group)][4:6]
    text = f"estimated time: about {duration(est.seconds)} for {est.runs} runs on {est.workers} worker(s)"
    text += f" ({method}: {duration(seconds / est.workers)} of it), from measured runs ({method}'s: "
    text += f"within {median:.1f}x on half its tables, {worst:.1f}x at worst)" if median else "one table measured)"
    if est.cold:
        text += f"; with numba's first compilation ({', '.join(est.cold)} input): {duration(est.compile)}"
    if est.unmodelled:
        text += "; not counted: " + ", ".join(f"{m} ({n} runs)" for m, n in est.unmodelled.items())
    return text


def cheaper(tasks, sizes: dict, workers: int = 1, cold=()) -> list[str]:
    """The cheaper settings of a sweep estimated above :data:`ADVICE_SECONDS` (:func:`estimate`'s arguments)."""
    full = estimate(tasks, sizes, workers, cold)
    if full.seconds <= ADVICE_SECONDS:
        return []
    lines = []
    seeds = sorted({t.seed for t in tasks})
    if len(seeds) > 1:
        fewer = estimate([t for t in tasks if t.seed == seeds[0]], sizes, workers, cold)
        lines.append(f"--seeds 1: about {duration(fewer.seconds)} (wider standard errors; the same accuracies)")
    folds = {t.n_folds for t in tasks if t.n_folds}
    if folds and max(folds) > 3:
        three = [dataclasses.replace(t, n_folds=3) for t in tasks if t.fold is None or t.fold < 3]
        three = estimate(three, sizes, workers, cold)
        lines.append(f"--folds 3: about {duration(three.seconds)} (each run trains on 2/3 of the rows instead of "
                     "(k-1)/k: the scores of every method shift alike)")  # fmt: skip
    if any(method == "mdDF" and group != "paper" for method, group in full.by_method):
        lines += _without_mddf(tasks, sizes, workers, cold)
    return lines


def _without_mddf(tasks, sizes, workers, cold) -> list[str]:
    """The two ways of paying less for mdDF: leaving it out (``--methods``), or its cheaper design in Python."""
    lines, task = [], next(sizes[t.dataset].task for t in tasks if t.method == "mdDF")
    metric, scale, unit, percent = ("accuracy", 100, " points", "%") if task == "classification" else ("R²", 1, "", "")
    scores = SUITE_SCORES[task]
    default = scores[SUITE_DEFAULTS[task]]
    if others := sorted({t.method for t in tasks} - {"mdDF", "Baseline"}):
        rest = estimate([t for t in tasks if t.method != "mdDF"], sizes, workers, cold)
        shown = "".join(f", {m} {scale * scores[m]:.4g}{percent}" for m in others if m in scores)
        lines.append(f"--methods {','.join(others)}: about {duration(rest.seconds)} without mdDF (the suite's mean "
                     f"{metric}: mdDF {scale * default:.4g}{percent}{shown}; docs/benchmarks/price.md)")  # fmt: skip
    name, parameters, fit, predict, worst = CHEAPER_DESIGNS[task]
    worst = f" ({worst:+.3g}{unit} on its worst table)" if worst else ""
    lines.append(f"in Python, {ESTIMATORS[task]}({parameters}): {fit}x the fit and {predict}x the prediction of the "
                 f"default, {scale * (scores[name] - default):+.2g}{unit} of the suite's mean {metric}{worst} "
                 "(docs/benchmarks/price.md)")  # fmt: skip
    return lines


def announce(tasks, store, sizes: dict, workers: int | None, say) -> None:
    """Say (``say``) the estimate of the runs of ``tasks`` not done in ``store`` and, above :data:`ADVICE_SECONDS`, the
    cheaper settings; ``workers`` None: on a cluster."""
    from .runbook import bound_records

    if say is None:
        return
    done = {r["key"] for r in bound_records(tasks, store) if r.get("status") == "ok"}
    if not (pending := [t for t in tasks if t.key not in done]):
        return
    cold = tuple(uncompiled_kinds()) if any(t.method.startswith(TREE_CODE) for t in pending) else ()
    text = describe(estimate(pending, sizes, workers or 1, cold))
    say(text + ("" if workers else "; a cluster divides it by its workers"))
    for line in cheaper(pending, sizes, workers or 1, cold):
        say(f"  cheaper: {line}")
