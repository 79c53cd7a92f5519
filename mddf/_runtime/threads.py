"""Threads of other libraries inside a cascade: one OpenMP thread for each model the cascade runs.

A cascade fitted with ``n_jobs=k`` runs its forests, folds, members and the
``predictor_input="auto"`` candidates on ``k`` joblib threads. The models of
other libraries among them (HistGradientBoosting, XGBoost, LightGBM, any
estimator given as a member or predictor) would each open OpenMP (or BLAS)
pools of every core inside those threads, ``k`` times the cores in all; beside
other work on the machine, their barriers then wait for threads the system has
descheduled. :func:`one_thread` runs a model's fit or prediction with one
OpenMP thread, and :func:`one_blas_thread` holds BLAS to one thread while the
cascade's workers run, so that the cascade never has more than ``k`` busy
threads. The predictor, which the cascade fits on its own, runs with one thread
too: its result (HistGradientBoosting sums its gradients over the threads'
shares) then depends neither on ``n_jobs`` nor on the machine's cores.

OpenMP's thread count is a setting of the calling thread (``omp_set_num_threads``),
so each worker sets its own; BLAS libraries keep one process-wide setting, so the
thread that starts the workers sets it, before they start and back after they end.

The cascade's tasks run through :class:`Parallel`, joblib's with the scikit-learn
configuration (a setting of each thread) of the thread that starts them, as
scikit-learn's own ``Parallel`` and ``delayed`` carry it. Unlike those, a task on a
thread of the caller's process leaves Python's warning filters alone: they are one
list for the whole process (before Python 3.14) and ``warnings.catch_warnings`` is
not thread-safe, so two worker threads resetting and re-applying them at once can
leave the process with another thread's filters or none (every later scikit-learn
task then warns that its ``delayed`` "should be used with" its ``Parallel``). A task
in another process (a ``joblib.parallel_config`` backend of processes) gets the
caller's filters.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import warnings

import joblib
from sklearn import config_context, get_config
from threadpoolctl import ThreadpoolController

_lock = threading.Lock()
_cached: tuple[int, ThreadpoolController] | None = None


def _controller() -> ThreadpoolController:
    """The thread pools of the libraries loaded in this process, found again after a new import.

    Finding them walks the process's shared libraries (milliseconds), so it is done once and again only
    when a module has been imported since (a new library's pools are found then).
    """
    global _cached
    with _lock:
        n_modules = len(sys.modules)
        if _cached is None or _cached[0] != n_modules:
            _cached = (n_modules, ThreadpoolController())
        return _cached[1]


def thread_limits(limits, user_api=None):
    """threadpoolctl's ``threadpool_limits(limits, user_api)`` on the process's pools found once (again after a new
    import): a context in which those pools run at most ``limits`` threads, then their setting before."""
    return _controller().limit(limits=limits, user_api=user_api)


def one_thread(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with one OpenMP thread in the calling thread."""
    with thread_limits(1, "openmp"):
        return function(*args, **kwargs)


def one_blas_thread():
    """A context in which the process's BLAS libraries run one thread (then their setting before)."""
    return thread_limits(1, "blas")


class _InOneThread:
    """``function`` called through :func:`one_thread`, under ``function``'s name (joblib names tasks after it)."""

    def __init__(self, function):
        # not ``function``: joblib's delayed copies this object's __dict__ onto its own wrapper
        self.inner = function
        self.__name__ = getattr(function, "__name__", type(function).__name__)

    def __call__(self, *args, **kwargs):
        return one_thread(self.inner, *args, **kwargs)


def in_one_thread(function):
    """``joblib.delayed(function)`` whose task runs ``function`` through :func:`one_thread` (for :class:`Parallel`)."""
    return joblib.delayed(_InOneThread(function))


class _Configured:
    """``function`` run with the scikit-learn configuration ``config`` of the thread that started it, and, in a
    process other than ``pid`` (the starter's), the warning filters ``filters`` of the starter."""

    def __init__(self, function, config, filters, pid):
        functools.update_wrapper(self, function)  # under function's name, which joblib names the task after
        self.function, self.config, self.filters, self.pid = function, config, filters, pid

    def __call__(self, *args, **kwargs):
        with config_context(**self.config):
            if os.getpid() == self.pid:  # a thread (or the caller): the filters are the caller's already
                return self.function(*args, **kwargs)
            with warnings.catch_warnings():  # the worker's own filters again at the end
                warnings.filters = list(self.filters)
                with warnings.catch_warnings():  # which tells the warnings machinery that the filters changed
                    return self.function(*args, **kwargs)


class Parallel(joblib.Parallel):
    """``joblib.Parallel`` whose tasks run with the scikit-learn configuration of the thread that calls it, without
    touching the process's warning filters from worker threads (see the module's docstring)."""

    def __call__(self, iterable):
        """The results of the tasks ``(function, args, kwargs)`` of ``iterable`` (``in_one_thread(f)(...)``)."""
        config, filters, pid = get_config(), list(warnings.filters), os.getpid()
        return super().__call__((_Configured(f, config, filters, pid), args, kwargs) for f, args, kwargs in iterable)
