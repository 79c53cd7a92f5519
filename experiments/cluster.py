"""Runs on a Dask cluster (``--scheduler``; docs/user_guide/dask.md): a task per run (:func:`~.runner.run_one`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import sys
import traceback
import uuid
from dataclasses import dataclass

from .executor import execute, threads_per_run, worker_environment
from .exit_status import EXIT_INTERRUPTED, EXIT_OK, EXIT_RUN_FAILED, EXIT_TERMINATED, Terminated, sigterm_raises
from .runbook import RunBook, Task, failure_record
from .store import ResultStore

INSTALL_HINT = 'pip install "mddf[dask]" (from a checkout: pip install -e ".[dask]")'

#: Times a ``local:N`` scheduler reruns a run whose worker died before recording it as failed.
LOCAL_ALLOWED_FAILURES = 1

#: Where a ``local:N`` scheduler serves its HTTP endpoint (not Dask's port 8787, which another cluster may hold).
LOOPBACK_ANY_PORT = "127.0.0.1:0"

#: Top-level packages the scheduler and every worker must import (mddf holds the estimators, loaders and harness).
WORKER_PACKAGES = ("mddf",)


class DaskUnavailable(ImportError):
    """``--scheduler`` was given but Dask's distributed scheduler is not installed."""


class ClusterSetupError(RuntimeError):
    """The scheduler cannot be reached, or its workers cannot import the benchmark code."""


class TaskAborted(RuntimeError):
    """A run ended on its worker with a ``BaseException`` not an ``Exception``; ``args``: ``(message, traceback)``."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class SchedulerSpec:
    """Where runs go: a running scheduler's ``address``, or a new local cluster of ``n_workers``."""

    address: str | None = None
    n_workers: int | None = None

    def __str__(self):
        return self.address if self.address is not None else f"local:{self.n_workers}"


def parse_scheduler(text: str) -> SchedulerSpec:
    """``--scheduler``'s type: ``"tcp://HOST:8786"`` (any ``scheme://``), ``"local:N"`` or ``"local"`` (N = cores)."""
    text = text.strip()
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2] or str(os.cpu_count() or 1)
        if not count.isdigit() or int(count) < 1:
            raise argparse.ArgumentTypeError(f"--scheduler local:N needs a number of workers N >= 1, got {text!r}")
        return SchedulerSpec(n_workers=int(count))
    if "://" in text and text.split("://", 1)[1]:
        return SchedulerSpec(address=text)
    raise argparse.ArgumentTypeError(
        f"--scheduler takes a Dask scheduler address such as tcp://HOST:8786, or local:N to start "
        f"N local workers; got {text!r}"
    )


def add_scheduler_argument(parser: argparse.ArgumentParser) -> None:
    """``--scheduler``, shared by the scripts that execute many runs."""
    parser.add_argument("--scheduler", type=parse_scheduler, default=None, metavar="ADDRESS|local:N",
                        help="run every run as a task on a Dask cluster: the address of a running scheduler "
                        "(tcp://HOST:8786) or local:N to start N single-threaded local worker processes; "
                        f"needs the 'dask' extra ({INSTALL_HINT})")  # fmt: skip


def import_distributed():
    """``distributed``, or :class:`DaskUnavailable` saying what to install."""
    try:
        import distributed
    except ImportError as exc:
        raise DaskUnavailable(
            f"--scheduler needs Dask's distributed scheduler, which cannot be imported ({exc}); "
            f"install it with: {INSTALL_HINT}"
        ) from exc
    return distributed


def check_scheduler_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """With ``--scheduler``: refuse (``parser.error``) the local-only options, and a Dask that cannot be imported."""
    if args.scheduler is None:
        return
    if args.workers != 1 or args.isolation != "process":
        parser.error("--workers and --isolation apply to local runs; with --scheduler every run is a task on the "
                     "cluster, in parallel over its worker threads")  # fmt: skip
    try:
        import_distributed()
    except DaskUnavailable as exc:
        parser.error(str(exc))


@contextlib.contextmanager
def connect(spec: SchedulerSpec, *, timeout: float = 10.0):
    """A ``distributed.Client`` for ``spec``, closed on exit with the local cluster it started."""
    distributed = import_distributed()
    cluster = None
    try:
        if spec.address is None:
            local = dict(n_workers=spec.n_workers, threads_per_worker=1, processes=True, host="127.0.0.1")
            local.update(dashboard_address=LOOPBACK_ANY_PORT, env=worker_environment(1, spec.n_workers))
            cluster = distributed.LocalCluster(**local, scheduler_kwargs={"allowed_failures": LOCAL_ALLOWED_FAILURES})
            client = distributed.Client(cluster)
        else:
            try:
                client = distributed.Client(spec.address, timeout=timeout)
            except (OSError, TimeoutError) as exc:
                raise ClusterSetupError(f"cannot reach the Dask scheduler at {spec.address}: {exc}") from exc
        try:
            yield client
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def check_workers(client, registry=None) -> dict:
    """``{"workers": n, "threads": total}`` of the cluster, or :class:`ClusterSetupError` (a package it lacks)."""
    packages = set(WORKER_PACKAGES)
    for spec in registry or ():
        packages.add(spec.build.__module__.split(".")[0])
    missing: dict[str, list[str]] = {}
    for name in sorted(packages):
        # A top-level name: find_spec answers None for a missing package instead of raising.
        found = {f"scheduler {client.scheduler.address}": client.run_on_scheduler(importlib.util.find_spec, name)}
        found.update((f"worker {w}", spec) for w, spec in client.run(importlib.util.find_spec, name).items())
        for process, spec in found.items():
            if spec is None:
                missing.setdefault(process, []).append(name)
    if missing:
        lines = "; ".join(f"{p} lacks {', '.join(names)}" for p, names in sorted(missing.items()))
        raise ClusterSetupError(
            f"the Dask cluster cannot import the benchmark code ({lines}). Start the scheduler and every "
            'worker in an environment with the driver\'s version of mddf (`pip install "mddf[dask]"`, or '
            '`pip install -e ".[dask]"` in a checkout at the driver\'s commit), and any module defining extra '
            "methods on PYTHONPATH."
        )
    threads = client.nthreads()
    return {"workers": len(threads), "threads": sum(threads.values())}


def run_on_worker(kwargs: dict) -> dict:
    """The task body: :func:`~.runner.run_one` with the worker's dataset cache, tagged with the worker."""
    from distributed import get_worker

    from .runner import run_one

    try:
        record = run_one(**kwargs, cache_dataset=True)
    except (Exception, KeyboardInterrupt):
        raise
    except BaseException as exc:
        # run_one records every Exception; anything else (a library's SystemExit) is retried, then recorded as failed
        raise TaskAborted(f"{type(exc).__name__}: {exc}", traceback.format_exc()) from None
    with contextlib.suppress(ValueError):  # called outside a worker
        record["worker"] = get_worker().address
    return record


def _failure(task: Task, future, exc: BaseException, scheduler: str) -> dict:
    """The ``error`` record of a run whose task raised instead of returning a record."""
    name = type(exc).__name__
    if name == "KilledWorker":
        error = f"the Dask worker running it died at each try ({name}: {exc}), e.g. out of memory or a native crash"
    elif isinstance(exc, asyncio.CancelledError):
        error = f"the task was cancelled by the cluster ({name}: {exc})"
    else:
        error = f"the task raised on the cluster ({name}: {exc})"
    extra = {"scheduler": scheduler}
    if isinstance(exc, TaskAborted) and len(exc.args) > 1:
        extra["traceback"] = exc.args[1]
    else:
        with contextlib.suppress(Exception):  # a traceback the cluster cannot give is left out
            if (tb := future.traceback()) is not None:
                extra["traceback"] = "".join(traceback.format_exception(type(exc), exc, tb))
    return failure_record(task, error, **extra)


def execute_on_cluster(tasks: list[Task], store: ResultStore, client, *, n_jobs=1, retries=1, **options) -> list[dict]:
    """:func:`~.executor.execute` on ``client``'s cluster (a task that raises: ``retries`` more tries)."""
    from distributed import as_completed

    book = RunBook(tasks, store, n_jobs=n_jobs, **options)
    scheduler = client.scheduler.address
    finished = as_completed()
    task_of = {}

    def submit_ready():
        while (task := book.next_ready()) is not None:
            key = f"{task.method}-{uuid.uuid4().hex}"
            future = client.submit(run_on_worker, book.kwargs_for(task), key=key, pure=False, retries=retries)
            book.start(task, future)
            task_of[future.key] = task
            finished.add(future)
        book.show(f"{len(book.running)} runs on the cluster")

    with sigterm_raises():
        try:
            submit_ready()
            for future in finished:
                task = task_of.pop(future.key)
                try:
                    record = future.result()
                except (Exception, asyncio.CancelledError) as exc:
                    record = _failure(task, future, exc, scheduler)
                future.release()
                book.finish(task, record)
                submit_ready()
        finally:
            # Interrupted: do not leave this sweep's runs queued on a shared cluster.
            leftover = [future for future, _ in book.running.values()]
            if leftover:
                client.cancel(leftover, force=True)
            book.close()
    return book.written


def run_all(tasks, store: ResultStore, *, scheduler=None, workers=1, isolation="process", n_jobs=None, **options):
    """Execute ``tasks`` locally (:func:`~.executor.execute`) or on ``scheduler``'s Dask cluster; ``n_jobs=None``: the
    cores shared among the workers, one thread per run on a cluster."""
    if scheduler is None:
        n_jobs = threads_per_run(n_jobs, workers)
        return execute(tasks, store, workers=workers, isolation=isolation, n_jobs=n_jobs, **options)
    with connect(scheduler) as client:
        size = check_workers(client, options.get("registry"))
        if options.get("progress", True):
            waiting = "; runs wait until workers connect" if not size["workers"] else ""
            print(f"Dask scheduler {client.scheduler.address} ({scheduler}): {size['workers']} workers, "
                  f"{size['threads']} threads{waiting}", file=sys.stderr)  # fmt: skip
        return execute_on_cluster(tasks, store, client, n_jobs=1 if n_jobs is None else n_jobs, **options)


def run_from_args(tasks: list[Task], store: ResultStore, args: argparse.Namespace, registry=None) -> int:
    """Execute ``tasks`` as a runner's parsed options say (:func:`run_all`); its exit status, any but ok said."""
    try:
        local = dict(workers=args.workers, isolation=args.isolation, n_jobs=args.n_jobs)
        options = dict(registry=registry, progress=not args.quiet, download=args.download)
        run_all(tasks, store, scheduler=args.scheduler, **local, **options, user_data=getattr(args, "user_data", None))
    except ClusterSetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_RUN_FAILED
    except KeyboardInterrupt:
        return _stopped("interrupted (Ctrl-C)", store, EXIT_INTERRUPTED)
    except Terminated:
        return _stopped("terminated (SIGTERM)", store, EXIT_TERMINATED)
    return EXIT_OK


def _stopped(how: str, store: ResultStore, code: int) -> int:
    print(f"{how}: the runs in progress were stopped; the finished ones are kept in {store.path} "
          "(rerun the same command to resume)", file=sys.stderr)  # fmt: skip
    return code
