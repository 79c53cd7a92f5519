"""The margin-distribution deep forest (Lv, Yang and Zhou), and the cascade forest for regression."""

# The one place the version is written: pyproject.toml reads it ([tool.setuptools.dynamic]).
__version__ = "0.2.0.dev0"

from ._alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from ._cascade_classifier import MDDFClassifier
from ._cascade_regressor import CascadeForestRegressor
from ._margin import margin_distribution_loss, margin_statistics, margins
from ._pickle_compat import install as _install_pickle_compat
from ._rotation import PCAFeatures
from ._search import PAPER_PARAM_GRID, MDDFGridSearch
from ._storage import ModelFileError
from ._weights import sample_distribution

_install_pickle_compat()  # pickles of earlier versions name modules whose classes moved

__all__ = [
    "CascadeForestRegressor",
    "MDDFClassifier",
    "MDDFGridSearch",
    "ModelFileError",
    "PAPER_PARAM_GRID",
    "PCAFeatures",
    "margin_distribution_loss",
    "margin_statistics",
    "margins",
    "sample_distribution",
    "solve_alpha_exact",
    "solve_alpha_sgd",
    "solve_layer_share",
]
