"""The sweep executor: how the workers' OpenMP threads wait, and how many threads each run gets."""

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
