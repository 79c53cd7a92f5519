"""Loaders for the benchmarks of the mdDF and DeepBoost papers.

>>> from datasets import load_dataset
>>> ds = load_dataset("digits")          # bundled with scikit-learn, no download
>>> ds.X_train.shape, ds.X_test.shape
((1257, 64), (540, 64))
"""

from .base import Dataset
from .bundled import BUNDLED_NAMES, load_bundled
from .protocols import deepboost_folds, subsample


def list_datasets():
    """Names accepted by :func:`load_dataset`."""
    return list(BUNDLED_NAMES)


def load_dataset(name, **kwargs):
    """Load a dataset by name; see :func:`list_datasets`."""
    if name not in BUNDLED_NAMES:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(list_datasets())}")
    return load_bundled(name)


__all__ = ["Dataset", "deepboost_folds", "list_datasets", "load_dataset", "subsample"]
