"""The cascade as a mixture of layers: its cumulative margin and its class vectors.

Algorithm 2 of Lv, Yang and Zhou keeps two running quantities per layer t: on the
training rows, the cumulative margin ``sum_{l<=t} alpha_l gamma_l`` that fixes
the layer weight alpha_t (line 6, eq. 48) and the next sample distribution
D_{t+1} (line 8, eq. 47); and, on any rows, the augmented feature
``f_t = f_{t-1} + alpha_t h_t`` (line 7, eq. 7) whose argmax is the prediction
(eq. 9). :class:`CumulativeMargin` holds the first, :class:`ClassVectorMixture`
the second.

Both are kept normalised, as a mixture updated with the layer's share beta_t:
``mix_t = (1 - beta_t) mix_{t-1} + beta_t h_t``. For the additive reading
``beta_t = alpha_t / sum_{l<=t} alpha_l``, so ``mix_t = f_t / sum alpha``
exactly; for the normalised reading beta_t is solved for directly; for the
gcForest cascade beta_t = 1 (``f_t = h_t``). The common scale ``sum alpha`` is
divided out of what the next layer sees, which forests ignore.
"""

from __future__ import annotations

import numpy as np

from .alpha import solve_alpha_exact, solve_alpha_sgd, solve_layer_share
from .carried import Carried, member_mean, mixed, side_by_side
from .distribution import sample_distribution
from .loss import MarginDistributionLoss
from .margins import margin_statistics


def share_weights(shares):
    """Each layer's weight in the mixture ``mix_t = (1 - beta_t) mix_{t-1} + beta_t h_t`` of layers with shares
    ``shares`` (beta_t): ``beta_t prod_{l>t} (1 - beta_l)``."""
    shares = np.asarray(shares)
    weights = shares.copy()
    for t in range(len(shares) - 1, 0, -1):
        weights[:t] *= 1.0 - shares[t]
    return weights


class ClassVectorMixture:
    """The normalised augmented feature ``f_t / sum_{l<=t} alpha_l`` of a set of rows (eq. 7).

    Holds, after each layer added, the feature the next layer sees (``passed``)
    and the mixture of the layers' mean class vectors (``proba``), whose argmax
    is the prediction ``argmax_j f_t^j`` (eq. 9). The same object serves the
    out-of-fold vectors of the training rows, the held-out rows and new rows at
    prediction time, so all three mix the layers alike; given members' class vectors
    with their attributions (:class:`~.carried.Carried`), it mixes those alike too
    (``carried_passed``, ``carried_proba``).

    Parameters
    ----------
    passed_features : {"mean", "per_forest"}, default="mean"
        What the next layer sees: the block's class vector h_t (``"mean"``), or every member's class vector side by
        side (``"per_forest"``).

    Attributes
    ----------
    passed : ndarray or None
        ``f_t / sum alpha`` (None before the first layer: f_0 is empty, Algorithm 2, line 1).
    proba : ndarray (n, n_classes) or None
        ``sum_l alpha_l h_l / sum_l alpha_l``, a convex combination of class vectors.
    carried_passed, carried_proba : Carried or None
        The same with their attributions, when the layers' class vectors came with theirs.
    """

    def __init__(self, passed_features="mean"):
        self.passed_features = passed_features
        self.carried_passed = None
        self.carried_proba = None

    @property
    def passed(self):
        return None if self.carried_passed is None else self.carried_passed.value

    @property
    def proba(self):
        return None if self.carried_proba is None else self.carried_proba.value

    def add_layer(self, per_forest, share, rows=None, weights=None):
        """Mix in layer t with share beta_t: ``mix_t = (1 - beta_t) mix_{t-1} + beta_t h_t``.

        Parameters
        ----------
        per_forest : ndarray (n, n_forests, n_classes) or Carried
            The block's class vectors of these rows (of ``rows`` only, when given), or a
            :class:`~.carried.Carried` of them and their attributions.
        share : float in [0, 1]
            beta_t; 1 replaces the mixture by the layer (first layer, gcForest).
        rows : ndarray of int or None, default=None
            The rows that went through the layer (confidence screening: the
            others left the cascade and keep their mixture); None: every row.
            The arrays are replaced, not written in place, so earlier ones stay as they were.
        weights : ndarray (n_forests,) or None, default=None
            The members' weights in h_t (the block's ``member_weights_``); None: their equal mean.
        """
        members = per_forest if isinstance(per_forest, Carried) else Carried(per_forest)
        h = member_mean(members, weights)
        passed = h if self.passed_features == "mean" else side_by_side(members)
        self.carried_passed = mixed(self.carried_passed, passed, share, rows)
        self.carried_proba = mixed(self.carried_proba, h, share, rows)

    @property
    def output(self):
        """The cascade's prediction for these rows so far: ``proba``."""
        return self.proba

    def correct(self, y):
        """Boolean (n,): whether ``argmax_j mix_t^j`` is each row's class (encoded as column indices)."""
        return self.proba.argmax(axis=1) == y


class CumulativeMargin:
    """Margin bookkeeping of Algorithm 2 on the training rows.

    Starts from D_1 uniform and an empty ensemble (lines 1-2). Each layer then
    gets its weight from its margins gamma_t (eq. 46) by minimising the mean
    margin-distribution loss (eq. 48) of the cumulative margin (line 6,
    :meth:`solve_weight`), joins the cumulative margin (:meth:`add_layer`), and
    the next distribution is ``D_{t+1} proportional to l_md`` of it (line 8,
    eq. 47, :meth:`reweight`).

    With sample weights w, ``D_1 proportional to w`` and ``D_{t+1}(i) proportional
    to w_i l_md(F_t(i))``; the mean loss of eq. 48 (line 6 and :meth:`loss`) and
    the margin statistics are weighted means. Integer weights thus act as
    repeated rows, and rows of weight 0 get D_t(i) = 0 and count nowhere.

    Parameters
    ----------
    n_samples : int
        m, the number of training rows.
    margin_optimization : bool, default=True
        False is the gcForest cascade: alpha_t = beta_t = 1 and D_t stays uniform.
    cumulative_margin : {"normalized", "additive"}, default="normalized"
        ``"additive"``: ``F_t = F_{t-1} + alpha_t gamma_t`` with alpha_t the
        minimiser of ``mean l_md(F_{t-1} + alpha gamma_t)`` over alpha >= 0.
        ``"normalized"``: the margin of the mixture in the simplex,
        ``Fbar_t = (1 - beta_t) Fbar_{t-1} + beta_t gamma_t``, with the share
        beta_t in [0, 1] solved for directly (:func:`mddf.margin.alpha.solve_layer_share`).
    margin_mean, margin_tradeoff : float
        gamma and mu of eq. 48 (the loss ``margin_loss``).
    alpha_solver : {"sgd", "exact"}, default="sgd"
    sample_weight : ndarray (m,) or None, default=None
        Non-negative weights of the training rows with a positive entry; None is
        uniform. Only their ratios matter here, so they are kept divided by their
        maximum (attribute ``sample_weight``): equal weights are then exactly ones
        and give the unweighted computation bit for bit.

    Attributes
    ----------
    margin_loss : MarginDistributionLoss
        l_md of eq. 48, which the layer weights minimise and D_{t+1} is proportional to.
    distribution : ndarray (m,)
        D_t, the distribution the next layer trains on.
    margin_sum : ndarray (m,)
        ``F_t = sum_{l<=t} alpha_l gamma_l`` (additive reading and gcForest; zeros otherwise).
    alpha_sum : float
        ``sum_{l<=t} alpha_l`` (additive reading and gcForest).
    mixture_margin : ndarray (m,)
        ``Fbar_t``, the margins of the normalised mixture (every reading).
    alphas, shares : list of float
        alpha_t and beta_t of every layer added.
    """

    def __init__(
        self,
        n_samples,
        *,
        margin_optimization=True,
        cumulative_margin="normalized",
        margin_mean=0.8,
        margin_tradeoff=0.05,
        alpha_solver="sgd",
        sample_weight=None,
    ):
        self.margin_optimization = margin_optimization
        self.cumulative_margin = cumulative_margin
        self.margin_mean = margin_mean
        self.margin_tradeoff = margin_tradeoff
        self.margin_loss = MarginDistributionLoss(margin_mean, margin_tradeoff)
        self.alpha_solver = alpha_solver
        if sample_weight is not None:
            sample_weight = sample_weight / np.max(sample_weight)
        self.sample_weight = sample_weight
        if sample_weight is None:
            self.distribution = np.full(n_samples, 1.0 / n_samples)  # D_1 (Algorithm 2, line 2)
        else:
            self.distribution = sample_weight / np.sum(sample_weight)  # D_1 proportional to w
        self.margin_sum = np.zeros(n_samples)
        self.alpha_sum = 0.0
        self.mixture_margin = np.zeros(n_samples)
        self.alphas = []
        self.shares = []

    @property
    def additive(self):
        """Whether the weights are Algorithm 2's raw alpha_t (additive reading, gcForest)."""
        return self.cumulative_margin == "additive" or not self.margin_optimization

    @property
    def cumulative(self):
        """The cumulative margin of line 8: F_t for the additive reading, Fbar_t for the normalised one."""
        return self.margin_sum if self.additive else self.mixture_margin

    def solve_weight(self, margin, rng):
        """(alpha_t, beta_t) of the next layer (Algorithm 2, line 6).

        Parameters
        ----------
        margin : ndarray (m,)
            gamma_t, the layer's margins (eq. 46).
        rng : numpy.random.RandomState
            One seed is drawn from it for the SGD solver whenever margins are optimised.

        Returns
        -------
        alpha : float
            The layer weight: the minimiser of eq. 48's mean loss (additive), the
            share itself (normalised), 1 for the first normalised layer and for gcForest.
        share : float in [0, 1]
            beta_t, the layer's share of the normalised mixture.
        """
        if not self.margin_optimization:
            return 1.0, 1.0  # gcForest: f_t = h_t
        seed = rng.randint(np.iinfo(np.int32).max)
        if self.cumulative_margin == "normalized":
            if not self.shares:
                return 1.0, 1.0  # a single layer is the whole mixture; alpha_1 = 1 (Algorithm 2, line 1)
            share = solve_layer_share(
                self.mixture_margin,
                margin,
                self.margin_loss,
                solver=self.alpha_solver,
                random_state=seed,
                sample_weight=self.sample_weight,
            )
            return share, share
        if self.alpha_solver == "exact":
            alpha = solve_alpha_exact(self.margin_sum, margin, self.margin_loss, sample_weight=self.sample_weight)
        else:
            alpha = solve_alpha_sgd(
                self.margin_sum,
                margin,
                self.margin_loss,
                random_state=seed,
                sample_weight=self.sample_weight,
            )
        total = self.alpha_sum + alpha
        # a first layer worse than chance gets alpha = 0; the mixture is then that layer alone
        return alpha, (alpha / total if total > 0 else 1.0)

    def add_layer(self, margin, alpha, share):
        """Add layer t's margins gamma_t with weight alpha_t and share beta_t to the cumulative margin."""
        if self.additive:
            self.margin_sum = self.margin_sum + alpha * margin
            self.alpha_sum += alpha
        self.mixture_margin = (1.0 - share) * self.mixture_margin + share * margin
        self.alphas.append(alpha)
        self.shares.append(share)

    def reweight(self):
        """D_{t+1}(i) proportional to ``w_i l_md`` of the cumulative margin (eq. 47, Algorithm 2 line 8).

        Stays D_1 (uniform, or proportional to the sample weights) throughout for
        the gcForest cascade. Returns the new distribution.
        """
        if self.margin_optimization:
            self.distribution = sample_distribution(self.cumulative, self.margin_loss, self.sample_weight)
        return self.distribution

    def keep_rows(self, rows):
        """Keep only ``rows`` (indices into the rows held so far): the others left the cascade.

        Confidence screening: the margins, the sample weights and D_{t+1} of the
        rows still in are kept, and D_{t+1} is renormalised over them (what eq.
        47 gives on those rows alone), so that later layers' weights (eq. 48)
        and distributions are those of the rows they train on.
        """
        self.margin_sum = self.margin_sum[rows]
        self.mixture_margin = self.mixture_margin[rows]
        if self.sample_weight is not None:
            self.sample_weight = self.sample_weight[rows]
        distribution = self.distribution[rows]
        total = distribution.sum()
        if total > 0:
            self.distribution = distribution / total
        elif self.sample_weight is not None and self.sample_weight.sum() > 0:
            self.distribution = self.sample_weight / self.sample_weight.sum()
        else:
            self.distribution = np.full(len(distribution), 1.0 / max(len(distribution), 1))

    def loss(self):
        """Mean margin-distribution loss (eq. 48) of the cumulative margin, weighted by the sample weights."""
        return self.margin_loss.mean(self.cumulative, self.sample_weight)

    def statistics(self):
        """Weighted mean, standard deviation and ratio of the mixture's margins (:func:`~mddf.margin_statistics`)."""
        return margin_statistics(self.mixture_margin, self.sample_weight)

    def layer_weights(self, n_layers):
        """(alphas, shares) of the first ``n_layers`` layers, as float arrays.

        ``alphas`` are Algorithm 2's raw alpha_t for the additive reading (ones
        for gcForest) and, for the normalised one, the simplex weights of the
        mixture of those layers: beta_t times ``prod_{l>t} (1 - beta_l)``.
        """
        shares = np.asarray(self.shares[:n_layers])
        if self.additive:
            return np.asarray(self.alphas[:n_layers]), shares
        return share_weights(shares), shares
