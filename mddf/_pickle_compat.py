"""Modules of earlier versions that fitted models' pickles name: their classes, at the modules that define them now.

A pickle names each class by its module and name, so a fitted estimator pickled before a class
moved names a module that no longer exists, and so does the estimator pickle of a ``model_dir`` fit,
whose records name their models' classes. :data:`MOVED` lists, for each such module, the classes
that left it and where they are now; :func:`install` puts on ``sys.meta_path`` a finder that answers
an import of one of those modules with a module holding exactly those classes, so that such pickles
load (and predict as before: the classes keep their attributes). Nothing is imported until a pickle
asks for an old module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: Old module -> {class name: the module that defines the class now}.
MOVED = {
    "mddf._cascade": {"MDDFClassifier": "mddf._cascade_classifier"},
    "mddf._block": {"ForestBlock": "mddf._block_classifier"},
    "mddf._regression_block": {"RegressionForestBlock": "mddf._block_regressor"},
    "mddf._compact_forest": {"CompactForest": "mddf.forests.compact"},
    "mddf.trees.forest": {
        "PackedForest": "mddf.forests.binned",
        "BinnedForest": "mddf.forests.binned",
        "BinnedRegressionForest": "mddf.forests.binned",
    },
}


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the modules of :data:`MOVED` (only when no real module of that name exists) and loads each as a
    module whose attributes are its moved classes."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None  # a plain module

    def exec_module(self, module):
        name, moved = module.__name__, MOVED[module.__name__]
        module.__doc__ = f"What {name} of earlier versions defined, where it is now (see mddf._pickle_compat)."

        def __getattr__(attr):
            if attr in moved:
                return getattr(importlib.import_module(moved[attr]), attr)
            raise AttributeError(
                f"module {name!r} no longer exists; of what it defined, only {sorted(moved)} are found there "
                "(for pickles of earlier versions)"
            )

        module.__getattr__ = __getattr__


def install():
    """Put a :class:`MovedModules` at the end of ``sys.meta_path`` (once per process)."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
