"""The growth curve: its --quick run (fresh processes), its files and provenance, resuming, and the --memory-limit
and failure paths (with a stand-in for the fresh-process fit)."""

import pytest
from provenance_files import read_csv_rows, read_provenance
from study_helpers import read_records

from benchmarks import harness, scale
from mddf.experiments.provenance import MARKDOWN_BEGIN


@pytest.mark.slow
def test_quick_run_writes_table_figure_and_provenance_and_resumes(tmp_path, capsys):
    out = tmp_path / "scale"
    argv = ["--quick", "--out", str(out)]
    assert scale.main(argv) == 0
    records = read_records(out)
    assert {(r["rows"], r["mode"]) for r in records} == {(n, m) for n in scale.QUICK_ROWS for m in ("kfold", "oob")}
    for r in records:
        assert r["status"] == "ok" and r["config"]["quick"] and r["config"]["max_layers"] == 2
        assert 1 <= r["layers"] <= r["grown"] <= 2 and r["model_mb"] > 0 and r["fit_s"] > 0 and r["predict_s"] > 0
        assert r["peak_rss_mb"] >= r["rss_before_fit_mb"] > 0 and r["accuracy"] > 0.3  # 5 classes
        assert "finished_at" in r and "machine" in r and "versions" in r  # stamped like the runner's records
    markdown = (out / "scale.md").read_text()
    assert markdown.startswith(MARKDOWN_BEGIN) and "--quick" in read_provenance(markdown)["command"]
    assert "| 4,000 | oob |" in markdown and "fit time slope" in markdown
    assert "--quick" in read_provenance((out / "scale.csv").read_text())["command"]
    assert len(read_csv_rows(out / "scale.csv")) == len(records)
    from PIL import Image

    assert "--quick" in Image.open(out / "scale.png").text["Command"]
    assert (out / "scale.pdf").stat().st_size > 0
    capsys.readouterr()
    assert scale.main(argv) == 0  # a rerun finds every fit done: nothing appended, nothing fitted
    assert len(read_records(out)) == len(records) and "kfold / seed" not in capsys.readouterr().err


def _fake_fit(calls, fail_at=None):
    """A stand-in for the fresh-process fit: memory 200 MB + 0.1 MB per row."""

    def run(function, study, args, unit):
        n_rows = int(unit.dataset)
        calls.append((n_rows, unit.method))
        if n_rows == fail_at:
            raise MemoryError("stand-in out of memory")
        fields = {"predict_s": 0.01, "accuracy": 0.5, "rss_before_fit_mb": 200.0, "rss_libraries_mb": 200.0}
        memory = {"peak_rss_mb": 200 + n_rows / 10, "process_peak_rss_mb": 200 + n_rows / 10}
        size = {"model_mb": n_rows / 100, "grown_model_mb": n_rows / 100, "layers": 2, "grown": 2}
        return {"mode": unit.method, "fit_s": n_rows / 1000, **fields, **memory, **size}

    return run


@pytest.mark.slow
def test_memory_limit_skips_sizes_predicted_above_it_and_says_so(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(harness.units, "in_fresh_process", _fake_fit(calls))
    out = tmp_path / "limit"
    # 1000 and 2000 rows peak at 300 and 400 MB; 4000 rows extrapolate to 600 MB, above 0.5 GB
    argv = ["--quick", "--methods", "oob", "--rows", "1000,2000,4000,8000", "--out", str(out)]
    assert scale.main([*argv, "--memory-limit", "0.5"]) == 0
    assert calls == [(1000, "oob"), (2000, "oob")]
    err = capsys.readouterr().err
    assert "4000 / oob / seed 0: skipped, predicted peak 0.59 GB exceeds --memory-limit 0.5 GB" in err
    assert "8000 / oob / seed 0: skipped" in err
    markdown = (out / "scale.md").read_text()
    assert "Skipped:" in markdown and "4,000 rows, oob: predicted peak" in markdown
    assert scale.main([*argv, "--memory-limit", "2"]) == 0  # skipped sizes are not recorded: a higher limit runs them
    assert calls[2:] == [(4000, "oob"), (8000, "oob")]
    slopes = scale.slopes([r for r in read_records(out)], ["oob"])
    assert slopes["oob"]["fit_s"] == pytest.approx(1.0) and slopes["oob"]["rows"] == (1000, 8000)


@pytest.mark.slow
def test_a_failed_size_is_recorded_skips_larger_ones_and_is_retried_on_request(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(harness.units, "in_fresh_process", _fake_fit(calls, fail_at=2000))
    out = tmp_path / "failed"
    argv = ["--quick", "--methods", "kfold", "--rows", "1000,2000,4000", "--out", str(out)]
    assert scale.main(argv) == 1
    assert calls == [(1000, "kfold"), (2000, "kfold")]
    (failed,) = [r for r in read_records(out) if r["status"] == "failed"]
    assert failed["rows"] == 2000 and "MemoryError: stand-in out of memory" in failed["error"]
    assert "4000 / kfold / seed 0: skipped, a smaller size failed" in capsys.readouterr().err
    assert "Failed (see results.jsonl)" in (out / "scale.md").read_text()
    assert scale.main(argv) == 1 and len(calls) == 2  # a failed fit is not rerun by default
    monkeypatch.setattr(harness.units, "in_fresh_process", _fake_fit(calls))
    assert scale.main([*argv, "--retry-failed"]) == 0
    assert calls[2:] == [(2000, "kfold"), (4000, "kfold")]


def test_predicted_peak_adds_the_fixed_libraries_part_to_at_least_proportional_growth():
    def record(rows, peak):
        return {"rows": rows, "peak_rss_mb": peak, "process_peak_rss_mb": peak - 1, "rss_libraries_mb": 200.0}

    assert scale.predicted_peak_mb([], 1000) is None
    assert scale.predicted_peak_mb([record(1000, 300)], 4000) == pytest.approx(200 + 100 * 4)
    # the part above the libraries grows as n^2 between the two largest sizes: extrapolated as n^2
    assert scale.predicted_peak_mb([record(1000, 300), record(2000, 600)], 4000) == pytest.approx(200 + 400 * 4)
    # slower than proportional growth is extrapolated proportionally
    records = [record(1000, 300), record(4000, 320)]
    assert scale.predicted_peak_mb(records, 8000) == pytest.approx(200 + 120 * 2)
    assert scale.predicted_peak_mb(records, 1000) is None  # only smaller sizes count
