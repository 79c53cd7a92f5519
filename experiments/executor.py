"""Planning and executing many runs: resume, dependencies, worker processes, progress.

Each run executes in a worker process by default (forked from a server that imported the runs' code once, or
spawned: :func:`worker_context`), so that a crash (even a segfault or an out-of-memory kill) costs only that run:
the worker that died is replaced and the sweep goes on. Workers are reused from run to run (:class:`_Pool`), so
that imports, numba's compiled code and the datasets are loaded once per worker rather than once per run, and a
command may start them as it starts (:func:`warm_workers`), so that their start overlaps its own; a run's peak
memory is still its own (the high-water mark is reset at its start, :class:`~.environment.PeakMemory`). A worker
never outlives the runner: however the runner ends (SIGKILL included), the worker and the processes it started go
with it. Results are appended to the :class:`~.store.ResultStore` as each run finishes. Tree-budget methods (random
forest, XGBoost) wait for the mdDF run of the same dataset/seed/fold/fraction, whose number of layers sets their
number of trees.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .binding import Binding, latest_bound, matches
from .exit_status import (  # noqa: F401 (the runners' statuses, imported from here by the harness)
    EXIT_INTERRUPTED,
    EXIT_NOTHING_TO_RUN,
    EXIT_OK,
    EXIT_RUN_FAILED,
    EXIT_TERMINATED,
    at_quick_exit,
)
from .methods import MethodSpec
from .store import ResultStore, new_record, run_key
from .suites import DEEPBOOST_N_FOLDS, protocol_of

BUDGET_METHOD = "mdDF"
#: Seconds an idle worker told to end has before it is stopped.
WORKER_EXIT_TIMEOUT = 5.0


class Terminated(SystemExit):
    """SIGTERM arrived while runs were executing (``code``: 128 + the signal's number)."""


def worker_environment(
    threads: int | None = None, workers: int = 1, busy_cores: float | None = None, cores: int | None = None
) -> dict:
    """The OpenMP setting the workers of a sweep start with: ``{"OMP_WAIT_POLICY": "PASSIVE"}`` or ``{}``.

    OpenMP threads (XGBoost, LightGBM, HistGradientBoosting) spin a while before they sleep, the fastest
    way while a core is free for each thread. When the runs need more cores than other work leaves free
    (``busy_cores + workers * threads > cores + 0.5``), spinning threads take the cores of the working
    ones, and passive waiting is set. No result changes, only the time (docs/benchmarks/threads.md).

    Parameters
    ----------
    threads : int or None
        Threads of each run (``n_jobs``; None or a negative value: every usable core).
    workers : int
        Runs at the same time.
    busy_cores : float, optional
        Usable cores busy with other work; when None, measured over half a second (:func:`_busy_cores`) unless
        the threads alone exceed the cores.
    cores : int, optional
        Usable cores; read from the system when None.
    """
    if cores is None:
        cores = _core_count(_usable_cpus())
    if threads is None or threads < 0:
        threads = cores
    if workers * threads > cores + 0.5:
        return {"OMP_WAIT_POLICY": "PASSIVE"}  # too many threads even on an idle machine: nothing to measure
    if busy_cores is None:
        busy_cores = _busy_cores()
        if busy_cores is None:
            return {}
    return {"OMP_WAIT_POLICY": "PASSIVE"} if busy_cores + workers * threads > cores + 0.5 else {}


def _usable_cpus() -> set | None:
    """The CPUs this process may run on (its affinity); None where the system does not say."""
    return os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None


def _core_count(usable: set | None) -> int:
    """How many cores ``usable`` (from :func:`_usable_cpus`) holds: every core when the affinity is unknown."""
    return len(usable) if usable is not None else os.cpu_count() or 1


def _busy_cores(interval: float = 0.5) -> float | None:
    """Cores of this process's affinity busy with other work over the next ``interval`` seconds (``/proc/stat``,
    less this process's own CPU time, so that it may go on working meanwhile); the 1-minute load average where
    that cannot be read; None when neither can."""
    usable = _usable_cpus()

    def sample():
        spent = idle = 0
        for line in Path("/proc/stat").read_text().splitlines():
            name, *fields = line.split()
            if not (name.startswith("cpu") and name[3:].isdigit()):
                continue
            if usable is not None and int(name[3:]) not in usable:
                continue
            values = [int(v) for v in fields]
            spent += sum(values)
            idle += values[3] + values[4]  # idle and iowait
        return spent, idle

    try:
        spent, idle = sample()
        own, start = time.process_time(), time.perf_counter()
        time.sleep(interval)
        spent_after, idle_after = sample()
        own = (time.process_time() - own) / max(time.perf_counter() - start, 1e-9)  # cores this process used
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0]
        except OSError:
            return None
    elapsed = spent_after - spent  # CPU time of every core counted, in clock ticks
    if elapsed <= 0:
        return 0.0
    return max(0.0, (elapsed - (idle_after - idle)) / elapsed * _core_count(usable) - own)


def threads_per_run(n_jobs: int | None, workers: int) -> int:
    """The threads of each run: ``n_jobs``, or (None) the usable cores shared among the ``workers``."""
    return max(1, _core_count(_usable_cpus()) // workers) if n_jobs is None else n_jobs


@dataclass(frozen=True)
class Task:
    """One planned run."""

    dataset: str
    method: str
    seed: int
    fold: int | None = None
    fraction: float = 1.0
    profile: str = "paper"
    tree_budget: bool = False
    protocol: str = "paper"
    n_folds: int | None = None  # folds of the practitioner protocol's cross-validation
    binding: Binding | None = field(default=None, compare=False)

    @cached_property
    def key(self) -> str:
        return run_key(self.dataset, self.method, self.seed, self.fold, self.fraction, self.profile, self.protocol)

    @cached_property
    def budget_key(self) -> str | None:
        """Key of the mdDF run whose layers set this run's number of trees."""
        if not self.tree_budget:
            return None
        return run_key(self.dataset, BUDGET_METHOD, self.seed, self.fold, self.fraction, self.profile, self.protocol)

    @property
    def label(self) -> str:
        parts = [self.dataset, self.method, f"seed {self.seed}"]
        if self.fold is not None:
            parts.append(f"fold {self.fold}")
        if self.fraction != 1.0:
            parts.append(f"{self.fraction:g} of train")
        return " / ".join(parts)


def applicable(spec: MethodSpec, n_classes: int, image_shape, task: str = "classification") -> bool:
    """Whether ``spec`` runs on a dataset of ``task`` with ``n_classes`` classes and this image shape."""
    if task not in spec.tasks:
        return False
    return not (spec.binary_only and n_classes != 2) and not (spec.image_only and image_shape is None)


def plan(datasets, specs, seeds, *, n_classes, image_shapes=None, profile="paper", fractions=(1.0,), protocol="paper",
         n_folds=None, tasks=None, bindings=None) -> list[Task]:  # fmt: skip
    """All runs of ``specs`` x ``datasets`` x ``seeds`` (x folds x fractions), mdDF first.

    A method runs on a dataset where it :func:`applicable` (``n_classes``, ``image_shapes`` and ``tasks``
    map each dataset to its classes, image shape and task). Under the papers' protocol the DeepBoost
    datasets get that paper's 10 folds, the others their split; under the practitioner's, a dataset with
    ``n_folds[dataset]`` gets as many cross-validation folds per seed. ``bindings`` maps ``(dataset,
    method)`` to the :class:`~.binding.Binding` its runs resume from.
    """
    image_shapes = image_shapes or {}
    n_folds, tasks, bindings = n_folds or {}, tasks or {}, bindings or {}
    planned = []
    for dataset in datasets:
        k = n_folds.get(dataset)
        if protocol == "practitioner":
            folds = range(k) if k else [None]
        else:
            folds = range(DEEPBOOST_N_FOLDS) if protocol_of(dataset) == "deepboost" else [None]
        task = tasks.get(dataset, "classification")
        k = k if protocol == "practitioner" else None
        for seed, fraction, fold, spec in itertools.product(seeds, fractions, folds, specs):
            if applicable(spec, n_classes[dataset], image_shapes.get(dataset), task):
                binding = bindings.get((dataset, spec.name))
                args = (int(seed), fold, float(fraction), profile, spec.tree_budget, protocol, k, binding)
                planned.append(Task(dataset, spec.name, *args))
    return planned


def _worker(conn, environment=None):
    """Entry point of a worker process: runs the runs the runner sends through ``conn`` (the keyword arguments of
    :func:`~.runner.run_one`), one at a time, each record sent back, until the runner sends None or goes; then the
    process exits at once (``os._exit``), so never call it in a process of your own.

    ``environment`` (:func:`worker_environment`) is set, where the user has not set it, before the estimators are
    imported: the OpenMP runtime reads it when it loads."""
    _tie_to_runner()
    for key, value in (environment or {}).items():
        os.environ.setdefault(key, value)
    from .runner import run_one

    while True:
        try:
            kwargs = conn.recv()
        except (EOFError, OSError):
            break
        if kwargs is None:
            break
        conn.send({**run_one(**kwargs, cache_dataset=True), "worker_pid": os.getpid()})
    conn.close()
    # Every record is sent: end now, without the interpreter's teardown of the estimators' libraries, which the
    # runner would wait for (anything this worker started ends with its group: see _tie_to_runner).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@dataclass(eq=False)
class _Worker:
    """A worker process, the runner's end of its pipe, and the task it runs (None: idle)."""

    process: object
    conn: object
    task: Task | None = None


class _Pool:
    """The sweep's worker processes: an idle one takes the next run; one that dies is replaced by a new one.

    Parameters
    ----------
    context : multiprocessing context
        ``spawn``: a worker starts with nothing imported.
    environment : dict
        Variables a new worker starts with (:func:`worker_environment`).
    """

    def __init__(self, context, environment):
        self.context, self.environment = context, environment
        self.idle: list[_Worker] = []
        self.busy: list[_Worker] = []

    def start(self, task: Task, kwargs: dict) -> _Worker:
        """Send ``task``'s run to an idle worker, or to a new one when none is idle."""
        worker = self.idle.pop() if self.idle else self._spawn()
        worker.task = task
        worker.conn.send(kwargs)
        self.busy.append(worker)
        return worker

    def prestart(self, n: int) -> None:
        """Start ``n`` idle workers now, so that their start overlaps the runner's own work."""
        for _ in range(n - len(self.idle) - len(self.busy)):
            self.idle.append(self._spawn())

    def _spawn(self) -> _Worker:
        conn, child = self.context.Pipe(duplex=True)
        process = self.context.Process(target=_worker, args=(child, self.environment), name="mddf worker")
        process.start()
        child.close()
        return _Worker(process, conn)

    def wait(self, timeout: float = 1.0) -> list:
        """``[(task, record or None)]`` of the runs that ended: a record, or None when the worker died (it is
        then released; an idle worker keeps waiting for the next run)."""
        if not self.busy:
            return []
        multiprocessing.connection.wait([w.conn for w in self.busy] + [w.process.sentinel for w in self.busy], timeout)
        ended = []
        for worker in list(self.busy):
            record = None
            if worker.conn.poll():
                try:
                    record = worker.conn.recv()
                except (EOFError, OSError):
                    record = None
            if record is None and worker.process.is_alive():
                continue
            self.busy.remove(worker)
            ended.append((worker.task, record))
            worker.task = None
            if record is None:  # the worker died: its exit code names why
                ended[-1] = (ended[-1][0], _crash_record(ended[-1][0], _release(worker)))
            else:
                self.idle.append(worker)
        return ended

    def close(self, wait: bool = True) -> None:
        """Let the idle workers end, and stop the busy ones with everything they started.

        ``wait=False``: the idle workers end in the background (a thread joins them, stopping any still there
        after :data:`WORKER_EXIT_TIMEOUT`; the interpreter waits for it before it exits), so that the runner's next
        steps (its tables and figure) overlap their exit.
        """
        idle, busy = self.idle, self.busy
        self.idle, self.busy = [], []
        for worker in idle:
            try:
                worker.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        _stop_all(busy)
        if wait:
            _join_idle(idle)
        elif idle:
            threading.Thread(target=_join_idle, args=(idle,), name="mddf workers ending").start()

    def discard(self) -> None:
        """Stop every worker now, idle or not: for workers that never ran a run, which nobody waits for."""
        _stop_all(self.idle + self.busy)
        self.idle, self.busy = [], []


def _new_pool(workers: int, n_jobs: int) -> _Pool:
    """A pool of workers with the OpenMP setting of ``workers`` runs of ``n_jobs`` threads
    (:func:`worker_environment`; the user's own ``OMP_WAIT_POLICY`` is kept, and the machine not measured), started
    by :func:`worker_context`."""
    measure = "OMP_WAIT_POLICY" not in os.environ
    environment = worker_environment(n_jobs, workers) if measure else {}
    return _Pool(worker_context(environment, workers), environment)


#: What the fork server imports before it forks a worker, per worker environment: the OpenMP setting first
#: (:mod:`._passive_wait`; the OpenMP runtime reads it when it loads), then the runs' code and the libraries its
#: methods import on first use (:mod:`._estimator_imports`).
_RUNS_CODE = [f"{__package__}.runner", f"{__package__}._estimator_imports"]
_PRELOAD = {(): _RUNS_CODE, (("OMP_WAIT_POLICY", "PASSIVE"),): [f"{__package__}._passive_wait", *_RUNS_CODE]}
#: Variables the runs' libraries set when they are imported (scikit-learn's OpenMP settings, with ``setdefault``):
#: the server sets them itself as it imports, so this process setting them after the server started changes nothing.
_SET_BY_IMPORTS = ("KMP_DUPLICATE_LIB_OK", "KMP_INIT_AT_FORK")
_fork_server: tuple | None = None  # (worker environment, this process's environment) the fork server started with
_fork_server_lock = threading.Lock()


def _environment_snapshot() -> dict:
    """This process's environment variables, less those the runs' imports set (:data:`_SET_BY_IMPORTS`)."""
    return {key: value for key, value in os.environ.items() if key not in _SET_BY_IMPORTS}


def _fork_server_pid() -> int | None:
    """The pid of this process's running fork server, if any (multiprocessing's own record of it; None should the
    attribute ever go)."""
    from multiprocessing import forkserver

    return getattr(forkserver._forkserver, "_forkserver_pid", None)


def worker_context(environment: dict | None = None, workers: int = 2):
    """The multiprocessing context that starts ``workers`` workers of ``environment`` (:func:`worker_environment`).

    For two workers or more, where the platform has one, the ``forkserver`` context: one server process, started
    with this process's first such pool, imports the runs' code (and, first, sets ``environment``), and each worker
    is a fork of it, so that the workers of a sweep do not each pay the imports at the same time
    (docs/benchmarks/runner-overhead.md). Otherwise ``spawn``, a worker starting with nothing imported: for one
    worker (whose imports overlap the runner's own start without a server in between), a pool of another environment
    than the server's, a process whose environment variables changed since the server started (its children would
    not see the change; :data:`_SET_BY_IMPORTS` aside), or a platform without a fork server. Either way a worker is a
    process of its own, which may die alone.
    """
    key = tuple(sorted((environment or {}).items()))
    if workers < 2 or key not in _PRELOAD or "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    global _fork_server
    with _fork_server_lock:
        from multiprocessing import forkserver

        if _fork_server is None and _fork_server_pid() is None:
            multiprocessing.get_context("forkserver").set_forkserver_preload(_PRELOAD[key])
            _fork_server = (key, _environment_snapshot())
            forkserver.ensure_running()  # starts the server now: its imports overlap this process's work
            at_quick_exit(_end_fork_server)
        # (a server this process started otherwise, without the runs' code and environment, is not used)
    return multiprocessing.get_context("forkserver" if _fork_server == (key, _environment_snapshot()) else "spawn")


def _end_fork_server() -> None:
    """End the fork server this process started (SIGTERM), for a command that ends without the interpreter's
    teardown (:func:`~.exit_status.exit_now`): the server would otherwise go through its own teardown after the
    command, holding the command's output open (a pipe, ``| tee``) meanwhile. Its workers have ended by then."""
    pid = _fork_server_pid()
    if _fork_server is not None and pid is not None:
        with contextlib.suppress(OSError):  # gone already, or not ours to signal: the command's status stands
            os.kill(pid, signal.SIGTERM)


class _WarmStart:
    """The workers :func:`warm_workers` starts in the background, for an :func:`execute` with the same workers and
    threads to adopt."""

    def __init__(self, workers: int, n_jobs: int):
        self.workers, self.n_jobs = workers, n_jobs
        self.pool: _Pool | None = None
        self.thread = threading.Thread(target=self._start, name="mddf warm start", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        pool = _new_pool(self.workers, self.n_jobs)
        try:
            pool.prestart(self.workers)
        except Exception:  # noqa: BLE001 (execute starts its own workers and reports what fails)
            pool.discard()
            return
        self.pool = pool

    def take(self, workers: int, n_jobs: int) -> _Pool | None:
        """The started workers when they were started for ``workers`` runs of ``n_jobs`` threads (else None: the
        others are stopped); at most once."""
        if (workers, n_jobs) != (self.workers, self.n_jobs):
            self.discard()
            return None
        self.thread.join()
        pool, self.pool = self.pool, None
        return pool

    def discard(self) -> None:
        """Stop the started workers that nobody took."""
        pool = self.take(self.workers, self.n_jobs)
        if pool is not None:
            pool.discard()


_warm_start: _WarmStart | None = None  # the one of the running warm_workers block


@contextlib.contextmanager
def warm_workers(workers: int = 1, n_jobs: int | None = None):
    """Start the worker processes of a coming :func:`execute` now, in the background, for the duration of the block.

    A worker's interpreter and imports then overlap the runner's own start (its imports, reading the table,
    planning) instead of following it. The first :func:`execute` in the block with the same ``workers`` and
    threads (``n_jobs``, as :func:`threads_per_run`) and process isolation adopts them; the block's end stops
    any that none adopted (a command that ends before its sweep, or runs it otherwise). The OpenMP setting
    (:func:`worker_environment`) is decided as they start, the runner's own work not counted as busy cores.
    """
    global _warm_start
    previous, _warm_start = _warm_start, _WarmStart(workers, threads_per_run(n_jobs, workers))
    started = _warm_start
    try:
        yield
    finally:
        _warm_start = previous
        started.discard()


def _adopt_warm_workers(workers: int, n_jobs: int) -> _Pool | None:
    """The workers of the running :func:`warm_workers` block when they fit ``workers`` runs of ``n_jobs`` threads."""
    return _warm_start.take(workers, n_jobs) if _warm_start is not None else None


def _stop_all(workers: list[_Worker]) -> None:
    """Stop workers now, with everything they started, and close their pipes."""
    for worker in workers:
        _stop_worker(worker.process)
        worker.conn.close()


def _join_idle(idle: list[_Worker]) -> None:
    """Join workers told to end; stop those still there after :data:`WORKER_EXIT_TIMEOUT`."""
    for worker in idle:
        worker.process.join(timeout=WORKER_EXIT_TIMEOUT)
        _stop_worker(worker.process) if worker.process.exitcode is None else worker.process.close()
        worker.conn.close()


def _release(worker: _Worker):
    """Join a worker that died, close its handles; its exit code."""
    worker.process.join()
    exitcode = worker.process.exitcode
    worker.conn.close()
    worker.process.close()
    return exitcode


# A worker must not outlive the runner that started it (an orphan, with the loky processes a run may
# start, would compete with the resumed sweep for minutes). Each worker therefore leads a process group
# of its own, which its children join, so that one killpg stops the whole run (:func:`_stop_worker`);
# starts a guardian, a small process in its group waiting on two pipes held by the runner (the parent
# sentinel) and by the worker, which kills the group when either closes (a process, as a thread could
# not act while a native call holds the GIL); and asks Linux for SIGKILL when the runner dies
# (``PR_SET_PDEATHSIG``: of its parent, the runner or the fork server, which ends with the runner), then
# checks that the runner is still there. Where no guardian can start
# (or without setpgid/killpg: Windows), a thread waiting on the parent sentinel ends the group instead.
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
    """Make this worker process (and anything it starts) die with the runner; see the comment above."""
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
    import subprocess

    global _worker_alive_pipe
    read_end, write_end = os.pipe()
    try:
        subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _GUARDIAN, str(runner_sentinel), str(read_end)],
            pass_fds=(runner_sentinel, read_end),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
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


def _stop_worker(process) -> None:
    """Kill a worker process and every process of its group, then release it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, ProcessLookupError, PermissionError):
        process.kill()  # no process groups here, or the worker has not made its group yet
    process.join()
    process.close()


def failure_record(task: Task, error: str, **extra) -> dict:
    """The ``error`` record of a run that produced no record of its own (its process or worker died)."""
    shown = task.protocol if task.protocol != "paper" else protocol_of(task.dataset)
    settings = {"fraction": task.fraction, "profile": task.profile, "protocol": shown}
    return new_record(
        task.key, task.dataset, task.method, task.seed, task.fold, status="error", error=error, binding=task.binding,
        **settings, **extra,
    )  # fmt: skip


def _crash_record(task: Task, exitcode) -> dict:
    hint = " (killed by the system, e.g. out of memory)" if exitcode == -9 else ""
    return failure_record(task, f"worker process exited with code {exitcode} without a result{hint}")


def unfinished(tasks, store: ResultStore) -> list[dict]:
    """The latest records of the runs of ``tasks`` that did not end ``ok`` (``error`` or ``skipped``),
    in plan order; a run without a record of its data and settings gets an ``error`` record saying so."""
    bound = latest_bound(store.records(), {t.key: t.binding for t in tasks})
    out = []
    for task in dict.fromkeys(tasks):
        record = bound.get(task.key)
        if record is None:
            out.append(failure_record(task, "no result was recorded for this run"))
        elif record.get("status") != "ok":
            out.append(record)
    return out


def bound_records(tasks, store: ResultStore) -> list[dict]:
    """The latest record of each run of ``tasks`` obtained on their data and settings, in plan order."""
    bound = latest_bound(store.records(), {t.key: t.binding for t in tasks})
    return [bound[task.key] for task in dict.fromkeys(tasks) if task.key in bound]


#: The seconds a run record holds for its own work: warm-up (compilation), selection and final fit, prediction of the
#: labels and of the probabilities.
RUN_SECONDS = ("compile_seconds", "total_seconds", "predict_seconds", "predict_proba_seconds")


def run_seconds(record: dict) -> float:
    """The seconds of a run's own work (:data:`RUN_SECONDS`; those it lacks count 0)."""
    return float(sum(record.get(key) or 0.0 for key in RUN_SECONDS))


def _fold_of(task: Task) -> tuple:
    """The rows a run trains and tests on: its dataset, seed, fold and fraction."""
    return task.dataset, task.seed, task.fold, task.fraction


def describe(record: dict) -> str:
    """One line summarising a finished run."""
    status = record.get("status")
    if status == "ok":
        if record.get("accuracy") is not None:
            text = f"acc {100 * record['accuracy']:.2f}%"
        else:
            text = f"R² {record.get('r2', float('nan')):.4f}"
        text += f"  fit {record.get('train_seconds', 0):.1f}s"
        if record.get("selection_seconds"):
            text += f" + selection {record['selection_seconds']:.1f}s"
        if record.get("compile_seconds"):
            text += f" (compile {record['compile_seconds']:.1f}s apart)"
        if record.get("peak_rss_mb") is not None:
            text += f"  peak {record['peak_rss_mb']:.0f} MB"
        if record.get("n_layers") is not None:
            text += f"  layers {record['n_layers']}"
        if record.get("trees_k") is not None:
            text += f"  k {record['trees_k']}"
        return text
    if status == "skipped":
        return f"skipped: {record.get('message', '')}"
    return f"ERROR {record.get('error', '')}"


class RunBook:
    """What every way of executing runs shares (:func:`execute`, :func:`~.cluster.execute_on_cluster`).

    Runs whose latest record in ``store`` is ``ok`` are left out (resume); a run starts once the mdDF run
    that sets its tree budget is neither pending nor running. Each result is appended to ``store`` the
    moment it arrives and, with ``progress``, described on one line (through ``log``) and counted on a
    tqdm bar on a terminal. ``run_options`` (``n_jobs``, -1 by default, ``registry``, ``download``,
    ``user_data``) go to every :func:`~.runner.run_one`.
    """

    def __init__(self, tasks, store: ResultStore, *, progress=True, log=print, **run_options):
        from tqdm.auto import tqdm

        self.store = store
        store.repair()  # a record cut short by the last run is removed once, not warned about at every read
        self.run_options = {"n_jobs": -1, "registry": None, "download": False, **run_options}
        if not self.run_options.get("user_data"):
            self.run_options.pop("user_data", None)
        self.latest = store.latest()
        self.pending = [t for t in dict.fromkeys(tasks) if not self._done(t)]
        self.unfinished = {t.key for t in self.pending}  # pending or running: a tree budget not yet known
        self.bindings = {t.key: t.binding for t in tasks}
        self.running: dict = {}  # task -> (handle of the executor, start time)
        self.seconds: dict = {}  # method -> recorded seconds of its ok runs in this sweep (next_ready's order)
        self.written: list[dict] = []
        # The bar redraws itself with carriage returns: only on a terminal. A log file (stderr
        # redirected) gets the plain per-run lines only.
        self.interactive = progress and sys.stderr.isatty()
        bar_format = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]"
        layout = dict(file=sys.stderr, unit="run", dynamic_ncols=True, bar_format=bar_format)
        self.bar = tqdm(total=len(self.pending), disable=not self.interactive, **layout)
        if not progress:
            self.say = None
        elif log is not print:
            self.say = log
        elif self.interactive:
            self.say = lambda text: tqdm.write(text, file=sys.stderr)  # above the bar
        else:
            self.say = lambda text: print(text, file=sys.stderr, flush=True)
        done = len(tasks) - len(self.pending)
        if progress and done:
            self.say(f"resuming: {done} of {len(tasks)} runs already finished in {store.path}")

    def _done(self, task: Task) -> bool:
        record = self.latest.get(task.key)
        return record is not None and record.get("status") == "ok" and matches(record, task.binding)

    def _budget_matches(self, task: Task, budget: dict) -> bool:
        """Whether the mdDF record ``budget`` may set ``task``'s tree budget: it is bound as planned, or (an mdDF
        run outside this plan) it ran on the same data."""
        if task.budget_key in self.bindings:
            return matches(budget, self.bindings[task.budget_key])
        if task.binding is None:
            return True
        return (budget.get("data_sha256"), budget.get("test_sha256")) == (
            task.binding.data_sha256,
            task.binding.test_sha256,
        )

    def next_ready(self) -> Task | None:
        """The next pending run whose tree-budget run is finished (None if every one waits): of the ready runs of the
        first ready run's fold (its dataset, seed, fold and fraction), the one whose method took longest in this
        sweep so far (methods not yet timed first, in plan order). The sweep goes fold by fold, each fold ending
        with its quickest runs, so that the workers finish the last one together. A fold's runs are together in
        plan order: the search ends with the first ready run's fold, not with the sweep."""
        ready, fold = [], None
        for task in self.pending:
            here = _fold_of(task)
            if fold is not None and here != fold:
                break
            if task.budget_key is None or task.budget_key not in self.unfinished:
                fold = here
                ready.append(task)
        return max(ready, key=self._expected_seconds) if ready else None

    def _expected_seconds(self, task: Task) -> float:
        """The mean recorded seconds of ``task``'s method's runs finished in this sweep (infinite before any)."""
        seconds = self.seconds.get(task.method)
        return sum(seconds) / len(seconds) if seconds else math.inf

    def start(self, task: Task, handle=None) -> None:
        self.pending.remove(task)
        self.running[task] = (handle, time.perf_counter())

    def kwargs_for(self, task: Task) -> dict:
        """Keyword arguments of :func:`~.runner.run_one` for ``task``, with its tree budget."""
        kwargs = {name: getattr(task, name) for name in ("dataset", "method", "seed", "fold", "fraction", "profile")}
        kwargs.update(self.run_options)
        if task.protocol != "paper":
            kwargs.update(protocol=task.protocol, n_folds=task.n_folds)
        if task.binding is not None:
            kwargs["binding"] = task.binding
        budget = self.latest.get(task.budget_key) if task.budget_key else None
        if budget and not self._budget_matches(task, budget):
            budget = None  # the mdDF run of other data or settings sets no budget
        if budget and budget.get("status") == "ok" and budget.get("n_layers"):
            kwargs.update(trees_k=int(budget["n_layers"]), trees_per_layer=budget.get("trees_per_layer"))
            kwargs["trees_k_source"] = f"layers kept by mdDF in run {task.budget_key}"
        return kwargs

    def finish(self, task: Task, record: dict) -> None:
        """Append the run's record to the store (the only writer of the file) and report it."""
        self.running.pop(task, None)
        self.unfinished.discard(task.key)
        if record.get("status") == "ok":
            self.seconds.setdefault(task.method, []).append(run_seconds(record))
        self.store.append(record)
        self.latest[task.key] = record
        self.written.append(record)
        self.bar.update(1)
        if self.say:
            self.say(f"{task.label}: {describe(record)}")

    def show(self, description: str) -> None:
        # Redrawing every second only makes sense on a terminal; logs get one line per run.
        if self.interactive:
            self.bar.set_description_str(description, refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


def execute(
    tasks, store: ResultStore, *, workers=1, isolation="process", n_jobs=-1, progress=True, log=print, **run_options
):
    """Run every task whose latest record in ``store`` is not ``ok``; append each result as it finishes.

    ``isolation="process"`` runs the tasks in spawned worker processes, ``workers`` at a time, each worker reused
    from run to run and replaced when it dies (a crash costs its run only; each run's peak memory its own);
    ``"inline"`` runs them in this process, one after the other. ``n_jobs`` is the
    threads of each estimator. With ``progress``, one line per finished run goes to ``log`` (``print``:
    stderr), under a tqdm bar when stderr is a terminal. ``run_options`` are ``registry`` (its builders must
    be importable module-level functions), ``download`` and ``user_data`` (``{name: source dict}`` of the
    user data files the tasks name). Returns the records written in this call.
    """
    if isolation not in ("process", "inline"):
        raise ValueError(f"isolation must be 'process' or 'inline', got {isolation!r}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    book = RunBook(tasks, store, n_jobs=n_jobs, progress=progress, log=log, **run_options)
    if isolation == "inline":
        pool = _Pool(multiprocessing.get_context("spawn"), {})  # starts no worker
    else:
        pool = _adopt_warm_workers(workers, n_jobs) or _new_pool(workers, n_jobs)
    if pool.environment and progress:
        (book.say or log)(
            "the runs' threads need more cores than are free (other work holds some, or --workers x --n-jobs "
            "exceeds them): their OpenMP threads wait passively (OMP_WAIT_POLICY=PASSIVE), and their times are "
            "not comparable to a quiet run's"
        )
    previous_sigterm = _raise_on_sigterm()
    try:
        while book.pending or book.running:
            _start_ready(book, pool, isolation, workers)
            if book.running and isolation != "inline":
                now = time.perf_counter()
                book.show(", ".join(f"{t.label} ({now - s:.0f}s)" for t, (_, s) in book.running.items()))
                for task, record in pool.wait(timeout=1.0):
                    book.finish(task, record)
    finally:
        # Interrupted (Ctrl-C, SIGTERM, an error): stop the runs in progress with everything they started. The
        # idle workers end while the caller goes on (writes its tables).
        pool.close(wait=False)
        book.close()
        if previous_sigterm is not None:
            signal.signal(signal.SIGTERM, previous_sigterm)
    return book.written


def _start_ready(book, pool, isolation, workers) -> None:
    """Start the runs that are ready, up to ``workers`` at a time; an inline run runs to its end here."""
    while book.pending and (isolation == "inline" or len(book.running) < workers):
        task = book.next_ready()
        if task is None:
            return
        if isolation == "inline":
            book.start(task)
            book.show(task.label)
            from .runner import run_one

            book.finish(task, run_one(**book.kwargs_for(task), cache_dataset=True))
            continue
        book.start(task, pool.start(task, book.kwargs_for(task)))


def _raise_on_sigterm():
    """Turn SIGTERM (a scheduler or ``kill``) into :class:`Terminated` so that running workers are stopped
    and the results file is left consistent; returns the previous handler (None off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum, frame):
        raise Terminated(128 + signum)

    return signal.signal(signal.SIGTERM, handler)
