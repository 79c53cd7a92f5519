"""Fixtures of the harness tests: a user's CSV (tests/user_csv.py builds it) and an empty data folder."""

import pytest
from user_csv import write_user_csv


@pytest.fixture
def user_csv(tmp_path):
    """Path of a 300-row CSV built by :func:`write_user_csv`."""
    return write_user_csv(tmp_path / "my.csv")


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """An empty data folder and cache: every file-backed dataset is missing."""
    empty = tmp_path / "no_data"
    empty.mkdir()
    monkeypatch.setenv("MDDF_DATA", str(empty))
    monkeypatch.setenv("MDDF_CACHE", str(tmp_path / "cache"))
    return empty
