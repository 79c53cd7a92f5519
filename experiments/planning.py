"""What the runners decide between loading the data and executing runs: folds, bindings, methods, ranking metric."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from .defaults import image_shape_of
from .metrics import DEFAULT_METRIC, METRICS, metrics_of
from .protocols import cv_splits, fold_count, split_run_data
from .registry import SEVERAL_TARGETS, BuildContext, learner_task, unavailable_reason
from .runner import task_of
from .store import Binding, dataset_sha256, method_settings, run_settings, settings_sha256, test_sha256
from .studies import OptionError, UsageError

MIN_REGRESSION_ROWS = 10  #: A regression's training fraction must leave at least this many rows.


#: Without ``--metric``, a classification whose smallest class holds under this share of an even split ranks by ROC AUC.
IMBALANCE = 0.4


def available(specs, task: str | None = None, *, asked=()) -> list:
    """The methods of ``specs`` that import and handle ``task``, the others said on stderr (one of ``asked`` that does
    not import: :class:`~.studies.OptionError`)."""
    kept = []
    for spec in specs:
        if (reason := unavailable_reason(spec, task or "classification")) and spec.name in asked:
            raise OptionError(f"--methods: {reason}")
        if reason is None and task is not None and task not in spec.tasks:
            reason = f"{spec.name} does not handle {'several targets' if task in SEVERAL_TARGETS else task}"
        if reason:
            print(f"left out: {reason}", file=sys.stderr)
        else:
            kept.append(spec)
    return kept


def metric_for(name, task: str) -> str:
    """The ranking metric: ``name`` (a :class:`UsageError` unless it is a ``task`` metric), else the task's default."""
    if name is None:
        return DEFAULT_METRIC[task]
    if task not in METRICS[name].tasks:
        raise UsageError(
            f"--metric {name} is not a {task} metric (choose among {', '.join(m.name for m in metrics_of(task))})"
        )
    return name


def ranking_metric(ds, name, log) -> str:
    """The metric that ranks the runs of ``ds``: ``name`` (:func:`metric_for`), else the task's default, but ROC AUC for
    an imbalanced classification (:data:`IMBALANCE`), said with ``log``."""
    from mddf.datasets.user_data import class_shares, percent

    task = task_of(ds)
    if name is not None or task != "classification":
        return metric_for(name, task)
    label, share = class_shares(ds)[-1]
    if share * ds.n_classes >= IMBALANCE:
        return metric_for(None, task)
    # ROC AUC needs every class among the test rows: a fixed test file without one ranks by balanced accuracy
    ranked = "roc_auc" if ds.y_test is None or len(np.unique(ds.y_test)) == ds.n_classes else "balanced_accuracy"
    log(f"{ds.name}: ranked by {METRICS[ranked].label}, as its smallest class, {str(label)!r}, holds "
        f"{percent(share)} of the rows (--metric accuracy ranks by accuracy)")  # fmt: skip
    return ranked


def check_task(protocol: str, task: str) -> None:
    """Refuse a regression target or several targets under the papers' protocol (a classification protocol)."""
    if protocol == "paper" and task in SEVERAL_TARGETS:
        raise UsageError("--protocol paper has no several-target methods: leave it out (the practitioner protocol)")
    if protocol == "paper" and task == "regression":
        raise UsageError("--protocol paper is the papers' classification protocol; a regression target runs under "
                         "--protocol practitioner")  # fmt: skip


@dataclass(frozen=True)
class DatasetInfo:
    """What planning needs of a loaded dataset."""

    name: str
    task: str
    n_classes: int
    image_shape: tuple | None
    n_features: int
    categorical_mask: tuple
    data_sha256: str
    test_sha256: str | None
    reading: dict | None  # how a --data file is read, None for a built-in dataset


def describe(ds) -> DatasetInfo:
    """The :class:`DatasetInfo` of a loaded dataset."""
    task = task_of(ds)
    user = (ds.extra or {}).get("user_data")
    reading = None
    if user:
        from mddf.datasets.user_data import UserDataSource

        reading = UserDataSource(**user).reading()
        reading["task"] = task  # the resolved task (auto -> classification or regression)
    n_classes = 0 if learner_task(task) == "regression" else int(ds.n_classes)
    shape = (n_classes, image_shape_of(ds), int(ds.X_train.shape[1]), tuple(bool(b) for b in ds.categorical_mask))
    hashes = (dataset_sha256(ds), test_sha256(ds))
    return DatasetInfo(ds.name, task, *shape, *hashes, reading)


def practitioner_folds(ds, requested: int, log) -> int | None:
    """The cross-validation folds of ``ds`` (:func:`~.protocols.fold_count`), None with a ``--test`` file."""
    if (ds.extra or {}).get("user_data", {}).get("test_path"):
        return None
    task = task_of(ds)
    k = fold_count(ds.y, task, requested, labels=ds.classes)
    if k < requested:
        if task != "classification":
            log(f"{ds.name}: {k} folds instead of {requested}: it has {len(ds.y)} rows")
        else:
            codes, counts = np.unique(ds.y, return_counts=True)
            small = ds.classes[int(codes[counts.argmin()])]
            log(f"{ds.name}: {k} folds instead of {requested}: class {str(small)!r} has {int(counts.min())} rows")
    return k


def bindings(infos, specs, *, protocol: str, profile: str, n_folds: dict, validation_fraction: float = 0.2) -> dict:
    """``{(dataset, method): Binding}`` for every dataset of ``infos`` and method of ``specs``."""
    out = {}
    for info in infos:
        shape = (info.n_features, info.n_classes, info.categorical_mask, info.image_shape)
        ctx = BuildContext(0, 1, profile, *shape, task=info.task, protocol=protocol)  # seed 0, one thread: no setting
        common = dict(protocol=protocol, task=info.task, profile=profile, validation_fraction=validation_fraction)
        common.update(n_folds=n_folds.get(info.name), reading=info.reading)
        for spec in specs:
            if info.task not in spec.tasks:
                continue
            settings = run_settings(**common, method=method_settings(spec, ctx))
            out[(info.name, spec.name)] = Binding(info.data_sha256, settings_sha256(settings), info.test_sha256)
    return out


def _too_few(ds, drawn, specs) -> dict:
    """``{method: reason}`` of ``specs`` needing more rows of a class than a ``drawn`` ``(where, codes)`` split has."""
    found = []
    for where, y in drawn:
        codes, counts = np.unique(y, return_counts=True)
        found.append((int(counts.min()), ds.classes[int(codes[counts.argmin()])], where))
    rows, label, where = min(found, key=lambda f: f[0])
    reason = f"{where} leaves class {str(label)!r} {rows} training row(s)"
    return {s.name: f"{reason}; {s.name} needs {s.min_class_rows}" for s in specs if rows < s.min_class_rows}


def unusable_folds(ds, n_folds: int, specs, seeds) -> dict:
    """:func:`_too_few` of the folds of the runs' cross-validation (:func:`~.protocols.cv_splits`)."""
    task = task_of(ds)
    if task != "classification" or not n_folds:
        return {}
    drawn = [
        (f"fold {fold} of seed {seed}", ds.y[train])
        for seed in seeds
        for fold, (train, _) in enumerate(cv_splits(ds.y, task, n_folds, seed))
    ]
    return _too_few(ds, drawn, specs)


def unusable_fractions(ds, fractions, specs, seeds, *, validation_fraction: float = 0.2) -> dict:
    """``{(fraction, method): reason}`` of the training fractions (as the runs draw them) too small for a method
    (:func:`_too_few`; a regression: fewer than :data:`MIN_REGRESSION_ROWS` rows)."""
    task = task_of(ds)
    out = {}
    for fraction in fractions:
        split = [split_run_data(ds, seed, fraction, validation_fraction, task).y_train for seed in seeds]
        drawn = [(f"fraction {fraction:g} of seed {seed}", y) for seed, y in zip(seeds, split)]
        if task != "regression":
            out.update({(fraction, m): why for m, why in _too_few(ds, drawn, specs).items()})
            continue
        rows, where = min((len(y), where) for where, y in drawn)
        if rows < MIN_REGRESSION_ROWS:
            why = f"{where} leaves {rows} training rows; at least {MIN_REGRESSION_ROWS} are needed"
            out.update({(fraction, spec.name): why for spec in specs})
    return out
