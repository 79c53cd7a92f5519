"""The QuadBoost paper's protocol (Roy, Marchand and Laviolette, Section 4) run: the machinery of
:mod:`benchmarks.quadboost`.

The split and the grids, as we read them, are :func:`paper_split` and :data:`PAPER_GRIDS`, chosen by 5-fold
cross-validation. L1 has no ``T`` in the paper ("no explicit early stopping is
needed"); it runs until it stops by itself or reaches :data:`L1_N_ITER` iterations. Cross-validation:
scikit-learn's ``StratifiedKFold(5, shuffle=True)`` and accuracy; ties go to the first candidate in
``ParameterGrid`` order, as in ``GridSearchCV``. With ``search="staged"`` (default) a grid over ``T`` is scored from
one fit at the largest ``T`` per fold and per value of the other parameters (an iteration never depends on the
budget, so the scores equal ``GridSearchCV``'s); ``search="grid"`` runs ``GridSearchCV``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, ParameterGrid, StratifiedKFold, train_test_split

from mddf.baselines import QuadBoostClassifier

L1_N_ITER = 100_000
#: The most training examples of the paper's split.
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


@dataclass
class ProtocolResult:
    """Outcome of :func:`run_quadboost_protocol` on one dataset and one QuadBoost variant."""

    regularization: str | None
    best_params: dict
    cv_accuracy: float
    test_accuracy: float
    n_voters: int
    n_iter: int
    n_train: int
    n_test: int
    search_seconds: float
    fit_seconds: float
    estimator: QuadBoostClassifier = field(repr=False)
    cv_results: dict = field(repr=False, default_factory=dict)

    @property
    def test_risk(self) -> float:
        """Zero-one risk on the test set (what Table 1 reports)."""
        return 1.0 - self.test_accuracy


def _base_estimator(regularization, grid, random_state, estimator_params):
    params = dict(regularization=regularization, random_state=random_state)
    if "n_iter" not in grid:
        params["n_iter"] = L1_N_ITER
    params.update(estimator_params or {})
    return QuadBoostClassifier(**params)


def _score_group(base, params, n_iters, X, y, train, val):
    """Accuracy on one fold for every ``n_iter`` in ``n_iters`` from a single fit at the largest one."""
    est = clone(base).set_params(**params)
    if n_iters is None:
        est.fit(X[train], y[train])
        return [est.score(X[val], y[val])]
    est.set_params(n_iter=max(n_iters)).fit(X[train], y[train])
    return [float(np.mean(est._predict_from_decision(d) == y[val])) for d in est._decision_at(X[val], n_iters)]


def cross_validate_staged(base, grid, X, y, cv, n_jobs=None):
    """Mean fold accuracy of every candidate of ``ParameterGrid(grid)``, scoring all ``n_iter`` values per fit.

    Returns
    -------
    dict with ``params`` (list of dict, ``ParameterGrid`` order) and ``mean_test_score`` (ndarray).
    """
    candidates = list(ParameterGrid(grid))
    folds = list(cv.split(X, y))
    n_iters = sorted(set(grid["n_iter"])) if "n_iter" in grid else None
    others = [{k: v for k, v in c.items() if k != "n_iter"} for c in candidates]
    groups = []
    for o in others:
        if o not in groups:
            groups.append(o)
    tasks = [(g, f) for g in range(len(groups)) for f in range(len(folds))]
    scores = Parallel(n_jobs=n_jobs)(delayed(_score_group)(base, groups[g], n_iters, X, y, *folds[f]) for g, f in tasks)
    table = {}
    for (g, f), s in zip(tasks, scores):
        for i, t in enumerate(n_iters or [None]):
            table[(g, t, f)] = s[i]
    fold_scores = np.array(
        [[table[(groups.index(o), c.get("n_iter"), f)] for f in range(len(folds))] for o, c in zip(others, candidates)]
    )
    return {"params": candidates, "mean_test_score": np.average(fold_scores, axis=1), "split_scores": fold_scores}


def run_quadboost_protocol(
    X,
    y,
    regularization,
    *,
    grid=None,
    n_folds=5,
    search="staged",
    stratify_split=False,
    random_state=0,
    estimator_params=None,
    n_jobs=None,
    verbose=0,
):
    """Section 4 protocol for one QuadBoost variant: paper split, 5-fold CV over the paper's grid, test risk.

    Parameters
    ----------
    X, y : arrays
        Every row of the dataset (a study's harness loads them: a dataset's train and test rows pooled).
    regularization : {None, "l1", "l2", "linf"}
    grid : dict, optional
        Hyper-parameter grid (default: ``PAPER_GRIDS[regularization]``).
    n_folds : int, default=5
    search : {"staged", "grid"}, default="staged"
        ``"grid"`` uses ``GridSearchCV``; ``"staged"`` gives the same scores with one fit per fold for all ``T``.
    stratify_split : bool, default=False
        Stratify the train/test split (the paper only says "randomly").
    random_state : int, default=0
        Seeds the split, the folds and the estimators' tie-breaking.
    estimator_params : dict, optional
        Extra fixed :class:`QuadBoostClassifier` parameters (e.g. ``n_thresholds``).
    n_jobs : int, optional
        Parallel (fold, candidate) fits.
    verbose : int, default=0

    Returns
    -------
    ProtocolResult
    """
    X, y = np.asarray(X), np.asarray(y)
    grid = dict(PAPER_GRIDS[regularization] if grid is None else grid)
    X_train, X_test, y_train, y_test = paper_split(X, y, stratify=stratify_split, random_state=random_state)
    base = _base_estimator(regularization, grid, random_state, estimator_params)
    cv = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)

    t0 = time.perf_counter()
    if search == "staged":
        results = cross_validate_staged(base, grid, X_train, y_train, cv, n_jobs=n_jobs)
        best = int(np.argmax(results["mean_test_score"]))
        best_params, cv_accuracy = results["params"][best], float(results["mean_test_score"][best])
    elif search == "grid":
        gs = GridSearchCV(base, grid, cv=cv, scoring="accuracy", n_jobs=n_jobs, refit=False).fit(X_train, y_train)
        results = {"params": gs.cv_results_["params"], "mean_test_score": gs.cv_results_["mean_test_score"]}
        best_params, cv_accuracy = gs.best_params_, float(gs.best_score_)
    else:
        raise ValueError(f"search must be 'staged' or 'grid', got {search!r}")
    search_seconds = time.perf_counter() - t0

    est = clone(base).set_params(**best_params)
    t0 = time.perf_counter()
    est.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - t0
    result = ProtocolResult(
        regularization=regularization,
        best_params=best_params,
        cv_accuracy=cv_accuracy,
        test_accuracy=float(est.score(X_test, y_test)),
        n_voters=est.n_voters_,
        n_iter=est.n_iter_,
        n_train=len(y_train),
        n_test=len(y_test),
        search_seconds=search_seconds,
        fit_seconds=fit_seconds,
        estimator=est,
        cv_results=results,
    )
    if verbose:
        print(
            f"[QuadBoost protocol] {regularization or 'vanilla'}: {best_params} "
            f"cv {cv_accuracy:.4f} test {result.test_accuracy:.4f} voters {result.n_voters}",
            flush=True,
        )
    return result
