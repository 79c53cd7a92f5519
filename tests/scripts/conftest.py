"""Point the dataset loaders at temporary folders so that tests never read a user's cache or download
anything, and serve a small loopback Dask cluster to the modules that ask for one."""

import pytest


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """An empty data folder and cache: every file-backed dataset is missing."""
    empty = tmp_path / "no_data"
    empty.mkdir()
    monkeypatch.setenv("MDDF_DATA", str(empty))
    monkeypatch.setenv("MDDF_CACHE", str(tmp_path / "cache"))
    return empty


@pytest.fixture(scope="module")
def scheduler():
    """Address of a two-worker LocalCluster that records a run as failed after one worker death."""
    distributed = pytest.importorskip("distributed")  # in the 'test' extra: CI always runs these tests
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"allowed_failures": 1},
    ) as cluster:
        yield cluster.scheduler_address
