"""What ``explain()`` returns: each row's attributions to the input columns, in chunks of rows, as a
``shap.Explanation`` when shap is installed (the ``explain`` extra), else an :class:`Attributions` of the same fields.

The attributions are computed on ``x`` as the layers read it, the features of ``pair_features`` appended; an
appended feature's attribution is credited half to each of its two columns (as ``feature_importances_`` credits
its importance), so that every attribution lands on a column of the user's table and they still add up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from .attribution import pairs_of
from .background import Centre
from .heads import Explaining
from .replay import FinalOutput

#: Rows explained at a time by default: the memory of a chunk's attributions grows with its rows.
CHUNK_ROWS = 1024


@dataclass
class Attributions:
    """Each row's prediction attributed to the input columns: the fields of a ``shap.Explanation``.

    Attributes
    ----------
    values : ndarray ``(n, n_features)`` or, for a classifier, ``(n, n_features, n_classes)``
        A regressor of several targets: ``(n, n_features, n_outputs)``, one set of attributions per target.
    base_values : ndarray ``(n,)`` or ``(n, n_classes)`` (``(n, n_outputs)``)
        ``base_values + values.sum(axis=1)`` is the prediction (``predict`` or ``predict_proba``).
    data : ndarray ``(n, n_features)``
        The rows as the model reads them (a categorical column as its category codes, missing values as NaN).
    display_data : ndarray ``(n, n_features)`` of object or None
        A DataFrame's values as they were given (category names); None for an array.
    feature_names : list of str
    output_names : list of str or None
        The classes, for a classifier; ``output0``, ``output1``... for a regressor of several targets (y's columns
        in order); None for one target.
    """

    values: np.ndarray
    base_values: np.ndarray
    data: np.ndarray
    display_data: np.ndarray | None
    feature_names: list
    output_names: list | None

    @property
    def shape(self):
        return self.values.shape


def explanation(fields):
    """A ``shap.Explanation`` of an :class:`Attributions`' fields when shap is installed, else the
    :class:`Attributions` itself."""
    try:
        import shap
    except ImportError:
        return fields
    return shap.Explanation(
        values=fields.values,
        base_values=fields.base_values,
        data=fields.data,
        display_data=fields.display_data,
        feature_names=fields.feature_names,
        output_names=fields.output_names,
    )


def explain_rows(fitted, X, original, fast=False, chunk_rows=CHUNK_ROWS, progress=None, background=None, n_jobs=None):
    """The :class:`Attributions` of a fitted cascade's (:class:`mddf.cascade.fitted.FittedCascade`) predictions for
    validated rows ``X``, ``original`` being the rows as the user gave them (a DataFrame's values are shown as they
    were); ``n_jobs``: the layers' workers.

    With validated rows ``background``, the attributions are centred on them
    (:class:`mddf.cascade.background.Centre`): the base is the mean prediction over them; None keeps the
    path-dependent base. The rows, the background's first (in the same stream), are explained ``chunk_rows`` at a
    time, with a progress bar on stderr when there is more than one chunk (``progress=None``) or when ``progress``
    is True.
    """
    n_columns = fitted.columns.n_features
    shape = fitted.output_shape()
    values = np.zeros((len(X), n_columns) + shape)
    base = np.zeros((len(X),) + shape)
    n_background = 0 if background is None else len(background)
    total = n_background + len(X)
    show = total > chunk_rows if progress is None else bool(progress)
    kept, centre = [], None  # the background's attributions, then what centring on it needs
    with tqdm(total=total, unit="rows", desc="explain", disable=not show, leave=False) as bar:
        for start in range(0, total, chunk_rows):  # the background's rows first, then those of X, in one stream
            stop = min(start + chunk_rows, total)
            own = slice(max(start - n_background, 0), max(stop - n_background, 0))  # the rows of X in the chunk
            first = background[start:stop] if n_background else X[:0]
            rows = X[own] if not len(first) else np.concatenate([first, X[own]]) if own.stop > own.start else first
            part, part_base = _attributed(fitted, rows, fast, n_jobs)
            if len(first):
                kept.append((part[: len(first)], part_base[: len(first)]))
                part, part_base = part[len(first) :], part_base[len(first) :]
                if stop >= n_background:
                    centre = Centre.of(kept)
            values[own], base[own] = (part, part_base) if centre is None else centre.centred(part, part_base)
            bar.update(stop - start)
    names = [str(name) for name in fitted.columns.input_names()]
    display = original.to_numpy(dtype=object) if hasattr(original, "iloc") else None
    data = np.asarray(X[:, :n_columns], dtype=np.float64)
    return Attributions(values, base, data, display, names, fitted.output_names())


def _attributed(fitted, X, fast, n_jobs):
    """Validated rows' attributions to the columns of the user's table and each row's base: ``(values, base)``, from
    the fitted cascade's replay of the rows asked for their attributions."""
    n_columns = fitted.columns.n_features
    explaining = Explaining(n_columns + len(pairs_of(fitted)), bool(fast))  # the columns of x, pairs appended
    found = fitted.replay(X, FinalOutput(explaining), n_jobs).attributed
    values = found.values[:, :n_columns].copy()
    for k, (a, b, _) in enumerate(pairs_of(fitted)):  # an appended feature: half to each of its columns
        values[:, a] += 0.5 * found.values[:, n_columns + k]
        values[:, b] += 0.5 * found.values[:, n_columns + k]
    shape = found.values.shape[2:]
    return values, np.array(np.broadcast_to(found.base, (len(X),) + shape), dtype=np.float64)
