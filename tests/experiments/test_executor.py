"""The sweep executor: how the workers' OpenMP threads wait, and how many threads each run gets."""

import json
import os

import pytest

from mddf.experiments import executor
from mddf.experiments.executor import worker_environment

PASSIVE = {"OMP_WAIT_POLICY": "PASSIVE"}


def test_other_work_on_the_cores_a_run_needs_gets_passive_waiting():
    assert worker_environment(threads=2, busy_cores=1.0, cores=2) == PASSIVE
    assert worker_environment(threads=2, busy_cores=4.0, cores=2) == PASSIVE
    assert worker_environment(threads=None, busy_cores=1.0, cores=8) == PASSIVE  # every core wanted
    assert worker_environment(threads=-1, busy_cores=1.0, cores=8) == PASSIVE


def test_runs_at_the_same_time_that_need_more_cores_than_there_are_get_passive_waiting():
    assert worker_environment(threads=2, workers=2, busy_cores=0.0, cores=2) == PASSIVE
    assert worker_environment(threads=None, workers=2, busy_cores=0.0, cores=4) == PASSIVE
    assert worker_environment(threads=1, workers=2, busy_cores=0.0, cores=2) == {}


def test_free_cores_for_every_thread_keep_openmps_own_waiting():
    assert worker_environment(threads=2, busy_cores=0.05, cores=2) == {}
    assert worker_environment(threads=2, busy_cores=5.0, cores=8) == {}  # six cores free for two threads
    assert worker_environment(threads=1, busy_cores=1.2, cores=2) == {}


@pytest.mark.parametrize("busy, expected", [(3.9, PASSIVE), (0.0, {})])
def test_the_machine_is_measured_when_not_told(monkeypatch, busy, expected):
    monkeypatch.setattr(executor, "_busy_cores", lambda: busy)
    assert worker_environment(threads=2, cores=2) == expected


def test_busy_cores_is_a_measurement_of_this_machine():
    busy = executor._busy_cores(interval=0.05)
    assert busy is not None and busy >= 0.0


def test_busy_cores_counts_only_the_cores_this_process_may_use(monkeypatch):
    # cpu0 (usable) half busy over the interval, cpu1 (not usable) fully busy
    samples = iter(
        [
            "cpu  300 0 0 100 0 0 0 0 0 0\ncpu0 100 0 0 100 0 0 0 0 0 0\ncpu1 200 0 0 0 0 0 0 0 0 0\n",
            "cpu  600 0 0 150 0 0 0 0 0 0\ncpu0 150 0 0 150 0 0 0 0 0 0\ncpu1 450 0 0 0 0 0 0 0 0 0\n",
        ]
    )

    class FakeStat:
        def __init__(self, path):
            assert str(path) == "/proc/stat"

        def read_text(self):
            return next(samples)

    monkeypatch.setattr(executor, "Path", FakeStat)
    monkeypatch.setattr(executor.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert executor._busy_cores() == 0.5


def test_more_threads_than_cores_need_no_measurement(monkeypatch):
    def measured():
        raise AssertionError("the machine was measured")

    monkeypatch.setattr(executor, "_busy_cores", measured)
    assert worker_environment(threads=2, workers=2, cores=2) == PASSIVE


@pytest.mark.parametrize("workers, cores, expected", [(1, 2, 2), (2, 2, 1), (2, 8, 4), (3, 2, 1)])
def test_runs_at_the_same_time_share_the_cores_unless_n_jobs_is_given(monkeypatch, workers, cores, expected):
    from mddf.experiments import cluster

    seen = {}
    monkeypatch.setattr(executor, "_core_count", lambda usable: cores)
    monkeypatch.setattr(cluster, "execute", lambda tasks, store, **options: seen.update(options))
    cluster.run_all([], None, workers=workers)
    assert seen["n_jobs"] == expected
    cluster.run_all([], None, workers=workers, n_jobs=-1)
    assert seen["n_jobs"] == -1


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_run_holds_the_openmp_pools_of_its_estimator_to_n_jobs(monkeypatch, n_jobs):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_info

    from mddf.experiments.runner import run_one

    seen, fit = [], HistGradientBoostingClassifier.fit

    def recording_fit(self, X, y, **kwargs):
        seen.append({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "openmp"})
        return fit(self, X, y, **kwargs)

    monkeypatch.setattr(HistGradientBoostingClassifier, "fit", recording_fit)
    record = run_one("iris", "HGB-es", 0, profile="quick", protocol="practitioner", n_jobs=n_jobs)
    assert record["status"] == "ok", record.get("error")
    assert seen and all(threads == {n_jobs} for threads in seen)


def test_busy_cores_leaves_out_the_cpu_time_of_the_given_processes(monkeypatch):
    # cpu0 busy 150 of 200 ticks over the interval, 100 of them the given process's own: 0.25 of a core left to others
    samples = {
        "/proc/stat": iter(["cpu0 100 0 0 100 0 0 0 0 0 0\n", "cpu0 250 0 0 150 0 0 0 0 0 0\n"]),
        "/proc/123/stat": iter([f"123 (a (b) c) S {'0 ' * 10}7 3 0 0\n", f"123 (a (b) c) S {'0 ' * 10}87 23 0 0\n"]),
    }

    class FakeProc:
        def __init__(self, path):
            self.path = str(path)

        def read_text(self):
            if self.path not in samples:
                raise FileNotFoundError(self.path)  # a process gone counts nothing
            return next(samples[self.path])

    monkeypatch.setattr(executor, "Path", FakeProc)
    monkeypatch.setattr(executor.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    first = executor._read_cpu({0}, pids=[123, 999])
    assert (first.spent, first.idle, first.ours) == (200, 100, 10)
    assert executor._busy_cores(since=first, pids=[123, 999]) == 0.25


@pytest.mark.slow
def test_the_benchmark_runs_in_the_workers_it_started_before_reading_its_data(tmp_path, monkeypatch):
    from mddf.experiments.cli import run_command
    from mddf.experiments.executor import WorkerPool

    started = []
    early = WorkerPool.early.__func__

    def watched(cls, count):
        pool = early(cls, count)
        started.extend(pool.pids())
        return pool

    monkeypatch.setattr(WorkerPool, "early", classmethod(watched))
    out = tmp_path / "res"
    argv = ["--datasets", "iris", "--methods", "RF", "--seeds", "2", "--out", str(out), "--quick", "--n-jobs", "1"]
    assert run_command("benchmark", [*argv, "--quiet"]) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(started) == 1 and [r["worker_pid"] for r in records] == started * 2
    assert executor._EARLY == {}


@pytest.mark.slow
def test_workers_started_for_a_command_that_stops_early_are_stopped(tmp_path, monkeypatch):
    from mddf.experiments.cli import run_command
    from mddf.experiments.executor import WorkerPool

    pools = []
    early = WorkerPool.early.__func__
    monkeypatch.setattr(
        WorkerPool, "early", classmethod(lambda cls, count: pools.append(early(cls, count)) or pools[-1])
    )
    code = run_command("benchmark", ["--data", str(tmp_path / "missing.csv"), "--target", "y", "--quiet"])
    assert code == 2 and len(pools) == 1 and pools[0].idle == [] and executor._EARLY == {}
