"""The margin-distribution deep forest (Lv, Yang and Zhou), and the cascade forest for regression.

The package is built in layers, each importing only from those below it:

1. foundations: :mod:`mddf.utils` (input checks, tabular input, layer outputs,
   the stopping rule), the paper's equations (margins, margin loss, layer
   weights, sample distribution and weighted draws) and the model files of
   ``model_dir``;
2. :mod:`mddf.trees`: one tree on binned features (binning, split criteria
   and search, growing, node words, routing);
3. :mod:`mddf.forests`: forests (their kinds, growing them tree by tree, and
   storing them) and the probe trees of feature searches;
4. features appended to x: pairs of columns chosen by probe trees
   (:class:`PairFeatures`), principal directions (:class:`PCAFeatures`);
5. blocks: one cascade layer, its members cross-fitted on k folds;
6. cascades: the growth loop of layers, with the classifier's margin
   machinery or the regressor's residuals, and the steps before and after it
   (pair features, calibration);
7. the estimators this module exports, and the paper's configuration by name
   (:data:`PAPER_CONFIG`).

The blocks, cascades and estimators are private modules, as scikit-learn's
are; this module, :mod:`mddf.utils`, :mod:`mddf.trees` and :mod:`mddf.forests`
are the public names.
"""

# The one place the version is written: pyproject.toml reads it ([tool.setuptools.dynamic]).
__version__ = "0.2.0.dev0"

from typing import TYPE_CHECKING

from ._pickle_compat import install as _install_pickle_compat

_install_pickle_compat()  # pickles of earlier versions name modules whose classes moved

# The exported names are imported on first use (PEP 562), so that ``import mddf`` and the ``mddf``
# command's ``--help`` and ``--version`` do not wait for numba, scikit-learn and SciPy to load.
#: Exported name -> the private module that defines it.
_EXPORTS = {
    "CascadeForestRegressor": "._cascade_regressor",
    "MDDFClassifier": "._cascade_classifier",
    "MDDFGridSearch": "._search",
    "ModelFileError": "._storage",
    "PAPER_CONFIG": "._paper_config",
    "PAPER_PARAM_GRID": "._search",
    "PairFeatures": "._pairs",
    "PCAFeatures": "._rotation",
    "margin_distribution_loss": "._margin",
    "margin_statistics": "._margin",
    "margins": "._margin",
    "sample_distribution": "._weights",
    "solve_alpha_exact": "._alpha",
    "solve_alpha_sgd": "._alpha",
    "solve_layer_share": "._alpha",
}

if TYPE_CHECKING:  # what the names are, for type checkers and readers of the import graph
    from ._alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
    from ._cascade_classifier import MDDFClassifier
    from ._cascade_regressor import CascadeForestRegressor
    from ._margin import margin_distribution_loss, margin_statistics, margins
    from ._pairs import PairFeatures
    from ._paper_config import PAPER_CONFIG
    from ._rotation import PCAFeatures
    from ._search import PAPER_PARAM_GRID, MDDFGridSearch
    from ._storage import ModelFileError
    from ._weights import sample_distribution


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
    "margin_distribution_loss",
    "margin_statistics",
    "margins",
    "sample_distribution",
    "solve_alpha_exact",
    "solve_alpha_sgd",
    "solve_layer_share",
]
