"""The QuadBoost paper's split rule and hyper-parameter grids (Section 4)."""

import numpy as np
import pytest

from mddf.experiments.protocols.quadboost import PAPER_GRIDS, paper_split, paper_train_size


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
