"""The real-data study's statistics: Friedman and Nemenyi against hand-computed numbers, and the paper check's pooled
scores."""

import math

import pytest
from realdata_records import check_record

from benchmarks import realdata_statistics as statistics_


# ------------------------------------------------------------------------------------------ ranks
def test_the_nemenyi_critical_difference_is_demsars():
    # Demšar (2006), Table 5: q_0.05 = 2.343 (k = 3), 2.569 (k = 4), 3.164 (k = 10); CD = q sqrt(k (k + 1) / (6 N))
    assert statistics_.nemenyi_cd(4, 14) == pytest.approx(2.569 * math.sqrt(20 / 84), abs=1e-3)  # his example: 1.25
    assert statistics_.nemenyi_cd(3, 4) == pytest.approx(2.343 * math.sqrt(12 / 24), abs=1e-3)
    assert statistics_.nemenyi_cd(10, 20) == pytest.approx(3.164 * math.sqrt(110 / 120), abs=1e-3)


def test_the_friedman_test_on_a_hand_computed_example():
    # ranks per table (A, B, C): (1, 2, 3), (1, 3, 2), (2, 1, 3), (1, 2.5, 2.5): mean ranks 1.25, 2.125, 2.625
    means = {
        "t1": {"A": 0.9, "B": 0.8, "C": 0.7},
        "t2": {"A": 0.9, "B": 0.6, "C": 0.7},
        "t3": {"A": 0.8, "B": 0.9, "C": 0.7},
        "t4": {"A": 0.9, "B": 0.5, "C": 0.5},
    }
    test = statistics_.friedman(means, ["A", "B", "C"])
    assert test["ranks"] == pytest.approx({"A": 1.25, "B": 2.125, "C": 2.625})
    # chi2_F = 12 N / (k (k + 1)) (sum R^2 - k (k + 1)^2 / 4) = 4 (1.5625 + 4.515625 + 6.890625 - 12) = 3.875
    assert test["chi2"] == pytest.approx(3.875) and test["p"] == pytest.approx(math.exp(-3.875 / 2))
    assert test["ff"] == pytest.approx(3 * 3.875 / (4 * 2 - 3.875))  # Iman-Davenport
    assert test["cd"] == pytest.approx(statistics_.nemenyi_cd(3, 4)) and (test["n"], test["k"]) == (4, 3)
    lower = statistics_.friedman(
        {t: {m: -v for m, v in row.items()} for t, row in means.items()}, ["A", "B", "C"], False
    )
    assert lower["ranks"] == test["ranks"]  # a lower-is-better score ranks the same way


def test_the_paper_check_pools_a_seeds_held_out_parts_and_loses_below_minus_two_se():
    records = [
        check_record("d", "m", 0, 0, n_correct=8, n_test=10),
        check_record("d", "m", 0, 1, n_correct=5, n_test=5),
        # regression: two parts whose rows are y = (1, 3) and (5, 7), squared errors 1 + 1 and 4 + 0
        check_record("r", "m", 0, 0, sse=2.0, y_sum=4.0, y_sq_sum=10.0, n_test=2),
        check_record("r", "m", 0, 1, sse=4.0, y_sum=12.0, y_sq_sum=74.0, n_test=2),
    ]
    scores = statistics_.seed_scores(records)
    assert scores[("d", "m")] == {0: pytest.approx(13 / 15)}
    assert scores[("r", "m")] == {0: pytest.approx(1 - 6 / (84 - 16**2 / 4))}  # the R² of the four rows together
    seeds = {
        ("a", "dflt"): {0: 0.80, 1: 0.82, 2: 0.81},
        ("a", "cand"): {0: 0.78, 1: 0.80, 2: 0.80},  # -0.02, -0.02, -0.01: mean below minus two SE
        ("b", "dflt"): {0: 0.80, 1: 0.82, 2: 0.81},
        ("b", "cand"): {0: 0.81, 1: 0.80, 2: 0.81},  # +0.01, -0.02, 0: within one SE
        ("c", "dflt"): {0: 0.80, 1: 0.82, 2: 0.81},
        ("c", "cand"): {0: 0.80, 1: 0.80, 2: 0.80},  # 0, -0.02, -0.01: below minus one SE, within two
    }
    losses = statistics_.check_losses(seeds, "cand", "dflt")
    assert losses["a"][2] is True and losses["b"][2] is False and losses["c"][2] is False
    assert statistics_.check_losses(seeds, "cand", "dflt", k=1.0)["c"][2] is True
    assert losses["a"][0] == pytest.approx(-0.05 / 3)
