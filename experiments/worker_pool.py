"""The worker processes of a sweep (:class:`WorkerPool`): reused from run to run, replaced when they die, and never
outliving the runner, each leading a process group that a guardian ends when the runner goes."""

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
from dataclasses import dataclass

from .runbook import Task, failure_record

#: Seconds a worker told to end, or interrupted, has before it is stopped.
WORKER_EXIT_TIMEOUT = 5.0
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
        """Interrupt the busy workers (SIGINT), tell the idle ones to end, stop those left after
        :data:`WORKER_EXIT_TIMEOUT` s (workers :meth:`early` never used: at once)."""
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
