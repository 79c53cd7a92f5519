"""scikit-learn's bundled datasets: the embedded default, no download needed."""

from __future__ import annotations

import numpy as np
from sklearn import datasets as skdatasets
from sklearn.model_selection import train_test_split

from .base import Dataset

_BUNDLED = {
    "digits": skdatasets.load_digits,
    "breast_cancer": skdatasets.load_breast_cancer,
    "wine": skdatasets.load_wine,
    "iris": skdatasets.load_iris,
}

BUNDLED_NAMES = tuple(_BUNDLED)

_SPLIT = "no official split: stratified 70/30, train_test_split(train_size=0.7, stratify=y, random_state=0)"


def load_bundled(name: str) -> Dataset:
    """Load one of scikit-learn's bundled datasets with a fixed stratified 70/30 split."""
    bunch = _BUNDLED[name]()
    X = np.asarray(bunch.data, dtype=np.float32)
    y = np.asarray(bunch.target, dtype=np.int64)
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.7, stratify=y, random_state=0)
    names = getattr(bunch, "target_names", None)
    classes = np.asarray(names) if names is not None else np.unique(y)
    return Dataset(
        name=name,
        X_train=np.ascontiguousarray(X_train),
        y_train=y_train,
        X_test=np.ascontiguousarray(X_test),
        y_test=y_test,
        feature_names=[str(f) for f in getattr(bunch, "feature_names", range(X.shape[1]))],
        classes=classes,
        source_url=f"bundled with scikit-learn (sklearn.datasets.load_{name})",
        citation="See the scikit-learn documentation of sklearn.datasets.load_" + name,
        split=_SPLIT,
        description=(bunch.DESCR.splitlines()[0] if getattr(bunch, "DESCR", "") else name),
    )
