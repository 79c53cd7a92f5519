"""An XGBoost member fitted in stages of rounds is the member fitted at once, bit for bit."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from xgboost import XGBClassifier

from mddf.blocks.members import fit_fold_member
from mddf.blocks.staged_boosting import StagedBoosting, can_stage, staged_fold_member
from mddf.forests import make_gbdt
from mddf.forests.sampling import Bootstrap


def _data(seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(400, 5).astype(np.float32)
    X[:, 0] = rng.randint(0, 4, 400)
    X[rng.rand(400, 5) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 1]) + (X[:, 0] == 2) * 0.5 + 0.3 * rng.rand(400) > 0.8).astype(np.int64)
    y[::7] = 2
    target = np.nan_to_num(X[:, 1]) * 3 + (X[:, 0] == 3) + rng.rand(400)
    return X, y, target, rng.rand(400)


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("categorical", [None, np.array([True, False, False, False, False])])
@pytest.mark.parametrize("resampled", [False, True])
def test_rounds_in_stages_are_the_rounds_at_once(task, categorical, resampled):
    X, y, target, weight = _data()
    labels, n_classes = (y, 3) if task == "classification" else (target, None)
    rows, held_out = np.arange(0, 400, 2), np.arange(1, 400, 2)
    draws = Bootstrap(rows, weight[rows]) if resampled else None
    template = make_gbdt(task=task, categorical=categorical)
    args = (template, 11, X, labels, rows, held_out, None if resampled else weight, draws, n_classes, "forest_types[1]")
    model, output = fit_fold_member(*args)
    staged = staged_fold_member(*args)
    early = staged.grow(12).output()
    assert not np.array_equal(early, output)
    staged_model, staged_output = staged.grow(25).grow(100).finish()
    assert np.array_equal(staged_output, output)
    assert staged_model.estimator.get_params() == model.estimator.get_params()
    assert np.array_equal(staged_model.importances, model.importances)


def test_a_fold_of_one_class_has_no_rounds_to_stage():
    X, y, _, _ = _data()
    rows = np.flatnonzero(y == 1)[:50]
    staged = StagedBoosting(make_gbdt(), 3, X, y, rows, np.arange(10), None, None, 3)
    model, output = staged.grow(10).grow(100).finish()
    assert model.estimator is None and np.all(output[:, 1] == 1.0)


def test_only_xgboost_without_early_stopping_is_staged():
    assert can_stage(make_gbdt()) and can_stage(XGBClassifier(n_estimators=10))
    assert not can_stage(XGBClassifier(early_stopping_rounds=5))
    assert not can_stage(LogisticRegression())
    X, y, _, _ = _data()
    assert staged_fold_member(LogisticRegression(), 0, X, y, np.arange(100), np.arange(5), None, None, 3) is None


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_a_probe_reads_its_first_rounds_from_one_fit(task):
    X, y, target, _ = _data()
    labels, n_classes = (y, 3) if task == "classification" else (target, None)
    rows, held_out = np.arange(0, 400, 2), np.arange(1, 400, 2)
    template = make_gbdt(task=task)
    args = (template, 5, X, labels, rows, held_out, None, None, n_classes)
    first, both = staged_fold_member(*args).probe(12, 25)
    assert np.allclose(first, staged_fold_member(*args).grow(12).output(), rtol=0, atol=1e-6)
    assert np.array_equal(both, staged_fold_member(*args).grow(25).output())
