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
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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
