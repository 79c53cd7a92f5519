"""The first-use study: compile CPU of each kind's first fit, cold cache less warm cache, against a budget."""

import pytest
from study_helpers import read_records

from benchmarks import first_use


@pytest.mark.slow
def test_a_unit_runs_a_cold_and_a_warm_process_and_records_their_difference(tmp_path):
    # the import kind fits nothing: two short processes, and numba compiles nothing; --jit turns the tree code
    # built ahead of time off (a source install), and the report and the records' settings say which code ran
    assert first_use.main(["--quick", "--jit", "--out", str(tmp_path), "--quiet"]) == 0
    (record,) = read_records(tmp_path)
    assert record["status"] == "ok" and record["dataset"] == "import" and record["after"] == []
    assert record["cold_cpu"] > 0 and record["warm_cpu"] > 0
    assert record["compile_cpu"] == record["cold_cpu"] - record["warm_cpu"]
    assert record["notices"] == [] and record["warm_notices"] == []
    text = (tmp_path / "first_use.md").read_text()
    assert "| import |" in text and "Budget (5 s a kind, 15 s in all): not met" in text  # no kind measured
    assert record["config"]["code"] == "numba's JIT (MDDF_AHEAD_OF_TIME=0)"
    assert "tree code: numba's JIT (MDDF_AHEAD_OF_TIME=0);" in text


def test_without_the_jit_option_the_installations_own_code_is_named():
    from mddf.utils import compiled_tree_code

    assert first_use.compiled_code(jit=False) == compiled_tree_code()


def test_each_kind_is_measured_after_the_kinds_before_it_unless_alone():
    assert first_use.kinds_before("numeric") == ()
    assert first_use.kinds_before("missing") == ("numeric", "categorical")
    assert first_use.kinds_before("regression", alone=True) == ()
    assert first_use.kinds_before("import") == ()


def test_the_budget_holds_each_kind_and_the_total_and_ignores_the_import():
    def record(kind, seconds):
        return {"dataset": kind, "compile_cpu": seconds, "cold_cpu": seconds + 1, "warm_cpu": 1.0,
                "cold_wall": 9.0, "notices": ["x"], "warm_notices": []}  # fmt: skip

    within = [record(kind, 2.0) for kind in first_use.KINDS] + [record("import", 50.0)]
    rows, total, met = first_use.summary(within, 5.0, 15.0)
    assert total == 10.0 and met and [row["kind"] for row in rows] == [*first_use.KINDS, "import"]
    assert not first_use.summary(within + [record("numeric", 9.0)] * 2, 5.0, 15.0)[2]  # numeric's median is 9
    assert not first_use.summary([record(kind, 4.0) for kind in first_use.KINDS], 5.0, 15.0)[2]  # 20 s in all


def test_only_the_compile_notices_are_kept_from_stderr():
    err = "a warning\nmddf: numba is compiling mddf.trees.x (why); once, then cached\n"
    assert first_use.notices(err) == ["mddf: numba is compiling mddf.trees.x (why); once, then cached"]
