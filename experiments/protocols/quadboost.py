"""The QuadBoost paper's protocol (Roy, Marchand and Laviolette, Section 4), as we read it: :func:`paper_split` and
the grids :data:`PAPER_GRIDS`, chosen by 5-fold cross-validation."""

from __future__ import annotations

import math

import numpy as np
from sklearn.model_selection import train_test_split

MAX_TRAIN = 500


def _log_grid(low, high, n=10):
    return [float(v) for v in np.logspace(low, high, n)]


def _iteration_grid(low, high, n=10):
    return [int(v) for v in np.unique(np.round(np.logspace(low, high, n)).astype(int))]


#: Section 4's hyper-parameter ranges, 10 log-spaced values each.
PAPER_GRIDS = {
    None: {"n_iter": _iteration_grid(0, 3)},
    "l1": {"lam": _log_grid(-4, 0)},
    "l2": {"lam": _log_grid(0, 3), "n_iter": _iteration_grid(1, 5)},
    "linf": {"alpha_max": _log_grid(-4, -1), "n_iter": _iteration_grid(0, 5)},
}


def paper_train_size(n_samples, max_train=MAX_TRAIN, train_fraction=0.5):
    """``min(max_train, ceil(train_fraction * n_samples))``: half of the examples, at most 500."""
    return int(min(max_train, math.ceil(train_fraction * n_samples)))


def paper_split(X, y, *, max_train=MAX_TRAIN, train_fraction=0.5, stratify=False, random_state=0):
    """``X_train, X_test, y_train, y_test``: the random split of Section 4 (see :func:`paper_train_size`)."""
    n_train = paper_train_size(len(y), max_train, train_fraction)
    if n_train >= len(y):
        raise ValueError(f"{len(y)} examples leave none for the test set (training size {n_train})")
    return train_test_split(X, y, train_size=n_train, stratify=y if stratify else None, random_state=random_state)
