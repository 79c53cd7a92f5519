"""When the cascade stops growing and which prefix of it is kept.

Algorithm 2 of Lv, Yang and Zhou runs for a given T; how many layers to grow is
left open (gcForest stops once the accuracy has not improved for a few levels).
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


def improves(correct, best_correct, accuracy, best_accuracy, *, tol=0.0, min_gain_se=0.0, sample_weight=None):
    """Whether a layer beats the best layer so far.

    The accuracy must exceed the best by more than ``tol``, and the paired
    comparison on the same rows must pass (McNemar): with ``b`` rows the layer
    newly classifies right and ``c`` rows it newly gets wrong,
    ``b - c > min_gain_se * sqrt(b + c)``. With ``sample_weight``, b and c are
    the rows' total weights, read as frequency weights (an integer weight counts
    as that many rows), so with ``min_gain_se > 0`` the weights' scale matters.

    Parameters
    ----------
    correct, best_correct : ndarray of bool (n,) or None
        Rows this layer and the best layer so far classify right; ``best_correct``
        None means no layer yet, and any layer improves.
    accuracy, best_accuracy : float
    tol, min_gain_se : float >= 0
    sample_weight : ndarray (n,) or None

    Returns
    -------
    bool
    """
    if best_correct is None:
        return True
    if sample_weight is None:
        gained = int(np.count_nonzero(correct & ~best_correct))
        lost = int(np.count_nonzero(best_correct & ~correct))
    else:
        gained = float(np.sum(sample_weight[correct & ~best_correct]))
        lost = float(np.sum(sample_weight[best_correct & ~correct]))
    return bool(accuracy > best_accuracy + tol and gained - lost > min_gain_se * np.sqrt(gained + lost))


class EarlyStopping:
    """Tracks the monitored accuracy of each grown layer, the best one and when to stop.

    Growth stops once ``n_tolerant_layers`` consecutive layers have not
    improved on the best (:func:`improves`). The kept prefix is the most accurate
    one grown (first of ties), which may end before the best layer of the paired
    test: layers grown anyway cost nothing more to keep, and the point estimate
    is the better guess between layers the test cannot tell apart.

    Parameters
    ----------
    n_tolerant_layers : int
    tol, min_gain_se : float >= 0
        See :func:`improves`.
    monitored : str, default="out-of-fold"
        Name of the monitored accuracy, for :attr:`reason`.
    sample_weight : ndarray (n,) or None, default=None
        Weights of the monitored rows: accuracies and the paired comparison are
        weighted (:func:`weighted_accuracy`, :func:`improves`).

    Attributes
    ----------
    accuracies : list of float
        Monitored accuracy of every grown layer.
    best_accuracy : float
    best_layer : int
        1-based layer that last improved.
    reason : str or None
        Why growth stopped; None while it goes on.
    """

    def __init__(self, n_tolerant_layers, *, tol=0.0, min_gain_se=0.0, monitored="out-of-fold", sample_weight=None):
        self.n_tolerant_layers = n_tolerant_layers
        self.tol = tol
        self.min_gain_se = min_gain_se
        self.monitored = monitored
        self.sample_weight = sample_weight
        self.accuracies = []
        self.best_accuracy = -np.inf
        self.best_layer = 0
        self.best_correct = None
        self.since_best = 0
        self.reason = None

    def update(self, correct, accuracy=None):
        """Record the next layer's rows classified right and its accuracy; return whether to stop.

        Parameters
        ----------
        correct : ndarray of bool (n,)
        accuracy : float or None
            ``mean(correct)``, weighted by the sample weights; None computes it.

        Returns
        -------
        bool
        """
        if accuracy is None:
            accuracy = weighted_accuracy(correct, self.sample_weight)
        self.accuracies.append(accuracy)
        if improves(
            correct,
            self.best_correct,
            accuracy,
            self.best_accuracy,
            tol=self.tol,
            min_gain_se=self.min_gain_se,
            sample_weight=self.sample_weight,
        ):
            self.best_accuracy, self.best_layer, self.best_correct = accuracy, len(self.accuracies), correct
            self.since_best = 0
        else:
            self.since_best += 1
        if self.since_best < self.n_tolerant_layers:
            return False
        self.reason = (
            f"{self.monitored} accuracy did not improve for {self.n_tolerant_layers} layers "
            f"(best {self.best_accuracy:.4f} at layer {self.best_layer})"
        )
        return True

    @property
    def n_kept(self):
        """Length of the kept prefix: the first layer of highest monitored accuracy."""
        return int(np.argmax(self.accuracies)) + 1
