"""The boosting study's adult mode: DeepBoost against scikit-learn's AdaBoost, each fit on one core."""

import re

import pytest
from provenance_files import read_csv_rows
from sklearn.datasets import load_breast_cancer

from benchmarks import boosting, boosting_adult


@pytest.mark.slow
def test_adult_fits_both_models_and_tables_their_medians(tmp_path, monkeypatch, in_this_process):
    X, y = load_breast_cancer(return_X_y=True)

    class Split:  # adult's train and test rows, small
        X_train, y_train, X_test, y_test = X[:400], y[:400], X[400:], y[400:]

    monkeypatch.setattr(boosting_adult, "load", lambda name, download: Split)
    out = tmp_path / "adult"
    assert boosting.main(["--adult", "--rounds", "2", "--out", str(out), "--quiet"]) == 0
    assert len(in_this_process) == 4  # two models x two rounds, each unit in a fresh process
    rows = read_csv_rows(out / "adult.csv")
    assert sorted((r["method"], r["round"]) for r in rows) == [
        (m, str(r)) for m in ("DeepBoost", "sklearn") for r in (0, 1)
    ]
    assert all(0 <= float(r["test_error"]) < 0.2 and float(r["fit_s"]) > 0 for r in rows)
    assert all(int(r["n_trees"]) > 0 for r in rows if r["method"] == "DeepBoost")
    markdown = (out / "adult.md").read_text()
    assert "| DeepBoost (ours) |" in markdown and "| sklearn AdaBoost, max_depth=4 trees |" in markdown
    assert re.search(r"Ours / sklearn fit time: \d+\.\d\d\. DeepBoost kept \d+ trees", markdown)
