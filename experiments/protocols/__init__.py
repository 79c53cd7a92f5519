"""The runners' evaluation protocols: row selections and values removed at random (:mod:`.splits`), the rows of one
run (:mod:`.run_data`, :mod:`.practitioner`); the papers' grids are the studies' (``benchmarks/``)."""

from .run_data import RunData, deepboost_run_data, split_run_data
from .splits import deepboost_folds, mask_completely_at_random, subsample

__all__ = [
    "RunData",
    "deepboost_folds",
    "deepboost_run_data",
    "mask_completely_at_random",
    "split_run_data",
    "subsample",
]
