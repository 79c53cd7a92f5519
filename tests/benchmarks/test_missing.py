"""The missing-value study: every method on complete and NaN data, one JSON line per fit, resumable."""

import importlib.util

import pytest
from study_helpers import read_records

from benchmarks import missing
from benchmarks.harness import Unit, load_data, unit_rows

LIGHTGBM = importlib.util.find_spec("lightgbm") is not None


@pytest.mark.slow
def test_quick_run_fits_every_method_on_both_cases_and_resumes(tmp_path, capsys, in_this_process):
    out = tmp_path / "missing"
    argv = ["--quick", "--n-jobs", "1", "--out", str(out)]
    assert missing.main(argv) == 0
    records = read_records(out)
    methods = [m for m in missing.METHODS if m != "LightGBM" or LIGHTGBM]
    # the complete case needs no imputer: every method but that one
    assert len(records) == 2 * len(methods) - 1 == len(in_this_process)
    nan_runs = [r for r in records if r["missing"] == "mcar"]
    assert {r["method"] for r in nan_runs} == set(methods) and {r["dataset"] for r in nan_runs} == {"iris-mcar20"}
    assert all(0.15 < r["missing_share_train"] < 0.25 and r["source"] == "iris" for r in nan_runs)
    assert all(r["accuracy"] > 0.6 for r in records)
    assert all(r["grown"] >= r["layers"] >= 1 and r["fit_s_per_layer"] > 0 for r in records if "mdDF" in r["method"])
    table = (out / "table.md").read_text()
    assert "| iris-mcar20 |" in table and "x complete" in table and "s/layer x imputed" in table
    # a rerun finds every fit done and appends nothing
    capsys.readouterr()
    assert missing.main(argv) == 0
    assert len(read_records(out)) == len(records) and "seed" not in capsys.readouterr().err


def test_the_mask_depends_on_the_seed_and_the_complete_case_does_not():
    args = missing.STUDY.parse(["--quick"])
    masks = []
    for seed in (0, 1):
        ctx = missing.STUDY.context(args, Unit("iris-mcar20", "mdDF", seed))
        X = unit_rows(ctx, load_data(ctx))[0]
        masks.append(X != X)
    assert (masks[0] != masks[1]).any()
    assert missing.case("iris", 0.2).seeded and not missing.case("iris").seeded


def test_an_unknown_method_is_an_error_that_lists_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        missing.main(["--quick", "--methods", "mdDF,XGBoost"])
    err = capsys.readouterr().err
    assert "unknown method(s) XGBoost" in err and "SimpleImputer+mdDF" in err
