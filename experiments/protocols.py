"""The rows each run trains, validates and tests on (:class:`RunData`): the train/test split, the DeepBoost paper's
rotating folds, the practitioner's repeated k-fold cross-validation; sub-samples, and values removed at random."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils import check_random_state

from mddf.datasets.base import Dataset
from mddf.datasets.user_data import seeded_split

from .defaults import DEEPBOOST_N_FOLDS, DEFAULT_FOLDS


@dataclass
class RunData:
    """Training, selection and test rows of one run: the model trains on ``X_train``, is scored on ``X_test``; a
    grid's candidates fit on ``X_fit`` and are scored on ``X_val``."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    X_fit: np.ndarray
    y_fit: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    #: whether the chosen configuration is retrained on ``X_train`` (split protocol, as the mdDF paper does for
    #: its MLP), or the model selected on the validation rows is the one tested (DeepBoost protocol)
    refit: bool
    description: str


def holdout(*arrays, stratify=None, **split):
    """``train_test_split(*arrays, **split)``, stratified by ``stratify`` unless a class is too small for it."""
    if stratify is not None:
        with contextlib.suppress(ValueError):
            return train_test_split(*arrays, stratify=stratify, **split)
    return train_test_split(*arrays, **split)


def split_run_data(dataset, seed: int, fraction=1.0, validation_fraction=0.2, task="classification") -> RunData:
    """The dataset's train/test split, optionally on a ``fraction`` of its training rows (:func:`subsample`),
    hyper-parameters chosen on ``validation_fraction`` of them (stratified unless ``task`` is a regression) and the
    choice retrained on all; ``seed`` seeds both draws."""
    dataset = seeded_split(dataset, seed)  # a user data file without --test: this seed's split
    if not dataset.has_test_split:
        raise ValueError(f"{dataset.name} has no test split; it is evaluated with the deepboost fold protocol")
    description = dataset.split
    classify = task != "regression"
    if fraction < 1.0:
        dataset = subsample(dataset, fraction, random_state=seed, stratify=classify)
        description = dataset.split
    X, y = dataset.X_train, dataset.y_train
    split = dict(test_size=validation_fraction, random_state=seed, stratify=y if classify else None)
    X_fit, X_val, y_fit, y_val = holdout(X, y, **split)
    return RunData(X, y, dataset.X_test, dataset.y_test, X_fit, y_fit, X_val, y_val, True, description)


def deepboost_folds(y, n_folds=10, random_state=0):
    """One ``(train_idx, val_idx, test_idx)`` per run of the DeepBoost paper's protocol (Section 4): ``n_folds`` folds
    stratified by ``y`` (shuffled with ``random_state``), run ``i`` testing on fold ``i``, validating on fold
    ``i + 1 (mod n_folds)`` and training on the others."""
    y = np.asarray(y)
    if n_folds < 3:
        raise ValueError(f"n_folds must be at least 3 (train, validation, test), got {n_folds}")
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    folds = [test for _, test in skf.split(np.zeros(len(y)), y)]
    runs = []
    for i in range(n_folds):
        test_idx = folds[i]
        val_idx = folds[(i + 1) % n_folds]
        rest = [folds[j] for j in range(n_folds) if j not in (i, (i + 1) % n_folds)]
        runs.append((np.sort(np.concatenate(rest)), np.sort(val_idx), np.sort(test_idx)))
    return runs


def deepboost_run_data(dataset, seed: int, fold: int, n_folds: int = DEEPBOOST_N_FOLDS) -> RunData:
    """Run ``fold`` of the DeepBoost paper's protocol (:func:`deepboost_folds`), shuffled with ``seed``."""
    if not 0 <= fold < n_folds:
        raise ValueError(f"fold must be in [0, {n_folds}), got {fold}")
    X, y = dataset.X, dataset.y
    train, val, test = deepboost_folds(y, n_folds=n_folds, random_state=seed)[fold]
    description = (
        f"DeepBoost protocol, {n_folds} stratified folds shuffled with seed {seed}: "
        f"test fold {fold}, validation fold {(fold + 1) % n_folds}, train on the other {n_folds - 2}"
    )
    return RunData(X[train], y[train], X[test], y[test], X[train], y[train], X[val], y[val], False, description)


class TooFewRows(ValueError):
    """A class (or the whole table) has too few rows for a cross-validation; the message names it."""


def fold_count(y, task: str = "classification", requested: int = DEFAULT_FOLDS, labels=None) -> int:
    """The folds the cross-validation of ``y`` (class codes, or a regression's targets) uses: ``requested``
    (at least 2), or fewer for a small class or table; :class:`TooFewRows` for a class with a single row, or
    fewer than two rows in all. ``labels[code]`` names a class in the message."""
    y = np.asarray(y)
    if len(y) < 2:
        raise TooFewRows(f"{len(y)} row(s): a cross-validation needs at least 2")
    if task != "classification":
        return max(2, min(requested, len(y)))
    codes, counts = np.unique(y, return_counts=True)
    smallest = int(counts.argmin())
    if counts[smallest] < 2:
        name = codes[smallest] if labels is None else labels[int(codes[smallest])]
        raise TooFewRows(
            f"class {str(name)!r} has a single row; training and testing need at least 2 rows of every class "
            "(remove that row or merge the class into another)"
        )
    return max(2, min(requested, int(counts[smallest])))


def cv_splits(y, task: str, n_folds: int, seed: int) -> list:
    """``[(train rows, test rows), ...]`` of one repetition: k folds of the shuffled rows (stratified by class)."""
    y = np.asarray(y)
    if task != "classification":
        splitter = KFold(n_splits=n_folds, shuffle=True, random_state=seed)
    else:
        splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    return [(np.sort(train), np.sort(test)) for train, test in splitter.split(np.zeros(len(y)), y)]


def cv_run_data(dataset, seed: int, fold: int, n_folds: int, task: str, validation_fraction: float = 0.2) -> RunData:
    """Run ``fold`` of seed ``seed``'s k-fold cut of ``dataset``, selection on ``validation_fraction`` of its rows."""
    if not 0 <= fold < n_folds:
        raise ValueError(f"fold must be in [0, {n_folds}), got {fold}")
    X, y = dataset.X, dataset.y
    train, test = cv_splits(y, task, n_folds, seed)[fold]
    classify = task == "classification"
    split = dict(test_size=validation_fraction, random_state=seed, stratify=y[train] if classify else None)
    X_fit, X_val, y_fit, y_val = holdout(X[train], y[train], **split)
    stratified = ", stratified by class" if classify else ""
    description = f"{n_folds}-fold cross-validation of all {len(y)} rows{stratified}, shuffled with random_state={seed}"
    description += f": test fold {fold}"
    return RunData(X[train], y[train], X[test], y[test], X_fit, y_fit, X_val, y_val, True, description)


def subsample(dataset: Dataset, fraction, random_state=None, stratify: bool = True) -> Dataset:
    """``dataset`` with ``fraction`` (in (0, 1]) of its training rows: ``round(fraction * n_c)`` of each class, at
    least one (``stratify=False``: of all the rows, at least two); the test split unchanged."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    rng = check_random_state(random_state)
    y = dataset.y_train
    if stratify:
        keep = []
        for c in np.unique(y):
            idx = np.flatnonzero(y == c)
            n = max(1, int(round(fraction * len(idx))))
            keep.append(rng.choice(idx, size=n, replace=False))
        keep = np.sort(np.concatenate(keep))
    else:
        n = min(len(y), max(2, int(round(fraction * len(y)))))
        keep = np.sort(rng.choice(len(y), size=n, replace=False))
    split = f"{dataset.split}; {'stratified ' if stratify else ''}{fraction:g} of the training rows"
    return replace(dataset, X_train=dataset.X_train[keep], y_train=y[keep], split=split)


def mask_completely_at_random(X, fraction, random_state=None):
    """A float copy of ``X`` whose entries are each NaN with probability ``fraction`` in [0, 1) (MCAR)."""
    if not 0 <= fraction < 1:
        raise ValueError(f"fraction must be in [0, 1), got {fraction}")
    X = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float32), copy=True)
    mask = check_random_state(random_state).random_sample(X.shape) < fraction
    X[mask] = np.nan
    return X
