"""Serve a small loopback Dask cluster to the modules that ask for one (``no_data``, the empty data folder, is
tests/conftest.py's)."""

import pytest


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
