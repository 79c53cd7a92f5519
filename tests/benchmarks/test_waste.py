"""The waste study: the share of a cascade's fit spent on layers grown after the best and discarded, and the layer
probes against the fits without them."""

import pytest
from study_helpers import read_records

from benchmarks import waste
from benchmarks.harness import Results


def test_a_quick_run_records_every_layers_seconds_the_share_discarded_and_the_outputs(tmp_path, shared_data):
    # satimage is read from the shared benchmark files: skipped, with the reason, on a machine without them
    out = tmp_path / "out"
    argv = ["--paper", "--quick", "--n-jobs", "1", "--out", str(out), "--quiet"]
    assert waste.main([*argv, "--learners", "mdDF,mdDF-probes,CascadeForest,CascadeForest-probes"]) == 0
    records = read_records(out)
    assert {(r["dataset"], r["method"]) for r in records} == {
        ("satimage", "mdDF"),
        ("satimage", "mdDF-probes"),
        ("diabetes", "CascadeForest"),
        ("diabetes", "CascadeForest-probes"),
    }
    for record in records:
        assert record["layers_grown"] == len(record["layer_seconds"]) >= record["layers_kept"] >= 1
        assert abs(record["discarded_s"] - sum(record["layer_seconds"][record["layers_kept"] :])) < 1e-9
        assert 0 <= record["outside_layers_s"] < record["fit_s"]
        assert len(record["outputs_sha256"]) == 64
        assert record["probed"] == (0 if not record["method"].endswith("probes") else record["layers_grown"] - 1)
    page = (out / "waste-paper.md").read_text()
    assert "| satimage | mdDF |" in page and "Median share of a fit spent on discarded layers" in page
    assert "**mdDF-probes against mdDF.**" in page and "**CascadeForest-probes against CascadeForest.**" in page


def test_every_probed_design_has_its_reference_and_the_same_parameters_but_the_probe():
    for design, reference in waste.REFERENCE.items():
        learners = waste.CLASSIFIERS if design in waste.CLASSIFIERS else waste.REGRESSORS
        assert learners[design] == {**learners[reference], "probe_trees": waste.PROBE_SHARE}


def _record(dataset, method, fold, score, sha, fit_s=2.0, predict_s=1.0):
    return {
        "dataset": dataset,
        "method": method,
        "repeat": 0,
        "fold": fold,
        "accuracy": score,
        "outputs_sha256": sha,
        "fit_s": fit_s,
        "predict_s": predict_s,
        "decided_on_probe": 1,
    }


def _results(records):
    return Results(None, True, ["a", "b"], ["mdDF", "mdDF-probes"], {}, records, [], [], [])


def test_the_adoption_rule_counts_identical_fits_and_datasets_worse_beyond_two_se():
    records = []
    for fold in range(5):
        records.append(_record("a", "mdDF", fold, 0.8, f"a{fold}"))
        records.append(_record("a", "mdDF-probes", fold, 0.8, f"a{fold}", fit_s=1.0))
        records.append(_record("b", "mdDF", fold, 0.8, f"b{fold}"))
        # on b the probes lose every fold by 1 to 1.4 points: beyond two SE
        records.append(_record("b", "mdDF-probes", fold, 0.79 - 0.001 * fold, f"other{fold}", fit_s=1.0))
    comparison = waste.compare(_results(records), "mdDF-probes", "mdDF")
    assert (comparison.n_fits, comparison.n_identical) == (10, 5)
    assert comparison.worse == ["b"]
    assert comparison.fit_ratio == pytest.approx(0.5)
    assert not comparison.adopted
    assert "does not meet the adoption rule" in waste.comparison_section(comparison)


def test_identical_fits_meet_the_adoption_rule():
    records = [_record("a", m, fold, 0.8, f"a{fold}") for fold in range(5) for m in ("mdDF", "mdDF-probes")]
    comparison = waste.compare(_results(records), "mdDF-probes", "mdDF")
    assert comparison.adopted and comparison.n_identical == comparison.n_fits == 5
