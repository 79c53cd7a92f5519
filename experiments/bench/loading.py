"""How the benchmarks load a dataset: quietly, and as the training and test arrays every method gets.

:func:`load` returns the loader's :class:`~mddf.datasets.Dataset` (for the benchmarks that split it
themselves, by a paper's protocol); :func:`train_test_arrays` returns its standard split, with the
benchmarks' variations: a fixed stratified split of a dataset that has none, a stratified subset of
the training rows (a number of rows, or a fraction per class), the first rows of the test set.
"""

from __future__ import annotations


def load(name: str, *, data_home=None, download: bool = True, **options):
    """``mddf.datasets.load_dataset(name, ...)`` without progress output.

    Parameters
    ----------
    name : str
        A dataset of :func:`mddf.datasets.list_datasets`.
    data_home : path-like, optional
        Folder of the dataset files (default: ``$MDDF_DATA``, else the cache).
    download : bool, default=True
        Whether a missing file is downloaded (else it raises ``MissingFileError``).
    **options
        The loader's dataset-specific options (``missing=``, ``mnist_split=``).
    """
    from mddf.datasets import load_dataset

    return load_dataset(name, data_home=data_home, download=download, verbose=0, **options)


def train_test_arrays(
    name: str,
    *,
    train_share: float | None = None,
    train_rows: int | None = None,
    train_fraction: float | None = None,
    subset_seed: int = 0,
    test_rows: int | None = None,
    data_home=None,
    download: bool = True,
    **options,
):
    """``X_train, y_train, X_test, y_test`` of dataset ``name``: its standard train/test split.

    Parameters
    ----------
    name : str
        A dataset of :func:`mddf.datasets.list_datasets`.
    train_share : float, optional
        For a dataset without a standard test split: the share of its rows trained on, in a
        stratified split drawn with ``random_state=0`` (the rest is tested on). Without it, such a
        dataset raises ``ValueError``.
    train_rows : int, optional
        A stratified subset of this many training rows (``train_test_split`` with
        ``random_state=0``); every row when the training set is not larger.
    train_fraction : float in (0, 1], optional
        A stratified fraction of every class's training rows
        (:func:`~mddf.experiments.protocols.subsample`, seeded by ``subset_seed``).
    subset_seed : int
        The seed of ``train_fraction``'s subset.
    test_rows : int, optional
        The first ``test_rows`` rows of the test set (default: all).
    data_home, download, **options
        As :func:`load`.
    """
    from sklearn.model_selection import train_test_split

    from ..protocols import subsample

    ds = load(name, data_home=data_home, download=download, **options)
    if train_fraction:
        ds = subsample(ds, train_fraction, random_state=subset_seed)
    X, y, X_test, y_test = ds.X_train, ds.y_train, ds.X_test, ds.y_test
    if X_test is None:
        if train_share is None:
            raise ValueError(f"{name!r} has no standard test split")
        X, X_test, y, y_test = train_test_split(X, y, train_size=train_share, stratify=y, random_state=0)
    if train_rows is not None and train_rows < len(y):
        X, _, y, _ = train_test_split(X, y, train_size=train_rows, stratify=y, random_state=0)
    if test_rows:
        X_test, y_test = X_test[:test_rows], y_test[:test_rows]
    return X, y, X_test, y_test
