"""The gcForest study: each experiment's methods against its RF400 reference (stand-ins for the measurements)."""

from study_helpers import read_records

from benchmarks import gcforest


def test_each_method_is_timed_against_the_reference_of_its_experiment(tmp_path, monkeypatch):
    seen = []

    def measure(spec):  # a stand-in: the reference fits in 2 s, gcForest in 6 s
        seen.append(spec)
        fit = 2.0 if spec["method"] == "rf" else 6.0
        return {"accuracy": 0.9, "fit_s": fit, "predict_s": 0.1, "peak_rss_mb": 100.0, "n_train": 10, "n_test": 5}

    monkeypatch.setattr(gcforest, "_measure", measure)
    out = tmp_path / "gc"
    argv = ["--quick", "--in-process", "--datasets", "letter,digits", "--n-jobs", "1", "--out", str(out)]
    assert gcforest.main(argv) == 0
    records = read_records(out)
    assert [(r["dataset"], r["method"]) for r in records] == [
        ("letter", "RF 400"),
        ("letter", "gcForest"),
        ("digits", "RF 400"),
        ("digits", "gcForest (cascade only)"),
        ("digits", "gcForest (scanning 3,4,5 + cascade)"),
    ]
    assert seen[0] == {"dataset": "letter", "method": "rf", "train_fraction": 0.1, "n_jobs": 1, "seed": 0}
    assert seen[1]["params"] == {"n_estimators": 20}  # --quick: 20 trees per cascade forest
    table = (out / "table.md").read_text()
    assert "## letter (the mdDF paper's gcForest: 97.375)" in table
    assert "| gcForest | 0.9000 | 6.0 | 0.1 | 3.0 | 100 |" in table
