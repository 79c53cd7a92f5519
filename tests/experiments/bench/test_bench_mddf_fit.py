"""The mdDF benchmark reports, per dataset, the mean accuracy over seeds next to the random forest's."""

import statistics

from mddf.experiments.bench import mddf_fit as bench_mddf


def test_quick_run_averages_accuracy_over_seeds(tmp_path, capsys):
    out = tmp_path / "bench.jsonl"
    rows = bench_mddf.main(["--quick", "--seeds", "0,1", "--n-jobs", "1", "--out", str(out)])
    ((name, result),) = rows
    assert name == "iris" and set(result) == {"rf", "mddf"}
    for line in result.values():
        assert line["seeds"] == [0, 1] and len(line["seed_accuracies"]) == 2
        assert line["accuracy"] == statistics.fmean(line["seed_accuracies"])
        assert line["fit_s"] > 0 and line["peak_rss_mb"] > 0
    assert len(result["mddf"]["seed_layers"]) == 2
    assert len(out.read_text().splitlines()) == 2
    assert "means over seeds 0,1" in capsys.readouterr().out
