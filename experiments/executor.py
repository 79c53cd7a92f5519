"""Many runs in local worker processes or in this process (:func:`execute`), and the workers' threads and OpenMP."""

from __future__ import annotations

import contextlib
import os
import time
from collections import namedtuple
from collections.abc import Callable
from pathlib import Path

from .exit_status import sigterm_raises
from .runbook import RunBook
from .store import ResultStore
from .worker_pool import WorkerPool


def worker_environment(
    threads: int | None = None,
    workers: int = 1,
    busy_cores: float | None = None,
    cores: int | None = None,
    measure: Callable[[], float | None] | None = None,
) -> dict:
    """The workers' OpenMP setting: ``{"OMP_WAIT_POLICY": "PASSIVE"}`` when ``busy_cores + workers * threads > cores +
    0.5`` (``threads`` None or negative: every core; ``busy_cores``: ``measure()``, default :func:`_busy_cores`)."""
    if cores is None:
        cores = _core_count(_usable_cpus())
    if threads is None or threads < 0:
        threads = cores
    if workers * threads > cores + 0.5:
        return {"OMP_WAIT_POLICY": "PASSIVE"}  # too many threads even on an idle machine: nothing to measure
    if busy_cores is None:
        busy_cores = (measure or _busy_cores)()
        if busy_cores is None:
            return {}
    return {"OMP_WAIT_POLICY": "PASSIVE"} if busy_cores + workers * threads > cores + 0.5 else {}


def _usable_cpus() -> set | None:
    """The CPUs this process may run on (its affinity); None where the system does not say."""
    return os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None


def _core_count(usable: set | None) -> int:
    """How many cores ``usable`` (from :func:`_usable_cpus`) holds: every core when the affinity is unknown."""
    return len(usable) if usable is not None else os.cpu_count() or 1


#: CPU time so far (clock ticks) of the usable cores (``spent``, ``idle``) and of some processes (``ours``).
_CpuReading = namedtuple("_CpuReading", "at spent idle ours")


def _read_cpu(usable: set | None, pids=()) -> _CpuReading:
    """The CPU time of the cores ``usable`` and of the processes ``pids`` (0 when gone), from ``/proc``."""
    at, spent, idle = time.monotonic(), 0, 0
    for line in Path("/proc/stat").read_text().splitlines():
        name, *fields = line.split()
        if not (name.startswith("cpu") and name[3:].isdigit()):
            continue
        if usable is not None and int(name[3:]) not in usable:
            continue
        values = [int(v) for v in fields]
        spent += sum(values)
        idle += values[3] + values[4]  # idle and iowait
    ours = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            ours += sum(int(v) for v in stat[stat.rindex(")") + 2 :].split()[11:13])  # utime, stime
    return _CpuReading(at, spent, idle, ours)


def _busy_cores(interval: float = 0.5, since: _CpuReading | None = None, pids=()) -> float | None:
    """Cores of this process's affinity busy over ``interval`` seconds from ``since`` (:func:`_read_cpu` of ``pids``;
    default: now), less the processes ``pids``; else the 1-minute load average, else None."""
    usable = _usable_cpus()
    try:
        first = since or _read_cpu(usable, pids)
        time.sleep(max(0.0, interval - (time.monotonic() - first.at)))
        last = _read_cpu(usable, pids)
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0]
        except OSError:
            return None
    elapsed = last.spent - first.spent  # CPU time of every core counted, in clock ticks
    busy = elapsed - (last.idle - first.idle) - (last.ours - first.ours)
    return 0.0 if elapsed <= 0 else max(0, busy) / elapsed * _core_count(usable)


#: The workers started ahead of the next sweep of this process (:func:`start_workers_early`), with their CPU reading.
_EARLY: dict = {}


def start_workers_early(workers: int) -> None:
    """Start the ``workers`` worker processes of this process's next :func:`execute` now, their OpenMP setting decided
    when it starts; :func:`discard_early_workers` stops those it does not take."""
    discard_early_workers()
    if workers < 1:
        return
    pool = WorkerPool.early(workers)
    pids = [os.getpid(), *pool.pids()]
    try:
        reading = _read_cpu(_usable_cpus(), pids)
    except (OSError, ValueError, IndexError):
        reading = None
    _EARLY.update(pool=pool, reading=reading, pids=pids)


def discard_early_workers() -> None:
    """Stop the workers of :func:`start_workers_early` that no sweep took."""
    pool = _EARLY.pop("pool", None)
    _EARLY.clear()
    if pool is not None:
        pool.close()


def threads_per_run(n_jobs: int | None, workers: int) -> int:
    """The threads of each run: ``n_jobs``, or (None) the usable cores shared among the ``workers``."""
    return max(1, _core_count(_usable_cpus()) // workers) if n_jobs is None else n_jobs


def execute(
    tasks, store: ResultStore, *, workers=1, isolation="process", n_jobs=-1, progress=True, log=print, **run_options
):
    """Run every task whose latest record in ``store`` is not ``ok``, each result appended as it finishes; return the
    records written. ``isolation``: ``"process"`` (``workers`` worker processes) or ``"inline"``; ``run_options``:
    :func:`~.runner.run_one`'s ``registry``, ``download``, ``user_data``."""
    if isolation not in ("process", "inline"):
        raise ValueError(f"isolation must be 'process' or 'inline', got {isolation!r}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    book = RunBook(tasks, store, n_jobs=n_jobs, progress=progress, log=log, **run_options)
    with sigterm_raises():
        try:
            if isolation == "inline":
                from .runner import run_one

                while (task := book.next_ready()) is not None:
                    book.start(task)
                    book.show(task.label)
                    book.finish(task, run_one(**book.kwargs_for(task), cache_dataset=True))
            else:
                _execute_in_workers(book, workers, n_jobs, (book.say or log) if progress else None)
        finally:
            book.close()
    return book.written


def _execute_in_workers(book: RunBook, workers: int, n_jobs: int, say) -> None:
    """The runs of ``book`` in ``workers`` worker processes, the OpenMP setting of :func:`worker_environment` said."""
    early, reading, pids = _EARLY.pop("pool", None), _EARLY.pop("reading", None), _EARLY.pop("pids", ())
    measure = None if early is None else lambda: _busy_cores(since=reading, pids=pids)
    environment = {} if "OMP_WAIT_POLICY" in os.environ else worker_environment(n_jobs, workers, measure=measure)
    if environment and say:
        say("the runs' threads need more cores than are free (other work holds some, or --workers x --n-jobs exceeds "
            "them): their OpenMP threads wait passively (OMP_WAIT_POLICY=PASSIVE), and their times are not comparable "
            "to a quiet run's")  # fmt: skip
    pool = WorkerPool(environment) if early is None else early
    try:
        if early is not None:
            pool.decide(environment)
        while book.pending or book.running:
            while len(book.running) < workers and (task := book.next_ready()) is not None:
                book.start(task, pool.start(task, book.kwargs_for(task)))
            now = time.perf_counter()
            book.show(", ".join(f"{t.label} ({now - s:.0f}s)" for t, (_, s) in book.running.items()))
            for task, record in pool.wait(timeout=1.0):
                book.finish(task, record)
    finally:
        pool.close()  # interrupted (Ctrl-C, SIGTERM, an error): the runs in progress stop with all they started
