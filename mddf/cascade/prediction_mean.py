"""The regression cascade's running output: each member's prediction of y passed on, and their mean.

:class:`PredictionMean` is to the regressor what :class:`mddf.margin.state.ClassVectorMixture` is to the classifier:
the same object serves the out-of-fold predictions of the training rows, the held-out rows and new rows, so that all
mix the layers alike; given members' predictions with their attributions (:class:`~mddf.margin.carried.Carried`), it
carries those alike too. A residual member's output (``target="residual"``) is what the previous layers left, so
its prediction of y is its output plus their prediction.
"""

from __future__ import annotations

import numpy as np

from ..margin.carried import Attributed, Carried, member_mean

#: The largest magnitude of the targets, and of the predictions the layers pass on: the layer features are
#: float32 (the next layer's input, ``transform`` and ``oof_features_``).
LARGEST_TARGET = float(np.finfo(np.float32).max)


def overflow_error(name, what, largest):
    """The error for targets, or predictions passed on, beyond :data:`LARGEST_TARGET` (``name``: the estimator's)."""
    return ValueError(
        f"{name}: {what} reaches {largest:.3g}, beyond {LARGEST_TARGET:.3g}, the largest "
        "float32: the predictions each layer passes on to the next (float32 features, as transform returns "
        "them) would overflow to infinity; rescale y (e.g. divide it by its standard deviation) and scale "
        "the predictions back"
    )


class PredictionMean:
    """What the regression layers pass on for a set of rows: the last layer's per-member predictions ``h_t``
    (``passed``; None before layer 1), the members' weights in its prediction (``weights``: the block's
    ``member_weights_``; None: equal) and that prediction (``prediction``, 0 before layer 1).

    Parameters
    ----------
    residual : bool, default=False
        The members fit what the previous layers left (``target="residual"``).
    name : str, default="CascadeForestRegressor"
        The estimator's name, for the overflow error.
    """

    def __init__(self, residual=False, name="CascadeForestRegressor"):
        self.residual = residual
        self.name = name
        self.carried_passed = None
        self.weights = None

    @property
    def passed(self):
        return None if self.carried_passed is None else self.carried_passed.value

    @property
    def carried_prediction(self):
        """The prediction so far with its attributions, when carried (None before layer 1)."""
        return None if self.carried_passed is None else member_mean(self.carried_passed, self.weights)

    @property
    def prediction(self):
        """The cascade's prediction so far, the (weighted) mean of ``h_t`` over the members (0 before layer 1)."""
        return 0.0 if self.passed is None else np.average(self.passed, axis=1, weights=self.weights)

    output = prediction  # the cascade's prediction, by the name the engine reads

    def passed_on(self, output):
        """Each member's prediction of y, ``h_t``, from a regression block's ``output`` (an array ``(n, m)`` or ``(n, m,
        K)``, or a :class:`Carried` of it): a residual member's output plus the previous prediction. A ``ValueError``
        when it exceeds :data:`LARGEST_TARGET` (the float32 layer features would be infinite)."""
        members = output if isinstance(output, Carried) else Carried(output)
        if self.residual:  # (several targets: the output is (n, n_members, K), the previous prediction (n, K))
            previous = self.prediction
            shape = (-1, 1, np.shape(previous)[1]) if np.ndim(previous) == 2 else (-1, 1)
            value = members.value + np.reshape(previous, shape)
            before, a = self.carried_prediction, members.attributed
            if a is not None and before is not None:
                b = before.attributed
                a = Attributed(a.base + b.base, a.values + np.expand_dims(b.values, 2))
            members = Carried(value, a)
        largest = float(np.max(np.abs(members.value), initial=0.0))
        if largest > LARGEST_TARGET:
            raise overflow_error(self.name, "the largest prediction a layer passes on, |h_t|,", largest)
        return members

    def add_layer(self, passed, weights=None):
        """Keep a layer's ``passed`` (:meth:`passed_on`) and its members' ``weights``."""
        self.carried_passed = passed if isinstance(passed, Carried) else Carried(passed)
        self.weights = weights
