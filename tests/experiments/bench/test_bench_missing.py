"""bench_missing.py: every method on complete and NaN data, one JSON line per fit, resumable."""

import json

import pytest

from mddf.experiments.bench import missing as bench_missing
from mddf.experiments.bench.fitting import lightgbm_available
from mddf.experiments.missing_study import METHODS


def test_quick_run_fits_every_method_on_both_cases_and_resumes(tmp_path, capsys):
    out = tmp_path / "missing"
    assert bench_missing.main(["--quick", "--seeds", "0", "--n-jobs", "1", "--out", str(out)]) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    methods = [m for m in METHODS if m != "LightGBM" or lightgbm_available()]
    # the complete case needs no imputer: every method but that one
    assert len(records) == len(methods) + len(methods) - 1
    nan_runs = [r for r in records if r["missing"] == "mcar"]
    assert {r["method"] for r in nan_runs} == set(methods)
    assert all(0.15 < r["missing_share_train"] < 0.25 for r in nan_runs)
    assert all(r["accuracy"] > 0.6 for r in records)
    table = (out / "table.md").read_text()
    assert "| iris MCAR 20% |" in table and "x complete" in table
    # a rerun finds every fit done and appends nothing
    capsys.readouterr()
    assert bench_missing.main(["--quick", "--seeds", "0", "--n-jobs", "1", "--out", str(out)]) == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == len(records)
    assert "seed" not in capsys.readouterr().err


def test_methods_option_runs_only_the_methods_named(tmp_path):
    out = tmp_path / "missing"
    argv = ["--quick", "--seeds", "0", "--n-jobs", "1", "--methods", "mdDF,SimpleImputer+mdDF", "--out", str(out)]
    assert bench_missing.main(argv) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    # mdDF on the complete and the NaN case, the imputer on the NaN case only
    assert sorted((r["method"], r["missing"]) for r in records) == [
        ("SimpleImputer+mdDF", "mcar"),
        ("mdDF", "complete"),
        ("mdDF", "mcar"),
    ]


def test_an_unknown_method_is_an_error_that_lists_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        bench_missing.main(["--quick", "--methods", "mdDF,XGBoost"])
    err = capsys.readouterr().err
    assert "unknown method(s) XGBoost" in err and "SimpleImputer+mdDF" in err
