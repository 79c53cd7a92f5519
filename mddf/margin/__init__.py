"""The paper's equations: margins, the margin-distribution loss, layer weights, the sample distribution, and the
state Algorithm 2 keeps between layers (Lv, Yang and Zhou).

- :mod:`.margins`: margins gamma (eq. 46) and margin statistics;
- :mod:`.loss`: the margin-distribution loss l_md (eq. 48), :class:`~.loss.MarginDistributionLoss`, the one object
  the solvers and the reweighting take;
- :mod:`.alpha`: the layer weight alpha_t, the minimiser of the mean loss (Algorithm 2, line 6): projected SGD (the
  paper's) or exact;
- :mod:`.distribution`: the next sample distribution D_{t+1} (eq. 47), proportional to the loss;
- :mod:`.state`: Algorithm 2's running state, the cumulative margin with D_t on the training rows
  (:class:`~.state.CumulativeMargin`) and the normalised augmented feature f_t of any rows
  (:class:`~.state.ClassVectorMixture`, eq. 7);
- :mod:`.calibration`: a temperature on the class probabilities, fitted out of fold.

Nothing here knows trees or forests: the layer imports only numpy and scipy.
"""

from .alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from .distribution import sample_distribution
from .loss import MarginDistributionLoss, margin_distribution_loss
from .margins import margin_statistics, margins

__all__ = [
    "MarginDistributionLoss",
    "margin_distribution_loss",
    "margin_statistics",
    "margins",
    "sample_distribution",
    "solve_alpha_exact",
    "solve_alpha_sgd",
    "solve_layer_share",
]
