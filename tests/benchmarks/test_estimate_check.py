"""The estimate against the real time (benchmarks/estimate_check.py): real sweeps, each with the estimate it said."""

import re

import pytest
from study_helpers import read_records

from benchmarks import estimate_check
from mddf.experiments.cost_estimate import duration


def test_a_sweep_records_the_estimate_it_said_against_its_wall_time_and_a_rerun_resumes(tmp_path, monkeypatch):
    out = tmp_path / "out"
    argv = ["--quick", "--out", str(out), "--quiet"]
    assert estimate_check.main(argv) == 0  # a real `mddf benchmark` of 400 synthetic rows, two quick methods
    (record,) = read_records(out)
    assert record["status"] == "ok" and record["dataset"] == "quick" and not record["in_fit"]
    assert record["estimate_s"] > 0 and record["runs"] == record["n_runs"] == 4  # two methods, two folds
    # the estimate recorded is the one the command said on stderr before its runs
    assert record["line"].startswith(f"estimated time: about {duration(record['estimate_s'])} for 4 runs")
    assert set(record["recorded_by_method"]) == {"Baseline", "HGB-es"}
    # the whole command is timed: its runs, and its start and end beside them
    assert record["wall_s"] > record["recorded_s"] > 0 and record["ratio"] == record["wall_s"] / record["estimate_s"]
    page = (out / "estimate_check.md").read_text()
    assert f"| {record['ratio']:.2f} |" in page
    assert re.search(r"The error \(real over estimated time\): median [\d.]+, worst [\d.]+; [01] of 1 sweeps", page)

    def again(name):
        raise AssertionError(f"{name} was run again")

    monkeypatch.setattr(estimate_check, "run_sweep", again)
    assert estimate_check.main(argv) == 0 and len(read_records(out)) == 1  # resumed from its record


def test_a_record_is_bound_to_the_cost_model_that_estimated_it(tmp_path, monkeypatch):
    ctx = type("Ctx", (), {"dataset": type("D", (), {"name": "readme"})})()
    model = tmp_path / "cost_model.json"
    model.write_text('{"a": 1}')
    monkeypatch.setattr(estimate_check, "COST_MODEL", model)
    before = estimate_check.digest(ctx)
    model.write_text('{"a": 2}')  # a refit: the sweeps are measured again
    assert estimate_check.digest(ctx) != before


def test_the_error_is_the_median_ratio_and_the_one_farthest_from_one_either_way():
    assert estimate_check.error([0.6, 1.2, 2.5]) == (1.2, 2.5)
    assert estimate_check.error([0.3, 1.5, 2.5]) == (1.5, 0.3)  # 0.3 is further below 1 than 2.5 is above
    assert [estimate_check.within(r) for r in (0.49, 0.5, 2.0, 2.01)] == [False, True, True, False]


def test_a_record_read_back_is_refused_when_its_ratio_is_not_its_own_or_it_lacks_a_field():
    record = {"dataset": "glass", "estimate_s": 10.0, "compile_s": 0.0, "cold": [], "wall_s": 15.0, "ratio": 1.5}
    record |= {"command": "mddf benchmark", "in_fit": False, "load_before": [0.1], "load_after": [0.2]}
    assert estimate_check.checked(record) is record
    with pytest.raises(SystemExit, match="'glass'.*not its wall seconds over its estimate"):
        estimate_check.checked({**record, "ratio": 0.5})
    with pytest.raises(SystemExit, match="lacks wall_s"):
        estimate_check.checked({k: v for k, v in record.items() if k != "wall_s"})


def test_the_readme_sweeps_run_its_first_command_the_cold_one_with_an_empty_numba_cache(tmp_path):
    readme = (estimate_check.ROOT / "README.md").read_text()
    assert ".venv/bin/python scripts/run_uci.py\n" in readme  # the README's first command, without options
    for name, cold in (("readme", False), ("readme-cold", True)):
        command, shown, is_cold, in_fit = estimate_check.sweep_command(name, tmp_path / "out", tmp_path)
        assert command == [str(estimate_check.ROOT / "scripts" / "run_uci.py"), "--out", str(tmp_path / "out")]
        assert is_cold == cold and shown.endswith("python scripts/run_uci.py") and in_fit


def test_a_sweep_whose_suite_is_absent_is_skipped_with_the_reason_and_synthetic_tables_need_none(monkeypatch):
    monkeypatch.setenv("MDDF_REALDATA_BROAD", "/nonexistent/broad")

    def ctx(name):
        return type("Ctx", (), {"dataset": type("D", (), {"name": name})})()

    assert "no real-data suite at /nonexistent/broad" in estimate_check.missing_table(ctx("flightcarrier"), [])
    assert estimate_check.missing_table(ctx("synthetic-50k"), []) is None
    assert estimate_check.missing_table(ctx("readme"), []) is None
    # the 50,000-row sweeps the issue asks for: a synthetic one, and real ones where the suites are
    assert estimate_check.TABLE_SWEEPS["synthetic-50k"][0] == 50_000
