"""What a study declares: its datasets (:class:`Dataset`, loading a :class:`Data`), its protocol (:class:`TrainTest`
or :class:`CrossValidation`) and its metrics (:data:`METRICS`); and what its hooks are given (:class:`Context`,
:class:`Unit`) and its table is made from (:class:`Results`)."""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sklearn import metrics

from mddf.experiments.store import ResultStore

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
        read from); by default the hash of its loaded rows (:func:`mddf.experiments.store.content_sha256`).
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

    study: Any  # the unit's Study (harness/study.py, which imports this module)
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

    @property
    def unit(self) -> Unit:
        return Unit(self.dataset.name, self.method, self.seed, self.round, self.fold)

    @property
    def checkpoints(self):
        """The store where this unit keeps the work it has finished (:func:`checkpoints`): a long unit
        interrupted resumes from it; the harness removes it once the unit's record is written."""
        return checkpoints(self.study, self.options, self.unit)


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


def checkpoints(study, args, unit: Unit) -> ResultStore:
    """``<out>/checkpoints/<digest>.jsonl``, the digest of ``unit``'s key and the run's settings (``study.config``):
    what :attr:`Context.checkpoints` of the unit holds."""
    described = json.dumps([unit.key(study.cross_validated), study.config(args)], sort_keys=True, default=repr)
    return ResultStore(args.out / "checkpoints" / f"{hashlib.sha256(described.encode()).hexdigest()[:16]}.jsonl")
