"""What the benchmarks' fits share: the runs a resumed sweep still has to do, the timed fit and prediction, and
whether the optional LightGBM is installed."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable


def pending(
    records: Iterable[dict], seeds, datasets, methods, *, field: str = "dataset", name: Callable = str
) -> list[tuple]:
    """``(seed, dataset, method)`` of every run of a sweep that ``records`` do not hold yet, seeds outermost.

    The runs are interleaved: every dataset and method for the first seed, then for the next, so that
    every method sees the same machine conditions. A run is done when a record has its dataset (its
    ``field``, ``name(dataset)``), method and seed.

    Parameters
    ----------
    records : iterable of dict
        The sweep's records so far (:meth:`~mddf.experiments.store.ResultStore.records`).
    seeds, datasets, methods : iterables
    field : str
        The records' key that names the dataset.
    name : callable
        A dataset's name in the records (default ``str``).
    """
    done = {(r.get(field), r.get("method"), r.get("seed")) for r in records}
    return [
        (seed, dataset, method)
        for seed in seeds
        for dataset in datasets
        for method in methods
        if (name(dataset), method, seed) not in done
    ]


def timed_fit(model, X_train, y_train, X_test):
    """Fit ``model`` on the training rows and predict the test rows; return ``(predicted, fit_s, predict_s)``.

    ``fit_s`` and ``predict_s`` are the wall-clock seconds (``time.perf_counter``) of ``fit`` and of
    ``predict``.
    """
    start = time.perf_counter()
    model.fit(X_train, y_train)
    fit_s = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(X_test)
    return predicted, fit_s, time.perf_counter() - start


def lightgbm_available() -> bool:
    """Whether ``lightgbm`` imports (it is optional: ``pip install lightgbm``, or the ``bench`` extra)."""
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return False
    return True
