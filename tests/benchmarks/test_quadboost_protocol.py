"""The QuadBoost paper's protocol run (the quadboost study's machinery): its split rule and hyper-parameter grids
(Section 4), 5-fold CV over the grids, test risk."""

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification

from benchmarks.quadboost_protocol import (
    L1_N_ITER,
    PAPER_GRIDS,
    cross_validate_staged,
    paper_split,
    paper_train_size,
    run_quadboost_protocol,
)
from mddf.datasets import load_dataset


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


@pytest.mark.parametrize("n", [10, 11, 101, 569, 999, 1000, 1001, 1473, 20000])
def test_training_set_is_half_the_examples_but_at_most_500(n):
    size = paper_train_size(n)
    assert size <= 500
    if n <= 1000:  # both constraints of the paper can hold: the smallest size that is at least half
        assert size >= n / 2 and size - 1 < n / 2
    else:  # they cannot both hold: the cap wins
        assert size == 500


def test_paper_split_partitions_the_data_at_random_and_reproducibly():
    X = np.arange(300, dtype=float).reshape(150, 2)
    y = np.arange(150) % 2
    X_tr, X_te, y_tr, y_te = paper_split(X, y, random_state=3)
    assert len(X_tr) == 75 and len(X_te) == 75
    assert sorted(np.concatenate([X_tr[:, 0], X_te[:, 0]]).tolist()) == X[:, 0].tolist()
    again = paper_split(X, y, random_state=3)
    assert np.array_equal(again[0], X_tr)
    other = paper_split(X, y, random_state=4)
    assert not np.array_equal(other[0], X_tr)
    assert not np.array_equal(np.sort(X_tr[:, 0]), X[:75, 0])  # shuffled, not the first half


def test_paper_split_can_stratify():
    X = np.zeros((200, 1))
    y = np.r_[np.zeros(150), np.ones(50)]
    _, _, y_tr, _ = paper_split(X, y, stratify=True, random_state=0)
    assert np.mean(y_tr) == pytest.approx(0.25)


@pytest.mark.parametrize(
    "reg, ranges",
    [
        (None, {"n_iter": (1, 1e3)}),
        ("l1", {"lam": (1e-4, 1)}),
        ("l2", {"lam": (1, 1e3), "n_iter": (10, 1e5)}),
        ("linf", {"alpha_max": (1e-4, 1e-1), "n_iter": (1, 1e5)}),
    ],
)
def test_grids_are_ten_log_spaced_values_over_the_paper_ranges(reg, ranges):
    grid = PAPER_GRIDS[reg]
    assert set(grid) == set(ranges)
    for name, (low, high) in ranges.items():
        values = np.asarray(grid[name], dtype=float)
        assert len(values) == 10 and len(set(values)) == 10
        assert values[0] == pytest.approx(low) and values[-1] == pytest.approx(high)
        ratios = values[1:] / values[:-1]
        rtol = 0.3 if name == "n_iter" else 1e-9  # iteration counts are rounded to integers
        assert np.allclose(ratios, (high / low) ** (1 / 9), rtol=rtol)
