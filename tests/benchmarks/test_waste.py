"""The waste study: the share of a cascade's fit spent on layers grown after the best and discarded."""

from study_helpers import read_records

from benchmarks import waste


def test_a_quick_run_records_every_layers_seconds_and_the_share_discarded(tmp_path):
    out = tmp_path / "out"
    assert waste.main(["--quick", "--n-jobs", "1", "--out", str(out), "--quiet"]) == 0
    (record,) = read_records(out)
    assert record["layers_grown"] == len(record["layer_seconds"]) >= record["layers_kept"] >= 1
    assert abs(record["discarded_s"] - sum(record["layer_seconds"][record["layers_kept"] :])) < 1e-9
    assert 0 <= record["outside_layers_s"] < record["fit_s"]
    page = (out / "waste.md").read_text()
    assert "| satimage | default |" in page and "Median share of a fit spent on discarded layers" in page
