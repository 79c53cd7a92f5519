"""Tests see the checkout's folders only under the names an installed mddf gives them.

``python -m pytest`` puts the working directory on ``sys.path``. Run from the repository root, that makes
``baselines/``, ``datasets/`` and ``experiments/`` importable as top-level packages, which an installed mddf
never provides (they are ``mddf.baselines``, ``mddf.datasets`` and ``mddf.experiments``), so a stale
``import baselines`` would pass here and fail for every user. This finder resolves those three names as if
no folder of the checkout were on the path (tests' folders included): to another distribution that owns
them, or to nothing.
"""

import importlib.abc
import importlib.machinery
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Read once, before any test changes the environment (mddf.datasets.fetch.DATA_ENV).
SHARED_DATA = os.environ.get("MDDF_DATA")
MAPPED = ("baselines", "datasets", "experiments")


class _InstalledNamesOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in MAPPED:
            return None
        elsewhere = [entry for entry in sys.path if not Path(entry or ".").resolve().is_relative_to(ROOT)]
        spec = importlib.machinery.PathFinder.find_spec(name, elsewhere)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r} (the checkout's {name}/ is mddf.{name})", name=name)
        return spec


sys.meta_path.insert(0, _InstalledNamesOnly())


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only benchmark folder named by $MDDF_DATA.

    CI sets MDDF_DATA, so the tests that ask for it must run there: a missing
    folder fails loudly. Only on a machine with neither MDDF_DATA nor CI set
    are they skipped, with that reason.
    """
    root = SHARED_DATA
    if root:
        if not (Path(root) / "MANIFEST.json").is_file():
            pytest.fail(
                f"MDDF_DATA={root!r} has no MANIFEST.json: the shared benchmark folder is missing "
                "or incomplete, so the tests on the real files cannot run"
            )
        return Path(root)
    if os.environ.get("CI"):
        pytest.fail(
            "CI is set but MDDF_DATA is not: CI must point MDDF_DATA at the shared benchmark folder (see .ci/run)"
        )
    pytest.skip("neither MDDF_DATA nor CI is set: the shared benchmark files are not on this machine")


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """An empty data folder and cache: every file-backed dataset is missing."""
    empty = tmp_path / "no_data"
    empty.mkdir()
    monkeypatch.setenv("MDDF_DATA", str(empty))
    monkeypatch.setenv("MDDF_CACHE", str(tmp_path / "cache"))
    return empty
