"""The rows one run trains, validates and tests on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split

from ..suites import DEEPBOOST_N_FOLDS
from ..user_data import seeded_split
from .splits import deepboost_folds, subsample


@dataclass
class RunData:
    """Training, selection and test rows of one run.

    Attributes
    ----------
    X_train, y_train : the rows the reported model is trained on.
    X_test, y_test : the rows its accuracy is measured on.
    X_fit, y_fit, X_val, y_val : the rows used to choose hyper-parameters (methods with a grid).
    refit : bool
        Whether the model is retrained on ``X_train`` with the chosen hyper-parameters
        (split protocol, as the mdDF paper does for its MLP) or the model selected on the
        validation rows is the one tested (DeepBoost protocol, as in that paper).
    description : str
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    X_fit: np.ndarray
    y_fit: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    refit: bool
    description: str


def holdout(X, y, fraction, seed, stratify: bool = True):
    """Hold-out split, stratified by class when asked; a plain random split when a class is too small."""
    if stratify:
        try:
            return train_test_split(X, y, test_size=fraction, stratify=y, random_state=seed)
        except ValueError:
            pass
    return train_test_split(X, y, test_size=fraction, random_state=seed)


def split_run_data(
    dataset, seed: int, fraction: float = 1.0, validation_fraction: float = 0.2, task: str = "classification"
) -> RunData:
    """Standard train/test split, optionally on a stratified fraction of the training rows.

    Hyper-parameters are chosen on a stratified ``validation_fraction`` of the (sub-sampled)
    training rows; the chosen configuration is then retrained on all of them.

    Parameters
    ----------
    dataset : datasets.Dataset
        Must have a test split.
    seed : int
        Seeds the sub-sample (``mddf.experiments.protocols.subsample``) and the validation hold-out.
    fraction : float in (0, 1]
        Fraction of the training rows (every class keeps at least one row).
    validation_fraction : float
    task : {"classification", "regression"}
        A regression target is sub-sampled and held out at random, not by class.
    """
    dataset = seeded_split(dataset, seed)  # a user data file without --test: this seed's split
    if not dataset.has_test_split:
        raise ValueError(f"{dataset.name} has no test split; it is evaluated with the deepboost fold protocol")
    description = dataset.split
    classify = task != "regression"
    if fraction < 1.0:
        dataset = subsample(dataset, fraction, random_state=seed, stratify=classify)
        description = dataset.split
    X_fit, X_val, y_fit, y_val = holdout(dataset.X_train, dataset.y_train, validation_fraction, seed, stratify=classify)
    return RunData(
        dataset.X_train,
        dataset.y_train,
        dataset.X_test,
        dataset.y_test,
        X_fit,
        y_fit,
        X_val,
        y_val,
        refit=True,
        description=description,
    )


def deepboost_run_data(dataset, seed: int, fold: int, n_folds: int = DEEPBOOST_N_FOLDS) -> RunData:
    """Run ``fold`` of the DeepBoost paper's protocol (Cortes, Mohri and Syed 2014, Section 4).

    The rows are split into ``n_folds`` stratified folds (shuffled with ``seed``); the run tests
    on fold ``fold``, selects hyper-parameters on fold ``fold + 1 (mod n_folds)`` and trains on
    the others. The selected model is tested as is (no retraining on the validation fold).
    """
    if not 0 <= fold < n_folds:
        raise ValueError(f"fold must be in [0, {n_folds}), got {fold}")
    X, y = dataset.X, dataset.y
    train_idx, val_idx, test_idx = deepboost_folds(y, n_folds=n_folds, random_state=seed)[fold]
    return RunData(
        X[train_idx],
        y[train_idx],
        X[test_idx],
        y[test_idx],
        X[train_idx],
        y[train_idx],
        X[val_idx],
        y[val_idx],
        refit=False,
        description=f"DeepBoost protocol, {n_folds} stratified folds shuffled with seed {seed}: "
        f"test fold {fold}, validation fold {(fold + 1) % n_folds}, train on the other {n_folds - 2}",
    )
