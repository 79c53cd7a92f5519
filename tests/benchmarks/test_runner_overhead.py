"""The runner's overhead study: the main job's wall time against the seconds its runs record."""

import json
import time

import numpy as np
import pytest
from provenance_files import read_csv_rows

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


def test_one_round_times_the_command_of_each_runner_and_worker_count_and_writes_its_page(tmp_path, monkeypatch):
    calls = []

    def timed(python, table, workers, out, n_jobs):
        calls.append((python, len(table.read_text().splitlines()) - 1, workers, n_jobs))
        wall = {1: 2.0, 2: 4.0}[workers]  # ratios 1.33 (within 1.5) and 2.67 (not)
        return {"wall_s": wall, "recorded_s": 1.5 * workers, "ratio": wall / 1.5}

    monkeypatch.setattr(runner_overhead, "timed_run", timed)
    out = tmp_path / "out"
    argv = ["--rounds", "1", "--datasets", "rows-400", "--baseline-python", "/old/python", "--out", str(out), "--quiet"]
    assert runner_overhead.main(argv) == 0
    assert sorted(calls) == sorted(
        (p, 400, w, 2) for p in (runner_overhead.sys.executable, "/old/python") for w in (1, 2)
    )
    page = (out / "runner_overhead.md").read_text()
    assert "| rows-400 | 1 | baseline | 2.0 | 1.5 | 1.33 | yes |" in page
    assert "| rows-400 | 2 | today | 4.0 | 3.0 | 2.67 | no |" in page
    assert {r["method"] for r in read_csv_rows(out / "runner_overhead.csv")} == {
        "today/1",
        "today/2",
        "baseline/1",
        "baseline/2",
    }
    assert runner_overhead.main(argv) == 0 and len(calls) == 4  # a rerun resumes: nothing is timed again


def test_a_spin_run_lasts_its_seconds_and_predicts_the_majority():
    X, y = np.zeros((6, 2)), np.array([0, 1, 1, 1, 0, 1])
    start = time.perf_counter()
    model = runner_overhead.SpinClassifier(seconds=0.05).fit(X, y)
    assert time.perf_counter() - start >= 0.05 and (model.predict(X) == 1).all()


@pytest.mark.slow
def test_the_small_runs_command_times_every_run_it_asked_for():
    result = runner_overhead.small_runs_command(n_runs=2)
    assert result["command_recorded_s"] >= 2 * runner_overhead.SPIN_SECONDS
    assert result["command_ratio"] == pytest.approx(result["command_wall_s"] / result["command_recorded_s"])
