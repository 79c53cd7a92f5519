"""The evaluation protocol and parameter grids of the DeepBoost paper (Cortes, Mohri and Syed 2014,
Section 4), for any of the package's boosting estimators.

Protocol: the data are split into 10 folds; run i tests on fold i, validates on fold i + 1 (mod 10)
and trains on the other 8; the parameters with the lowest validation error are chosen and their
test error is recorded; the mean and standard deviation of the 10 test errors are reported with
the average number of trees (non-zero weights) and their average size. The number of boosting
rounds is 100 in every experiment (Section 4: "In all of our experiments, the number of
iterations was set to 100").

Reuse: a fit with T rounds contains the fits with fewer rounds as prefixes (the algorithm is
deterministic), so several values of T are evaluated from one fit via the staged decision
function (``n_iter_grid``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from mddf.baselines import DeepBoostClassifier

from .splits import deepboost_folds

#: Boosting rounds in every experiment of the paper.
PAPER_N_ITER = 100

#: Table 1 grids: beta in {2^-i : i = 6..0}; lambda in {0.0001, 0.005, 0.01, 0.05, 0.1, 0.5}.
STUMP_BETAS = tuple(2.0**-i for i in range(6, -1, -1))
STUMP_LAMBDAS = (0.0001, 0.005, 0.01, 0.05, 0.1, 0.5)
#: Tables 2-3 grids: K in 1..6; beta and lambda in {10^-i : i = 3..7}.
TREE_DEPTHS = tuple(range(1, 7))
TREE_PENALTIES = tuple(10.0**-i for i in range(3, 8))

#: Algorithms of each table, in the paper's column order.
TABLE_ALGORITHMS = {
    1: ("AdaBoost H1", "AdaBoost H2", "AdaBoost-L1", "DeepBoost"),
    2: ("AdaBoost", "AdaBoost-L1", "DeepBoost"),
    3: ("LogReg", "LogReg-L1", "DeepBoost"),
}


def paper_grid(
    table,
    algorithm,
    *,
    depths=TREE_DEPTHS,
    penalties=TREE_PENALTIES,
    stump_betas=STUMP_BETAS,
    stump_lambdas=STUMP_LAMBDAS,
):
    """Parameter settings searched for ``algorithm`` in Table ``table`` of the paper.

    Parameters
    ----------
    table : {1, 2, 3}
        1: boosted stumps (H_1^stumps and H_2^stumps), exponential loss; 2: trees, exponential
        loss; 3: trees, logistic loss.
    algorithm : str
        One of ``TABLE_ALGORITHMS[table]``.
    depths, penalties, stump_betas, stump_lambdas : sequences
        The grids (defaults: the paper's); pass shorter ones for a quick run.

    Returns
    -------
    list of dict: :class:`~mddf.baselines.DeepBoostClassifier` parameters, one per setting.

    Notes
    -----
    Table 1's "AdaBoost H2" column is AdaBoost over H_1^stumps union H_2^stumps without
    penalties: it takes the depth-2 candidate whenever it has a lower error.
    """
    if table not in TABLE_ALGORITHMS:
        raise ValueError(f"table must be 1, 2 or 3, got {table!r}")
    if algorithm not in TABLE_ALGORITHMS[table]:
        raise ValueError(f"unknown algorithm {algorithm!r} for table {table}; known: {TABLE_ALGORITHMS[table]}")
    if table == 1:
        base = {"base": "stumps", "loss": "exponential"}
        if algorithm == "AdaBoost H1":
            return [{"base": "trees", "max_depth": 1, "loss": "exponential", "lam": 0.0, "beta": 0.0}]
        if algorithm == "AdaBoost H2":
            return [{**base, "lam": 0.0, "beta": 0.0}]
        if algorithm == "AdaBoost-L1":
            return [{**base, "lam": 0.0, "beta": b} for b in stump_betas]
        return [{**base, "lam": lam, "beta": b} for b in stump_betas for lam in stump_lambdas]
    loss = "exponential" if table == 2 else "logistic"
    base = {"base": "trees", "loss": loss}
    if algorithm in ("AdaBoost", "LogReg"):
        return [{**base, "max_depth": k, "lam": 0.0, "beta": 0.0} for k in depths]
    if algorithm in ("AdaBoost-L1", "LogReg-L1"):
        return [{**base, "max_depth": k, "lam": 0.0, "beta": b} for k in depths for b in penalties]
    return [{**base, "max_depth": k, "lam": lam, "beta": b} for k in depths for b in penalties for lam in penalties]


@dataclass
class ProtocolResult:
    """Outcome of the paper's protocol for one algorithm on one dataset.

    Attributes
    ----------
    test_errors, val_errors : ndarray of shape (n_runs,)
        Errors of the selected setting in each run.
    params : list of dict
        The selected setting of each run (with its number of rounds ``n_iter``).
    n_trees, tree_size, tree_questions : ndarray of shape (n_runs,)
        Non-zero-weight hypotheses of the selected model, their mean number of nodes (the
        papers' "avg tree size" of Tables 2-3) and of distinct questions (Table 1's).
    seconds : float
        Wall-clock time of the whole protocol (all settings, all runs).
    fit_seconds : float
        Sum of the fit times.
    n_fits : int
    settings : list of list of dict
        Every setting evaluated in every run (``settings[run]``): its parameters, validation and
        test errors and tree statistics, for analyses beyond the selected one.
    """

    test_errors: np.ndarray
    val_errors: np.ndarray
    params: list
    n_trees: np.ndarray
    tree_size: np.ndarray
    tree_questions: np.ndarray
    seconds: float
    fit_seconds: float
    n_fits: int
    settings: list = field(default_factory=list)

    @property
    def mean_error(self) -> float:
        return float(np.mean(self.test_errors))

    @property
    def std_error(self) -> float:
        """Sample standard deviation (ddof=1) of the test errors over the runs."""
        return float(np.std(self.test_errors, ddof=1)) if len(self.test_errors) > 1 else 0.0

    def summary(self) -> dict:
        return {
            "error": self.mean_error,
            "std": self.std_error,
            "avg_tree_size": float(np.mean(self.tree_size)),
            "avg_tree_questions": float(np.mean(self.tree_questions)),
            "avg_n_trees": float(np.mean(self.n_trees)),
            "seconds": self.seconds,
            "n_fits": self.n_fits,
        }


def _evaluate_setting(estimator, params, X, y, train, val, test, n_iter_grid):
    """Fit one setting on one run; errors and tree statistics at every T of ``n_iter_grid``."""
    est = clone(estimator).set_params(**params, n_iter=max(n_iter_grid))
    t0 = time.perf_counter()
    est.fit(X[train], y[train])
    fit_seconds = time.perf_counter() - t0
    wanted = {min(T, est.n_iter_) for T in n_iter_grid}
    errors = {}
    for split, idx in (("val", val), ("test", test)):
        for t, pred in enumerate(est.staged_predict(X[idx]), start=1):
            if t in wanted:
                errors[(split, t)] = float(np.mean(pred != y[idx]))
    rows = []
    for T in n_iter_grid:
        t = min(T, est.n_iter_)
        stats = est.tree_stats(t)
        rows.append(
            dict(
                params={**params, "n_iter": T},
                val=errors[("val", t)],
                test=errors[("test", t)],
                n_trees=stats["n_trees"],
                tree_size=stats["avg_tree_size"],
                tree_questions=stats["avg_questions"],
            )
        )
    return rows, fit_seconds


def run_protocol(
    X,
    y,
    param_grid,
    *,
    estimator=None,
    n_folds=10,
    random_state=0,
    n_iter_grid=(PAPER_N_ITER,),
    folds=None,
    n_jobs=1,
    backend=None,
    verbose=0,
):
    """Run the DeepBoost paper's protocol (Section 4) for one algorithm on one dataset.

    Parameters
    ----------
    X, y : arrays
        All the rows of the dataset.
    param_grid : list of dict
        Settings to choose from (e.g. :func:`paper_grid`).
    estimator : estimator, default=DeepBoostClassifier()
        Cloned and updated with each setting.
    n_folds : int, default=10
    random_state : int, default=0
        Seed of the fold assignment (:func:`mddf.datasets.deepboost_folds`).
    n_iter_grid : sequence of int, default=(100,)
        Numbers of rounds to choose from, all read from one fit with ``max(n_iter_grid)`` rounds.
    folds : list of (train, val, test) index arrays, optional
        Overrides ``n_folds`` / ``random_state``.
    n_jobs : int, default=1
        Settings and runs fitted in parallel.
    backend : str, optional
        joblib backend (default: joblib's, i.e. processes).
    verbose : int, default=0

    Returns
    -------
    ProtocolResult

    Notes
    -----
    Ties in validation error go to the earlier setting of ``param_grid`` (then the smaller T).
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if not param_grid:
        raise ValueError("param_grid is empty")
    n_iter_grid = sorted(set(int(t) for t in n_iter_grid))
    estimator = DeepBoostClassifier() if estimator is None else estimator
    if folds is None:
        folds = deepboost_folds(y, n_folds=n_folds, random_state=random_state)
    t0 = time.perf_counter()
    tasks = [(r, params) for r in range(len(folds)) for params in param_grid]
    outputs = Parallel(n_jobs=n_jobs, backend=backend, verbose=10 if verbose > 1 else 0)(
        delayed(_evaluate_setting)(estimator, params, X, y, *folds[r], n_iter_grid) for r, params in tasks
    )
    seconds = time.perf_counter() - t0
    by_run = [[] for _ in folds]
    for (r, _), (rows, _) in zip(tasks, outputs):
        by_run[r].extend(rows)
    chosen = []
    for rows in by_run:
        best = min(range(len(rows)), key=lambda i: (rows[i]["val"], i))
        chosen.append(rows[best])
    if verbose:
        print(f"[protocol] {len(tasks)} fits in {seconds:.1f}s", flush=True)
    return ProtocolResult(
        test_errors=np.array([c["test"] for c in chosen]),
        val_errors=np.array([c["val"] for c in chosen]),
        params=[c["params"] for c in chosen],
        n_trees=np.array([c["n_trees"] for c in chosen], dtype=float),
        tree_size=np.array([c["tree_size"] for c in chosen]),
        tree_questions=np.array([c["tree_questions"] for c in chosen]),
        seconds=seconds,
        fit_seconds=float(sum(fs for _, fs in outputs)),
        n_fits=len(tasks),
        settings=by_run,
    )
