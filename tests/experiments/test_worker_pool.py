"""The worker processes of a sweep (their crashes and reuse: tests/scripts/test_run_uci.py; their tie to the runner:
tests/scripts/test_runner_signals.py)."""

import pytest

from mddf.experiments.runbook import Task
from mddf.experiments.worker_pool import WORKER_EXIT_TIMEOUT, WorkerPool


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
