"""The benchmark runner on a Dask cluster (``--scheduler``): same results as locally, failures recorded.

A real ``distributed.LocalCluster`` with two single-threaded worker processes on the loopback
interface serves the module (``scheduler`` fixture); ``--scheduler local:2`` starts the runner's own.
"""

import argparse
import json
import subprocess
import sys

import bench_doubles
import pytest
from provenance_files import strip_provenance
from runner_process import start_runner, wait_for_first_result

from mddf.experiments.cli import run_script
from mddf.experiments.cluster import (
    INSTALL_HINT,
    ClusterSetupError,
    SchedulerSpec,
    connect,
    parse_scheduler,
)
from mddf.experiments.methods import default_registry
from mddf.experiments.registry import MethodSpec

#: These tests build environments, start clusters or spawn and signal processes: the slow loop only.
pytestmark = pytest.mark.slow

QUICK = ["--quick", "--quiet"]


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_scheduler_takes_an_address_or_a_local_worker_count():
    assert parse_scheduler("tcp://10.0.0.5:8786") == SchedulerSpec(address="tcp://10.0.0.5:8786")
    assert parse_scheduler("local:3") == SchedulerSpec(n_workers=3)
    assert parse_scheduler("local").n_workers >= 1
    for bad in ("local:0", "local:x"):
        with pytest.raises(argparse.ArgumentTypeError, match="local:N needs a number of workers N >= 1"):
            parse_scheduler(bad)
    for bad in ("10.0.0.5:8786", "tcp://"):
        with pytest.raises(argparse.ArgumentTypeError, match="address such as tcp://HOST:8786, or local:N"):
            parse_scheduler(bad)


def test_cluster_run_gives_the_local_accuracies_and_resumes(tmp_path, scheduler):
    argv = ["--datasets", "iris,wine", "--methods", "mdDF,RF,MLP", *QUICK]
    run_script("benchmark", [*argv, "--out", str(tmp_path / "local"), "--isolation", "inline", "--n-jobs", "1"])
    assert run_script("benchmark", [*argv, "--out", str(tmp_path / "cluster"), "--scheduler", scheduler]) == 0

    local = {r["key"]: r for r in read(tmp_path / "local" / "results.jsonl")}
    cluster = {r["key"]: r for r in read(tmp_path / "cluster" / "results.jsonl")}
    assert sorted(cluster) == sorted(local) and len(cluster) == 6
    for key, rec in cluster.items():
        assert rec["status"] == "ok", key
        assert rec["accuracy"] == local[key]["accuracy"], key
        assert rec["n_jobs"] == 1  # one run per single-threaded worker
    # RF waited for mdDF on the cluster too: 40 trees per quick layer x the layers mdDF kept
    for dataset in ("iris", "wine"):
        rf = cluster[f"{dataset}|RF|seed=0|fold=None|fraction=1|profile=quick"]
        mddf = cluster[f"{dataset}|mdDF|seed=0|fold=None|fraction=1|profile=quick"]
        assert rf["trees_k"] == mddf["n_layers"] and rf["n_trees"] == 40 * mddf["n_layers"]
    workers = {rec["worker"] for rec in cluster.values()}
    assert len(workers) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers)
    # the same table; only its provenance header (command, date) differs
    tables = {where: strip_provenance((tmp_path / where / "table.md").read_text()) for where in ("cluster", "local")}
    assert tables["cluster"] == tables["local"]

    # Rerun: every run is finished, nothing is sent to the cluster again.
    lines = (tmp_path / "cluster" / "results.jsonl").read_text()
    assert run_script("benchmark", [*argv, "--out", str(tmp_path / "cluster"), "--scheduler", scheduler]) == 0
    assert (tmp_path / "cluster" / "results.jsonl").read_text() == lines


def test_failing_method_and_task_that_raises_are_recorded_and_the_sweep_continues(tmp_path, scheduler, capsys):
    registry = default_registry()
    registry.register(bench_doubles.FAILING)  # raises inside run_one: an error record from the worker
    registry.register(bench_doubles.ESCAPING)  # raises out of run_one: the task itself fails
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "Escaping,Failing,RF", "--out", str(out), *QUICK, "--scheduler", scheduler],
        registry=registry,
    )
    assert code == 1  # runs failed
    records = {r["method"]: r for r in read(out / "results.jsonl")}
    assert set(records) == {"Escaping", "Failing", "RF"}
    assert records["RF"]["status"] == "ok"
    assert records["Failing"]["status"] == "error" and "deliberate failure" in records["Failing"]["error"]
    escaping = records["Escaping"]
    assert escaping["status"] == "error" and escaping["error"].startswith("the task raised on the cluster")
    assert "RunAborted: deliberate abort" in escaping["error"] and ", in fit" in escaping["traceback"]
    assert escaping["scheduler"] == scheduler
    assert "failed: iris|Escaping" in capsys.readouterr().err
    assert "| iris | **" in (out / "table.md").read_text()


def test_run_that_kills_its_worker_is_retried_once_then_recorded_as_failed(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.CRASHING)  # os._exit in the worker process
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "Crashing,RF", "--out", str(out), *QUICK, "--scheduler", "local:2"],
        registry=registry,
    )
    assert code == 1  # a run failed
    records = {r["method"]: r for r in read(out / "results.jsonl")}
    assert records["RF"]["status"] == "ok"
    assert records["Crashing"]["status"] == "error"
    assert "KilledWorker" in records["Crashing"]["error"] and "on 2 different workers" in records["Crashing"]["error"]


def test_workers_that_cannot_import_a_method_are_reported_before_any_run(tmp_path, scheduler, capsys):
    def build_here(ctx, **params):
        raise AssertionError("never built: the workers cannot unpickle it")

    build_here.__module__ = "methods_only_on_the_driver"  # a module the workers do not have
    registry = default_registry()
    registry.register(MethodSpec("DriverOnly", build_here, ("sklearn", "base")))
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "DriverOnly,RF", "--out", str(out), *QUICK, "--scheduler", scheduler],
        registry=registry,
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "lacks methods_only_on_the_driver" in err and "PYTHONPATH" in err
    assert not (out / "results.jsonl").exists()


def test_unreachable_scheduler_is_named():
    with pytest.raises(ClusterSetupError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        with connect(SchedulerSpec(address="tcp://127.0.0.1:1"), timeout=1):
            pass


def test_local_execution_options_are_refused_with_a_scheduler(tmp_path, capsys):
    for option in (["--workers", "2"], ["--isolation", "inline"]):
        with pytest.raises(SystemExit) as exit_info:
            run_script("benchmark", ["--datasets", "iris", "--out", str(tmp_path), "--scheduler", "local:1", *option])
        assert exit_info.value.code == 2
        assert "apply to local runs" in capsys.readouterr().err


def test_without_dask_the_scheduler_option_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    with pytest.raises(SystemExit) as exit_info:
        run_script("benchmark", ["--datasets", "iris", "--out", str(tmp_path), "--scheduler", "local:2", *QUICK])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--scheduler needs Dask" in err and INSTALL_HINT in err
    # ... and everything else still runs
    assert (
        run_script(
            "benchmark",
            [
                "--datasets",
                "iris",
                "--methods",
                "RF",
                "--out",
                str(tmp_path),
                "--isolation",
                "inline",
                "--n-jobs",
                "1",
                *QUICK,
            ],
        )
        == 0
    )
    assert [r["status"] for r in read(tmp_path / "results.jsonl")] == ["ok"]


def test_the_runner_and_the_estimators_import_without_dask():
    modules = "mddf.experiments.cli, mddf.experiments.benchmark, mddf.experiments.executor, mddf.experiments.runner"
    code = (
        f"import sys; import {modules}, mddf, mddf.baselines, mddf.datasets; "
        "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_interrupted_cluster_sweep_cancels_its_queued_runs_and_resumes(tmp_path, scheduler):
    import signal
    import time

    import distributed

    out = tmp_path / "res"
    results = out / "results.jsonl"
    argv = ["--datasets", "digits", "--methods", "mdDF", "--seeds", "6", "--out", str(out), *QUICK]
    proc = start_runner([*argv, "--scheduler", scheduler])
    try:
        wait_for_first_result(results, timeout=60)
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    before = read(results)
    assert 1 <= len(before) < 6 and all(r["status"] == "ok" for r in before)

    with distributed.Client(scheduler) as client:  # the driver's runs are no longer queued on the cluster
        deadline = time.monotonic() + 20
        while client.run_on_scheduler(_n_tasks) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert client.run_on_scheduler(_n_tasks) == 0

    assert run_script("benchmark", [*argv, "--scheduler", scheduler]) == 0
    after = read(results)
    assert after[: len(before)] == before
    keys = [r["key"] for r in after]
    assert len(keys) == len(set(keys)) == 6  # nothing run twice, nothing missing


def _n_tasks(dask_scheduler):
    return len(dask_scheduler.tasks)
