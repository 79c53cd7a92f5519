"""When the cascade stops growing and which prefix of it is kept.

Algorithm 2 of Lv, Yang and Zhou runs for a given T; how many layers to grow is
left open (gcForest stops once the accuracy has not improved for a few levels).
The classifier monitors an accuracy, the regressor the negative mean squared
error: both a score that is higher for a better layer.
"""

from __future__ import annotations

import numpy as np


def weighted_accuracy(correct, sample_weight=None):
    """Fraction of rows classified right, weighted by ``sample_weight`` (None: unweighted).

    Parameters
    ----------
    correct : ndarray of bool (n,)
    sample_weight : ndarray (n,) or None
        Non-negative weights with a positive entry; rows of weight 0 do not count.

    Returns
    -------
    float
    """
    if sample_weight is None:
        return float(np.mean(correct))
    return float(np.average(correct, weights=sample_weight))


def improves(
    correct,
    best_correct,
    accuracy,
    best_accuracy,
    *,
    tol=0.0,
    min_gain_se=0.0,
    min_error_reduction=0.0,
    sample_weight=None,
):
    """Whether a layer beats the best layer so far.

    The accuracy must exceed the best by more than ``tol``, the error ``1 -
    accuracy`` must be below the best's by more than the fraction
    ``min_error_reduction`` of it (DF21's ``delta``, relative), and the paired
    comparison on the same rows must pass (McNemar): with ``b`` rows the layer
    newly classifies right and ``c`` rows it newly gets wrong,
    ``b - c > min_gain_se * sqrt(b + c)``. With ``sample_weight``, b and c are
    the rows' total weights, read as frequency weights (an integer weight counts
    as that many rows), so with ``min_gain_se > 0`` the weights' scale matters
    (the cascades rescale theirs to a mean near 1).

    Parameters
    ----------
    correct, best_correct : ndarray of bool (n,) or None
        Rows this layer and the best layer so far classify right; ``best_correct``
        None means no layer yet, and any layer improves.
    accuracy, best_accuracy : float
    tol, min_gain_se, min_error_reduction : float >= 0
    sample_weight : ndarray (n,) or None

    Returns
    -------
    bool
    """
    if best_correct is None:
        return True
    if min_error_reduction and not 1.0 - accuracy < (1.0 - best_accuracy) * (1.0 - min_error_reduction):
        return False
    if sample_weight is None:
        gained = int(np.count_nonzero(correct & ~best_correct))
        lost = int(np.count_nonzero(best_correct & ~correct))
    else:
        gained = float(np.sum(sample_weight[correct & ~best_correct]))
        lost = float(np.sum(sample_weight[best_correct & ~correct]))
    return bool(accuracy > best_accuracy + tol and gained - lost > min_gain_se * np.sqrt(gained + lost))


def improves_mse(
    errors,
    best_errors,
    score,
    best_score,
    *,
    tol=0.0,
    min_gain_se=0.0,
    min_error_reduction=0.0,
    sample_weight=None,
):
    """Whether a layer of lower mean squared error beats the best layer so far.

    The score, ``-MSE``, must exceed the best by more than ``tol``, the MSE must
    be below the best's by more than the fraction ``min_error_reduction`` of
    it, and it must fall by more than ``min_gain_se`` standard errors of the mean paired
    difference of the rows' squared errors, ``d_i = best_errors_i - errors_i``:
    ``mean(d) > min_gain_se * std(d) / sqrt(n)``. With ``sample_weight``, the
    mean and the standard deviation are weighted and n is the total weight (the
    weights read as frequency weights, as :func:`improves` reads them).

    Parameters
    ----------
    errors, best_errors : ndarray of float (n,) or None
        Squared errors of this layer's and the best layer's predictions;
        ``best_errors`` None means no layer yet, and any layer improves.
    score, best_score : float
        ``-MSE`` of the two layers.
    tol, min_gain_se, min_error_reduction : float >= 0
    sample_weight : ndarray (n,) or None

    Returns
    -------
    bool
    """
    if best_errors is None:
        return True
    if not score > best_score + tol:
        return False
    if min_error_reduction and not -score < -best_score * (1.0 - min_error_reduction):
        return False
    if min_gain_se == 0:  # the score test alone (its gain is positive)
        return True
    d = best_errors - errors
    n = len(d) if sample_weight is None else float(np.sum(sample_weight))
    spread = np.sqrt(np.average((d - np.average(d, weights=sample_weight)) ** 2, weights=sample_weight) / n)
    return bool(score - best_score > min_gain_se * spread)


class Measure:
    """What early stopping monitors: a score (higher is better) of each layer and its paired test.

    Parameters
    ----------
    name : str
        Named in :attr:`EarlyStopping.reason`.
    score : callable ``(rows, sample_weight) -> float``
        The layer's score from its per-row results ``rows``.
    improves : callable
        ``(rows, best_rows, score, best_score, *, tol, min_gain_se, min_error_reduction, sample_weight) -> bool``.
    shown : callable ``score -> str``
        The best score as :attr:`EarlyStopping.reason` shows it.
    lowest_improving : callable ``(best_score, tol, min_error_reduction) -> float``
        The score ``improves`` needs to exceed whatever the rows (its conditions on the scores alone).
    """

    def __init__(self, name, score, improves, shown, lowest_improving):
        self.name = name
        self.score = score
        self.improves = improves
        self.shown = shown
        self.lowest_improving = lowest_improving


#: Accuracy: the rows are whether each row is classified right; McNemar's paired test (:func:`improves`).
ACCURACY = Measure(
    "accuracy",
    weighted_accuracy,
    improves,
    lambda score: f"{score:.4f}",
    lambda best, tol, reduction: max(best + tol, 1.0 - (1.0 - best) * (1.0 - reduction)),
)


def squared_errors(y, prediction):
    """Each row's squared error, the rows of :data:`NEGATIVE_MSE`; with several targets, the mean of its targets'.

    Parameters
    ----------
    y, prediction : ndarray (n,) or (n, K)
        The targets and a prediction of them (K targets: 2-D).

    Returns
    -------
    ndarray (n,)
    """
    errors = (y - prediction) ** 2
    return errors if errors.ndim == 1 else errors.mean(axis=1)


def _negative_mse(errors, sample_weight=None):
    return -float(np.average(errors, weights=sample_weight))


#: Negative mean squared error: the rows are each row's squared error; the paired test of :func:`improves_mse`.
NEGATIVE_MSE = Measure(
    "MSE",
    _negative_mse,
    improves_mse,
    lambda score: f"{-score:.6g}",
    lambda best, tol, reduction: max(best + tol, best * (1.0 - reduction)),
)


class EarlyStopping:
    """Tracks the monitored score of each grown layer, the best one and when to stop.

    Growth stops once ``n_tolerant_layers`` consecutive layers have not
    improved on the best (the paired test of ``measure``). The kept prefix is
    the one of highest score grown (first of ties), which may end before the
    best layer of the paired test: layers grown anyway cost nothing more to
    keep, and the point estimate is the better guess between layers the test
    cannot tell apart.

    Parameters
    ----------
    n_tolerant_layers : int
    tol, min_gain_se, min_error_reduction : float >= 0
        See :func:`improves` (accuracy) and :func:`improves_mse` (negative MSE).
    monitored : str, default="out-of-fold"
        Which rows' score is monitored, for :attr:`reason`.
    sample_weight : ndarray (n,) or None, default=None
        Weights of the monitored rows: scores and the paired comparison are weighted.
    measure : Measure, default=ACCURACY
        The score and its paired test: :data:`ACCURACY` or :data:`NEGATIVE_MSE`.

    Attributes
    ----------
    scores : list of float
        Monitored score of every grown layer.
    best_score : float
    best_layer : int
        1-based layer that last improved.
    reason : str or None
        Why growth stopped; None while it goes on.
    """

    def __init__(
        self,
        n_tolerant_layers,
        *,
        tol=0.0,
        min_gain_se=0.0,
        min_error_reduction=0.0,
        monitored="out-of-fold",
        sample_weight=None,
        measure=ACCURACY,
    ):
        self.n_tolerant_layers = n_tolerant_layers
        self.tol = tol
        self.min_gain_se = min_gain_se
        self.min_error_reduction = min_error_reduction
        self.monitored = monitored
        self.sample_weight = sample_weight
        self.measure = measure
        self.scores = []
        self.best_score = -np.inf
        self.best_layer = 0
        self.best_rows = None
        self.since_best = 0
        self.reason = None

    @property
    def accuracies(self):
        """The scores, under the name they have for the classifier's accuracy."""
        return self.scores

    def update(self, rows, score=None):
        """Record the next layer's per-row results and its score; return whether to stop.

        Parameters
        ----------
        rows : ndarray (n,)
            Per-row results of the measure: bool (classified right) for accuracy,
            squared errors for negative MSE.
        score : float or None
            The measure's score of ``rows``, weighted by the sample weights; None computes it.

        Returns
        -------
        bool
        """
        if score is None:
            score = self.measure.score(rows, self.sample_weight)
        self.scores.append(score)
        if self.measure.improves(
            rows,
            self.best_rows,
            score,
            self.best_score,
            tol=self.tol,
            min_gain_se=self.min_gain_se,
            min_error_reduction=self.min_error_reduction,
            sample_weight=self.sample_weight,
        ):
            self.best_score, self.best_layer, self.best_rows = score, len(self.scores), rows
            self.since_best = 0
        else:
            self.since_best += 1
        if self.since_best < self.n_tolerant_layers:
            return False
        self.reason = (
            f"{self.monitored} {self.measure.name} did not improve for {self.n_tolerant_layers} layers "
            f"(best {self.measure.shown(self.best_score)} at layer {self.best_layer})"
        )
        return True

    def lowest_winning_score(self):
        """The score the next layer must exceed to matter: to become the kept layer (beat every score so far) or to
        improve on the best (:attr:`Measure.lowest_improving`); ``-inf`` before the first layer."""
        if self.best_rows is None:
            return -np.inf
        improving = self.measure.lowest_improving(self.best_score, self.tol, self.min_error_reduction)
        return min(max(self.scores), improving)

    @property
    def n_kept(self):
        """Length of the kept prefix: the first layer of highest monitored score."""
        return int(np.argmax(self.scores)) + 1
