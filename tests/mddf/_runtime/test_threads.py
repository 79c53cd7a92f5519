"""A cascade fitted with n_jobs=k runs at most k busy threads: the models of other libraries inside it get one
OpenMP thread each (in every worker), and BLAS one thread while the workers run (mddf._runtime.threads)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_info

from mddf import MDDFClassifier

OPENMP = [pool for pool in threadpool_info() if pool["user_api"] == "openmp"]
pytestmark = pytest.mark.skipif(not OPENMP, reason="no OpenMP runtime loaded, so there is no pool to limit")


def _pools(user_api):
    """The thread counts of the calling thread's pools of ``user_api`` ("openmp" or "blas")."""
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == user_api]


class ThreadRecorder(ClassifierMixin, BaseEstimator):
    """A decision tree that records the OpenMP and BLAS thread counts it sees in fit and predict_proba."""

    seen = []  # class-level: the cascade fits clones

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        ThreadRecorder.seen.append(("fit", _pools("openmp"), _pools("blas")))
        self.tree_ = DecisionTreeClassifier(max_depth=3, random_state=self.random_state).fit(X, y, sample_weight)
        self.classes_ = self.tree_.classes_
        return self

    def predict_proba(self, X):
        ThreadRecorder.seen.append(("predict", _pools("openmp"), _pools("blas")))
        return self.tree_.predict_proba(X)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(1)]


#: A small cascade with the HistGradientBoosting predictor choosing its input (fitting its candidates in parallel).
SMALL_HGB = dict(predictor="hgb", predictor_input="auto", n_estimators=4, n_folds=2, max_layers=2, random_state=0)


@pytest.fixture
def data():
    return make_classification(n_samples=240, n_features=6, n_informative=4, random_state=0)


@pytest.fixture(autouse=True)
def cleared():
    ThreadRecorder.seen = []
    yield


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_members_and_the_predictor_run_with_one_openmp_and_one_blas_thread(data, n_jobs):
    X, y = data
    clf = MDDFClassifier(
        forest_types=("rf", ThreadRecorder()),
        predictor=ThreadRecorder(),
        predictor_input="auto",
        n_estimators=4,
        n_folds=2,
        max_layers=2,
        n_jobs=n_jobs,
        random_state=0,
    ).fit(X, y)
    clf.predict_proba(X)
    calls = {kind for kind, _, _ in ThreadRecorder.seen}
    assert calls == {"fit", "predict"}
    for kind, openmp, blas in ThreadRecorder.seen:
        assert set(openmp) == {1}, (kind, openmp)
        assert set(blas) <= {1}, (kind, blas)


def test_the_callers_pools_are_as_before_after_fit_and_predict(data):
    X, y = data
    before = (_pools("openmp"), _pools("blas"))
    MDDFClassifier(**SMALL_HGB, n_jobs=2).fit(X, y).predict(X)
    assert (_pools("openmp"), _pools("blas")) == before


@pytest.mark.slow
def test_the_hgb_predictor_gives_the_same_model_for_any_n_jobs(data):
    X, y = data
    probas = [MDDFClassifier(**SMALL_HGB, n_jobs=n_jobs).fit(X, y).predict_proba(X) for n_jobs in (1, 2)]
    np.testing.assert_array_equal(probas[0], probas[1])


def test_thread_limits_holds_the_pools_to_the_limit_and_gives_back_their_setting():
    from mddf.utils import thread_limits

    before = _pools("openmp") + _pools("blas")
    with thread_limits(1):
        assert set(_pools("openmp") + _pools("blas")) == {1}
    with thread_limits(1, "openmp"):
        assert set(_pools("openmp")) == {1} and _pools("blas") == before[len(_pools("openmp")) :]
    assert _pools("openmp") + _pools("blas") == before
