"""The prediction-cost study: the designs its page names, the accuracy half's condition (within one paired SE of
the default on every dataset and on the suite's mean, over every seed), its quick run, and the timing half."""

import math
import re
import statistics
from fractions import Fraction
from pathlib import Path

from study_helpers import read_records

from benchmarks import prediction_cost
from benchmarks.harness import Results
from mddf import MDDFClassifier

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmarks" / "prediction-cost.md"


def test_the_designs_are_those_the_page_wrote_down_before_the_runs():
    section = PAGE.read_text().split("### Designs", 1)[1].split("###", 1)[0]
    named = re.findall(r"^\| `([^`]+)` \| ([^|]+) \|", section, flags=re.M)
    assert [name for name, _ in named] == list(prediction_cost.DESIGNS)
    for name, params in prediction_cost.DESIGNS.items():
        written = dict(named)[name]
        assert all(f"{key}={value!r}".replace("'", '"') in written for key, value in params.items()), name
        MDDFClassifier(**params)._validate_params()


def scores_of(per_seed):
    """``{(row, design): {seed: score}}`` from ``{(row, design): [score per seed]}``."""
    return {key: dict(enumerate(values)) for key, values in per_seed.items()}


def test_condition_one_holds_when_every_row_is_within_one_paired_se_over_every_seed():
    default = [0.90, 0.91, 0.92]
    scores = scores_of(
        {
            ("a", "default"): default,
            ("a", "near"): [0.899, 0.909, 0.921],  # -0.0003 ± 0.0007: within
            ("a", "far"): [0.88, 0.89, 0.90],  # -0.02 ± 0: below
            ("b", "default"): default,
            ("b", "near"): default,
            ("b", "far"): default,
        }
    )
    met, per_row = prediction_cost.condition_one(scores, "near", ["a", "b"], seeds=3)
    assert met is True and per_row["b"] == (0.0, 0.0, 3)
    met, per_row = prediction_cost.condition_one(scores, "far", ["a", "b"], seeds=3)
    assert met is False and math.isclose(per_row["a"][0], -0.02)
    assert prediction_cost.condition_one(scores, "near", ["a", "b"], seeds=5)[0] is None  # seeds still missing


def test_the_suite_score_of_a_seed_is_the_mean_over_its_tables_and_needs_every_table():
    scores = scores_of({("t1", "d"): [0.8, 0.9, 0.7], ("t2", "d"): [0.6, 0.7]})
    assert prediction_cost.suite_scores(scores, ["t1", "t2"], ["d"]) == {(prediction_cost.SUITE, "d"): {0: 0.7, 1: 0.8}}
    assert prediction_cost.suite_scores(scores, ["t1", "t3"], ["d"]) == {}


def test_a_seed_counts_only_once_all_its_held_out_parts_are_recorded():
    records = [{"dataset": "a", "method": "d", "repeat": s, "fold": f} for s, f in [(0, 0), (0, 1), (0, 2), (1, 0)]]
    assert {r["repeat"] for r in prediction_cost.complete_records(records, folds=3)} == {0}


def test_quick_accuracy_run_records_every_fold_tables_the_condition_and_resumes(tmp_path, capsys):
    argv = ["--quick", "--n-jobs", "1", "--out", str(tmp_path)]
    assert prediction_cost.main(argv) == 0
    records = read_records(tmp_path)
    assert sorted({r["method"] for r in records}) == ["default", "refit", "screen-995"]
    assert sorted({(r["repeat"], r["fold"]) for r in records}) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all(r["status"] == "ok" and r["n_correct"] <= r["n_test"] for r in records)
    page = (tmp_path / "prediction_cost_accuracy.md").read_text()
    assert re.search(r"\| digits \| \d+\.\d\d \[2\] \| \d+\.\d\d \([+-]\d+\.\d\d ± \d+\.\d\d\) \[2\] \|", page)
    assert re.search(r"\| refit \| (met|not met \(below one SE on digits\)) \|", page)
    # the timing half reads condition 1 from these records, and only with the settings they were made with
    verdicts = prediction_cost.accuracy_verdicts(tmp_path, quick=True)
    assert set(verdicts) == {"refit", "screen-995"}
    assert f"| refit | {'met' if verdicts['refit'] else 'not met'}" in page
    assert prediction_cost.accuracy_verdicts(tmp_path) == {}
    capsys.readouterr()
    assert prediction_cost.main(argv) == 0  # a rerun finds every fold done
    assert len(read_records(tmp_path)) == len(records) and "digits /" not in capsys.readouterr().err


def test_quick_timing_run_puts_the_designs_beside_the_references(tmp_path, in_this_process):
    argv = ["--timing", "--quick", "--n-jobs", "1", "--out", str(tmp_path)]
    argv += ["--df21-python", str(tmp_path / "no-env" / "bin" / "python")]
    assert prediction_cost.main(argv) == 0
    records = read_records(tmp_path)
    assert sorted(r["method"] for r in records) == ["RF400", "default", "refit"]
    assert all(r["status"] == "ok" and r["predict_s"] > 0 for r in records)
    page = (tmp_path / "prediction_cost_timing.md").read_text()
    assert "| digits | refit |" in page and "left out (no DF21 environment)" in page


def test_the_records_are_bound_to_every_designs_full_parameters(monkeypatch):
    before = prediction_cost.design_parameters()
    assert "'fold_trees', 'refit'" in before["refit"] and "'n_estimators', 100" in before["default"]
    monkeypatch.setitem(prediction_cost.DESIGNS, "default", {"n_estimators": 50})
    after = prediction_cost.design_parameters()
    assert after["default"] != before["default"] and after["refit"] == before["refit"]


def test_every_table_of_the_suite_counts_in_its_mean_recorded_or_not(monkeypatch):
    monkeypatch.setattr(prediction_cost.realdata, "names", lambda task: ["t1", "t2"])
    assert prediction_cost.suite_tables([{"dataset": "t1", "suite": "realdata"}]) == {"t1", "t2"}

    def no_suite(task):
        raise prediction_cost.realdata.RealDataError("no suite here")

    monkeypatch.setattr(prediction_cost.realdata, "names", no_suite)
    records = [{"dataset": "t1", "suite": "realdata"}, {"dataset": "letter", "suite": "paper"}]
    assert prediction_cost.suite_tables(records) == {"t1"}


def timing_records(spec):
    """Timing records from ``{(dataset, method): (accuracy, fit seconds, predict seconds)}``: seeds 0-1, one round."""
    return [
        {"dataset": d, "method": m, "seed": seed, "round": 0, "accuracy": acc, "fit_s": fit, "predict_s": predict}
        for (d, m), (acc, fit, predict) in spec.items()
        for seed in (0, 1)
    ]


def baseline(datasets=("a", "b")):
    """DF21 and the default on every dataset: the default fits as fast as DF21 and predicts in twice its time."""
    spec = {}
    for d in datasets:
        spec[(d, "DF21")] = (0.90, 10.0, 1.0)
        spec[(d, "default")] = (0.91, 10.0, 2.0)
    return spec


def test_the_rule_chooses_the_qualifying_design_that_predicts_fastest_against_df21():
    spec = baseline()
    for d in ("a", "b"):
        spec[(d, "refit")] = (0.905, 12.0, 0.8)  # qualifies: geomean 0.8
        spec[(d, "oob")] = (0.95, 5.0, 0.3)  # faster still, but condition 1 fails
    spec[("a", "share")] = (0.90, 14.0, 0.5)  # fits too slowly on b, predicts fastest of the three
    spec[("b", "share")] = (0.90, 16.0, 0.5)
    verdicts = {"refit": True, "share": True, "oob": False}
    table = prediction_cost.standings(verdicts, timing_records(spec), ["a", "b"])
    by = {s.design: s for s in table}
    assert [s.design for s in table] == ["default", "refit", "share", "oob"]
    assert math.isclose(by["refit"].predict_geomean, 0.8) and by["refit"].qualifies
    assert by["share"].fit_ratios == {"a": 1.4, "b": 1.6} and not by["share"].qualifies
    assert by["oob"].condition_1 is False and not by["oob"].qualifies
    assert prediction_cost.choose(table) == "refit"
    spec[("a", "refit")] = (0.899, 12.0, 0.8)  # below DF21's test accuracy on a: condition 2 fails
    table = prediction_cost.standings(verdicts, timing_records(spec), ["a", "b"])
    assert {s.design: s.below_df21 for s in table}["refit"] == ["a"]
    assert prediction_cost.choose(table) is None


def test_a_design_must_predict_faster_than_the_default_on_every_dataset():
    spec = baseline()
    spec[("a", "refit")] = (0.91, 10.0, 0.5)
    spec[("b", "refit")] = (0.91, 10.0, 2.0)  # as slow as the default on b
    table = prediction_cost.standings({"refit": True}, timing_records(spec), ["a", "b"])
    assert table[1].not_faster == ["b"] and prediction_cost.choose(table) is None


def test_a_tie_goes_to_the_design_that_changes_fewer_parameters():
    spec = baseline()
    for d in ("a", "b"):
        spec[(d, "refit+screen-995")] = (0.91, 10.0, 0.7)
        spec[(d, "refit")] = (0.91, 10.0, 0.7)
    table = prediction_cost.standings({"refit": True, "refit+screen-995": True}, timing_records(spec), ["a", "b"])
    assert prediction_cost.choose(table) == "refit"


def test_a_design_whose_accuracy_half_is_pending_is_not_chosen():
    spec = {**baseline(), ("a", "refit"): (0.91, 10.0, 0.5), ("b", "refit"): (0.91, 10.0, 0.5)}
    table = prediction_cost.standings({"refit": None}, timing_records(spec), ["a", "b"])
    assert not table[1].complete and prediction_cost.choose(table) is None


def test_ratios_pair_the_runs_of_one_seed_and_round():
    records = [
        {"dataset": "a", "method": "m", "seed": 0, "round": 0, "predict_s": 2.0},
        {"dataset": "a", "method": "DF21", "seed": 0, "round": 0, "predict_s": 1.0},
        {"dataset": "a", "method": "m", "seed": 0, "round": 1, "predict_s": 9.0},  # DF21 has no round 1
        {"dataset": "a", "method": "DF21", "seed": 1, "round": 0, "predict_s": 5.0},  # m has no seed 1
    ]
    assert prediction_cost.paired_ratio(records, "a", "m", "DF21", "predict_s") == 2.0
    assert math.isnan(prediction_cost.paired_ratio(records, "b", "m", "DF21", "predict_s"))


def test_the_frontier_has_a_panel_per_dataset_with_every_design_and_df21(tmp_path):
    spec = {**baseline(), ("a", "refit"): (0.91, 10.0, 0.5), ("b", "refit"): (0.92, 10.0, 0.6)}
    records = timing_records(spec)
    options = type("Options", (), {"out": tmp_path, "quick": False})()
    results = Results(options, False, ["a", "b"], ["default", "refit", "DF21"], {}, records, [], [], [])
    figure = prediction_cost.frontier(results)
    panels = figure.axes
    assert [ax.get_title() for ax in panels] == ["a", "b"]
    # the default and refit, then DF21's star; refit is hollow (its accuracy half has no records here)
    assert all(len(ax.collections) == 3 for ax in panels)
    points = {t.get_text(): t.xy for t in panels[1].texts}
    assert math.isclose(points["refit"][0], 0.6) and math.isclose(points["refit"][1], 2.0)
    section = prediction_cost.choice_section(results)
    assert (
        "| refit | pending | yes | yes |" in section
        and "Not made yet: waiting for the accuracy half or the timings of refit." in section
    )


def test_a_test_accuracy_equal_to_df21s_meets_condition_2_whatever_float_sums_say():
    # satimage's counts of correct rows in the timing run: equal totals, float means one ulp apart; DF21's
    # records do not say how many test rows there were
    correct = {"share": (1829, 1833, 1829), "DF21": (1834, 1832, 1825), "default": (1835, 1832, 1829)}
    records = [
        {"dataset": "s", "method": m, "seed": seed, "round": r, "accuracy": c / 2000}
        | ({} if m == "DF21" else {"n_test": 2000})
        | {"fit_s": 1.0, "predict_s": 1.0 if m == "share" else 2.0}
        for m, counts in correct.items()
        for seed, c in enumerate(counts)
        for r in range(3)
    ]
    floats = {m: statistics.fmean(statistics.fmean([c / 2000] * 3) for c in counts) for m, counts in correct.items()}
    assert floats["share"] < floats["DF21"]  # what a float mean of the rounds' means says
    share = prediction_cost.mean_test_accuracy(records, "s", "share")
    assert share == prediction_cost.mean_test_accuracy(records, "s", "DF21") == Fraction(5491, 6000)
    table = prediction_cost.standings({"share": True}, records, ["s"])
    assert table[1].below_df21 == [] and prediction_cost.choose(table) == "share"


def test_a_design_that_fails_a_measured_condition_does_not_wait_for_its_accuracy_half(monkeypatch):
    spec = baseline()
    for d in ("a", "b"):
        spec[(d, "refit")] = (0.91, 20.0, 0.5)  # fits in twice DF21's time
        spec[(d, "oob")] = (0.85, 5.0, 0.5)  # below DF21's test accuracy
        spec[(d, "share")] = (0.91, 10.0, 1.0)  # meets everything measured
    verdicts = {"refit": None, "oob": None, "share": None}
    table = prediction_cost.standings(verdicts, timing_records(spec), ["a", "b"])
    assert {s.design: s.qualifies for s in table if s.design != "default"} == {
        "refit": False,
        "share": None,
        "oob": False,
    }
    monkeypatch.setattr(prediction_cost, "accuracy_verdicts", lambda out, quick=False: verdicts)
    options = type("Options", (), {"out": None, "quick": False})()
    methods = ["default", "refit", "share", "oob", "DF21"]
    results = Results(options, False, ["a", "b"], methods, {}, timing_records(spec), [], [], [])
    section = prediction_cost.choice_section(results)
    assert "| refit | pending | yes | yes | 2.00 |" in section and section.count("| no |") == 2
    assert "Not made yet: waiting for the accuracy half or the timings of share." in section
