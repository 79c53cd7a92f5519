"""One mdDF fit spread over a Dask cluster through joblib's Dask backend, bit-identical to a local fit.

A real ``distributed.LocalCluster`` with two single-threaded worker processes on the loopback
interface; ``joblib.parallel_config(backend="dask")`` sends the block's fold x forest fits and
its predictions there even though ``ForestBlock`` asks joblib for threads (``prefer`` is only a
hint, an explicitly configured backend wins).
"""

import joblib
import numpy as np
import pytest
from sklearn.datasets import make_classification

from mddf import MDDFClassifier

#: These tests build environments, start clusters or spawn and signal processes: the slow loop only.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")  # in the 'test' extra: CI always runs these tests
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=240, n_features=12, n_informative=6, n_classes=3, random_state=0)
    return X[:180], y[:180], X[180:]


@pytest.mark.parametrize("class_vectors", ["kfold", "oob"])
def test_fit_on_the_cluster_is_bit_identical_to_the_local_fit(client, data, class_vectors):
    from distributed import get_task_stream

    X, y, X_new = data
    params = dict(
        n_estimators=8, max_layers=3, n_tolerant_layers=3, class_vectors=class_vectors, n_jobs=-1, random_state=7
    )
    local = MDDFClassifier(**params).fit(X, y)

    with joblib.parallel_config(backend="dask"), get_task_stream(client) as stream:
        remote = MDDFClassifier(**params).fit(X, y)
        remote_proba = remote.predict_proba(X_new)

    tasks = stream.data
    functions = {t["key"].split("-")[0] for t in tasks}
    fit_task = "_fit_forest" if class_vectors == "kfold" else "_fit_oob_forest"
    assert any(fit_task in f for f in functions), functions  # joblib names its batches after the function
    assert any("_predict" in f for f in functions), functions  # a member's predict (mddf.blocks.member.Member)
    assert {t["worker"] for t in tasks} == set(client.scheduler_info()["workers"])  # both workers worked

    assert len(remote.train_history_) == len(local.train_history_) == 3  # n_tolerant_layers: all 3 grown
    assert remote.n_layers_ == local.n_layers_
    np.testing.assert_array_equal(remote.alphas_, local.alphas_)
    assert [h["oof_accuracy"] for h in remote.train_history_] == [h["oof_accuracy"] for h in local.train_history_]
    np.testing.assert_array_equal(remote_proba, local.predict_proba(X_new))
    np.testing.assert_array_equal(remote.predict(X_new), local.predict(X_new))


def test_disk_mode_on_the_cluster_writes_in_the_workers_and_is_bit_identical(client, data, tmp_path):
    from distributed import get_task_stream

    X, y, X_new = data
    params = dict(n_estimators=8, max_layers=2, n_tolerant_layers=2, n_jobs=-1, random_state=7)
    local = MDDFClassifier(**params).fit(X, y)
    with joblib.parallel_config(backend="dask"), get_task_stream(client) as stream:
        remote = MDDFClassifier(**params, model_dir=tmp_path).fit(X, y)
        remote_proba = remote.predict_proba(X_new)
    functions = {t["key"].split("-")[0] for t in stream.data}
    # the workers fit and write the models, and load them to predict (the folder is shared: same machine)
    assert any("_fit_and_store" in f for f in functions) and any("_predict_stored" in f for f in functions)
    assert sorted(p.name for p in (tmp_path / "layer-001").iterdir()) == sorted(
        f"m{j}-fold{i}.bin"
        for j in range(5)
        for i in range(3)  # four forests and the default's boosted member
    )
    np.testing.assert_array_equal(remote_proba, local.predict_proba(X_new))
    np.testing.assert_array_equal(remote.oof_features_[-1], local.oof_features_[-1])
