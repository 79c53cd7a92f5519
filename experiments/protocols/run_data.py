"""The rows one run trains, validates and tests on."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split

from mddf.datasets.user_data import seeded_split

from ..suites import DEEPBOOST_N_FOLDS
from .splits import deepboost_folds, subsample


@dataclass
class RunData:
    """Training, selection and test rows of one run: the reported model trains on ``X_train`` and is
    scored on ``X_test``; a method with a grid chooses its hyper-parameters by fitting on ``X_fit`` and
    scoring on ``X_val``."""

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


def deepboost_run_data(dataset, seed: int, fold: int, n_folds: int = DEEPBOOST_N_FOLDS) -> RunData:
    """Run ``fold`` of the DeepBoost paper's protocol (:func:`deepboost_folds`, shuffled with ``seed``): the model
    selected on fold ``fold + 1`` is tested as is on fold ``fold``."""
    if not 0 <= fold < n_folds:
        raise ValueError(f"fold must be in [0, {n_folds}), got {fold}")
    X, y = dataset.X, dataset.y
    train, val, test = deepboost_folds(y, n_folds=n_folds, random_state=seed)[fold]
    description = (
        f"DeepBoost protocol, {n_folds} stratified folds shuffled with seed {seed}: "
        f"test fold {fold}, validation fold {(fold + 1) % n_folds}, train on the other {n_folds - 2}"
    )
    return RunData(X[train], y[train], X[test], y[test], X[train], y[train], X[val], y[val], False, description)
