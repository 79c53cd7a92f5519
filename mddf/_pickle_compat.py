"""Modules of earlier versions that fitted models' pickles name: their classes, at the modules that define them now.

A pickle names each class by its module and name, so a fitted estimator pickled before a class
moved names a module that no longer exists, and so does the estimator pickle of a ``model_dir`` fit,
whose records name their models' classes. :data:`MOVED` lists, for each such module, the classes
that left it and where they are now, and :data:`RENAMED` the modules that moved whole into the layer packages
(every name of the old module is found in the new ones); :func:`install` puts on ``sys.meta_path`` a finder
that answers an import of one of those modules with a module holding those names, so that such pickles
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
    "mddf._cascade": {"MDDFClassifier": "mddf.cascade.classifier"},
    "mddf._block": {"ForestBlock": "mddf.blocks.classifier"},
    "mddf._regression_block": {"RegressionForestBlock": "mddf.blocks.regressor"},
    "mddf._compact_forest": {"CompactForest": "mddf.forests.compact"},
    "mddf.trees.forest": {
        "PackedForest": "mddf.forests.binned",
        "BinnedForest": "mddf.forests.binned",
        "BinnedRegressionForest": "mddf.forests.binned",
    },
}

#: Old module -> the modules that hold its names now (looked up in order): the flat private modules of mddf
#: 0.2.0.dev0 before its layers became packages.
RENAMED = {
    "mddf._ahead_of_time.dispatch": ("mddf._runtime.dispatch",),
    "mddf._compile_cache": ("mddf._runtime.compile_cache",),
    "mddf._threads": ("mddf._runtime.threads",),
    "mddf._stopping": ("mddf.utils._stopping",),
    "mddf._margin": ("mddf.margin.margins", "mddf.margin.loss"),
    "mddf._alpha": ("mddf.margin.alpha",),
    "mddf._mixture": ("mddf.margin.state",),
    "mddf._calibration": ("mddf.margin.calibration",),
    "mddf._weights": ("mddf.forests.sampling", "mddf.margin.distribution"),
    "mddf._storage": ("mddf.storage.stores", "mddf.storage.records", "mddf.storage.files", "mddf.storage.temporary"),
    "mddf._appended": ("mddf.features.appended",),
    "mddf._pair_search": ("mddf.features.pair_search",),
    "mddf._pairs": ("mddf.features.pairs",),
    "mddf._rotation": ("mddf.features.rotation",),
    "mddf._members": ("mddf.blocks.members",),
    "mddf._staged_boosting": ("mddf.blocks.staged_boosting",),
    "mddf._block_base": ("mddf.blocks.base",),
    "mddf._block_classifier": ("mddf.blocks.classifier",),
    "mddf._block_regressor": ("mddf.blocks.regressor",),
    "mddf._layer_features": ("mddf.cascade.layer_features",),
    "mddf._pair_step": ("mddf.cascade.pair_step",),
    "mddf._final_predictor": ("mddf.cascade.final_predictor",),
    "mddf._probing": ("mddf.cascade.probing",),
    "mddf._screening": ("mddf.cascade.screening",),
    "mddf._growth": ("mddf.cascade.growth",),
    "mddf._policy": ("mddf.cascade.policy",),
    "mddf._margin_policy": ("mddf.cascade.margin_policy",),
    "mddf._residual_policy": ("mddf.cascade.residual_policy",),
    "mddf._cascade_base": ("mddf.cascade.base",),
    "mddf._cascade_classifier": ("mddf.cascade.classifier",),
    "mddf._cascade_regressor": ("mddf.cascade.regressor",),
    "mddf._search": ("mddf.cascade.search",),
}


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the modules of :data:`MOVED` (only when no real module of that name exists) and loads each as a
    module whose attributes are its moved classes."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED or fullname in RENAMED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None  # a plain module

    def exec_module(self, module):
        if module.__name__ in RENAMED:
            return _alias(module, RENAMED[module.__name__])
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


def _alias(module, targets):
    """Make ``module`` answer every name with the first of the modules ``targets`` that has it."""
    module.__doc__ = f"{module.__name__} of earlier versions, now {', '.join(targets)} (see mddf._pickle_compat)."

    def __getattr__(attr):
        for target in targets:
            value = getattr(importlib.import_module(target), attr, _NOTHING)
            if value is not _NOTHING:
                return value
        raise AttributeError(f"module {module.__name__!r} (now {', '.join(targets)}) has no attribute {attr!r}")

    module.__getattr__ = __getattr__


_NOTHING = object()


def install():
    """Put a :class:`MovedModules` at the end of ``sys.meta_path`` (once per process)."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
