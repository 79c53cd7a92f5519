"""Loaders for the benchmarks of the mdDF and DeepBoost papers, with their standard splits, and for a user's table.

A user's own CSV or Parquet file (``mddf benchmark --data PATH --target COLUMN``) is read, checked and bound
to its sha256 by :mod:`mddf.datasets.user_data` (:mod:`mddf.datasets.table_files` reads the file).

>>> from mddf.datasets import load_dataset
>>> ds = load_dataset("digits")          # bundled with scikit-learn, no download
>>> ds.X_train.shape, ds.X_test.shape
((1257, 64), (540, 64))

Files are looked for in ``data_home`` (else ``$MDDF_DATA``, laid out as
``<dataset>/<file>``), then in a writable cache (``cache_dir``, else
``$MDDF_CACHE``, else ``pooch.os_cache("mddf")``), and downloaded from their
canonical source into the cache when missing. Every file is verified (see
:mod:`mddf.datasets.fetch` for the checksum policy) and the parsed arrays are
cached, so later loads of a dataset skip parsing (load times:
``docs/benchmarks/datasets.md``).
"""

from __future__ import annotations

from .base import Dataset
from .bundled import BUNDLED_NAMES, load_bundled
from .errors import (
    ChecksumError,
    CorruptFileError,
    DatasetError,
    DownloadError,
    MissingFileError,
    UnpinnedHashWarning,
)
from .fetch import override_sources
from .loader import load_registered
from .registry import ALIASES, REGISTRY, get_spec

GROUPS = ("mddf", "deepboost", "extra", "bundled")


def list_datasets(group=None):
    """Names accepted by :func:`load_dataset`.

    Parameters
    ----------
    group : {"mddf", "deepboost", "extra", "bundled"} or None
        Only the mdDF paper's Table 1 benchmarks, the DeepBoost paper's
        datasets, the extras (Fashion-MNIST) or scikit-learn's bundled sets.
    """
    if group is not None and group not in GROUPS:
        raise ValueError(f"unknown group {group!r}; use one of {', '.join(GROUPS)}")
    names = [s.name for s in REGISTRY.values() if group in (None, s.group)]
    if group in (None, "bundled"):
        names += list(BUNDLED_NAMES)
    return names


def load_dataset(name, data_home=None, download=True, *, cache_dir=None, verbose=1, **options):
    """Load a benchmark with its standard train/test split.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets` (case-insensitive; ``"ocr17-mnist"`` and
        ``"ocr49-mnist"`` are accepted for ``"ocr17"``/``"ocr49"``).
    data_home : path-like, optional
        Folder holding ``<dataset>/<file>`` as served by the sources (read,
        never written). Defaults to ``$MDDF_DATA``.
    download : bool, default=True
        Download missing files from their canonical source into the cache.
        If false, a missing file raises :class:`MissingFileError` saying where
        it was looked for and where to get it.
    cache_dir : path-like, optional
        Writable folder for downloads, trust records and parsed arrays.
        Defaults to ``$MDDF_CACHE``, else ``pooch.os_cache("mddf")``.
    verbose : int, default=1
        1 prints a line (and a progress bar) when a file is downloaded or a
        dataset is parsed for the first time; 0 is silent.
    **options
        Dataset-specific: ``missing`` for ``adult`` (``"category"`` | ``"nan"``)
        and ``breastcancer`` (``"median"`` | ``"nan"`` | a number);
        ``mnist_split`` (``"all"`` | ``"train"`` | ``"test"``) for ``mnist``,
        ``fashion-mnist``, ``ocr17``, ``ocr49``.

    Returns
    -------
    Dataset
        ``X_*`` float32, ``y_*`` int64 codes with ``classes[y]`` the original
        labels; ``X_test``/``y_test`` are None for datasets without a split.

    Raises
    ------
    ValueError
        Unknown name (with close matches), or a bad option value.
    MissingFileError, DownloadError, ChecksumError, CorruptFileError
        See :mod:`mddf.datasets.errors`.
    """
    if isinstance(name, str) and name.lower() in BUNDLED_NAMES:
        if options:
            raise TypeError(f"load_dataset({name!r}) accepts no options, got {', '.join(sorted(options))}")
        return load_bundled(name.lower())
    spec = get_spec(name, known_extra=BUNDLED_NAMES)
    return load_registered(
        spec, data_home=data_home, download=download, cache_dir=cache_dir, verbose=verbose, options=options
    )


__all__ = [
    "ALIASES",
    "ChecksumError",
    "CorruptFileError",
    "Dataset",
    "DatasetError",
    "DownloadError",
    "MissingFileError",
    "UnpinnedHashWarning",
    "list_datasets",
    "load_dataset",
    "override_sources",
]
