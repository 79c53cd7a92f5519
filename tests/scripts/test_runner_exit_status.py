"""Exit status of the runner scripts, documented in their --help: 0 every run ok, 1 a run failed,
2 usage error or nothing could run, 130 Ctrl-C, 143 SIGTERM; the final summary says what failed
or was skipped, and why.

(130 and 143 from real processes: test_runner_signals.py and test_run_uci.py.)
"""

import json

import bench_doubles
import pytest
from provenance_files import read_csv_rows

from mddf.experiments.cli import run_script
from mddf.experiments.methods import default_registry

FAST = ["--quick", "--n-jobs", "1", "--quiet", "--isolation", "inline"]


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def registry_with(*specs):
    registry = default_registry()
    for spec in specs:
        registry.register(spec)
    return registry


@pytest.mark.parametrize("name", ["benchmark", "small-sample"])
def test_help_documents_every_exit_status(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_script(name, ["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    epilog = text[text.index("exit status:") :]
    for code, meaning in (
        ("0", "every planned run finished ok"),
        ("1", "a run failed"),
        ("2", "usage error, or nothing could run"),
        ("130", "interrupted by Ctrl-C (SIGINT)"),
        ("143", "stopped by SIGTERM"),
    ):
        assert f"\n  {code:<5}{meaning}" in epilog, (code, epilog)


# ----------------------------------------------------------------------------- run_uci.py


def test_run_uci_exits_0_when_every_run_is_ok_including_runs_of_an_earlier_invocation(tmp_path, capsys):
    argv = ["--datasets", "iris", "--methods", "RF", "--out", str(tmp_path), *FAST]
    assert run_script("benchmark", argv) == 0
    assert run_script("benchmark", argv) == 0  # resumed: nothing left to run
    assert "summary: 1 of 1 runs ok" in capsys.readouterr().err


def test_run_uci_exits_1_and_names_the_failed_runs(tmp_path, capsys):
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "Failing,RF", "--out", str(out), *FAST],
        registry=registry_with(bench_doubles.FAILING),
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "summary: 1 of 2 runs ok, 1 failed" in err
    assert "failed: iris|Failing|seed=0|fold=None|fraction=1|profile=quick: RuntimeError: deliberate failure" in err
    assert (out / "table.md").exists()  # the tables are written all the same


def test_run_uci_exits_1_when_a_dataset_file_is_corrupt_and_runs_the_other_datasets(tmp_path, no_data, capsys):
    (no_data / "yeast").mkdir()
    (no_data / "yeast" / "yeast.data").write_text("not the published file\n")
    out = tmp_path / "res"
    assert run_script("benchmark", ["--datasets", "yeast,iris", "--methods", "RF", "--out", str(out), *FAST]) == 1
    err = capsys.readouterr().err
    assert "summary: 1 of 1 runs ok, 1 dataset(s) skipped (1 could not be loaded)" in err
    assert "skipped dataset yeast: could not be loaded (ChecksumError" in err
    assert {r["dataset"]: r["status"] for r in read(out / "results.jsonl")} == {"yeast": "error", "iris": "ok"}


def test_run_uci_exits_0_when_some_datasets_are_skipped_and_says_which_and_why(tmp_path, no_data, capsys):
    out = tmp_path / "res"
    assert run_script("benchmark", ["--datasets", "har,iris", "--methods", "RF", "--out", str(out), *FAST]) == 0
    err = capsys.readouterr().err
    summary = err[err.index("summary:") :]
    assert summary.startswith("summary: 1 of 1 runs ok, 1 dataset(s) skipped\n")
    assert "skipped dataset har: " in summary and "is missing" in summary


def test_run_uci_exits_2_when_every_dataset_is_skipped(tmp_path, no_data, capsys):
    out = tmp_path / "res"
    assert run_script("benchmark", ["--datasets", "har,letter", "--methods", "RF", "--out", str(out), *FAST]) == 2
    err = capsys.readouterr().err
    assert "nothing to run: no dataset could be loaded" in err
    for name in ("har", "letter"):
        assert f"skipped dataset {name}: " in err
    assert not (out / "table.md").exists()
    assert [r["status"] for r in read(out / "results.jsonl")] == ["skipped", "skipped"]


def test_run_uci_exits_2_when_no_method_is_available_or_applies(tmp_path, capsys):
    missing = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "Missing", "--out", str(tmp_path / "a"), *FAST],
        registry=registry_with(bench_doubles.UNAVAILABLE),
    )
    assert missing == 2
    assert "error: --methods: Missing is not available: cannot import no_such_module" in capsys.readouterr().err
    # DeepBoost handles two-class problems only
    assert (
        run_script("benchmark", ["--datasets", "iris", "--methods", "DeepBoost", "--out", str(tmp_path / "b"), *FAST])
        == 2
    )
    assert "nothing to run: none of DeepBoost applies to iris" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--methods", "NoSuchMethod"], ["--datasets", "nosuch"], ["--seeds", "x"]])
def test_run_uci_exits_2_on_a_usage_error(tmp_path, option):
    with pytest.raises(SystemExit) as exit_info:
        run_script("benchmark", [*option, "--out", str(tmp_path), *FAST])
    assert exit_info.value.code == 2


def test_run_uci_exits_130_when_interrupted_and_keeps_the_finished_runs(tmp_path, capsys):
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "RF,Interrupting", "--out", str(out), *FAST],
        registry=registry_with(bench_doubles.INTERRUPTING),
    )
    assert code == 130
    assert "interrupted (Ctrl-C): the runs in progress were stopped" in capsys.readouterr().err
    assert [(r["method"], r["status"]) for r in read(out / "results.jsonl")] == [("RF", "ok")]


# ----------------------------------------------------------------------------- small_sample.py

SMALL = ["--quick", "--fractions", "0.5,1", "--seeds", "1", "--n-jobs", "1", "--quiet", "--isolation", "inline"]


def test_small_sample_exits_1_and_names_the_failed_runs(tmp_path, capsys):
    code = run_script(
        "small-sample",
        ["--dataset", "iris", "--methods", "RF,Failing", "--out", str(tmp_path), *SMALL],
        registry=registry_with(bench_doubles.FAILING),
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "summary: 2 of 4 runs ok" in err
    assert "failed: iris|Failing|seed=0|fold=None|fraction=0.5|profile=quick: RuntimeError: deliberate" in err
    assert len(read_csv_rows(tmp_path / "small_sample_iris.csv")) == 2  # the RF points are drawn


def test_small_sample_exits_2_when_the_dataset_or_every_method_is_unavailable(tmp_path, no_data, capsys):
    assert run_script("small-sample", ["--dataset", "har", "--methods", "RF", "--out", str(tmp_path), *SMALL]) == 2
    err = capsys.readouterr().err
    assert "nothing to run: dataset har is not available" in err and "is missing" in err
    code = run_script(
        "small-sample",
        ["--dataset", "iris", "--methods", "Missing", "--out", str(tmp_path), *SMALL],
        registry=registry_with(bench_doubles.UNAVAILABLE),
    )
    assert code == 2
    assert "error: --methods: Missing is not available: cannot import no_such_module" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--methods", "NoSuchMethod"], ["--seeds", "x"], ["--fractions", "2"]])
def test_small_sample_exits_2_on_a_usage_error(tmp_path, option):
    with pytest.raises(SystemExit) as exit_info:
        run_script("small-sample", ["--dataset", "iris", "--out", str(tmp_path), *SMALL, *option])
    assert exit_info.value.code == 2


def test_small_sample_exits_130_when_interrupted(tmp_path, capsys):
    code = run_script(
        "small-sample",
        ["--dataset", "iris", "--methods", "RF,Interrupting", "--out", str(tmp_path), *SMALL],
        registry=registry_with(bench_doubles.INTERRUPTING),
    )
    assert code == 130
    assert "interrupted (Ctrl-C)" in capsys.readouterr().err
