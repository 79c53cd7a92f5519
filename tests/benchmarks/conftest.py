"""Fixtures of the studies' tests (``benchmarks/`` is imported from the repository root: pytest's ``pythonpath``)."""

import pytest

from benchmarks import harness


@pytest.fixture
def in_this_process(monkeypatch):
    """Units a study runs in fresh processes run in this one; the list of the units run."""
    calls = []

    def run(function, study, args, unit):
        calls.append(unit)
        return function(study, args, unit)

    monkeypatch.setattr(harness.units, "in_fresh_process", run)
    return calls
