"""The real-data page written from synthetic records: the tables, ranks and figures, the rules' decisions (beyond two
SE changes, within does not, a paper-check loss blocks), where the default is first, the paper check's page."""

import argparse
import math

import numpy as np
import pytest
from realdata_records import check_record, results_of, suite_records

from benchmarks import realdata_report as report
from benchmarks import realdata_rule as rule
from benchmarks import realdata_statistics as statistics_
from benchmarks.harness import CLASSIFICATION, Results
from mddf.experiments.store import ResultStore

# ------------------------------------------------------------------------------------------ the page


def _rule_row(page, candidate):
    rule = page[page.index("### Defaults, by the second rule") :]
    return next(line.split(" | ") for line in rule.splitlines() if line.startswith(f"| {candidate} |"))


def test_the_page_gives_the_tables_ranks_figures_and_the_second_rules_decisions(tmp_path, monkeypatch):
    monkeypatch.setattr(rule, "DEFAULTS", dict(rule.BASES))
    drawn = {}
    monkeypatch.setattr(report, "write_figures", lambda figures, out, prov: drawn.update(figures))
    records, methods = suite_records()
    page = report.suite_page(results_of(tmp_path, records, methods))
    assert "### Classification" in page and "### Regression" in page
    assert "| suite mean |" in page and "| median fit s per fit |" in page
    assert "Friedman test: chi2_F =" in page and "N = 4" in page and "N = 3" in page
    assert sorted(drawn) == [
        "realdata_cd_classification",
        "realdata_cd_regression",
        "realdata_fit_time_classification",
        "realdata_fit_time_regression",
    ]
    # columns: candidate, tables, suite difference, worst table, (a), paper check, (b), (c), times, (d), qualifies
    gbdt = _rule_row(page, "mdDF-gbdt")
    assert gbdt[2].startswith("+2.0") and gbdt[4] == "yes" and gbdt[6] == "not run" and gbdt[7] == "yes"
    assert gbdt[8] == "1.50x / 1.00x" and gbdt[9] == "yes" and gbdt[10] == "no |"  # the check has not run
    pairs = _rule_row(page, "mdDF-pairs")
    assert pairs[3].startswith("c4 -2.0") and pairs[4] == "**no**"  # c4: worse by 2 points, beyond two SE
    calibration = _rule_row(page, "mdDF-cal")
    assert calibration[3] == "identical on every fold" and calibration[4] == calibration[6] == "yes"
    assert calibration[10] == "**yes** |"
    assert "By the rule, for MDDFClassifier: the base's design stays; calibration is **on** by default." in page
    boosted = _rule_row(page, "CascadeForest-gbdt")
    assert boosted[8] == "3.00x / 1.00x" and boosted[9] == "**no**"  # three times the fit time
    assert "- suite mean accuracy: mdDF-base 83.0" in page and ", CatBoost-es 83.0" in page
    assert "- suite mean log_loss: mdDF-cal 0.0695, LightGBM-es 0.1641" in page
    # the cost targets: the new default (calibration alone here) and the regressor against HGB-es (2 s each)
    assert "- classification: the new default (mdDF-cal) fits in 1.00x and predicts in 1.00x" in page
    assert "- regression: the new default (CascadeForest-base) fits in 1.00x" in page
    assert (
        "- regression: CascadeForest-base's median fit is 1.0x HGB-es's over the suite (target at most 10x: met)"
        in page
    )
    assert "per table r1 1.0x, r2 1.0x, r3 1.0x" in page and "above 10x" not in page

    # the paper check in --out: the boosted member loses on no dataset, so it qualifies and becomes the default
    store = ResultStore(tmp_path / "results.jsonl")
    for method, correct in (("mdDF-base", [90, 91, 92]), ("mdDF-gbdt", [91, 91, 93])):
        for seed, value in enumerate(correct):
            store.append(
                {
                    **check_record("letter", method, seed, 0, n_correct=value, n_test=100),
                    "config": {"check": "paper", "quick": False},
                }
            )
    page = report.suite_page(results_of(tmp_path, records, methods))
    gbdt = _rule_row(page, "mdDF-gbdt")
    assert gbdt[5].startswith("letter +0.67") and gbdt[6] == "yes" and gbdt[10] == "**yes** |"
    assert "for MDDFClassifier: the new default is **mdDF-gbdt**; calibration is **on** by default." in page
    assert "- classification: the new default (mdDF-gbdt) fits in 1.50x and predicts in 1.00x" in page
    assert "target at most 1.0x and 1.2x: **missed**" in page


def test_where_the_default_is_first_names_the_best_peer_its_difference_and_the_fit_time_ratio(tmp_path, monkeypatch):
    monkeypatch.setattr(rule, "DEFAULTS", dict(rule.BASES))  # the section reads the default DEFAULTS names
    records, methods = suite_records()
    lines = report.where_section(results_of(tmp_path, records, methods), "classification", ["c1", "c2", "c3", "c4"])
    rows = [line.split(" | ") for line in lines if line.startswith("| c")]
    # HGB-es is the only peer and one point ahead on every table, with 0.1-point noise: beyond two SE; the base's
    # fits take 10 s against its 1 s
    assert len(rows) == 4
    for row in rows:
        assert row[3] == "HGB-es" and float(row[4].split(" ± ")[0]) == pytest.approx(-1.0, abs=0.15)
        assert row[5:] == ["behind, beyond 2 SE", "10x |"]
    assert "mdDF-base is first on 0 of 4 tables, beyond two SE on 0; behind beyond two SE on 4." in lines[0]
    lines = report.where_section(results_of(tmp_path, records, methods), "regression", ["r1", "r2", "r3"])
    assert "CascadeForest-base is first on 0 of 3 tables" in lines[0]
    # a default ahead of its only peer by 5 points is first; the SE is Nadeau and Bengio's (1/n + 1/(folds - 1)) var
    mine = [r for r in records if r["method"] == "mdDF-base" and r["dataset"] == "c1"]
    ahead = [dict(r, method="RF-400", accuracy=r["accuracy"] - 0.05 + 0.001 * (r["fold"] - 1)) for r in mine]
    lines = report.where_section(results_of(tmp_path, mine + ahead, ["mdDF-base", "RF-400"]), "classification", ["c1"])
    assert "mdDF-base is first on 1 of 1 tables, beyond two SE on 1" in lines[0]
    # RF-400's records are copies of mdDF's: the same fit seconds
    assert "| c1 | 100 | 1 | RF-400 | +5.00 ± " in lines[-2] and "| first, beyond 2 SE | 1x |" in lines[-2]
    scores = statistics_.fold_scores(mine + ahead, "accuracy")
    mean, se = statistics_.paired_fold_difference(scores, "c1", "mdDF-base", "RF-400", folds=3)
    d = [0.05 - 0.001 * (fold - 1) for _ in range(2) for fold in range(3)]
    assert mean == pytest.approx(0.05) and se == pytest.approx(math.sqrt((1 / 6 + 1 / 2) * np.var(d, ddof=1)))


def test_the_check_page_and_the_rows_of_synthetic_records(tmp_path):
    records = [
        check_record("letter", m, s, f, n_correct=90 + s + (m == "mdDF-gbdt"), n_test=100)
        for m in ("mdDF-base", "mdDF-gbdt")
        for s in range(3)
        for f in range(3)
    ]
    options = argparse.Namespace(out=tmp_path, folds=3, repeats=3, quick=False)
    methods = ["mdDF-base", "mdDF-gbdt"]
    results = Results(options, True, ["letter"], methods, {"letter": CLASSIFICATION}, records, [], [], [])
    page = report.check_page(results)
    assert "| letter | 91.00 | 92.00 (+1.00 ± 0.00) |" in page  # every seed +1 point: an SE of 0
    rows = report.suite_rows(
        Results(options, True, ["c1"], ["mdDF-base"], {"c1": CLASSIFICATION}, suite_records()[0][:6], [], [], [])
    )
    assert rows[0]["table"] == "c1" and rows[0]["folds"] == 6 and 0.79 < rows[0]["accuracy"] < 0.81
