"""Fixtures for the datasets tests: the shared benchmark folder's manifest, isolated caches, a loopback HTTP server
(``shared_data`` itself is in the top-level conftest)."""

from __future__ import annotations

import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mddf.datasets import fetch, load_dataset


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path, monkeypatch):
    """Tests see no $MDDF_DATA unless they ask for it (``shared_data``), never write into the user's
    cache, and start with fresh trust-on-first-use warnings."""
    monkeypatch.delenv(fetch.DATA_ENV, raising=False)
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "default-cache"))
    monkeypatch.setattr(fetch, "_warned_unpinned", set())


@pytest.fixture(scope="session")
def manifest(shared_data) -> dict:
    return json.loads((shared_data / "MANIFEST.json").read_text())["datasets"]


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory) -> Path:
    """One parsed-array cache for the whole session: each big file is parsed once."""
    return tmp_path_factory.mktemp("shared-cache")


@pytest.fixture(scope="session")
def load_shared(shared_data, shared_cache):
    """``load_shared(name, **options)``: load from the shared folder, downloads off, session cache."""
    return partial(load_dataset, data_home=shared_data, cache_dir=shared_cache, download=False, verbose=0)


class _RecordingHandler(SimpleHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.server.requests.append(self.path)
        super().do_GET()

    def log_message(self, *args):  # keep test output clean
        pass


@pytest.fixture
def http_server(tmp_path, monkeypatch):
    """A static file server on 127.0.0.1 (random port) over ``tmp_path / "www"``.

    Yields ``(base_url, root, requests)``; ``requests`` lists the paths asked for.
    """
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    root = tmp_path / "www"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_RecordingHandler, directory=str(root)))
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root, server.requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def user_csv(tmp_path):
    """Path of a 300-row CSV of a user's table (tests/user_csv.py builds it)."""
    from user_csv import write_user_csv

    return write_user_csv(tmp_path / "my.csv")
