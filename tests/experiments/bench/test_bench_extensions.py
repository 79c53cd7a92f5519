"""bench_extensions.py: every method on bundled data, one JSON line per fit, resumable, a table with mean ranks."""

import json

import pytest

from mddf.experiments.bench import extensions as bench_extensions
from mddf.experiments.bench.extensions import METHODS, mean_ranks
from mddf.experiments.bench.fitting import lightgbm_available
from mddf.experiments.provenance import read_provenance


def test_quick_run_fits_every_method_and_resumes(tmp_path, capsys):
    out = tmp_path / "extensions"
    argv = ["--quick", "--seeds", "0", "--n-jobs", "1", "--out", str(out)]
    assert bench_extensions.main(argv) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    methods = [m for m in METHODS if m != "LightGBM" or lightgbm_available()]
    assert {(r["dataset"], r["method"]) for r in records} == {(d, m) for d in ("iris", "wine") for m in methods}
    assert all(r["accuracy"] > 0.6 for r in records)
    assert all(r["n_layers"] >= 1 for r in records if r["method"].startswith("mdDF"))
    table = (out / "table.md").read_text()
    assert "| iris |" in table and "| mean rank |" in table and "| median fit s |" in table
    prov = read_provenance(table)
    assert prov["command"] == "python scripts/bench_extensions.py " + " ".join(argv)
    assert prov["commit"] and prov["machine"] and prov["date"]
    # a rerun finds every fit done and appends nothing
    capsys.readouterr()
    assert bench_extensions.main(argv) == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == len(records)
    assert "seed" not in capsys.readouterr().err


def test_mean_ranks_average_ties_and_datasets():
    records = [
        {"dataset": "a", "method": "x", "accuracy": 0.9},
        {"dataset": "a", "method": "y", "accuracy": 0.8},
        {"dataset": "a", "method": "z", "accuracy": 0.8},
        {"dataset": "b", "method": "x", "accuracy": 0.5},
        {"dataset": "b", "method": "y", "accuracy": 0.7},
        {"dataset": "b", "method": "z", "accuracy": 0.6},
    ]
    assert mean_ranks(records, ["x", "y", "z"], ["a", "b"]) == pytest.approx({"x": 2.0, "y": 1.75, "z": 2.25})


def test_unknown_methods_are_rejected(tmp_path):
    with pytest.raises(SystemExit):
        bench_extensions.main(["--quick", "--methods", "SVM", "--out", str(tmp_path)])


def test_a_fit_the_estimator_refuses_is_recorded_listed_and_not_retried(tmp_path, monkeypatch, capsys):
    from mddf import MDDFClassifier

    # iris has 50 rows of each class: 60 folds are refused with a ValueError naming the class
    monkeypatch.setitem(METHODS, "mdDF", lambda seed, n_jobs, quick: MDDFClassifier(n_folds=60, random_state=seed))
    out = tmp_path / "extensions"
    argv = ["--quick", "--methods", "mdDF,RF400", "--seeds", "0", "--n-jobs", "1", "--out", str(out)]
    assert bench_extensions.main(argv) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    refused = [r for r in records if r["method"] == "mdDF"]
    assert len(refused) == 2 and all("fewer than n_folds=60" in r["error"] for r in refused)
    assert all(r["accuracy"] > 0.6 for r in records if r["method"] == "RF400")
    assert "mdDF / seed 0: not fitted: class" in capsys.readouterr().err
    table = (out / "table.md").read_text()
    assert "| iris |  | " in table  # mdDF's cell is blank
    assert "- iris / mdDF: class" in table and "- wine / mdDF: class" in table
    assert bench_extensions.main(argv) == 0  # a rerun does not try the refused fits again
    assert len((out / "results.jsonl").read_text().splitlines()) == len(records)
