"""The DeepBoost paper's protocol (Cortes, Mohri and Syed 2014, Section 4) run for any of the package's boosting
estimators: the machinery of :mod:`benchmarks.boosting`, with the paper's grids (:func:`paper_grid`) and the
algorithms of its Tables 1-3 (:data:`TABLE_ALGORITHMS`).

Protocol: the data are split into 10 folds; run i tests on fold i, validates on fold i + 1 (mod 10)
and trains on the other 8; the parameters with the lowest validation error are chosen and their
test error is recorded; the mean and standard deviation of the 10 test errors are reported with
the average number of trees (non-zero weights) and their average size. The number of boosting
rounds is 100 in every experiment (Section 4: "In all of our experiments, the number of
iterations was set to 100").

Selection (``selection=``): ``"validation"`` is the paper's, above. ``"cv"`` chooses instead by
k-fold cross-validation on the 9 folds that are not run i's test fold: each setting is fitted on
k-1 parts of those rows and scored on the remaining part, k times; the setting (and T) with the
lowest mean error over the k parts is refitted on all 9 folds and tested on fold i. The parts
are a stratified k-fold split of the 9 folds' rows (``cv_folds=k``, default 5) or the 9 folds
themselves (``cv_folds="outer"``: 9 parts, one of which is the paper's validation split, fold
i + 1). Either way the test fold takes no part in the choice. A validation fold holds a tenth of
the rows, so the paper's choice among up to 150 settings is noisy; k-fold CV averages that noise
over k parts at about k + 1 times the fits. :func:`run_protocols` runs both selections and fits
each (setting, training rows) pair once; with ``cv_folds="outer"`` the validation selection's
fits are among the cross-validation's, so the pair costs 5.5 times the paper's protocol alone
(45 + 10 fits per setting for 10 folds, against 10).

Reuse: a fit with T rounds contains the fits with fewer rounds as prefixes (the algorithm is
deterministic), so several values of T are evaluated from one fit via the staged decision
function (``n_iter_grid``), in every cross-validation part and in the refit.

Resume: with a ``fit_store`` every finished fit's errors are appended to it at once, under a key
made of the data, the estimator's parameters, the training rows and the scored rows; a rerun
after an interruption reads them back and fits only the rest.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from mddf.baselines import DeepBoostClassifier
from mddf.experiments.protocols import deepboost_folds

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


def paper_grid(table, algorithm, *, depths=TREE_DEPTHS, penalties=TREE_PENALTIES, stump_betas=STUMP_BETAS,
               stump_lambdas=STUMP_LAMBDAS):  # fmt: skip
    """The :class:`~mddf.baselines.DeepBoostClassifier` settings searched for ``algorithm`` (of
    ``TABLE_ALGORITHMS[table]``) in Table ``table`` of the paper: 1, boosted stumps; 2, trees with the exponential loss;
    3, with the logistic loss. The grids default to the paper's."""
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


#: How the parameters of each run are chosen: the paper's validation fold, or k-fold CV on the 9 non-test folds.
SELECTIONS = ("validation", "cv")
#: Parts of the k-fold cross-validation of ``selection="cv"`` by default.
DEFAULT_CV_FOLDS = 5


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
        Wall-clock time of the whole protocol (all settings, all runs); of this call's fits only
        when some were read back from a ``fit_store``.
    fit_seconds : float
        Sum of the fit times (read-back fits with the times stored with them).
    n_fits : int
    n_fits_read_back : int
        Of the ``n_fits``, those read back from a ``fit_store`` instead of fitted by this call.
    settings : list of list of dict
        Every setting evaluated in every run (``settings[run]``): its parameters, validation
        error (``val``: the mean over the selection splits; ``val_splits``: each split's), test
        error and tree statistics, for analyses beyond the selected one. With ``selection="cv"``
        the test error and tree statistics are those of the setting refitted on the 9 folds.
    selection : {"validation", "cv"}
    n_selection_splits : int
        Splits each setting was scored on per run (1 for the validation fold, k for k-fold CV).
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
    n_fits_read_back: int = 0
    settings: list = field(default_factory=list)
    selection: str = "validation"
    n_selection_splits: int = 1

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
            "n_fits_read_back": self.n_fits_read_back,
        }


def _evaluate_setting(estimator, params, X, y, fit_idx, eval_sets, n_iter_grid):
    """Fit one setting on the rows ``fit_idx``; errors on each of ``eval_sets`` (name -> rows) and
    tree statistics at every T of ``n_iter_grid``, all read from one fit with ``max(n_iter_grid)`` rounds."""
    est = clone(estimator).set_params(**params, n_iter=max(n_iter_grid))
    t0 = time.perf_counter()
    est.fit(X[fit_idx], y[fit_idx])
    fit_seconds = time.perf_counter() - t0
    wanted = {min(T, est.n_iter_) for T in n_iter_grid}
    errors = {}
    for split, idx in eval_sets.items():
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
                **{split: errors[(split, t)] for split in eval_sets},
                n_trees=stats["n_trees"],
                tree_size=stats["avg_tree_size"],
                tree_questions=stats["avg_questions"],
            )
        )
    return rows, fit_seconds


def _evaluate_task(key, estimator, params, X, y, fit, n_iter_grid):
    """``key`` and :func:`_evaluate_setting` of the shared fit ``fit`` (a :class:`_SharedFit`): a joblib task."""
    return key, _evaluate_setting(estimator, params, X, y, fit.fit_rows, fit.evals, n_iter_grid)


def _digest(*arrays):
    """A short content hash of arrays (shape, dtype and bytes)."""
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:20]


def selection_splits(folds, y, cv_folds=DEFAULT_CV_FOLDS, random_state=0):
    """The (fit rows, scoring rows) splits of each run's k-fold CV on its non-test rows.

    Parameters
    ----------
    folds : list of (train, val, test) index arrays
        The runs (:func:`mddf.experiments.protocols.deepboost_folds`).
    y : array
        Labels (for the stratified split).
    cv_folds : int or "outer" or list
        k for a stratified k-fold split of each run's train + validation rows (shuffled with
        ``random_state``); ``"outer"`` for the other folds of the protocol themselves (run i's
        parts are the test folds of the other runs, which requires those to partition the rows);
        or, per run, a list of ``(fit, val)`` index pairs, used as given.

    Returns
    -------
    list (one per run) of lists of (fit_idx, val_idx).

    Raises
    ------
    ValueError
        If a split uses a row of its run's test fold, or ``"outer"`` does not apply to ``folds``.
    """
    y = np.asarray(y)
    pools = [np.sort(np.concatenate([train, val])) for train, val, _ in folds]
    if isinstance(cv_folds, str):
        if cv_folds != "outer":
            raise ValueError(f'cv_folds must be an int >= 2, "outer" or a list of splits per run, got {cv_folds!r}')
        tests = [np.asarray(test) for _, _, test in folds]
        out = []
        for i, pool in enumerate(pools):
            others = [tests[j] for j in range(len(folds)) if j != i]
            if not np.array_equal(np.sort(np.concatenate(others)), pool):
                raise ValueError('cv_folds="outer" needs runs whose test folds partition the rows (deepboost_folds)')
            out.append([(np.setdiff1d(pool, part), np.sort(part)) for part in others])
    elif isinstance(cv_folds, (int, np.integer)):
        if cv_folds < 2:
            raise ValueError(f"cv_folds must be at least 2, got {cv_folds}")
        out = []
        for pool in pools:
            skf = StratifiedKFold(n_splits=int(cv_folds), shuffle=True, random_state=random_state)
            out.append([(pool[a], pool[b]) for a, b in skf.split(np.zeros(len(pool)), y[pool])])
    else:
        out = [[(np.asarray(a), np.asarray(b)) for a, b in run] for run in cv_folds]
        if len(out) != len(folds):
            raise ValueError(f"cv_folds lists splits for {len(out)} runs, the protocol has {len(folds)}")
    for (_, _, test), splits in zip(folds, out):
        if not splits:
            raise ValueError("a run has no selection split")
        for fit_idx, val_idx in splits:
            if np.intersect1d(test, fit_idx).size or np.intersect1d(test, val_idx).size:
                raise ValueError("a selection split uses rows of its run's test fold")
    return out


class _PlanStep(NamedTuple):
    """One fit a selection scores: the run, the training rows, the rows scored, and what the score is for.

    ``role`` is ``"val"`` for a selection split (``part`` numbers it) and ``"test"`` for the fit whose
    test error is reported (``part`` is None).
    """

    run: int
    part: int | None
    fit_rows: np.ndarray
    eval_rows: np.ndarray
    role: str


class _SharedFit(NamedTuple):
    """One fit of a setting that every selection shares: its training rows and every row set it is scored on
    (``evals``: the rows' name in the evaluated rows -> the rows)."""

    fit_rows: np.ndarray
    evals: dict


class _Fitted(NamedTuple):
    """What a shared fit gave (:func:`_evaluate_setting`): a row per T of ``n_iter_grid`` and the fit's seconds."""

    rows: list
    fit_seconds: float


def _selection_plan(selection, folds, y, cv_folds, random_state):
    """What one selection fits and scores: its :class:`_PlanStep` list and its number of selection splits per run.

    Index arrays are sorted, so equal row sets compare equal across runs and selections.
    """
    plan = []
    if selection == "validation":
        for r, (train, val, test) in enumerate(folds):
            plan += [_PlanStep(r, 0, train, val, "val"), _PlanStep(r, None, train, test, "test")]
        return plan, 1
    splits = selection_splits(folds, y, cv_folds, random_state)
    for r, (train, val, test) in enumerate(folds):
        plan += [_PlanStep(r, j, np.sort(fit), np.sort(part), "val") for j, (fit, part) in enumerate(splits[r])]
        plan.append(_PlanStep(r, None, np.sort(np.concatenate([train, val])), test, "test"))
    return plan, len(splits[0])


def run_protocols(
    X,
    y,
    param_grid,
    *,
    selections=("validation",),
    estimator=None,
    n_folds=10,
    random_state=0,
    n_iter_grid=(PAPER_N_ITER,),
    folds=None,
    cv_folds=DEFAULT_CV_FOLDS,
    n_jobs=1,
    backend=None,
    verbose=0,
    fit_store=None,
):
    """Run the DeepBoost paper's protocol (Section 4) for one algorithm on one dataset, with one or
    more ways of choosing the parameters, fitting each (setting, training rows) pair once.

    Parameters
    ----------
    X, y : arrays
        All the rows of the dataset.
    param_grid : list of dict
        Settings to choose from (e.g. :func:`paper_grid`).
    selections : sequence of {"validation", "cv"}, default=("validation",)
        ``"validation"``: the paper's, choose on fold i + 1 the model trained on the other 8 folds
        and test that model. ``"cv"``: choose by k-fold cross-validation on the 9 non-test folds,
        refit the choice on them, test the refit (see the module doc).
    estimator : estimator, default=DeepBoostClassifier()
        Cloned and updated with each setting.
    n_folds : int, default=10
    random_state : int, default=0
        Seed of the fold assignment (:func:`mddf.experiments.protocols.deepboost_folds`) and of the k-fold
        split of ``selection="cv"``.
    n_iter_grid : sequence of int, default=(100,)
        Numbers of rounds to choose from, all read from one fit with ``max(n_iter_grid)`` rounds.
    folds : list of (train, val, test) index arrays, optional
        Overrides ``n_folds`` / ``random_state``.
    cv_folds : int, "outer" or list, default=5
        The cross-validation of ``selection="cv"`` (:func:`selection_splits`).
    n_jobs : int, default=1
        Fits run in parallel.
    backend : str, optional
        joblib backend (default: joblib's, i.e. processes).
    verbose : int, default=0
    fit_store : :class:`~mddf.experiments.store.ResultStore`, optional
        Where each finished fit's errors go the moment it finishes, and where a rerun finds them:
        only fits without a record there are run. The results are the same as without it;
        ``seconds`` then counts this call's fits only.

    Returns
    -------
    dict mapping each selection to its :class:`ProtocolResult`.

    Notes
    -----
    Shared fits: the estimator is deterministic given its parameters and rows, so a setting
    trained on the same rows is fitted once and scored on every split that needs it. With
    ``cv_folds="outer"`` the training rows of run i's part j (all folds but i and j) are those of
    run j's part i, and the paper's validation fit of run i is its part i + 1: the two selections
    together take 45 + 10 fits per setting instead of 10 + 90 + 10. Each result's ``n_fits`` and
    ``fit_seconds`` count the fits it uses (as if run alone); ``seconds`` is the shared wall time.

    Ties in (mean) validation error go to the earlier setting of ``param_grid`` (then the smaller T).
    With ``selection="cv"`` every setting is also refitted on the 9 folds (one fit each, not only
    the chosen one), so that ``settings`` holds every setting's test error for the diagnostics;
    the chosen setting's test error is read from its refit.
    """
    X, y = np.asarray(X), np.asarray(y)
    selections, n_iter_grid = _checked_choices(param_grid, selections, n_iter_grid)
    estimator = DeepBoostClassifier() if estimator is None else estimator
    if folds is None:
        folds = deepboost_folds(y, n_folds=n_folds, random_state=random_state)
    plans = {sel: _selection_plan(sel, folds, y, cv_folds, random_state) for sel in selections}
    eval_names, fits = _shared_fits(plans, len(param_grid))
    store_keys = {} if fit_store is None else _store_keys(fits, X, y, estimator, param_grid, n_iter_grid)
    fitted = {} if fit_store is None else _read_back(fit_store, store_keys)
    read_back = set(fitted)
    todo = [key for key in fits if key not in fitted]
    t0 = time.perf_counter()
    calls = [delayed(_evaluate_task)(key, estimator, param_grid[key[0]], X, y, fits[key], n_iter_grid) for key in todo]
    _run_fits(calls, fitted, fit_store, store_keys, n_jobs, backend, verbose)
    seconds = time.perf_counter() - t0
    if verbose:
        print(f"[protocol] {len(todo)} fits in {seconds:.1f}s ({len(fits) - len(todo)} read back)", flush=True)
    return {
        sel: _assemble(sel, plan, n_splits, fitted, read_back, eval_names, len(param_grid), len(folds), seconds)
        for sel, (plan, n_splits) in plans.items()
    }


def _checked_choices(param_grid, selections, n_iter_grid):
    """The selections without repeats and the sorted distinct T of ``n_iter_grid``; raise a ``ValueError`` for an
    empty grid, then for no selection or an unknown one."""
    if not param_grid:
        raise ValueError("param_grid is empty")
    selections = list(dict.fromkeys(selections))
    if not selections or any(sel not in SELECTIONS for sel in selections):
        raise ValueError(f"selections must be one or more of {SELECTIONS}, got {selections!r}")
    return selections, sorted(set(int(t) for t in n_iter_grid))


def _shared_fits(plans, n_settings):
    """One fit per distinct (setting, training rows) of the plans, scored on every row set any plan needs.

    Returns
    -------
    eval_names : dict
        Each scored row set (its bytes) -> its column name in the evaluated rows: ``"rows-"`` and a digest of the rows.
    fits : dict
        ``(setting, training rows as bytes)`` -> :class:`_SharedFit`, in the order the plans first need them.
    """
    eval_names, fits = {}, {}
    for plan, _ in plans.values():
        for step in plan:
            name = eval_names.setdefault(step.eval_rows.tobytes(), "rows-" + _digest(step.eval_rows))
            for s in range(n_settings):
                fits.setdefault((s, step.fit_rows.tobytes()), _SharedFit(step.fit_rows, {})).evals[name] = (
                    step.eval_rows
                )
    return eval_names, fits


def _store_keys(fits, X, y, estimator, param_grid, n_iter_grid):
    """The key of each shared fit's record in a fit store: a JSON text of the data's digest, the estimator's class
    and parameters, the training rows' digest, the scored row sets' names and ``n_iter_grid``."""
    data = _digest(X, y)
    settings = [
        clone(estimator).set_params(**params, n_iter=max(n_iter_grid)).get_params(deep=False) for params in param_grid
    ]
    fit_rows = {}  # each training row set digested once, not once per setting
    for (_, fk), fit in fits.items():
        if fk not in fit_rows:
            fit_rows[fk] = _digest(fit.fit_rows)
    keys = {}
    for s, fk in fits:
        described = {
            "data": data,
            "estimator": type(estimator).__name__,
            "params": settings[s],
            "fit": fit_rows[fk],
            "eval": sorted(fits[(s, fk)].evals),
            "n_iter_grid": n_iter_grid,
        }
        keys[(s, fk)] = json.dumps(described, sort_keys=True, default=repr)
    return keys


def _read_back(fit_store, store_keys):
    """The shared fits whose record is in ``fit_store`` (its latest one), as :class:`_Fitted`."""
    stored = fit_store.latest()
    fitted = {}
    for key, store_key in store_keys.items():
        if store_key in stored:
            fitted[key] = _Fitted(stored[store_key]["rows"], stored[store_key]["fit_seconds"])
    return fitted


def _run_fits(calls, fitted, fit_store, store_keys, n_jobs, backend, verbose):
    """Run the joblib ``calls`` (:func:`_evaluate_task`) and put each fit in ``fitted`` as a :class:`_Fitted`, and
    its record in ``fit_store`` (if not None) under its key of ``store_keys``, as soon as it finishes, or all at the
    end on a backend without generators (joblib's ``"multiprocessing"``)."""
    parallel = dict(n_jobs=n_jobs, backend=backend, verbose=10 if verbose > 1 else 0)
    try:  # each fit as it finishes
        outputs = Parallel(**parallel, return_as="generator_unordered")(calls)
    except ValueError:  # a backend without generators (joblib's "multiprocessing"): all at the end
        outputs = Parallel(**parallel)(calls)
    for key, (rows, fit_seconds) in outputs:
        fitted[key] = _Fitted(rows, fit_seconds)
        if fit_store is not None:
            fit_store.append({"key": store_keys[key], "rows": rows, "fit_seconds": fit_seconds})


def _assemble(selection, plan, n_splits, fitted, read_back, eval_names, n_settings, n_runs, seconds):
    """One selection's :class:`ProtocolResult` from the shared fits."""
    reported = {}  # (run, setting) -> rows of the fit whose test error is reported
    scored = {}  # (run, setting) -> [(part, rows, eval name)] of each selection split
    used = set()
    for step in plan:
        for s in range(n_settings):
            key = (s, step.fit_rows.tobytes())
            used.add(key)
            rows, name = fitted[key].rows, eval_names[step.eval_rows.tobytes()]
            if step.role == "test":
                reported[(step.run, s)] = (rows, name)
            else:
                scored.setdefault((step.run, s), []).append((step.part, rows, name))
    by_run = [[] for _ in range(n_runs)]
    for r in range(n_runs):
        for s in range(n_settings):
            rows, test_key = reported[(r, s)]
            splits = sorted(scored[(r, s)], key=lambda item: item[0])
            for k, row in enumerate(rows):
                val_splits = [split_rows[k][eval_key] for _, split_rows, eval_key in splits]
                by_run[r].append(
                    dict(
                        params=row["params"],
                        val=float(np.mean(val_splits)),
                        val_splits=val_splits,
                        test=row[test_key],
                        n_trees=row["n_trees"],
                        tree_size=row["tree_size"],
                        tree_questions=row["tree_questions"],
                    )
                )
    chosen = []
    for rows in by_run:
        best = min(range(len(rows)), key=lambda i: (rows[i]["val"], i))
        chosen.append(rows[best])
    return ProtocolResult(
        test_errors=np.array([c["test"] for c in chosen]),
        val_errors=np.array([c["val"] for c in chosen]),
        params=[c["params"] for c in chosen],
        n_trees=np.array([c["n_trees"] for c in chosen], dtype=float),
        tree_size=np.array([c["tree_size"] for c in chosen]),
        tree_questions=np.array([c["tree_questions"] for c in chosen]),
        seconds=seconds,
        fit_seconds=float(sum(fitted[key].fit_seconds for key in used)),
        n_fits=len(used),
        n_fits_read_back=len(used & read_back),
        settings=by_run,
        selection=selection,
        n_selection_splits=n_splits,
    )


def run_protocol(X, y, param_grid, *, selection="validation", **kwargs):
    """Run the DeepBoost paper's protocol for one algorithm on one dataset with one selection.

    ``run_protocols(X, y, param_grid, selections=[selection], **kwargs)[selection]``: see
    :func:`run_protocols` for the parameters.

    Returns
    -------
    ProtocolResult
    """
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
    return run_protocols(X, y, param_grid, selections=[selection], **kwargs)[selection]
