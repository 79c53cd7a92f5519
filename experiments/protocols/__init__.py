"""The papers' evaluation protocols, in one place beside the experiment harness.

- :mod:`.splits`     row selections: the DeepBoost paper's rotating folds, stratified sub-samples
- :mod:`.run_data`   the rows one harness run trains, validates and tests on
- :mod:`.missing`    values removed completely at random, for the missing-value benchmark
- :mod:`.deepboost`  the DeepBoost paper's grids and tables (Cortes, Mohri and Syed 2014, Section 4)
- :mod:`.quadboost`  the QuadBoost paper's split and grids (Roy, Marchand and Laviolette, Section 4)
"""

from .deepboost import TABLE_ALGORITHMS, paper_grid
from .missing import mask_completely_at_random
from .quadboost import PAPER_GRIDS, paper_split
from .run_data import RunData, deepboost_run_data, split_run_data
from .splits import deepboost_folds, subsample

__all__ = [
    "PAPER_GRIDS",
    "RunData",
    "TABLE_ALGORITHMS",
    "deepboost_folds",
    "deepboost_run_data",
    "mask_completely_at_random",
    "paper_grid",
    "paper_split",
    "split_run_data",
    "subsample",
]
