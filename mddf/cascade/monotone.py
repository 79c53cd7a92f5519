"""Monotone constraints of a cascade (``monotonic_cst``): the constraint of every column, checked, and what a layer's
members are given.

A cascade is monotone in a column when every member of every layer is monotone in it and in the outputs the layers
pass on (increasing: each passed prediction of ``y`` is monotone the same way as the cascade), and the cascade's
prediction is a mean of its last layer's members (a mixture of positive weights). The members that honour a
constraint are mddf's own forests (their trees keep the leaf-value bounds of :mod:`mddf.trees.monotone`) and the
boosted ones (XGBoost's and LightGBM's ``monotone_constraints``); pair features pair the unconstrained columns only
(:func:`pair_mask`); every other setting that would break the composition is refused in one line.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..blocks.member import as_member, capable_kinds


def _resolved(monotonic_cst, columns, name):
    """``monotonic_cst`` as an int8 array of one entry per column (see :func:`monotone_constraints`)."""
    n = columns.n_features
    if isinstance(monotonic_cst, Mapping):
        if columns.names is None:
            raise ValueError(f"{name}: monotonic_cst as a dict needs X with column names (a DataFrame)")
        names = [str(c) for c in columns.names]
        cst = np.zeros(n, dtype=np.int8)
        for key, value in monotonic_cst.items():
            if str(key) not in names:
                raise ValueError(f"{name}: monotonic_cst names {key!r}, which is not a column of X")
            if value not in (-1, 0, 1):
                raise ValueError(f"{name}: monotonic_cst[{key!r}] must be -1, 0 or 1, got {value!r}")
            cst[names.index(str(key))] = value
        return cst
    values = np.asarray(monotonic_cst)
    if values.ndim != 1 or len(values) != n:
        raise ValueError(f"{name}: monotonic_cst must have one entry per column of X ({n}), got shape {values.shape}")
    if not np.isin(values, (-1, 0, 1)).all():
        raise ValueError(f"{name}: monotonic_cst entries must be -1, 0 or 1, got {values.tolist()}")
    return values.astype(np.int8)


def monotone_constraints(params, columns, name, classes=None):
    """The constraint of each column of ``x`` (int8, 1 increasing, -1 decreasing, 0 none), or None without
    ``monotonic_cst`` (or with no constrained column).

    ``params`` are the cascade's parameters (``monotonic_cst``, ``forest_types``, ``predictor``,
    ``target_statistics``; the classifier's ``screening_accuracy``, ``input_features``, ``tree_method``),
    ``columns`` its :class:`mddf.cascade.seam.Columns`, ``classes`` a classifier's labels (a list: one array per
    label of a multi-label fit). Raises a one-line ``ValueError`` for a constraint that is malformed, names a column
    X lacks or a categorical column, or comes with more than two classes or several labels, a member whose kind does
    not declare it honours one (:class:`mddf.blocks.member.Capabilities`), a ``predictor``, target statistics,
    screening, stacked layers or scikit-learn's trees (``tree_method="exact"``).
    """
    monotonic_cst = params.monotonic_cst
    if monotonic_cst is None or columns is None or columns.n_features is None:
        return None
    if classes is not None and (isinstance(classes, list) or len(classes) != 2):
        raise ValueError(
            f"{name}: monotonic_cst is for regression and binary classification, not a multi-class or multi-label y"
        )
    cst = _resolved(monotonic_cst, columns, name)
    if not cst.any():
        return None
    if columns.is_categorical is not None and (columns.is_categorical & (cst != 0)).any():
        raise ValueError(f"{name}: monotonic_cst constrains a categorical column; categories have no order")
    task = "regression" if classes is None else "classification"
    members = (*params.forest_types, *params.first_layer_members)
    others = [kind for kind in members if not as_member(kind, task).capabilities().monotone]
    if others:
        raise ValueError(
            f"{name}: monotonic_cst is honoured by the members {capable_kinds('monotone', task)} only, not "
            f"{others[0]!r}; set forest_types from them"
        )
    if getattr(params, "tree_method", "hist") == "exact":  # the classifier's only
        raise ValueError(f"{name}: monotonic_cst is honoured by tree_method='hist' forests; set tree_method='hist'")
    if getattr(params, "input_features", None) == "stacking":
        raise ValueError(f"{name}: monotonic_cst needs x in every layer's input; set input_features='preconc' or 'raw'")
    for parameter in ("predictor", "target_statistics", "screening_accuracy"):
        if getattr(params, parameter, None) is not None:  # screening_accuracy: the classifier's only
            raise ValueError(f"{name}: monotonic_cst cannot be combined with {parameter}; set {parameter}=None")
    return cst


def pair_mask(is_categorical, monotone, n_features):
    """The columns the ``pair_features`` search must not pair: the categorical ones (``is_categorical``, or None)
    and the constrained ones (``monotone``, or None), as a bool array of ``n_features``."""
    mask = np.zeros(n_features, dtype=bool) if is_categorical is None else np.asarray(is_categorical, dtype=bool)
    return mask if monotone is None else mask | (np.asarray(monotone) != 0)


def with_appended(monotone, n_appended):
    """The constraints of ``x`` with ``n_appended`` unconstrained columns (the pair features) after its own; None
    for None."""
    if monotone is None or not n_appended:
        return monotone
    return np.concatenate([monotone, np.zeros(n_appended, dtype=np.int8)])
