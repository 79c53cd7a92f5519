"""Row selections of the papers' protocols: the DeepBoost paper's rotating folds and stratified sub-samples; and values
made missing on purpose, completely at random (MCAR, the NaN benchmark's protocol)."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state

from mddf.datasets.base import Dataset


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
    from dataclasses import replace

    split = f"{dataset.split}; {'stratified ' if stratify else ''}{fraction:g} of the training rows"
    return replace(dataset, X_train=dataset.X_train[keep], y_train=y[keep], split=split)


def mask_completely_at_random(X, fraction, random_state=None):
    """A float copy of ``X`` whose entries are each NaN with probability ``fraction`` in [0, 1) (``random_state``
    seeds the mask); entries already missing stay missing."""
    if not 0 <= fraction < 1:
        raise ValueError(f"fraction must be in [0, 1), got {fraction}")
    X = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float32), copy=True)
    mask = check_random_state(random_state).random_sample(X.shape) < fraction
    X[mask] = np.nan
    return X
