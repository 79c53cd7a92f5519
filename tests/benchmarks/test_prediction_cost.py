"""The prediction-cost study: the designs its page names, the accuracy half's condition (within one paired SE of
the default on every dataset and on the suite's mean, over every seed), its quick run, and the timing half."""

import math
import re
from pathlib import Path

from study_helpers import read_records

from benchmarks import prediction_cost
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
