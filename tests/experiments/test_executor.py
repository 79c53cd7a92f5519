"""The sweep executor's choice of how the workers' OpenMP threads wait."""

import pytest

from mddf.experiments import executor
from mddf.experiments.executor import worker_environment

PASSIVE = {"OMP_WAIT_POLICY": "PASSIVE"}


def test_other_work_on_the_cores_a_run_needs_gets_passive_waiting():
    assert worker_environment(threads=2, busy_cores=1.0, cores=2) == PASSIVE
    assert worker_environment(threads=2, busy_cores=4.0, cores=2) == PASSIVE
    assert worker_environment(threads=None, busy_cores=1.0, cores=8) == PASSIVE  # every core wanted
    assert worker_environment(threads=-1, busy_cores=1.0, cores=8) == PASSIVE


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
