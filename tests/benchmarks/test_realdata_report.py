"""The real-data page: Friedman and Nemenyi against hand-computed numbers, the rules' decisions (beyond two SE
changes, within does not, a paper-check loss blocks), the paper check's pooled scores, and the page written from
synthetic records."""

import argparse
import math

import numpy as np
import pytest

from benchmarks import realdata_report as report
from benchmarks.harness import CLASSIFICATION, REGRESSION, Results
from mddf.experiments.store import ResultStore


# ------------------------------------------------------------------------------------------ ranks
def test_the_nemenyi_critical_difference_is_demsars():
    # Demšar (2006), Table 5: q_0.05 = 2.343 (k = 3), 2.569 (k = 4), 3.164 (k = 10); CD = q sqrt(k (k + 1) / (6 N))
    assert report.nemenyi_cd(4, 14) == pytest.approx(2.569 * math.sqrt(20 / 84), abs=1e-3)  # his example: 1.25
    assert report.nemenyi_cd(3, 4) == pytest.approx(2.343 * math.sqrt(12 / 24), abs=1e-3)
    assert report.nemenyi_cd(10, 20) == pytest.approx(3.164 * math.sqrt(110 / 120), abs=1e-3)


def test_the_friedman_test_on_a_hand_computed_example():
    # ranks per table (A, B, C): (1, 2, 3), (1, 3, 2), (2, 1, 3), (1, 2.5, 2.5): mean ranks 1.25, 2.125, 2.625
    means = {
        "t1": {"A": 0.9, "B": 0.8, "C": 0.7},
        "t2": {"A": 0.9, "B": 0.6, "C": 0.7},
        "t3": {"A": 0.8, "B": 0.9, "C": 0.7},
        "t4": {"A": 0.9, "B": 0.5, "C": 0.5},
    }
    test = report.friedman(means, ["A", "B", "C"])
    assert test["ranks"] == pytest.approx({"A": 1.25, "B": 2.125, "C": 2.625})
    # chi2_F = 12 N / (k (k + 1)) (sum R^2 - k (k + 1)^2 / 4) = 4 (1.5625 + 4.515625 + 6.890625 - 12) = 3.875
    assert test["chi2"] == pytest.approx(3.875) and test["p"] == pytest.approx(math.exp(-3.875 / 2))
    assert test["ff"] == pytest.approx(3 * 3.875 / (4 * 2 - 3.875))  # Iman-Davenport
    assert test["cd"] == pytest.approx(report.nemenyi_cd(3, 4)) and (test["n"], test["k"]) == (4, 3)
    lower = report.friedman({t: {m: -v for m, v in row.items()} for t, row in means.items()}, ["A", "B", "C"], False)
    assert lower["ranks"] == test["ranks"]  # a lower-is-better score ranks the same way


def test_the_critical_difference_bars_join_the_learners_no_more_than_cd_apart():
    ranks = {"a": 1.0, "b": 1.5, "c": 2.4, "d": 3.9}
    assert report.cliques(ranks, 1.5) == [["a", "b", "c"], ["c", "d"]]
    assert report.cliques(ranks, 0.1) == []
    fig = report.cd_figure(ranks, 1.5, "toy")
    assert len(fig.axes[0].texts) >= 4
    import matplotlib.pyplot as plt

    plt.close(fig)


# ------------------------------------------------------------------------------------------ the rules
def test_a_tables_paired_difference_is_over_the_folds_both_learners_have():
    scores = {
        ("t1", "cand"): {(0, 0): 0.9, (0, 1): 0.8},
        ("t1", "dflt"): {(0, 0): 0.8, (0, 1): 0.7, (0, 2): 0.5},
        ("t2", "cand"): {(0, 0): 0.6, (0, 1): 0.7},
        ("t2", "dflt"): {(0, 0): 0.7, (0, 1): 0.8},
        ("t3", "dflt"): {(0, 0): 0.5},
    }
    diffs = report.table_differences(scores, "cand", "dflt", ["t1", "t2", "t3"])
    assert [t for t in diffs] == ["t1", "t2"] and diffs["t1"][0] == pytest.approx(0.1)
    assert diffs["t2"][0] == pytest.approx(-0.1) and diffs["t2"][1] == pytest.approx(0.0)


def test_of_the_candidates_that_qualify_the_highest_suite_mean_wins_and_calibration_is_decided_alone():
    verdicts = [
        {"candidate": "mdDF-gbdt", "qualifies": True, "suite_mean": 0.76},
        {"candidate": "mdDF-gbdt-pairs", "qualifies": True, "suite_mean": 0.77},
        {"candidate": "mdDF-pairs", "qualifies": False, "suite_mean": 0.78},
        {"candidate": "mdDF-cal", "qualifies": True, "suite_mean": 0.75},
    ]
    assert report.choose(verdicts) == ("mdDF-gbdt-pairs", True)
    assert report.choose([dict(v, qualifies=False) for v in verdicts]) == (None, False)


def _check_record(dataset, method, seed, fold, **fields):
    return {
        "key": f"{dataset}|{method}|repeat={seed}|fold={fold}",
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "repeat": seed,
        "fold": fold,
        "status": "ok",
        **fields,
    }


def test_the_paper_check_pools_a_seeds_held_out_parts_and_loses_below_minus_two_se():
    records = [
        _check_record("d", "m", 0, 0, n_correct=8, n_test=10),
        _check_record("d", "m", 0, 1, n_correct=5, n_test=5),
        # regression: two parts whose rows are y = (1, 3) and (5, 7), squared errors 1 + 1 and 4 + 0
        _check_record("r", "m", 0, 0, sse=2.0, y_sum=4.0, y_sq_sum=10.0, n_test=2),
        _check_record("r", "m", 0, 1, sse=4.0, y_sum=12.0, y_sq_sum=74.0, n_test=2),
    ]
    scores = report.seed_scores(records)
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
    losses = report.check_losses(seeds, "cand", "dflt")
    assert losses["a"][2] is True and losses["b"][2] is False and losses["c"][2] is False
    assert report.check_losses(seeds, "cand", "dflt", k=1.0)["c"][2] is True
    assert losses["a"][0] == pytest.approx(-0.05 / 3)


# ------------------------------------------------------------------------------------------ the page
def _suite_records():
    """Four classification tables and three regression tables, two repeats of three folds: mdDF-gbdt beats the base
    by 2 points on every table (beyond two SE) at 1.5 times its fit time, mdDF-pairs by +3 points on three tables
    and -2 on the fourth, mdDF-cal has the base's accuracies (lower log-loss), HGB-es is a point ahead; the
    regressor's boosted member is 0.05 R² ahead at three times the fit time."""
    rng = np.random.RandomState(0)
    records = []
    classifiers = {
        "mdDF-base": 0.0,
        "mdDF-gbdt": 0.02,
        "mdDF-pairs": None,
        "mdDF-cal": 0.0,
        "HGB-es": 0.01,
        "LightGBM-es": 0.005,
        "CatBoost-es": 0.0,
        "Baseline": -0.3,
    }
    regressors = {"CascadeForest-base": 0.0, "CascadeForest-gbdt": 0.05, "HGB-es": 0.01, "Baseline": -0.7}
    fit_s = {"mdDF-base": 10.0, "mdDF-gbdt": 15.0, "mdDF-pairs": 11.0, "mdDF-cal": 10.0, "CascadeForest-gbdt": 6.0}
    for i, table in enumerate(["c1", "c2", "c3", "c4"]):
        noise = 0.001 * rng.standard_normal((2, 3))
        for method, shift in classifiers.items():
            if method == "mdDF-pairs":  # +3 points on three tables, a 2-point loss (beyond two SE) on the fourth
                shift = 0.03 if table != "c4" else -0.02
            for repeat in range(2):
                for fold in range(3):
                    accuracy = 0.8 + 0.02 * i + shift + noise[repeat, fold]
                    if method not in ("mdDF-base", "mdDF-cal"):
                        accuracy += 0.001 * rng.standard_normal()
                    records.append(
                        {
                            "dataset": table,
                            "method": method,
                            "seed": repeat,
                            "repeat": repeat,
                            "fold": fold,
                            "accuracy": accuracy,
                            "balanced_accuracy": accuracy - 0.05,
                            "log_loss": 1 - accuracy - 0.1 * (method == "mdDF-cal"),
                            "fit_s": fit_s.get(method, 1.0),
                            "predict_s": 0.1,
                            "n_test": 100,
                            "n_categorical": 0 if table == "c4" else 1,
                            "status": "ok",
                        }
                    )
    for i, table in enumerate(["r1", "r2", "r3"]):
        for method, shift in regressors.items():
            for repeat in range(2):
                for fold in range(3):
                    r2 = 0.6 + 0.05 * i + shift + 0.001 * rng.standard_normal()
                    records.append(
                        {
                            "dataset": table,
                            "method": method,
                            "seed": repeat,
                            "repeat": repeat,
                            "fold": fold,
                            "r2": r2,
                            "rmse": 1 - r2,
                            "fit_s": fit_s.get(method, 2.0),
                            "predict_s": 0.1,
                            "n_test": 50,
                            "n_categorical": 1,
                            "status": "ok",
                        }
                    )
    return records, list(dict.fromkeys([*classifiers, *regressors]))


def _results(tmp_path, records, methods):
    options = argparse.Namespace(out=tmp_path, folds=3, repeats=2, quick=False, argv=["--report-only"])
    tables = ["c1", "c2", "c3", "c4", "r1", "r2", "r3"]
    metrics = {t: CLASSIFICATION if t.startswith("c") else REGRESSION for t in tables}
    return Results(options, True, tables, methods, metrics, records, [], [], [])


def _rule_row(page, candidate):
    rule = page[page.index("### Defaults, by the second rule") :]
    return next(line.split(" | ") for line in rule.splitlines() if line.startswith(f"| {candidate} |"))


def test_the_page_gives_the_tables_ranks_figures_and_the_second_rules_decisions(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "DEFAULTS", dict(report.BASES))
    drawn = {}
    monkeypatch.setattr(report, "write_figures", lambda figures, out, prov: drawn.update(figures))
    records, methods = _suite_records()
    page = report.suite_page(_results(tmp_path, records, methods))
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
                    **_check_record("letter", method, seed, 0, n_correct=value, n_test=100),
                    "config": {"check": "paper", "quick": False},
                }
            )
    page = report.suite_page(_results(tmp_path, records, methods))
    gbdt = _rule_row(page, "mdDF-gbdt")
    assert gbdt[5].startswith("letter +0.67") and gbdt[6] == "yes" and gbdt[10] == "**yes** |"
    assert "for MDDFClassifier: the new default is **mdDF-gbdt**; calibration is **on** by default." in page
    assert "- classification: the new default (mdDF-gbdt) fits in 1.50x and predicts in 1.00x" in page
    assert "target at most 1.0x and 1.2x: **missed**" in page


def test_where_the_default_is_first_names_the_best_peer_its_difference_and_the_fit_time_ratio(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "DEFAULTS", dict(report.BASES))  # the section reads the default DEFAULTS names
    records, methods = _suite_records()
    lines = report.where_section(_results(tmp_path, records, methods), "classification", ["c1", "c2", "c3", "c4"])
    rows = [line.split(" | ") for line in lines if line.startswith("| c")]
    # HGB-es is the only peer and one point ahead on every table, with 0.1-point noise: beyond two SE; the base's
    # fits take 10 s against its 1 s
    assert len(rows) == 4
    for row in rows:
        assert row[3] == "HGB-es" and float(row[4].split(" ± ")[0]) == pytest.approx(-1.0, abs=0.15)
        assert row[5:] == ["behind, beyond 2 SE", "10x |"]
    assert "mdDF-base is first on 0 of 4 tables, beyond two SE on 0; behind beyond two SE on 4." in lines[0]
    lines = report.where_section(_results(tmp_path, records, methods), "regression", ["r1", "r2", "r3"])
    assert "CascadeForest-base is first on 0 of 3 tables" in lines[0]
    # a default ahead of its only peer by 5 points is first; the SE is Nadeau and Bengio's (1/n + 1/(folds - 1)) var
    mine = [r for r in records if r["method"] == "mdDF-base" and r["dataset"] == "c1"]
    ahead = [dict(r, method="RF-400", accuracy=r["accuracy"] - 0.05 + 0.001 * (r["fold"] - 1)) for r in mine]
    lines = report.where_section(_results(tmp_path, mine + ahead, ["mdDF-base", "RF-400"]), "classification", ["c1"])
    assert "mdDF-base is first on 1 of 1 tables, beyond two SE on 1" in lines[0]
    # RF-400's records are copies of mdDF's: the same fit seconds
    assert "| c1 | 100 | 1 | RF-400 | +5.00 ± " in lines[-2] and "| first, beyond 2 SE | 1x |" in lines[-2]
    scores = report.fold_scores(mine + ahead, "accuracy")
    mean, se = report.paired_fold_difference(scores, "c1", "mdDF-base", "RF-400", folds=3)
    d = [0.05 - 0.001 * (fold - 1) for _ in range(2) for fold in range(3)]
    assert mean == pytest.approx(0.05) and se == pytest.approx(math.sqrt((1 / 6 + 1 / 2) * np.var(d, ddof=1)))


def test_the_check_page_and_the_rows_of_synthetic_records(tmp_path):
    records = [
        _check_record("letter", m, s, f, n_correct=90 + s + (m == "mdDF-gbdt"), n_test=100)
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
        Results(options, True, ["c1"], ["mdDF-base"], {"c1": CLASSIFICATION}, _suite_records()[0][:6], [], [], [])
    )
    assert rows[0]["table"] == "c1" and rows[0]["folds"] == 6 and 0.79 < rows[0]["accuracy"] < 0.81


def test_the_frontier_keeps_the_learners_no_other_beats_on_both_time_and_score():
    points = [("slow-best", 10.0, 0.9), ("fast-good", 1.0, 0.8), ("dominated", 5.0, 0.7), ("tie-slower", 2.0, 0.8)]
    assert [p[0] for p in report.frontier(points)] == ["fast-good", "slow-best"]
    losses = [("a", 1.0, 0.5), ("b", 2.0, 0.4), ("c", 3.0, 0.6)]  # log-loss: lower is better
    assert [p[0] for p in report.frontier(losses, higher=False)] == ["a", "b"]


def test_the_regressor_cost_target_names_the_tables_above_ten_times_hgb(tmp_path):
    records, methods = _suite_records()
    for r in records:
        if r["method"] == "HGB-es" and r["dataset"] in ("r1", "r2") and "r2" in r:
            r["fit_s"] = 0.1 if r["dataset"] == "r1" else 0.5  # the cascade's 2 s: 20x on r1, 4x on r2, 1x on r3
    lines = report.cost_lines(_results(tmp_path, records, methods), {"regression": "CascadeForest-base"})
    assert lines[2] == (
        "- regression: the new default (CascadeForest-base) fits in 1.00x and predicts in 1.00x the median seconds "
        "of today's (CascadeForest-base); target at most 1.0x and 1.2x: met"
    )
    assert "median fit is 4.0x HGB-es's over the suite (target at most 10x: met)" in lines[3]
    assert lines[3].endswith("per table r3 1.0x, r2 4.0x, r1 20.0x; above 10x: r1")
