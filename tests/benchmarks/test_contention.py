"""The contention study: a configuration's slowdown beside spinning processes, and its ratio to the plain cascade's."""

from study_helpers import read_records

from benchmarks import contention


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
