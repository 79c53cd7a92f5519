"""bench_regression.py: every method on the regression datasets, one JSON line per fit, resumable."""

import json

import pytest

from mddf.experiments.bench import regression as bench_regression
from mddf.experiments.bench.fitting import lightgbm_available
from mddf.experiments.provenance import read_provenance


def test_quick_run_fits_every_method_on_every_dataset_and_resumes(tmp_path, capsys):
    out = tmp_path / "regression"
    argv = ["--quick", "--in-process", "--seeds", "0", "--n-jobs", "1", "--out", str(out)]
    assert bench_regression.main(argv) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    methods = [m for m in bench_regression.METHODS if m != "LightGBM" or lightgbm_available()]
    assert {(r["dataset"], r["method"]) for r in records} == {
        (d, m) for d in bench_regression.DATASETS for m in methods
    }
    assert all(r["r2"] > 0.1 for r in records)  # 300 noisy rows, 20-tree forests
    cascade = [r for r in records if r["method"] == "CascadeForest"]
    assert all(r["params"] == bench_regression.QUICK_CASCADE and 1 <= r["layers"] <= 2 for r in cascade)
    table = (out / "table.md").read_text()
    assert "| friedman1 |" in table and "Test R^2" in table
    prov = read_provenance(table)
    assert prov["command"] == "python scripts/bench_regression.py " + " ".join(argv)
    assert prov["commit"] and prov["machine"] and prov["date"]
    # a rerun finds every fit done and appends nothing
    capsys.readouterr()
    assert bench_regression.main(argv) == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == len(records)
    assert "seed" not in capsys.readouterr().err


def test_a_fit_runs_in_a_fresh_process(tmp_path):
    out = tmp_path / "fresh"
    argv = ["--quick", "--datasets", "diabetes", "--seeds", "1", "--n-jobs", "1", "--out", str(out)]
    methods = ["CascadeForest"]
    bench_regression.METHODS, saved = tuple(methods), bench_regression.METHODS
    try:
        assert bench_regression.main(argv) == 0
    finally:
        bench_regression.METHODS = saved
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["method"] == "CascadeForest" and record["seed"] == 1 and record["r2"] > 0.2


def test_help_lists_quick_and_unknown_datasets_are_named(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_regression.main(["--help"])
    assert exit_info.value.code == 0
    assert "--quick" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench_regression.main(["--datasets", "boston"])
    assert "unknown dataset 'boston'" in capsys.readouterr().err
