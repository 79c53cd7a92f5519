"""The QuadBoost paper's protocol run (the quadboost study's machinery): 5-fold CV over the grids, test risk."""

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification

from benchmarks.quadboost_protocol import L1_N_ITER, cross_validate_staged, run_quadboost_protocol
from mddf.datasets import load_dataset
from mddf.experiments.protocols import paper_split


@pytest.mark.parametrize(
    "reg, grid",
    [
        (None, {"n_iter": [1, 5, 20, 60]}),
        ("l2", {"lam": [1.0, 10.0], "n_iter": [3, 30]}),
        ("linf", {"alpha_max": [0.01, 0.1], "n_iter": [5, 50]}),
        ("l1", {"lam": [0.001, 0.05]}),
    ],
)
def test_staged_search_gives_the_grid_search_scores_and_choice(reg, grid):
    X, y = make_classification(n_samples=150, n_features=5, flip_y=0.1, random_state=0)
    staged = run_quadboost_protocol(
        X,
        y,
        reg,
        grid=grid,
        search="staged",
        random_state=1,
        estimator_params={"n_iter": 200} if reg == "l1" else None,
    )
    full = run_quadboost_protocol(
        X, y, reg, grid=grid, search="grid", random_state=1, estimator_params={"n_iter": 200} if reg == "l1" else None
    )
    assert staged.cv_results["params"] == full.cv_results["params"]
    assert np.array_equal(staged.cv_results["mean_test_score"], full.cv_results["mean_test_score"])
    assert staged.best_params == full.best_params
    assert staged.test_accuracy == full.test_accuracy


def test_best_candidate_is_the_first_best_in_grid_order():
    from sklearn.model_selection import StratifiedKFold

    from mddf.baselines import QuadBoostClassifier

    X, y = make_classification(n_samples=100, n_features=4, random_state=2)
    grid = {"n_iter": [1, 2, 4, 8, 16, 32]}
    res = cross_validate_staged(
        QuadBoostClassifier(regularization=None, random_state=0),
        grid,
        X,
        y,
        StratifiedKFold(5, shuffle=True, random_state=0),
    )
    assert res["split_scores"].shape == (6, 5)
    assert np.allclose(res["mean_test_score"], res["split_scores"].mean(axis=1))


@pytest.mark.slow
def test_protocol_on_a_bundled_dataset_reports_test_risk_choice_and_size():
    ds = load_dataset("breast_cancer")
    grid = {"lam": [0.01, 0.1]}  # small lambdas take many iterations before L1 stops by itself: kept out for speed
    res = run_quadboost_protocol(ds.X, ds.y, "l1", grid=grid, random_state=0)
    n = len(ds.y)
    assert res.n_train == math.ceil(n / 2) and res.n_test == n - res.n_train
    assert res.best_params["lam"] in grid["lam"]
    assert res.estimator.n_iter <= L1_N_ITER and res.estimator.lam == res.best_params["lam"]
    assert res.n_voters == res.estimator.n_voters_ > 0
    # the reported test accuracy is the refitted model's on the paper split of the pooled rows
    _, X_te, _, y_te = paper_split(ds.X, ds.y, random_state=0)
    assert res.test_accuracy == res.estimator.score(X_te, y_te)
    assert res.test_risk == pytest.approx(1 - res.test_accuracy)
    assert res.cv_accuracy == max(res.cv_results["mean_test_score"])


def test_unknown_search_is_rejected():
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.raises(ValueError, match="search must be"):
        run_quadboost_protocol(X, y, None, grid={"n_iter": [1, 2]}, search="random")
