"""Many runs in local worker processes or in this process (:func:`execute`), and the workers' threads and OpenMP; the
worker processes (:class:`WorkerPool`): reused from run to run, replaced when they die, and never outliving the runner,
each leading a process group that a guardian ends when the runner goes."""

from __future__ import annotations

import contextlib
import gc
import importlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import subprocess
import sys
import threading
import time
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .exit_status import sigterm_raises
from .runbook import RunBook, Task, failure_record
from .store import ResultStore


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
    """Start the ``workers`` worker processes of the next :func:`execute` now (:func:`discard_early_workers`)."""
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


WORKER_EXIT_TIMEOUT = 5.0  #: Seconds a worker told to end, or interrupted, has before it is stopped.
#: What a worker started before its environment imports meanwhile: none loads an OpenMP runtime (scikit-learn's does).
PRELOADED = ("numpy", "scipy.stats", "scipy.sparse", "scipy.optimize", "pandas", "numba")


def _work(conn, environment=None):
    """A worker process: sends back the record of each :func:`~.runner.run_one` keyword set ``conn`` sends, until None
    (``environment`` None: imports :data:`PRELOADED`, then reads it from ``conn``)."""
    _tie_to_runner()
    if environment is None:
        for module in PRELOADED:
            with contextlib.suppress(ImportError):
                importlib.import_module(module)
        with contextlib.suppress(EOFError, OSError, KeyboardInterrupt):
            environment = conn.recv()
        if environment is None:
            os._exit(0)
    for key, value in environment.items():
        os.environ.setdefault(key, value)
    from .runner import run_one

    try:
        while (kwargs := conn.recv()) is not None:
            conn.send({**run_one(**kwargs, cache_dataset=True), "worker_pid": os.getpid()})
    except (EOFError, OSError, KeyboardInterrupt):  # the runner went, or stops the run (SIGINT: WorkerPool.close)
        gc.collect()  # what the run held is released as it unwinds: joblib's pools, and their named semaphores
    conn.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@dataclass(eq=False)
class Worker:
    """A worker process, the runner's end of its pipe, and the task it runs (None: idle)."""

    process: object
    conn: object
    task: Task | None = None

    def stop(self) -> None:
        """Kill the worker and every process of its group, and release it."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (AttributeError, ProcessLookupError, PermissionError):
            self.process.kill()  # no process groups here, or the worker has not made its group yet
        self.release()

    def release(self):
        """Join the worker (ended or stopped), close its handles; its exit code."""
        self.process.join()
        exitcode = self.process.exitcode
        self.conn.close()
        self.process.close()
        return exitcode


class WorkerPool:
    """The sweep's worker processes; ``environment``: variables a new worker sets before it imports anything."""

    def __init__(self, environment: dict | None = None):
        self.context = multiprocessing.get_context("spawn")
        self.environment = environment or {}
        self.idle: list[Worker] = []
        self.busy: list[Worker] = []

    @classmethod
    def early(cls, count: int) -> WorkerPool:
        """A pool whose ``count`` workers start now, waiting for their environment (:meth:`decide`, before a run)."""
        pool = cls()
        pool.environment = None
        pool.idle = [pool._spawn() for _ in range(count)]
        return pool

    def decide(self, environment: dict) -> None:
        """Give the workers started :meth:`early` their ``environment`` (a worker already gone is dropped)."""
        self.environment = dict(environment)
        for worker in list(self.idle):
            try:
                worker.conn.send(self.environment)
            except OSError:
                self.idle.remove(worker)
                worker.stop()

    def pids(self) -> list[int]:
        """The process ids of the workers."""
        return [worker.process.pid for worker in self.idle + self.busy]

    def start(self, task: Task, kwargs: dict) -> Worker:
        """Send ``task``'s run (``kwargs`` of :func:`~.runner.run_one`) to an idle worker, or to a new one."""
        if self.environment is None:
            raise RuntimeError("the workers' environment is not decided yet (WorkerPool.decide)")
        worker = self.idle.pop() if self.idle else self._spawn()
        worker.task = task
        worker.conn.send(kwargs)
        self.busy.append(worker)
        return worker

    def _spawn(self) -> Worker:
        conn, child = self.context.Pipe(duplex=True)
        process = self.context.Process(target=_work, args=(child, self.environment), name="mddf worker")
        process.start()
        child.close()
        return Worker(process, conn)

    def wait(self, timeout: float = 1.0) -> list:
        """``[(task, record)]`` of the runs that ended within ``timeout`` seconds (a dead worker's: an ``error``)."""
        if not self.busy:
            return []
        multiprocessing.connection.wait([w.conn for w in self.busy] + [w.process.sentinel for w in self.busy], timeout)
        ended = []
        for worker in list(self.busy):
            try:
                record, gone = (worker.conn.recv() if worker.conn.poll() else None), False
            except (EOFError, OSError):  # its end of the pipe closed: the worker is gone, or going
                record, gone = None, True
            if record is None and not gone and worker.process.is_alive():
                continue
            self.busy.remove(worker)
            if record is None:
                exitcode = worker.release()
                hint = " (killed by the system, e.g. out of memory)" if exitcode == -9 else ""
                record = failure_record(
                    worker.task, f"worker process exited with code {exitcode} without a result{hint}"
                )
            else:
                self.idle.append(worker)
            ended.append((worker.task, record))
            worker.task = None
        return ended

    def close(self) -> None:
        """Interrupt the busy workers, tell the idle ones to end, stop those left after :data:`WORKER_EXIT_TIMEOUT`."""
        idle, busy = self.idle, self.busy
        self.idle, self.busy = [], []
        if self.environment is None:  # started early and never used: nothing of theirs to keep
            for worker in idle:
                worker.stop()
            return
        for worker in busy:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.process.pid, signal.SIGINT)
        for worker in idle:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        deadline = time.monotonic() + WORKER_EXIT_TIMEOUT
        for worker in busy + idle:
            worker.process.join(timeout=max(0.0, deadline - time.monotonic()))
            worker.stop() if worker.process.exitcode is None else worker.release()


# The tie of a worker to its runner (see the module's docstring): the guardian's code, run with ``python -I -S -c``.
_GUARDIAN = (
    "import os, select, signal, sys\n"
    "pipes = select.poll()\n"
    "for fd in sys.argv[1:]:\n"
    "    pipes.register(int(fd), select.POLLIN)\n"
    "while not pipes.poll():\n"
    "    pass\n"
    "os.killpg(0, signal.SIGKILL)\n"
)
_worker_alive_pipe = None  # write end, held open for the life of the worker process


def _tie_to_runner():
    """Make this worker process (and anything it starts) die with the runner."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not started by multiprocessing
        return
    grouped = hasattr(os, "setpgid") and hasattr(os, "killpg")
    if grouped:
        try:
            os.setpgid(0, 0)
        except OSError:
            grouped = False
    if grouped:
        # Out of the terminal's foreground group now: let writes to it through even with `stty tostop`.
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        if _start_guardian(parent.sentinel):
            if _die_with_parent() and multiprocessing.connection.wait([parent.sentinel], timeout=0):
                os._exit(1)  # the runner died before the request: nobody waits for this run
            return
    # No guardian: a thread ends the group instead. (Not with the parent-death signal, which would
    # kill this process, thread included, before it could reach the children.)
    threading.Thread(target=_exit_with_parent, args=(parent.sentinel, grouped), daemon=True).start()


def _die_with_parent() -> bool:
    """Linux: have the kernel send this process SIGKILL when its parent dies. Whether it could."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        return libc.prctl(pr_set_pdeathsig, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _start_guardian(runner_sentinel: int) -> bool:
    """Start the guardian process of this worker's group. Whether it could."""
    global _worker_alive_pipe
    read_end, write_end = os.pipe()
    try:
        subprocess.Popen([sys.executable, "-I", "-S", "-c", _GUARDIAN, str(runner_sentinel), str(read_end)],
                         pass_fds=(runner_sentinel, read_end), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)  # fmt: skip
    except OSError:
        os.close(write_end)
        return False
    finally:
        os.close(read_end)
    _worker_alive_pipe = write_end
    return True


def _exit_with_parent(runner_sentinel: int, grouped: bool) -> None:
    multiprocessing.connection.wait([runner_sentinel])
    if grouped:
        os.killpg(0, signal.SIGKILL)
    os._exit(1)
