"""The mdDF-fit study reports, per dataset, the mean accuracy over seeds next to the random forest's and the paper's,
each fit in a fresh process."""

import statistics

import pytest
from study_helpers import read_records

from benchmarks import mddf_fit


@pytest.mark.slow
def test_quick_run_fits_in_fresh_processes_and_averages_accuracy_over_seeds(tmp_path, capsys):
    out = tmp_path / "fit"
    assert mddf_fit.main(["--quick", "--seeds", "0,1", "--n-jobs", "1", "--out", str(out)]) == 0
    records = read_records(out)
    assert [(r["method"], r["seed"]) for r in records] == [("RF400", 0), ("mdDF", 0), ("RF400", 1), ("mdDF", 1)]
    assert all(r["fit_s"] > 0 and r["peak_rss_mb"] > 0 for r in records)
    mddf = [r for r in records if r["method"] == "mdDF"]
    assert all(len(r["staged"]) == len(r["alphas"]) == r["layers"] <= r["grown"] for r in mddf)
    table = (out / "table.md").read_text()
    accuracy = 100 * statistics.fmean(r["accuracy"] for r in mddf)
    assert "means over seeds 0,1" in table and f"| iris |  | {accuracy:.2f} |" in table
    assert "/".join(str(r["layers"]) for r in mddf) in table
