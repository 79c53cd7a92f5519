"""The time a sweep of ``mddf benchmark`` or ``mddf small-sample`` will take, said before it starts, and above
:data:`ADVICE_SECONDS` the cheaper settings with what they cost on the real-data suite, from the cost model
``cost_model.json`` (``python -m benchmarks.cost_model``; docs/benchmarks/estimate.md)."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .registry import learner_task

_MODEL = json.loads(Path(__file__).with_name("cost_model.json").read_text(encoding="utf-8"))
#: ``{(method, task): (a, b, c, d, median, largest)}``: a run's seconds on a table of ``rows`` rows, ``columns``
#: columns and ``outputs`` outputs (classes less one, at least one) are ``exp(a + b log rows + c log columns + d log
#: outputs)``, within ``median`` times that on half the suite's tables, ``largest`` at worst.
COEFFICIENTS = {(m, task): tuple(v) for task, by in _MODEL["coefficients"].items() for m, v in by.items()}
#: ``{task: {learner: the suite's mean accuracy (classification) or R² (regression)}}``.
SUITE_SCORES = _MODEL["suite_scores"]
#: ``{task: (design, its parameters, fit ratio, predict ratio, worst table's difference)}``.
CHEAPER_DESIGNS = {task: tuple(v) for task, v in _MODEL["cheaper_designs"].items()}

#: Above this estimate (seconds), the cheaper settings are named.
ADVICE_SECONDS = 600.0
#: The share of a table's rows the suite's measured runs trained on (5-fold cross-validation).
MEASURED_TRAIN_SHARE = 0.8
#: The estimator of each task that the cheaper design's parameters are for, and its name in the suite's scores.
ESTIMATORS = {"classification": "MDDFClassifier", "regression": "CascadeForestRegressor"}
SUITE_DEFAULTS = {"classification": "mdDF", "regression": "CascadeForest"}


@dataclass(frozen=True)
class TableSize:
    """What a run's cost depends on: the dataset's rows (``train_rows`` of them in its training split, all of them
    when it has none), columns, classes (0: a regression), task (of its learners: several targets' is one target's)
    and ``targets``, each counted as one model."""

    rows: int
    train_rows: int
    columns: int
    classes: int
    task: str
    targets: int = 1

    @classmethod
    def of(cls, ds, task: str) -> TableSize:
        """The size of a loaded dataset ``ds`` of ``task``."""
        targets, task = int(np.shape(ds.y)[1]) if np.ndim(ds.y) == 2 else 1, learner_task(task)
        classes = 0 if task == "regression" else 2 if targets > 1 else int(ds.n_classes)
        return cls(len(ds.y), len(ds.y_train), int(ds.X_train.shape[1]), classes, task, targets)


def run_seconds(method: str, task: str, train_rows: float, columns: int, classes: int) -> float | None:
    """The model's seconds of one run (fit and prediction) of ``method`` training on ``train_rows`` rows of
    ``columns`` columns and ``classes`` classes (0: a regression), on two threads; None for a method it has no
    measurements of."""
    coefficients = COEFFICIENTS.get((method, task))
    if coefficients is None:
        return None
    a, b, c, d = coefficients[:4]
    rows = max(train_rows, 1.0) / MEASURED_TRAIN_SHARE
    outputs = max(1, classes - 1)
    return math.exp(a + b * math.log(rows) + c * math.log(max(columns, 1)) + d * math.log(outputs))


@dataclass(frozen=True)
class Estimate:
    """A sweep's estimated wall seconds (its runs' seconds over the ``workers``), the runs it counts, the seconds of
    each ``(method, task)``, and the methods it could not count (with their runs)."""

    seconds: float
    runs: int
    workers: int
    by_method: dict
    unmodelled: dict


def estimate(tasks, sizes: dict, workers: int = 1) -> Estimate:
    """The :class:`Estimate` of the runs ``tasks`` (:class:`~.runbook.Task`) on the datasets ``sizes`` (``{name:
    TableSize}``), ``workers`` at a time. A run of a cross-validation trains on ``k - 1`` of its ``k`` folds, a run of
    a split on its training rows; either times its ``fraction``."""
    by_method, unmodelled, runs = {}, {}, 0
    for task in tasks:
        size = sizes[task.dataset]
        train = size.rows * (task.n_folds - 1) / task.n_folds if task.n_folds else size.train_rows
        seconds = None
        if task.protocol == "practitioner":  # several targets: one model of its kind per target
            seconds = run_seconds(task.method, size.task, train * task.fraction, size.columns, size.classes)
        if seconds is None:
            unmodelled[task.method] = unmodelled.get(task.method, 0) + 1
            continue
        key = (task.method, size.task)
        by_method[key] = by_method.get(key, 0.0) + seconds * size.targets
        runs += 1
    return Estimate(sum(by_method.values()) / max(workers, 1), runs, max(workers, 1), by_method, unmodelled)


def duration(seconds: float) -> str:
    """``"40 s"``, ``"12 min"``, ``"3.5 h"``."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def describe(est: Estimate) -> str:
    """The estimate on one line: the time, the runs, the largest method's share and the model's error on the suite."""
    if not est.runs:
        return f"no estimate of the time: no measured model of {', '.join(est.unmodelled)}"
    (method, task), seconds = max(est.by_method.items(), key=lambda item: item[1])
    median, worst = COEFFICIENTS[(method, task)][4:]
    text = f"estimated time: about {duration(est.seconds)} for {est.runs} runs on {est.workers} worker(s)"
    text += f" ({method}: {duration(seconds / est.workers)} of it), from the real-data suite's measured fits"
    text += f" ({method}'s: within {median:.1f}x on half the suite's tables, {worst:.1f}x at worst)"
    if est.unmodelled:
        text += "; not counted: " + ", ".join(f"{m} ({n} runs)" for m, n in est.unmodelled.items())
    return text


def cheaper(tasks, sizes: dict, workers: int = 1) -> list[str]:
    """The cheaper settings of a sweep estimated above :data:`ADVICE_SECONDS`, one line each with its estimate and
    what it costs on the suite (none below)."""
    full = estimate(tasks, sizes, workers)
    if full.seconds <= ADVICE_SECONDS:
        return []
    lines = []
    seeds = sorted({t.seed for t in tasks})
    if len(seeds) > 1:
        fewer = estimate([t for t in tasks if t.seed == seeds[0]], sizes, workers)
        lines.append(f"--seeds 1: about {duration(fewer.seconds)} (wider standard errors; the same accuracies)")
    folds = {t.n_folds for t in tasks if t.n_folds}
    if folds and max(folds) > 3:
        three = estimate(
            [dataclasses.replace(t, n_folds=3) for t in tasks if t.fold is None or t.fold < 3], sizes, workers
        )
        lines.append(f"--folds 3: about {duration(three.seconds)} (each run trains on 2/3 of the rows instead of "
                     "(k-1)/k: the scores of every method shift alike)")  # fmt: skip
    if any(method == "mdDF" for method, _ in full.by_method):
        lines += _without_mddf(tasks, sizes, workers)
    return lines


def _without_mddf(tasks, sizes, workers) -> list[str]:
    """The two ways of paying less for mdDF: leaving it out (``--methods``), or its cheaper design in Python."""
    lines, task = [], next(sizes[t.dataset].task for t in tasks if t.method == "mdDF")
    metric, scale, unit, percent = ("accuracy", 100, " points", "%") if task == "classification" else ("R²", 1, "", "")
    scores = SUITE_SCORES[task]
    default = scores[SUITE_DEFAULTS[task]]
    if others := sorted({t.method for t in tasks} - {"mdDF", "Baseline"}):
        rest = estimate([t for t in tasks if t.method != "mdDF"], sizes, workers)
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
    """Say (``say``) the estimate of the runs of ``tasks`` not yet done in ``store`` and, above
    :data:`ADVICE_SECONDS`, the cheaper settings; ``workers`` None: on a cluster (the estimate is one worker's)."""
    from .runbook import bound_records

    if say is None:
        return
    done = {r["key"] for r in bound_records(tasks, store) if r.get("status") == "ok"}
    if not (pending := [t for t in tasks if t.key not in done]):
        return
    est = estimate(pending, sizes, workers or 1)
    say(describe(est) + ("" if workers else "; a cluster divides it by its workers"))
    for line in cheaper(pending, sizes, workers or 1):
        say(f"  cheaper: {line}")
