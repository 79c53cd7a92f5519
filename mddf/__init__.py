"""The margin-distribution deep forest (Lv, Yang and Zhou), and the cascade forest for regression.

The package is built in layers, one package each, importing only from those below it (the allowed arrows are
stated in ``tests/test_imports.py``; ``docs/architecture.md`` draws them and follows one fit through them):

1. ``mddf._runtime``: numba's cache of the compiled code, the code built ahead of time, threads;
2. :mod:`mddf.utils` (input checks, tabular input, layer outputs, the stopping rule), ``mddf.margin`` (the
   paper's equations: margins, margin loss, layer weights, sample distribution, Algorithm 2's state,
   calibration) and ``mddf.storage`` (the model files of ``model_dir``);
3. :mod:`mddf.trees`: one tree on binned features (binning, split criteria and search, growing, node words,
   routing);
4. :mod:`mddf.forests`: forests (their kinds, the weighted draws, growing them tree by tree, storing them) and
   the probe trees of feature searches;
5. ``mddf.features``: features appended to x, pairs of columns chosen by probe trees (:class:`PairFeatures`)
   and principal directions (:class:`PCAFeatures`);
6. ``mddf.blocks``: one cascade layer, its members cross-fitted on k folds;
7. ``mddf.cascade``: the engine that grows layers, the classifier's margin policy and the regressor's residual
   one, the steps before and after growth, the fitted cascade that a fit produces and that predicts, and the
   estimators;
8. this module: the exported names, and the paper's configuration by name (:data:`PAPER_CONFIG`).

This module, :mod:`mddf.utils`, :mod:`mddf.trees` and :mod:`mddf.forests` are the public names; the other layer
packages are internal, as scikit-learn's private modules are, and this module exports what users need of them.
"""

# The one place the version is written: pyproject.toml reads it ([tool.setuptools.dynamic]).
__version__ = "0.2.0.dev0"

from typing import TYPE_CHECKING

from ._pickle_compat import install as _install_pickle_compat

_install_pickle_compat()  # pickles of earlier versions name modules whose classes moved

# The exported names are imported on first use (PEP 562), so that ``import mddf`` and the ``mddf``
# command's ``--help`` and ``--version`` do not wait for numba, scikit-learn and SciPy to load.
#: Exported name -> the module that defines it.
_EXPORTS = {
    "CascadeForestRegressor": ".cascade.regressor",
    "MDDFClassifier": ".cascade.classifier",
    "MDDFGridSearch": ".cascade.search",
    "ModelFileError": ".storage",
    "load": ".storage",
    "PAPER_CONFIG": "._paper_config",
    "PAPER_PARAM_GRID": ".cascade.search",
    "PairFeatures": ".features.pairs",
    "PCAFeatures": ".features.rotation",
    "MarginDistributionLoss": ".margin.loss",
    "margin_distribution_loss": ".margin.loss",
    "margin_statistics": ".margin.margins",
    "margins": ".margin.margins",
    "sample_distribution": ".margin.distribution",
    "solve_alpha_exact": ".margin.alpha",
    "solve_alpha_sgd": ".margin.alpha",
    "solve_layer_share": ".margin.alpha",
}

if TYPE_CHECKING:  # what the names are, for type checkers and readers of the import graph
    from ._paper_config import PAPER_CONFIG
    from .cascade.classifier import MDDFClassifier
    from .cascade.regressor import CascadeForestRegressor
    from .cascade.search import PAPER_PARAM_GRID, MDDFGridSearch
    from .features.pairs import PairFeatures
    from .features.rotation import PCAFeatures
    from .margin.alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
    from .margin.distribution import sample_distribution
    from .margin.loss import MarginDistributionLoss, margin_distribution_loss
    from .margin.margins import margin_statistics, margins
    from .storage import ModelFileError, load


def __getattr__(name):
    """Import an exported name's module on first use and keep the name here."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mddf' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "CascadeForestRegressor",
    "MDDFClassifier",
    "MDDFGridSearch",
    "ModelFileError",
    "PAPER_CONFIG",
    "PAPER_PARAM_GRID",
    "PairFeatures",
    "PCAFeatures",
    "MarginDistributionLoss",
    "load",
    "margin_distribution_loss",
    "margin_statistics",
    "margins",
    "sample_distribution",
    "solve_alpha_exact",
    "solve_alpha_sgd",
    "solve_layer_share",
]
