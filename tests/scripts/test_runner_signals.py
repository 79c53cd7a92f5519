"""A stopped runner leaves no process behind, and the next invocation resumes its sweep.

``run_uci.py`` runs as a real process on a three-run sweep whose second run starts two loky worker
processes (joblib's process backend) that sleep for two minutes. Once they are running, the runner
gets SIGKILL (``kill -9``), SIGTERM (``kill``, a job scheduler) or SIGINT sent to its process group
(Ctrl-C in a terminal); every process it had started, directly or not, must be gone 5 s later.
"""

import json
import os
import signal
import time

import bench_doubles
import psutil  # comes with dask's distributed, in the 'test' extra
import pytest
from runner_process import SCRIPT_WITH_DOUBLES, start_runner

#: These tests build environments, start clusters or spawn and signal processes: the slow loop only.
pytestmark = pytest.mark.slow

#: Seconds after the signal by which no descendant of the runner may be left.
GONE_WITHIN = 5.0
#: Seconds to wait for the lingering run's processes (the machine may be busy with other work).
STARTED_WITHIN = 120.0
#: Exit status of the stopped runner (see run_uci.py --help).
EXIT_STATUS = {"SIGKILL": -signal.SIGKILL, "SIGTERM": 128 + signal.SIGTERM, "SIGINT": 130}

ARGV = ["--datasets", "iris", "--methods", "Lingering", "--seeds", "3", "--quick", "--n-jobs", "1", "--quiet"]


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def alive(processes):
    """The processes of ``processes`` still running (zombies waiting to be reaped count as gone)."""
    running = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                running.append(process)
        except psutil.NoSuchProcess:
            pass
    return running


def describe(processes):
    out = []
    for process in processes:
        try:
            out.append(f"{process.pid} {' '.join(process.cmdline())[:120]}")
        except psutil.Error:
            out.append(str(process.pid))
    return out


@pytest.mark.parametrize("stop", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_stopped_runner_leaves_no_process_behind_and_the_sweep_resumes(tmp_path, stop):
    out = tmp_path / "res"
    results = out / "results.jsonl"
    markers = tmp_path / "linger"
    markers.mkdir()
    argv = [*ARGV, "--out", str(out)]
    env = {**os.environ, bench_doubles.LINGER_DIR_VARIABLE: str(markers)}
    proc = start_runner(argv, script=SCRIPT_WITH_DOUBLES, env=env, new_session=True)
    family = []
    try:
        deadline = time.monotonic() + STARTED_WITHIN
        while len(list(markers.iterdir())) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        lingering = {int(path.name.split("-")[1]) for path in markers.iterdir()}
        assert len(lingering) == 2, f"the run of seed 1 did not start its two loky processes (runner: {proc.poll()})"
        family = psutil.Process(proc.pid).children(recursive=True)
        # the run worker, its loky processes and multiprocessing's resource tracker at least
        assert lingering < {p.pid for p in family} and len(family) >= 4, describe(family)

        sent = time.monotonic()
        if stop == "SIGINT":
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals its foreground process group
        else:
            proc.send_signal(getattr(signal, stop))  # kill -9 / kill: the runner only
        while alive(family) and time.monotonic() - sent < 30:
            time.sleep(0.02)
        gone_after = time.monotonic() - sent
        survivors = describe(alive(family))
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for process in alive(family):  # a failing test leaves nothing running either
            process.kill()
    print(f"{stop}: {len(family)} descendants, the last gone {gone_after:.2f} s after the signal")
    assert not survivors, f"still running 30 s after {stop}: {survivors}"
    assert gone_after <= GONE_WITHIN, f"the last descendant took {gone_after:.1f} s to go after {stop}"
    assert proc.returncode == EXIT_STATUS[stop]
    before = read(results)
    assert [(r["seed"], r["status"]) for r in before] == [(0, "ok")]

    # The same command again (nothing lingers this time) finishes the sweep.
    resumed = start_runner(argv, script=SCRIPT_WITH_DOUBLES)
    assert resumed.wait(timeout=300) == 0
    after = read(results)
    assert after[: len(before)] == before
    assert sorted(r["seed"] for r in after) == [0, 1, 2] and all(r["status"] == "ok" for r in after)


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT"])
def test_a_stopped_run_of_threads_leaves_no_semaphore_to_the_resource_tracker(tmp_path, stop):
    # joblib's threading backend (scikit-learn's forests) makes named semaphores in the worker process, which a
    # worker killed mid-run left to multiprocessing's resource tracker: "leaked semaphore objects" at the exit
    markers = tmp_path / "linger"
    markers.mkdir()
    argv = ["--datasets", "iris", "--methods", "LingeringThreads", "--seeds", "2", "--quick", "--n-jobs", "1"]
    env = {**os.environ, bench_doubles.LINGER_DIR_VARIABLE: str(markers)}
    with (tmp_path / "stderr.log").open("wb") as err:
        proc = start_runner([*argv, "--out", str(tmp_path / "res")], script=SCRIPT_WITH_DOUBLES, env=env, stderr=err)
        try:
            deadline = time.monotonic() + STARTED_WITHIN
            while len(list(markers.iterdir())) < 2 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert len(list(markers.iterdir())) == 2, f"the run of seed 1 did not start its threads ({proc.poll()})"
            proc.send_signal(getattr(signal, stop))
            assert proc.wait(timeout=30) == EXIT_STATUS[stop]
        finally:
            if proc.poll() is None:
                proc.kill()
    text = (tmp_path / "stderr.log").read_text()
    assert "the runs in progress were stopped" in text and "leaked semaphore" not in text, text
