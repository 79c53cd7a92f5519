"""The boosting study's speed mode: our AdaBoost with stumps against scikit-learn's, fit seconds side by side."""

import pytest
from provenance_files import read_csv_rows, read_provenance

from benchmarks import boosting


@pytest.mark.slow
def test_speed_times_both_adaboosts_and_sets_them_side_by_side(tmp_path):
    out = tmp_path / "speed"
    argv = ["--speed", "--quick", "--n-iter", "5", "--repeats", "1", "--out", str(out), "--quiet"]
    assert boosting.main(argv) == 0
    (row,) = read_csv_rows(out / "speed.csv")
    assert row["dataset"] == "breast_cancer" and row["rounds"] == "5"
    assert float(row["ratio"]) == pytest.approx(float(row["ours_seconds"]) / float(row["sklearn_seconds"]))
    assert 0 <= float(row["ours_train_error"]) < 0.2 and 0 <= float(row["sklearn_train_error"]) < 0.2
    markdown = (out / "speed.md").read_text()
    assert "# AdaBoost with stumps: ours vs sklearn.ensemble.AdaBoostClassifier" in markdown
    assert read_provenance(markdown)["command"].startswith("python -m benchmarks.boosting_speed --speed --quick")
