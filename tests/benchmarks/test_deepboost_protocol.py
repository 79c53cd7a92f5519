"""The DeepBoost paper's protocol run for any boosting estimator (the boosting study's machinery): selection on the
validation fold or by k-fold CV, staged rounds, shared fits and their store; the paper's grids (Section 4)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from benchmarks.deepboost_protocol import (
    PAPER_N_ITER,
    TABLE_ALGORITHMS,
    ProtocolResult,
    paper_grid,
    run_protocol,
    run_protocols,
    selection_splits,
)
from mddf.baselines import AdaBoostClassifier, DeepBoostClassifier
from mddf.experiments.protocols import deepboost_folds
from mddf.experiments.store import ResultStore


def test_an_empty_grid_is_rejected():
    with pytest.raises(ValueError, match="empty"):
        run_protocol(np.zeros((30, 2)), np.arange(30) % 2, [])


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=150, n_features=5, flip_y=0.1, random_state=4)
    return X.astype(np.float32), y


def test_protocol_selects_on_validation_and_reports_the_test_error(data):
    X, y = data
    grid = [{"max_depth": 1, "lam": 0.0, "beta": 0.0}, {"max_depth": 3, "lam": 1e-3, "beta": 1e-3}]
    res = run_protocol(X, y, grid, n_iter_grid=(15,))
    folds = deepboost_folds(y, n_folds=10, random_state=0)
    for r, (train, val, test) in enumerate(folds):
        fits = [DeepBoostClassifier(n_iter=15, **p).fit(X[train], y[train]) for p in grid]
        val_err = [np.mean(f.predict(X[val]) != y[val]) for f in fits]
        best = int(np.argmin(val_err))  # first on ties
        assert res.val_errors[r] == val_err[best]
        assert res.test_errors[r] == np.mean(fits[best].predict(X[test]) != y[test])
        assert res.params[r] == {**grid[best], "n_iter": 15}
        assert res.n_trees[r] == fits[best].n_trees_
        assert res.tree_size[r] == pytest.approx(fits[best].avg_tree_size_)
    assert res.mean_error == pytest.approx(np.mean(res.test_errors))
    assert res.std_error == pytest.approx(np.std(res.test_errors, ddof=1))
    assert res.n_fits == 20 and res.seconds > 0
    summary = res.summary()
    assert summary["error"] == res.mean_error and summary["avg_n_trees"] == np.mean(res.n_trees)
    assert [len(s) for s in res.settings] == [2] * 10
    assert res.settings[0][1]["params"] == {**grid[1], "n_iter": 15}


def test_rounds_are_read_from_one_fit_and_equal_separate_fits(data):
    # A fit with T rounds contains every shorter fit as a prefix.
    X, y = data
    grid = [{"max_depth": 2, "lam": 1e-3, "beta": 1e-3}]
    staged = run_protocol(X, y, grid, n_iter_grid=(5, 20), n_folds=5)
    folds = deepboost_folds(y, n_folds=5, random_state=0)
    for r, (train, val, test) in enumerate(folds):
        T = staged.params[r]["n_iter"]
        fit = DeepBoostClassifier(n_iter=T, **grid[0]).fit(X[train], y[train])
        assert staged.val_errors[r] == np.mean(fit.predict(X[val]) != y[val])
        assert staged.test_errors[r] == np.mean(fit.predict(X[test]) != y[test])
        assert staged.n_trees[r] == fit.n_trees_


def test_protocol_accepts_another_estimator_and_parallel_jobs(data):
    X, y = data
    grid = [{"max_depth": 1}, {"max_depth": 2}]
    serial = run_protocol(X, y, grid, estimator=AdaBoostClassifier(), n_iter_grid=(10,), n_folds=4)
    parallel = run_protocol(
        X, y, grid, estimator=AdaBoostClassifier(), n_iter_grid=(10,), n_folds=4, n_jobs=2, backend="threading"
    )
    assert isinstance(serial, ProtocolResult)
    np.testing.assert_array_equal(serial.test_errors, parallel.test_errors)
    assert serial.params == parallel.params


# ------------------------------------------------------------------ selection by k-fold cross-validation


class SpyBoost(ClassifierMixin, BaseEstimator):
    """A 'boosting' estimator that logs the rows (column 0 holds row ids) it fits on and predicts."""

    log = []
    fits = []

    def __init__(self, n_iter=10, max_depth=1):
        self.n_iter = n_iter
        self.max_depth = max_depth

    def fit(self, X, y):
        self.fit_rows_ = frozenset(X[:, 0].astype(int).tolist())
        SpyBoost.fits.append((self.fit_rows_, self.max_depth))
        self.tree_ = DecisionTreeClassifier(max_depth=self.max_depth, random_state=0).fit(X[:, 1:], y)
        self.classes_ = self.tree_.classes_
        self.n_iter_ = self.n_iter
        return self

    def staged_predict(self, X):
        SpyBoost.log.append((self.fit_rows_, frozenset(X[:, 0].astype(int).tolist())))
        pred = self.tree_.predict(X[:, 1:])
        for _ in range(self.n_iter_):
            yield pred

    def tree_stats(self, t):
        return {"n_trees": t, "avg_tree_size": 1.0, "avg_questions": 1.0}


def test_cv_selection_never_fits_or_scores_on_the_test_fold(data):
    X, y = data
    X = np.column_stack([np.arange(len(y)), X])
    folds = deepboost_folds(y, n_folds=5, random_state=0)
    grid = [{"max_depth": 1}, {"max_depth": 3}]
    SpyBoost.log.clear()
    res = run_protocol(X, y, grid, estimator=SpyBoost(), folds=folds, selection="cv", cv_folds=3, n_iter_grid=(2, 4))
    assert res.selection == "cv" and res.n_selection_splits == 3 and res.n_fits == 5 * 2 * (3 + 1)
    tests = [frozenset(test.tolist()) for _, _, test in folds]
    pools = [frozenset(np.concatenate([train, val]).tolist()) for train, val, _ in folds]
    scored_on_test = 0
    for fit_rows, predicted in SpyBoost.log:
        if predicted in tests:  # the reported fit: refitted on exactly the 9 (here 4) other folds
            r = tests.index(predicted)
            assert fit_rows == pools[r]
            scored_on_test += 1
        else:  # a selection fit: rows of one run's non-test folds only
            assert any(fit_rows | predicted <= pools[r] and not fit_rows & predicted for r in range(len(folds)))
    assert scored_on_test == len(folds) * len(grid)  # one refit per setting and run
    # splits given by hand may not use test rows
    train, val, test = folds[0]
    bad = [[(train, np.concatenate([val, test[:1]]))]] + [[(t, v)] for t, v, _ in folds[1:]]
    with pytest.raises(ValueError, match="test fold"):
        run_protocol(X, y, grid, estimator=SpyBoost(), folds=folds, selection="cv", cv_folds=bad)


def test_cv_selection_picks_the_argmin_of_the_mean_cv_error_and_tests_its_refit(data):
    X, y = data
    folds = deepboost_folds(y, n_folds=4, random_state=1)
    grid = [{"max_depth": 1, "lam": 0.0, "beta": 0.0}, {"max_depth": 3, "lam": 1e-3, "beta": 1e-3}]
    res = run_protocol(X, y, grid, folds=folds, selection="cv", cv_folds=3, n_iter_grid=(4, 12), random_state=7)
    splits = selection_splits(folds, y, 3, random_state=7)
    for r, (train, val, test) in enumerate(folds):
        candidates = [(p, T) for p in grid for T in (4, 12)]
        mean_errors = []
        for p, T in candidates:
            errs = []
            for fit_idx, val_idx in splits[r]:
                model = DeepBoostClassifier(n_iter=T, **p).fit(X[fit_idx], y[fit_idx])
                errs.append(np.mean(model.predict(X[val_idx]) != y[val_idx]))
            mean_errors.append(np.mean(errs))
        best = int(np.argmin(mean_errors))  # first on ties
        p, T = candidates[best]
        assert res.params[r] == {**p, "n_iter": T}
        assert res.val_errors[r] == pytest.approx(mean_errors[best])
        pool = np.concatenate([train, val])
        refit = DeepBoostClassifier(n_iter=T, **p).fit(X[pool], y[pool])
        assert res.test_errors[r] == np.mean(refit.predict(X[test]) != y[test])
        assert res.n_trees[r] == refit.n_trees_
        assert len(res.settings[r][best]["val_splits"]) == 3


def test_cv_on_the_validation_split_alone_chooses_as_the_paper_and_outer_folds_contain_it(data):
    X, y = data
    grid = paper_grid(2, "AdaBoost", depths=(1, 2, 3))
    folds = deepboost_folds(y, n_folds=5, random_state=0)
    paper = run_protocol(X, y, grid, folds=folds, n_iter_grid=(5, 10))
    alone = run_protocol(
        X, y, grid, folds=folds, n_iter_grid=(5, 10), selection="cv", cv_folds=[[(t, v)] for t, v, _ in folds]
    )
    assert alone.params == paper.params
    np.testing.assert_array_equal(alone.val_errors, paper.val_errors)
    assert [[s["val"] for s in run] for run in alone.settings] == [[s["val"] for s in run] for run in paper.settings]
    # the refit on all non-test folds is what differs: it is tested instead of the 8-fold fit
    for r, (train, val, test) in enumerate(folds):
        pool = np.concatenate([train, val])
        p = {k: v for k, v in alone.params[r].items() if k != "n_iter"}
        refit = DeepBoostClassifier(n_iter=alone.params[r]["n_iter"], **p).fit(X[pool], y[pool])
        assert alone.test_errors[r] == np.mean(refit.predict(X[test]) != y[test])
    # "outer": the parts are the other folds, so the paper's split (validate on fold i + 1) is one of them
    outer = selection_splits(folds, y, "outer")
    for (train, val, test), splits in zip(folds, outer):
        assert len(splits) == 4
        assert any(np.array_equal(f, train) and np.array_equal(v, val) for f, v in splits)
        assert all(not np.intersect1d(v, test).size and not np.intersect1d(f, test).size for f, v in splits)
    with pytest.raises(ValueError, match="selection"):
        run_protocol(X, y, grid, folds=folds, selection="nested")


def _same_result(a, b):
    assert a.params == b.params and a.selection == b.selection and a.n_fits == b.n_fits
    np.testing.assert_array_equal(a.test_errors, b.test_errors)
    np.testing.assert_array_equal(a.val_errors, b.val_errors)
    assert [[(s["val_splits"], s["test"]) for s in run] for run in a.settings] == [
        [(s["val_splits"], s["test"]) for s in run] for run in b.settings
    ]


@pytest.mark.parametrize("cv_folds", ["outer", 3])
def test_both_selections_together_equal_each_alone_and_fit_each_row_set_once(data, cv_folds):
    X, y = data
    X = np.column_stack([np.arange(len(y)), X])
    folds = deepboost_folds(y, n_folds=5, random_state=0)
    grid = [{"max_depth": 1}, {"max_depth": 3}]
    kw = dict(estimator=SpyBoost(), folds=folds, cv_folds=cv_folds, n_iter_grid=(2, 4))
    alone = {sel: run_protocol(X, y, grid, selection=sel, **kw) for sel in ("validation", "cv")}
    SpyBoost.fits.clear()
    together = run_protocols(X, y, grid, selections=("validation", "cv"), **kw)
    for sel in ("validation", "cv"):
        _same_result(together[sel], alone[sel])
    assert len(set(SpyBoost.fits)) == len(SpyBoost.fits)  # no (rows, setting) fitted twice
    assert alone["validation"].n_fits == 5 * len(grid)
    if cv_folds == "outer":
        # a part leaves out two folds, so it is shared by two runs, and the paper's validation fit
        # (leave out folds i and i + 1) is one of them; plus one refit per run on its 4 non-test folds
        assert alone["cv"].n_fits == len(SpyBoost.fits) == (10 + 5) * len(grid)
    else:
        assert alone["cv"].n_fits == 5 * (3 + 1) * len(grid)
        assert len(SpyBoost.fits) == (5 + 5 * (3 + 1)) * len(grid)


class Interrupted(Exception):
    pass


class StopAfter(SpyBoost):
    """SpyBoost that raises on the fit after ``budget`` fits: an interruption in the middle of a run."""

    budget = None

    def fit(self, X, y):
        if StopAfter.budget is not None and len(SpyBoost.fits) >= StopAfter.budget:
            raise Interrupted
        return super().fit(X, y)


def test_a_fit_store_keeps_every_finished_fit_and_a_rerun_fits_only_the_rest(data, tmp_path):
    X, y = data
    X = np.column_stack([np.arange(len(y)), X])
    folds = deepboost_folds(y, n_folds=5, random_state=0)
    grid = [{"max_depth": 1}, {"max_depth": 3}]
    kw = dict(selections=("validation", "cv"), estimator=StopAfter(), folds=folds, cv_folds="outer", n_iter_grid=(2, 4))
    StopAfter.budget = None
    SpyBoost.fits.clear()
    uninterrupted = run_protocols(X, y, grid, **kw)
    n_total = len(SpyBoost.fits)

    store = ResultStore(tmp_path / "fits.jsonl")
    SpyBoost.fits.clear()
    StopAfter.budget = 7
    with pytest.raises(Interrupted):
        run_protocols(X, y, grid, fit_store=store, **kw)
    assert len(store.records()) == 7  # every fit that finished before the interruption
    StopAfter.budget = None
    SpyBoost.fits.clear()
    resumed = run_protocols(X, y, grid, fit_store=store, **kw)
    assert len(SpyBoost.fits) == n_total - 7
    for sel in ("validation", "cv"):
        _same_result(resumed[sel], uninterrupted[sel])
        assert resumed[sel].n_fits == uninterrupted[sel].n_fits
        assert uninterrupted[sel].n_fits_read_back == 0
    # the cross-validation uses every fit, so all 7 read back; the validation fold a subset of them
    assert resumed["cv"].n_fits_read_back == 7
    assert 0 < resumed["validation"].n_fits_read_back <= 7

    # a joblib backend without generators stores its fits too, at the end
    other = ResultStore(tmp_path / "other.jsonl")
    SpyBoost.fits.clear()
    again = run_protocols(X, y, grid, fit_store=other, n_jobs=2, backend="multiprocessing", **kw)
    assert len(other.records()) == n_total
    for sel in ("validation", "cv"):
        _same_result(again[sel], uninterrupted[sel])

    # a record is found only for the same data, parameters and rows
    SpyBoost.fits.clear()
    run_protocols(X[::-1].copy(), y[::-1].copy(), grid, fit_store=store, **kw)
    assert len(SpyBoost.fits) == n_total


def test_paper_grids_have_the_papers_sizes_and_values():
    assert PAPER_N_ITER == 100
    # Table 1: AdaBoost over H1 and H2 stumps, AdaBoost-L1 over 7 betas, DeepBoost over 7 x 6.
    assert [len(paper_grid(1, a)) for a in TABLE_ALGORITHMS[1]] == [1, 1, 7, 42]
    assert sorted({p["beta"] for p in paper_grid(1, "AdaBoost-L1")}) == [2.0**-i for i in range(6, -1, -1)]
    assert sorted({p["lam"] for p in paper_grid(1, "DeepBoost")}) == [0.0001, 0.005, 0.01, 0.05, 0.1, 0.5]
    assert all(p["base"] == "stumps" for p in paper_grid(1, "DeepBoost"))
    # Tables 2-3: K in 1..6; beta, lambda in 10^-3..10^-7.
    for table, names in ((2, ("AdaBoost", "AdaBoost-L1", "DeepBoost")), (3, ("LogReg", "LogReg-L1", "DeepBoost"))):
        assert TABLE_ALGORITHMS[table] == names
        grids = [paper_grid(table, a) for a in names]
        assert [len(g) for g in grids] == [6, 30, 150]
        loss = "exponential" if table == 2 else "logistic"
        assert all(p["loss"] == loss for g in grids for p in g)
        assert all(p["lam"] == p["beta"] == 0.0 for p in grids[0])
        assert all(p["lam"] == 0.0 < p["beta"] for p in grids[1])
        assert sorted({p["lam"] for p in grids[2]}) == [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]
        assert sorted({p["max_depth"] for p in grids[2]}) == [1, 2, 3, 4, 5, 6]


def test_unknown_table_or_algorithm_is_rejected():
    with pytest.raises(ValueError, match="table"):
        paper_grid(4, "DeepBoost")
    with pytest.raises(ValueError, match="unknown algorithm 'LogReg'"):
        paper_grid(2, "LogReg")
