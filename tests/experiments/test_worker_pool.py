"""The worker processes of a sweep (their crashes and reuse: tests/scripts/test_run_uci.py; their tie to the runner:
tests/scripts/test_runner_signals.py)."""

import os
import subprocess
import sys

import pytest

from mddf.experiments.executor import WORKER_EXIT_TIMEOUT, WorkerPool
from mddf.experiments.runbook import Task


@pytest.mark.slow
def test_an_idle_worker_told_to_end_exits_with_status_zero():
    pool = WorkerPool()
    pool.start(Task("iris", "RF", 0), {"dataset": "iris", "method": "no such method"})  # ends at once, in error
    ((_, record),) = pool.wait(timeout=60)
    assert "unknown method" in record["error"]
    (worker,) = pool.idle
    worker.conn.send(None)
    worker.process.join(timeout=WORKER_EXIT_TIMEOUT)
    assert worker.process.exitcode == 0  # not killed after the timeout, nor failed on its way out
    pool.close()


def test_a_pool_started_early_runs_nothing_before_its_environment_is_decided():
    pool = WorkerPool.early(0)
    with pytest.raises(RuntimeError, match="not decided"):
        pool.start(Task("iris", "RF", 0), {"dataset": "iris", "method": "RF"})
    pool.close()


@pytest.mark.slow
def test_a_worker_started_early_takes_the_environment_decided_after_it_started(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    pool = WorkerPool.early(1)
    (early,) = pool.idle
    pool.decide({"OMP_WAIT_POLICY": "PASSIVE"})
    worker = pool.start(Task("iris", "RF", 0), {"dataset": "iris", "method": "no such method"})
    ((_, record),) = pool.wait(timeout=60)
    assert worker is early and record["worker_pid"] == early.process.pid  # no second process
    assert record["machine"]["thread_environment"]["OMP_WAIT_POLICY"] == "PASSIVE"
    pool.close()


@pytest.mark.slow
def test_workers_started_early_and_never_used_are_stopped_at_once():
    pool = WorkerPool.early(2)
    pids = pool.pids()
    pool.close()  # before they have even finished importing
    for pid in pids:  # killed and reaped
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert pool.idle == []


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the loaded libraries from /proc/self/maps")
def test_what_a_waiting_worker_imports_loads_no_openmp_runtime():
    # OpenMP reads OMP_WAIT_POLICY once, as its library loads: a worker that waits for its environment must not load it
    code = (
        "import importlib, sys\n"
        "from mddf.experiments.executor import PRELOADED\n"
        "for name in PRELOADED: importlib.import_module(name)\n"
        "maps = open('/proc/self/maps').read()\n"
        "print([m for m in ('libgomp', 'libomp', 'libiomp') if m in maps])\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
    canary = "import sklearn.base; print('libgomp' in open('/proc/self/maps').read())"
    assert subprocess.run([sys.executable, "-c", canary], capture_output=True, text=True).stdout.strip() == "True"
