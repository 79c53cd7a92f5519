"""The papers' evaluation protocols: row selections and values removed at random (:mod:`.splits`), the rows of one
run (:mod:`.run_data`, :mod:`.practitioner`), the DeepBoost and QuadBoost papers' grids and splits."""

from .deepboost import TABLE_ALGORITHMS, paper_grid
from .quadboost import PAPER_GRIDS, paper_split
from .run_data import RunData, deepboost_run_data, split_run_data
from .splits import deepboost_folds, mask_completely_at_random, subsample

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
