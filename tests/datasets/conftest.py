"""Fixtures for the datasets tests: the shared benchmark folder, isolated caches, a loopback HTTP server."""

from __future__ import annotations

import json
import os
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mddf.datasets import fetch, load_dataset

# Read once, before any test changes the environment.
SHARED_DATA = os.environ.get(fetch.DATA_ENV)


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path, monkeypatch):
    """Tests see no $MDDF_DATA unless they ask for it (``shared_data``), never write into the user's
    cache, and start with fresh trust-on-first-use warnings."""
    monkeypatch.delenv(fetch.DATA_ENV, raising=False)
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "default-cache"))
    monkeypatch.setattr(fetch, "_warned_unpinned", set())


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only benchmark folder named by $MDDF_DATA.

    CI sets MDDF_DATA, so these tests must run there: a missing folder fails
    loudly. Only on a machine with neither MDDF_DATA nor CI set are they
    skipped, with that reason.
    """
    root = SHARED_DATA
    if root:
        if not (Path(root) / "MANIFEST.json").is_file():
            pytest.fail(
                f"MDDF_DATA={root!r} has no MANIFEST.json: the shared benchmark folder is missing "
                "or incomplete, so the dataset tests cannot check the real files"
            )
        return Path(root)
    if os.environ.get("CI"):
        pytest.fail(
            "CI is set but MDDF_DATA is not: CI must point MDDF_DATA at the shared benchmark folder (see .ci/run)"
        )
    pytest.skip("neither MDDF_DATA nor CI is set: the shared benchmark files are not on this machine")


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
