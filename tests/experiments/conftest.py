"""Fixtures of the harness tests: a user's CSV (tests/user_csv.py builds it)."""

import pytest
from user_csv import write_user_csv


@pytest.fixture
def user_csv(tmp_path):
    """Path of a 300-row CSV built by :func:`write_user_csv`."""
    return write_user_csv(tmp_path / "my.csv")
