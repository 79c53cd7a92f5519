"""The practitioner's protocol: repeated k-fold cross-validation on every row, stratified by class (as scikit-learn's
``RepeatedStratifiedKFold``; ``KFold`` for a regression or several targets); the folds: :func:`fold_count`."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold

from ..defaults import DEFAULT_FOLDS
from .run_data import RunData, holdout


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
    """Run ``fold`` of seed ``seed``'s k-fold cut of all of ``dataset``'s rows, hyper-parameters chosen on
    ``validation_fraction`` of its training rows."""
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
