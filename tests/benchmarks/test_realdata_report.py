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
def test_the_suite_difference_is_the_mean_of_the_tables_paired_differences_with_the_tables_se():
    scores = {
        ("t1", "cand"): {(0, 0): 0.8, (0, 1): 0.9, (1, 0): 0.7},
        ("t1", "dflt"): {(0, 0): 0.7, (0, 1): 0.8},  # fold (1, 0) missing: not paired
        ("t2", "cand"): {(0, 0): 0.5},
        ("t2", "dflt"): {(0, 0): 0.6},
    }
    diffs = report.paired_differences(scores, "cand", "dflt", ["t1", "t2", "t3"])
    assert diffs == pytest.approx({"t1": 0.1, "t2": -0.1})
    mean, se, n = report.suite_difference(diffs)
    assert (mean, n) == (pytest.approx(0.0), 2) and se == pytest.approx(np.std([0.1, -0.1], ddof=1) / math.sqrt(2))


def test_a_default_changes_only_beyond_two_se_in_the_candidates_favour_without_a_paper_check_loss():
    no_loss = {"letter": (0.001, 0.002, False)}
    assert report.decide(0.021, 0.01, no_loss)[0] is True  # beyond two SE, the check does not lose
    assert report.decide(0.019, 0.01, no_loss)[0] is False  # within two SE
    assert "within two SE" in report.decide(-0.019, 0.01, no_loss)[1]
    stays = report.decide(-0.05, 0.01, no_loss)
    assert stays[0] is False and "in the default's favour" in stays[1]
    blocked = report.decide(0.05, 0.01, {"letter": (0.0, 0.01, False), "adult": (-0.02, 0.01, True)})
    assert blocked[0] is False and "loses beyond one SE on adult" in blocked[1]
    assert "has not run" in report.decide(0.05, 0.01, None)[1]
    assert "not enough tables" in report.decide(0.05, math.nan, no_loss)[1]


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


def test_the_paper_check_pools_a_seeds_held_out_parts_and_loses_below_minus_one_se():
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
        ("a", "cand"): {0: 0.78, 1: 0.80, 2: 0.80},  # -0.02, -0.02, -0.01: mean below minus one SE
        ("b", "dflt"): {0: 0.80, 1: 0.82, 2: 0.81},
        ("b", "cand"): {0: 0.81, 1: 0.80, 2: 0.81},  # +0.01, -0.02, 0: within one SE
    }
    losses = report.check_losses(seeds, "cand", "dflt")
    assert losses["a"][2] is True and losses["b"][2] is False
    assert losses["a"][0] == pytest.approx(-0.05 / 3)


# ------------------------------------------------------------------------------------------ the page
def _suite_records():
    """Four classification tables (three with a category column) and three regression tables, two repeats of
    three folds: mdDF-hgb beats mdDF by 2 points on every table (beyond two SE), mdDF-ordinal by +-0.5 points
    (within), the regressor's target="y" by 0.05 of R² everywhere."""
    rng = np.random.RandomState(0)
    records = []
    classifiers = {
        "mdDF": 0.0,
        "mdDF-ordinal": None,
        "mdDF-hgb": 0.02,
        "mdDF-pairs": None,
        "HGB-es": 0.01,
        "Baseline": -0.3,
    }
    regressors = {"CascadeForest": 0.0, "CascadeForest-target-y": 0.05, "HGB-es": 0.01, "Baseline": -0.7}
    for i, table in enumerate(["c1", "c2", "c3", "c4"]):
        for method, shift in classifiers.items():
            if method == "mdDF-ordinal":
                if table == "c4":
                    continue
                shift = 0.005 * (-1) ** i
            if method == "mdDF-pairs":  # +3 points where it appends a pair feature, the default's score elsewhere
                shift = 0.03 if table != "c4" else 0.0
            for repeat in range(2):
                for fold in range(3):
                    accuracy = 0.8 + 0.02 * i + shift + 0.001 * rng.standard_normal()
                    records.append(
                        {
                            "dataset": table,
                            "method": method,
                            "seed": repeat,
                            "repeat": repeat,
                            "fold": fold,
                            "accuracy": accuracy,
                            "balanced_accuracy": accuracy - 0.05,
                            "log_loss": 1 - accuracy,
                            "fit_s": 1.0 + 10 * (method.startswith("mdDF")),
                            "predict_s": 0.1,
                            "n_test": 100,
                            "n_categorical": 0 if table == "c4" else 1,
                            "status": "ok",
                            **({"n_pairs": 0 if table == "c4" else 2} if method == "mdDF-pairs" else {}),
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
                            "fit_s": 2.0,
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


def test_the_page_gives_the_tables_ranks_figures_and_decisions_of_synthetic_records(tmp_path, monkeypatch):
    drawn = {}
    monkeypatch.setattr(report, "write_figures", lambda figures, out, prov: drawn.update(figures))
    records, methods = _suite_records()
    page = report.suite_page(_results(tmp_path, records, methods))
    assert "### Classification" in page and "### Regression" in page
    assert (
        "| c1 | 80.10 ± 0.05 | 80.55 ± 0.03 | 82.05" in page
        and "| suite mean |" in page
        and "| median fit s per fit |" in page
    )
    assert "Friedman test: chi2_F =" in page and "N = 4" in page and "N = 3" in page
    assert sorted(drawn) == [
        "realdata_cd_classification",
        "realdata_cd_regression",
        "realdata_fit_time_classification",
        "realdata_fit_time_regression",
    ]
    lines = {line.split(" | ")[0]: line for line in page.splitlines() if line.startswith("| `")}
    ordinal = lines['| `categorical_splits` ("subset" -> "ordinal"), MDDFClassifier']
    assert "| 3 |" in ordinal and "within two SE" in ordinal  # the three tables with a category column
    target = lines['| `target` ("residual" -> "y"), CascadeForestRegressor']
    assert "+0.05" in target and "the paper check has not run: undecided" in target
    assert "Best mean rank: mdDF-hgb (+2.00 ± 0.05 points over 3 tables): beyond two SE" in page
    assert "the paper check has not run: the documentation recommends the default" in page
    pairs = next(line for line in page.splitlines() if line.startswith("| `PairFeatures` in front, MDDFClassifier"))
    assert "| 3 | +2.98" in pairs and "| yes |" in pairs  # on the three tables where it appended a feature

    # the paper check in --out: target="y" loses beyond one SE on diabetes, so the default stays
    store = ResultStore(tmp_path / "results.jsonl")
    for method, sse in (("CascadeForest", [1.0, 1.1, 1.2]), ("CascadeForest-target-y", [1.5, 1.7, 1.6])):
        for seed, value in enumerate(sse):
            store.append(
                {
                    **_check_record("diabetes", method, seed, 0, sse=value, y_sum=0.0, y_sq_sum=4.0, n_test=4),
                    "config": {"check": "paper", "quick": False},
                }
            )
    page = report.suite_page(_results(tmp_path, records, methods))
    target = next(line for line in page.splitlines() if line.startswith("| `target`"))
    assert (
        "diabetes" in target and "(loses)" in target and "loses beyond one SE on diabetes: the default stays" in target
    )


def test_where_the_default_is_first_names_the_best_peer_its_difference_and_the_fit_time_ratio(tmp_path):
    records, methods = _suite_records()
    lines = report.where_section(_results(tmp_path, records, methods), "classification", ["c1", "c2", "c3", "c4"])
    rows = [line.split(" | ") for line in lines if line.startswith("| c")]
    # HGB-es is the only peer and one point ahead on every table, with 0.1-point noise: beyond two SE; mdDF's fits
    # take 11 s against its 1 s
    assert len(rows) == 4
    for row in rows:
        assert row[3] == "HGB-es" and float(row[4].split(" ± ")[0]) == pytest.approx(-1.0, abs=0.15)
        assert row[5:] == ["behind, beyond 2 SE", "11x |"]
    assert "mdDF is first on 0 of 4 tables, beyond two SE on 0; behind beyond two SE on 4." in lines[0]
    lines = report.where_section(_results(tmp_path, records, methods), "regression", ["r1", "r2", "r3"])
    assert "CascadeForest is first on 0 of 3 tables" in lines[0]
    # a default ahead of its only peer by 5 points is first; the SE is Nadeau and Bengio's (1/n + 1/(folds - 1)) var
    mine = [r for r in records if r["method"] == "mdDF" and r["dataset"] == "c1"]
    ahead = [dict(r, method="RF-400", accuracy=r["accuracy"] - 0.05 + 0.001 * (r["fold"] - 1)) for r in mine]
    lines = report.where_section(_results(tmp_path, mine + ahead, ["mdDF", "RF-400"]), "classification", ["c1"])
    assert "mdDF is first on 1 of 1 tables, beyond two SE on 1" in lines[0]
    # RF-400's records are copies of mdDF's: the same fit seconds
    assert "| c1 | 100 | 1 | RF-400 | +5.00 ± " in lines[-2] and "| first, beyond 2 SE | 1x |" in lines[-2]
    scores = report.fold_scores(mine + ahead, "accuracy")
    mean, se = report.paired_fold_difference(scores, "c1", "mdDF", "RF-400", folds=3)
    d = [0.05 - 0.001 * (fold - 1) for _ in range(2) for fold in range(3)]
    assert mean == pytest.approx(0.05) and se == pytest.approx(math.sqrt((1 / 6 + 1 / 2) * np.var(d, ddof=1)))


def test_the_check_page_and_the_rows_of_synthetic_records(tmp_path):
    records = [
        _check_record("letter", m, s, f, n_correct=90 + s + (m == "mdDF-mer0"), n_test=100)
        for m in ("mdDF", "mdDF-mer0")
        for s in range(3)
        for f in range(3)
    ]
    options = argparse.Namespace(out=tmp_path, folds=3, repeats=3, quick=False)
    results = Results(options, True, ["letter"], ["mdDF", "mdDF-mer0"], {"letter": CLASSIFICATION}, records, [], [], [])
    page = report.check_page(results)
    assert "| letter | 91.00 | 92.00 (+1.00 ± 0.00) |" in page  # every seed +1 point: an SE of 0
    rows = report.suite_rows(
        Results(options, True, ["c1"], ["mdDF"], {"c1": CLASSIFICATION}, _suite_records()[0][:6], [], [], [])
    )
    assert rows[0]["table"] == "c1" and rows[0]["folds"] == 6 and 0.79 < rows[0]["accuracy"] < 0.81
