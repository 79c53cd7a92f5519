"""Test doubles injected into the runner's registry.

They live in an importable module (not in a test function) because the runner ships registry
entries to spawned worker processes, which import builders by module and name.
"""

import os
import threading
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin

from mddf.experiments.registry import MethodSpec


class MajorityCascade(ClassifierMixin, BaseEstimator):
    """Predicts the majority class and reports a fixed number of layers, like a fitted cascade."""

    def __init__(self, n_estimators=5, forest_types=("rf", "rf"), n_layers=3, random_state=None):
        self.n_estimators = n_estimators
        self.forest_types = forest_types
        self.n_layers = n_layers
        self.random_state = random_state

    def fit(self, X, y):
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        self.n_layers_ = self.n_layers
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


class FailingClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        raise RuntimeError("deliberate failure for the test")


class CrashingClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        os._exit(3)  # the worker process dies without sending a result


# Builders only construct (the runner builds every method once to hash its settings): what a double
# does to its run, it does in fit.


def build_majority_cascade(ctx, **params):
    return MajorityCascade(**params)


def build_failing(ctx, **params):
    return FailingClassifier()


def build_crashing(ctx, **params):
    return CrashingClassifier()


MAJORITY_AS_MDDF = MethodSpec("mdDF", build_majority_cascade, ("sklearn", "base"), "stand-in cascade")
FAILING = MethodSpec("Failing", build_failing, ("sklearn", "base"), "always fails to fit")
CRASHING = MethodSpec("Crashing", build_crashing, ("sklearn", "base"), "kills its worker process")
UNAVAILABLE = MethodSpec("Missing", build_failing, ("no_such_module_for_tests", "Thing"), "cannot be imported")


class RunAborted(BaseException):
    """Not an ``Exception``: escapes run_one's per-run error handling, so the task itself raises."""


class EscapingClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        raise RunAborted("deliberate abort that escapes run_one")


def build_escaping(ctx, **params):
    return EscapingClassifier()


ESCAPING = MethodSpec("Escaping", build_escaping, ("sklearn", "base"), "raises out of run_one")


#: Folder in which lingering runs announce their processes (set it in the runner's environment).
LINGER_DIR_VARIABLE = "MDDF_TEST_LINGER_DIR"


def linger(folder, seconds):
    """A loky worker's (or a thread's) share of a lingering run: leave a file named after its pid, then sleep."""
    Path(folder, f"loky-{os.getpid()}-{threading.get_ident()}").touch()
    time.sleep(seconds)
    return os.getpid()


class LingeringClassifier(ClassifierMixin, BaseEstimator):
    """Majority classifier whose fit, given a folder, first runs two loky worker processes (joblib's
    process backend, as QuadBoost's or GridSearchCV's ``n_jobs`` does; or two threads of joblib's ``backend``
    "threading", as scikit-learn's forests do) that each leave a file there and then sleep for ``seconds``: a run
    that is surely mid-way, with grandchildren, when the runner is stopped."""

    def __init__(self, linger_dir=None, seconds=120, backend="loky"):
        self.linger_dir = linger_dir
        self.seconds = seconds
        self.backend = backend

    def fit(self, X, y):
        if self.linger_dir:
            tasks = (delayed(linger)(self.linger_dir, self.seconds) for _ in range(2))
            Parallel(n_jobs=2, backend=self.backend)(tasks)
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


def build_lingering(ctx, **params):
    # Seed 0 finishes at once, so the interrupted sweep has a finished run to keep.
    folder = os.environ.get(LINGER_DIR_VARIABLE) if ctx.seed >= 1 else None
    return LingeringClassifier(linger_dir=folder, **params)


def build_lingering_threads(ctx, **params):
    return build_lingering(ctx, backend="threading")


class InterruptedClassifier(ClassifierMixin, BaseEstimator):
    """Its fit is stopped by Ctrl-C (builders only construct: the runner builds them to hash their settings)."""

    def fit(self, X, y):
        raise KeyboardInterrupt  # Ctrl-C in the middle of an inline run


def build_interrupting(ctx, **params):
    return InterruptedClassifier()


LINGERING = MethodSpec("Lingering", build_lingering, ("sklearn", "base"), "grandchild processes that linger")
LINGERING_THREADS = MethodSpec("LingeringThreads", build_lingering_threads, ("sklearn", "base"), "threads that linger")
INTERRUPTING = MethodSpec("Interrupting", build_interrupting, ("sklearn", "base"), "Ctrl-C during the run")
