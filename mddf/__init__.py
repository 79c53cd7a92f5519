"""The margin-distribution deep forest (Lv, Yang and Zhou), and the cascade forest for regression."""

# The one place the version is written: pyproject.toml reads it ([tool.setuptools.dynamic]).
__version__ = "0.2.0.dev0"

from ._storage import ModelFileError
from .alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from .block import ForestBlock
from .cascade import MDDFClassifier
from .cascade_regressor import CascadeForestRegressor
from .margin import margin_distribution_loss, margin_statistics, margins
from .search import PAPER_PARAM_GRID, MDDFGridSearch
from .weights import sample_distribution

__all__ = [
    "CascadeForestRegressor",
    "ForestBlock",
    "MDDFClassifier",
    "MDDFGridSearch",
    "ModelFileError",
    "PAPER_PARAM_GRID",
    "margin_distribution_loss",
    "margin_statistics",
    "margins",
    "sample_distribution",
    "solve_alpha_exact",
    "solve_alpha_sgd",
    "solve_layer_share",
]
