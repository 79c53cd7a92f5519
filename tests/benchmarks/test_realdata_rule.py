"""The real-data study's second rule: a table's paired difference, the choice among the candidates that qualify, and
the cost targets."""

import pytest
from realdata_records import results_of, suite_records

from benchmarks import realdata_rule as rule


# ------------------------------------------------------------------------------------------ the rules
def test_a_tables_paired_difference_is_over_the_folds_both_learners_have():
    scores = {
        ("t1", "cand"): {(0, 0): 0.9, (0, 1): 0.8},
        ("t1", "dflt"): {(0, 0): 0.8, (0, 1): 0.7, (0, 2): 0.5},
        ("t2", "cand"): {(0, 0): 0.6, (0, 1): 0.7},
        ("t2", "dflt"): {(0, 0): 0.7, (0, 1): 0.8},
        ("t3", "dflt"): {(0, 0): 0.5},
    }
    diffs = rule.table_differences(scores, "cand", "dflt", ["t1", "t2", "t3"])
    assert [t for t in diffs] == ["t1", "t2"] and diffs["t1"][0] == pytest.approx(0.1)
    assert diffs["t2"][0] == pytest.approx(-0.1) and diffs["t2"][1] == pytest.approx(0.0)


def test_of_the_candidates_that_qualify_the_highest_suite_mean_wins_and_calibration_is_decided_alone():
    verdicts = [
        {"candidate": "mdDF-gbdt", "qualifies": True, "suite_mean": 0.76},
        {"candidate": "mdDF-gbdt-pairs", "qualifies": True, "suite_mean": 0.77},
        {"candidate": "mdDF-pairs", "qualifies": False, "suite_mean": 0.78},
        {"candidate": "mdDF-cal", "qualifies": True, "suite_mean": 0.75},
    ]
    assert rule.choose(verdicts) == ("mdDF-gbdt-pairs", True)
    assert rule.choose([dict(v, qualifies=False) for v in verdicts]) == (None, False)


def test_the_regressor_cost_target_names_the_tables_above_ten_times_hgb(tmp_path):
    records, methods = suite_records()
    for r in records:
        if r["method"] == "HGB-es" and r["dataset"] in ("r1", "r2") and "r2" in r:
            r["fit_s"] = 0.1 if r["dataset"] == "r1" else 0.5  # the cascade's 2 s: 20x on r1, 4x on r2, 1x on r3
    lines = rule.cost_lines(results_of(tmp_path, records, methods), {"regression": "CascadeForest-base"})
    assert lines[2] == (
        "- regression: the new default (CascadeForest-base) fits in 1.00x and predicts in 1.00x the median seconds "
        "of today's (CascadeForest-base); target at most 1.0x and 1.2x: met"
    )
    assert "median fit is 4.0x HGB-es's over the suite (target at most 10x: met)" in lines[3]
    assert lines[3].endswith("per table r3 1.0x, r2 4.0x, r1 20.0x; above 10x: r1")
