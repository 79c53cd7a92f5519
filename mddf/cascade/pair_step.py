"""The cascades' ``pair_features`` step: the pair search on the training rows before the first layer.

With ``pair_features``, a cascade runs :class:`mddf.PairFeatures`' search on its validated training rows (the
categorical columns never paired) and appends the chosen features to ``x`` for every layer, at fit and at
prediction. The search's seed is drawn from a copy of the cascade's generator, so that a search that appends
nothing leaves the cascade bit for bit the one fitted without it.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import clone

from ..features.pair_search import OPERATIONS
from ..features.pairs import PairFeatures, check_pair_features, pair_name

_MAX_SEED = np.iinfo(np.int32).max
#: The value of ``pair_features`` that runs the search with :class:`mddf.PairFeatures`' defaults.
AUTO = "auto"
#: The value that runs it with every operation: log-ratios, products and differences.
ALL_OPERATIONS = "all_operations"


def pair_template(pair_features, estimator_name):
    """The unfitted :class:`mddf.PairFeatures` that ``pair_features`` asks for (None: no search); an instance's
    parameters are checked first (:func:`mddf.features.pairs.check_pair_features`), the error naming
    ``pair_features``."""
    if pair_features is None:
        return None
    if isinstance(pair_features, str) and pair_features == AUTO:
        return PairFeatures()
    if isinstance(pair_features, str) and pair_features == ALL_OPERATIONS:
        return PairFeatures(operations=OPERATIONS)
    if isinstance(pair_features, PairFeatures):
        check_pair_features(pair_features, f"{estimator_name}: pair_features={pair_features!r}")
        return clone(pair_features)
    raise ValueError(
        f"{estimator_name}: pair_features must be None, {AUTO!r}, {ALL_OPERATIONS!r} or a PairFeatures instance, "
        f"got {pair_features!r}"
    )


def fit_pair_features(template, X, y, weight, is_categorical, rng, *, regression, n_jobs=None):
    """The search fitted on the training rows of positive weight of the validated ``X`` (float32, categorical
    columns as codes, marked in ``is_categorical``) with the cascade's ``n_jobs``; its seed drawn from a copy of
    ``rng``, which is left as it is."""
    seed = int(copy.deepcopy(rng).randint(_MAX_SEED))
    mask = np.zeros(X.shape[1], dtype=bool) if is_categorical is None else np.asarray(is_categorical, dtype=bool)
    search = template.set_params(categorical_features=mask, random_state=seed, n_jobs=n_jobs)
    rows = slice(None) if weight is None else weight > 0
    return search.fit_task(X[rows], y[rows], regression=regression)


def with_pairs(search, X):
    """``X`` (float32) with the features ``search`` chose appended (``X`` itself when it chose none)."""
    if search is None or not search.pairs_:
        return X
    return np.ascontiguousarray(search.transform(X), dtype=np.float32)


def pair_feature_names(search, input_names):
    """The names of the appended features, ``log(a/b)``, ``a*b`` or ``a-b`` with the input's column names."""
    return np.asarray([pair_name(input_names[a], input_names[b], op) for a, b, op in search.pairs_], dtype=object)
