"""The bad-input matrix's pieces: its estimators (tiny models), a learnable problem, the checks, and the cases'
registry of each of its test modules (``test_bad_input_*.py``).

Every row of the matrix is an estimator and a case. A case either expects an error, of an exact type and with a
message fragment that names the problem (the column, the member, the label types, the cause of an overflow), or
expects a correct result and checks it. No case may end in a silent wrong result or in an error that does not name
its cause. The data are tiny and the models small, so that the whole matrix runs in seconds once numba has compiled
its code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier, MDDFGridSearch, PairFeatures, PCAFeatures
from mddf.baselines import (
    AdaBoostClassifier,
    DeepBoostClassifier,
    GCForestClassifier,
    MultiGrainedScanner,
    QuadBoostClassifier,
)

ESTIMATORS = {
    "mddf": lambda **kw: MDDFClassifier(n_estimators=4, max_layers=2, n_folds=2, n_jobs=1, random_state=0, **kw),
    "regressor": lambda **kw: CascadeForestRegressor(
        n_estimators=4, max_layers=2, n_folds=2, n_jobs=1, random_state=0, **kw
    ),
    "gcforest": lambda **kw: GCForestClassifier(
        n_estimators=4, max_layers=2, n_folds=2, n_jobs=1, random_state=0, **kw
    ),
    "deepboost": lambda **kw: DeepBoostClassifier(n_iter=10, max_depth=2, random_state=0, **kw),
    "adaboost": lambda **kw: AdaBoostClassifier(n_iter=10, max_depth=2, random_state=0, **kw),
    "quadboost": lambda **kw: QuadBoostClassifier(n_iter=20, random_state=0, **kw),
}
ALL = tuple(ESTIMATORS)
#: The other estimators that read X's columns, for the cases on X's columns: the grid search (through the cascades it
#: grows), the transformers that append features and gcForest's scanner (``fit`` and ``transform`` in place of ``fit``
#: and ``predict``).
COLUMN_READERS = {
    "search": lambda **kw: MDDFGridSearch(
        estimator=ESTIMATORS["mddf"](**kw), param_grid={"margin_mean": [0.8, 0.9]}, halving_layers=()
    ),
    "pca": lambda **kw: PCAFeatures(**kw),
    "pairs": lambda **kw: PairFeatures(**kw),
    "scanner": lambda **kw: MultiGrainedScanner(
        window_sizes=(2,), image_shape=(4,), n_estimators=4, n_folds=2, random_state=0, **kw
    ),
}
ALL_READERS = ALL + tuple(COLUMN_READERS)
CLASSIFIERS = tuple(name for name in ALL if name != "regressor")
BOOSTERS = ("deepboost", "adaboost", "quadboost")


def make(name, **params):
    return {**ESTIMATORS, **COLUMN_READERS}[name](**params)


def applied(model, X):
    """What a fitted model makes of ``X``: its predictions, or a transformer's output."""
    return model.predict(X) if hasattr(model, "predict") else model.transform(X)


def data(name, n=40, d=4, seed=0):
    """A learnable problem: class labels for a classifier (and the other column readers), real targets for the
    regressor."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    signal = X[:, 0] + 0.5 * X[:, 1]
    return X, (signal if name == "regressor" else (signal > 0).astype(int))


def raises(exc, fragment):
    """``pytest.raises`` for ``exc`` whose message holds ``fragment`` literally."""
    return pytest.raises(exc, match=re.escape(fragment))


def assert_learned(name, model, X, y):
    """A correct result: the fitted model predicts its (learnable) training data well."""
    score = model.score(X, y)
    assert score >= (0.5 if name == "regressor" else 0.8), f"{name}: training score {score:.3f}"


def frame_of(name, kind):
    """:func:`data` as a frame whose column ``c`` holds colours: a categorical (``kind="category"``) or text column."""
    X, y = data(name)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    colours = np.where(X[:, 2] > 0, "red", "blue")
    frame["c"] = pd.Categorical(colours) if kind == "category" else pd.Series(colours, dtype=object)
    return frame, y


@dataclass(frozen=True)
class Case:
    """One bad input: ``run(name)`` fits and predicts estimator ``name`` and checks the outcome.

    ``expects`` is ``"error"`` (a named error) or ``"result"`` (a correct result).
    """

    run: Callable[[str], None]
    estimators: tuple
    expects: str


class Cases(dict):
    """The cases of one test module, by name: ``@cases.add(estimators, expects)`` registers one; :attr:`matrix` is
    every (estimator, case) pair, what the module's ``test_bad_input`` runs."""

    def add(self, estimators, expects):
        def register(run):
            self[run.__name__] = Case(run, tuple(estimators), expects)
            return run

        return register

    @property
    def matrix(self) -> list:
        return [(name, case_name) for case_name, c in self.items() for name in c.estimators]
