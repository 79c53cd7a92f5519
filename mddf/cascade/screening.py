"""Confidence screening: rows whose cascade output is confident enough leave the cascade.

Pang, Ting, Zhao and Zhou, "Improving deep forest by confidence screening" (ICDM
2018): after each layer, a row's confidence is the largest class share of the
cascade's output so far; the layer's threshold is chosen on the training rows'
out-of-fold outputs so that the rows at or above it keep a target accuracy. Those
rows leave the cascade with that output, at fit (later layers train on the rows
still in) and at prediction (a new row at or above the threshold passes through
no later layer). :class:`mddf.MDDFClassifier` uses it with ``screening_accuracy``.
"""

from __future__ import annotations

import numpy as np


def confidence(proba):
    """The largest class share of each row's class probabilities ``proba`` ``(n, n_classes)``."""
    return proba.max(axis=1)


def screening_threshold(confidence, correct, target, sample_weight=None):
    """The lowest confidence at which the rows at or above it have an accuracy of at least ``target``.

    Parameters
    ----------
    confidence : ndarray of float (n,)
        Each row's confidence (:func:`confidence` of its out-of-fold output).
    correct : ndarray of bool (n,)
        Whether each row's output classifies it right.
    target : float in (0, 1]
        The accuracy the rows at or above the threshold must keep.
    sample_weight : ndarray (n,) or None, default=None
        Weights of the accuracy (rows of weight 0 count in no accuracy); None: unweighted.

    Returns
    -------
    float
        The threshold: one of the rows' confidences, so that the rows screened
        (confidence at or above it) form the largest such set; ``inf`` when no
        set of rows of positive weight ranked by confidence meets the target
        (no row is screened).
    """
    order = np.argsort(-confidence, kind="stable")
    ranked = confidence[order]
    weight = np.ones(len(order)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)[order]
    hits = np.cumsum(weight * correct[order])
    totals = np.cumsum(weight)
    # the last row of each run of equal confidences: the rows "at or above" that confidence
    ends = np.flatnonzero(np.append(ranked[1:] != ranked[:-1], True))
    positive = totals[ends] > 0
    meets = np.zeros(len(ends), dtype=bool)
    meets[positive] = hits[ends][positive] >= target * totals[ends][positive]
    if not meets.any():
        return np.inf
    return float(ranked[ends[np.flatnonzero(meets)[-1]]])


def still_in(rows, proba, threshold):
    """The rows that stay in the cascade after a layer: those whose confidence is below ``threshold``.

    Parameters
    ----------
    rows : ndarray of int or None
        The rows still in before the layer (indices into ``proba``); None: all.
    proba : ndarray (n, n_classes)
        The cascade's output of every row after the layer.
    threshold : float
        The layer's threshold (:func:`screening_threshold`).

    Returns
    -------
    ndarray of int
        The indices of the rows that stay in, in increasing order.
    """
    if rows is None:
        rows = np.arange(len(proba))
    return rows[confidence(proba[rows]) < threshold]
