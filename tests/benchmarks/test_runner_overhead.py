"""The runner's overhead study: the main job's wall time against the seconds its runs record."""

import json

import pytest

from benchmarks import runner_overhead


def test_the_recorded_seconds_add_warm_up_selection_fit_and_prediction(tmp_path):
    path = tmp_path / "results.jsonl"
    records = [
        {"compile_seconds": 1.0, "total_seconds": 2.0, "predict_seconds": 0.5, "predict_proba_seconds": 0.125},
        {"compile_seconds": None, "total_seconds": 3.0, "predict_seconds": 0.25},  # an earlier runner's record
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert runner_overhead.recorded_seconds(path) == pytest.approx(6.875)
    table = runner_overhead.write_table(tmp_path / "t.csv", 50)
    assert table.read_text().splitlines()[0] == "x0,x1,x2,x3,x4,colour,label"


def test_one_round_times_the_command_and_writes_its_page(tmp_path, monkeypatch):
    monkeypatch.setattr(runner_overhead, "TABLES", {"rows-60": 60})
    monkeypatch.setattr(runner_overhead, "timed_run", lambda python, table, workers, out: {
        "wall_s": 2.0 * workers, "recorded_s": 1.5 * workers, "ratio": 2.0 / 1.5 * workers
    })  # fmt: skip
    assert runner_overhead.main(["--rounds", "1", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    page = (tmp_path / "out" / "runner_overhead.md").read_text()
    assert "| rows-60 | 1 | today | 2.0 | 1.5 | 1.33 | no |" in page
