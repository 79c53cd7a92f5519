"""The package imports under its one name and the README's commands are what CI runs."""

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_subpackages_import_under_mddf():
    import mddf.baselines
    import mddf.datasets
    import mddf.experiments.protocols

    assert "digits" in mddf.datasets.list_datasets()
    assert hasattr(mddf.baselines, "DeepBoostClassifier")
    assert hasattr(mddf.experiments.protocols, "deepboost_folds")


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_lines = [line.strip() for line in ci.splitlines() if "pytest" in line and not line.startswith("#")]
    assert len(test_lines) == 1
    assert test_lines[0] in readme


def test_the_checkouts_folders_are_not_importable_under_their_own_names():
    # tests/conftest.py: a stale top-level import fails here as it fails for every user
    with pytest.raises(ModuleNotFoundError, match="mddf.experiments"):
        importlib.import_module("experiments")
