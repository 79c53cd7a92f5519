"""A cascade's worker threads leave the process's warning filters alone (mddf._runtime.threads.Parallel).

Python's warning filters are one list for the whole process (before Python 3.14), and ``warnings.catch_warnings``
is not thread-safe. scikit-learn's ``delayed`` tasks reset and re-apply the filters in every worker; two worker
threads doing it at once can leave the process with no filters at all, after which every such task warns
"``sklearn.utils.parallel.delayed`` should be used with ``sklearn.utils.parallel.Parallel``" and the user's own
filters are gone. The tests widen the window of that race (a reset that sleeps) so that it is not left to chance.
"""

import time
import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn import config_context, get_config

from mddf import MDDFClassifier
from mddf._runtime.threads import Parallel, in_one_thread

#: The design the warning was first seen with (benchmarks.ahead on a table with categories), made small.
DESIGN = dict(
    forest_types=("rf", "rf", "crf", "crf", "gbdt"),
    calibration="temperature",
    class_vectors="kfold",
    fold_trees="all",
    n_estimators=8,
    probe_trees=None,
    max_layers=2,
    n_jobs=2,
    random_state=0,
)


@pytest.fixture
def slow_reset(monkeypatch):
    """``warnings.resetwarnings`` that leaves the filters empty for 20 ms, as a thread switch at that point would."""
    reset = warnings.resetwarnings

    def slow():
        reset()
        time.sleep(0.02)

    monkeypatch.setattr(warnings, "resetwarnings", slow)


def _table(n_rows=300):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n_rows),
            "b": rng.integers(1, 6, n_rows),
            "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n_rows)),
        }
    )
    y = np.where(X["a"] + (X["colour"] == "red") > 0.5, "yes", np.where(X["b"] > 3, "maybe", "no"))
    return X, y


def test_a_threaded_fit_neither_warns_nor_loses_the_warning_filters(slow_reset):
    X, y = _table()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error", UserWarning)  # the user's filter: a UserWarning in the fit is an error
        before = list(warnings.filters)
        MDDFClassifier(**DESIGN).fit(X, y).predict_proba(X)
        after = list(warnings.filters)
    assert [str(w.message) for w in caught] == []  # with the filters lost, the UserWarning is shown, not raised
    assert after == before


def _config_and_filters():
    return get_config()["assume_finite"], list(warnings.filters)


def test_tasks_run_with_the_callers_scikit_learn_configuration_and_warning_filters(slow_reset):
    with warnings.catch_warnings(), config_context(assume_finite=True):
        warnings.simplefilter("error", UserWarning)
        expected = (True, list(warnings.filters))
        seen = Parallel(n_jobs=2, prefer="threads")(in_one_thread(_config_and_filters)() for _ in range(8))
    assert seen == [expected] * 8


@pytest.mark.slow
def test_tasks_in_worker_processes_get_the_callers_configuration_and_warning_filters():
    with warnings.catch_warnings(), config_context(assume_finite=True), joblib.parallel_config(backend="loky"):
        warnings.filterwarnings("error", "a message", UserWarning, "a[.]module")
        expected = (True, list(warnings.filters))
        seen = Parallel(n_jobs=2)(in_one_thread(_config_and_filters)() for _ in range(4))
    assert seen == [expected] * 4
