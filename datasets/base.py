"""The object every loader returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class Dataset:
    """A benchmark dataset with its standard train/test split.

    Attributes
    ----------
    name : str
        Registry name (``load_dataset(name)``).
    X_train, y_train : ndarray
        Training rows. ``X_*`` are float32 (what scikit-learn's trees use
        internally, so forests fit without a copy); ``y_*`` are int64 class
        codes ``0 .. n_classes - 1`` with ``classes[y]`` the original labels.
    X_test, y_test : ndarray or None
        Test rows, or ``None`` for datasets that come without a split (the
        DeepBoost sets); for those ``X_train`` holds every row.
    feature_names : list of str
    categorical_mask : ndarray of bool, shape (n_features,)
        True for columns that hold ordinal codes of a categorical attribute.
    classes : ndarray
        Original class labels, indexed by the codes in ``y``.
    source_url, citation, split, description : str
        Provenance: where the files come from, whom to cite, how the split
        is made, and any preprocessing choices.
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    feature_names: list
    classes: np.ndarray
    categorical_mask: np.ndarray | None = None
    source_url: str = ""
    citation: str = ""
    split: str = ""
    description: str = ""
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.categorical_mask is None:
            object.__setattr__(self, "categorical_mask", np.zeros(self.X_train.shape[1], dtype=bool))

    @property
    def X(self) -> np.ndarray:
        """All rows (train then test)."""
        if self.X_test is None:
            return self.X_train
        return np.concatenate([self.X_train, self.X_test])

    @property
    def y(self) -> np.ndarray:
        """All labels (train then test)."""
        if self.y_test is None:
            return self.y_train
        return np.concatenate([self.y_train, self.y_test])

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def has_test_split(self) -> bool:
        return self.X_test is not None

    def __repr__(self) -> str:
        test = "no split" if self.X_test is None else f"{len(self.X_test)} test"
        return (
            f"Dataset({self.name!r}: {len(self.X_train)} train, {test}, "
            f"{self.X_train.shape[1]} features, {self.n_classes} classes)"
        )
