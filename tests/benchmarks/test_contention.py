"""The contention study: a configuration's slowdown beside spinning processes, and its ratio to the plain cascade's."""

import pytest
from study_helpers import read_records

from benchmarks import contention


@pytest.mark.slow
def test_a_quick_run_fits_in_a_fresh_process_and_records_its_seconds(tmp_path):
    assert contention.main(["--quick", "--out", str(tmp_path), "--quiet"]) == 0
    (record,) = read_records(tmp_path)
    assert record["status"] == "ok" and (record["dataset"], record["method"]) == ("quiet", "plain")
    assert record["wall"] > 0 and record["layers"] >= 1 and record["source"] == str(contention.ROOT)
    assert "| plain |" in (tmp_path / "contention.md").read_text()


def test_the_table_gives_each_slowdown_and_judges_their_ratio_against_the_target():
    def record(method, condition, wall):
        return {"method": method, "dataset": condition, "wall": wall}

    records = [
        record("plain", "quiet", 2.0),
        record("plain", "busy", 6.0),
        record("plain", "busy", 7.0),
        record("plain", "busy", 5.0),
        record("hgb-auto", "quiet", 3.0),
        record("hgb-auto", "busy", 13.5),
    ]
    assert contention.summary(records) == {
        "plain": {"quiet": 2.0, "busy": 6.0},
        "hgb-auto": {"quiet": 3.0, "busy": 13.5},
    }

    class Results:
        options = type("Options", (), {"rows": 5000, "quick": False, "n_jobs": 2, "busy": 4})()

    Results.records = records
    text = contention.table(Results)
    assert "| hgb-auto | 3.00 | 13.50 | 4.50 |" in text
    assert "hgb-auto slows 1.50 times as much as the plain cascade (target <= 1.5: met)" in text
    Results.records = records + [record("hgb-auto", "busy", 20.0)] * 2  # median 20: 6.67 / 3 = 2.22
    assert "(target <= 1.5: not met)" in contention.table(Results)


@pytest.mark.slow
def test_the_runners_table_reads_as_csv_with_its_category_columns_as_text(tmp_path):
    import subprocess
    import sys

    import pandas as pd

    path = tmp_path / "table.csv"
    subprocess.run([sys.executable, "-c", contention.WRITE_CSV, "60", str(path)], check=True)
    frame = pd.read_csv(path)
    assert frame.shape == (60, 19) and list(frame.columns[-3:]) == ["city", "product", "y"]
    assert not pd.api.types.is_numeric_dtype(frame["city"]) and frame["city"].str.startswith("c").all()
    assert frame.drop(columns=["city", "product"]).dtypes.map(pd.api.types.is_numeric_dtype).all()


@pytest.mark.slow
def test_a_quick_runner_run_times_the_benchmark_command_and_its_runs(tmp_path, monkeypatch):
    # the runs in the runner's own process: the command, its records and the table as the study makes them, without
    # the start-up of two worker processes (the measure itself keeps them)
    monkeypatch.setattr(contention, "RUNNER_ARGS", (*contention.RUNNER_ARGS, "--isolation", "inline"))
    argv = ["--quick", "--runner", "2", "--out", str(tmp_path), "--quiet"]
    assert contention.main(argv) == 0
    (record,) = read_records(tmp_path)
    assert record["status"] == "ok" and record["config"]["runner"] == 2
    assert 0 < record["runs_s"] < record["wall"]
    text = (tmp_path / "contention.md").read_text()
    assert "through 'mddf benchmark --workers 2'" in text
    assert "of the wall seconds:" in text and "of the runs' own seconds (summed over the runs):" in text


def test_with_the_runner_both_measures_are_judged():
    def record(method, condition, wall, runs_s):
        return {"method": method, "dataset": condition, "wall": wall, "runs_s": runs_s}

    records = [
        record("plain", "quiet", 10.0, 4.0),
        record("plain", "busy", 20.0, 8.0),
        record("hgb-auto", "quiet", 10.0, 4.0),
        record("hgb-auto", "busy", 25.0, 16.0),
    ]

    class Results:
        options = type("Options", (), {"rows": 5000, "quick": False, "n_jobs": 2, "busy": 4, "runner": 2})()

    Results.records = records
    wall, runs = contention.table(Results).split("the runs' own seconds")
    assert "slows 1.25 times as much as the plain cascade (target <= 1.5: met)" in wall
    assert "slows 2.00 times as much as the plain cascade (target <= 1.5: not met)" in runs
