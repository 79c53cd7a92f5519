"""Make ``scripts/`` importable (``mddf_bench`` and the scripts' ``main``) and point the dataset
loaders at temporary folders so that tests never read a user's cache or download anything."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPTS = HERE.parents[1] / "scripts"
for path in (SCRIPTS, HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """An empty data folder and cache: every file-backed dataset is missing."""
    empty = tmp_path / "no_data"
    empty.mkdir()
    monkeypatch.setenv("MDDF_DATA", str(empty))
    monkeypatch.setenv("MDDF_CACHE", str(tmp_path / "cache"))
    return empty
