"""Layer weights alpha_t: minimisers of the mean margin-distribution loss.

Algorithm 2, line 6 of Lv, Yang and Zhou: ``alpha_t = argmin_{alpha >= 0}
(1/m) sum_i l_md(F_{t-1}(i) + alpha * gamma_t(x_i))``, with ``F_{t-1}`` the
cumulative margin of the previous layers and ``gamma_t`` this layer's margins.
As a function of alpha the objective is a convex, continuously differentiable,
piecewise quadratic, so it has an exact minimiser (:func:`solve_alpha_exact`).
The paper optimises it by SGD (:func:`solve_alpha_sgd`). Every solver takes the loss l_md as a
:class:`~.loss.MarginDistributionLoss`.

With sample weights w the mean becomes the weighted mean
``sum_i w_i l_md(...) / sum_i w_i``: the objective of the rows repeated w_i
times (integer weights), which rows of weight 0 do not enter.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .loss import check_loss


def solve_alpha_exact(cumulative_margin, margin, loss, *, upper=np.inf, sample_weight=None):
    """Exact minimiser over alpha >= 0 of the mean margin-distribution loss.

    Each sample contributes ``w_i c_i(alpha) (F_i - g + alpha gamma_i)^2`` where the
    curvature ``c_i`` switches branch (eq. 48) at ``alpha = (g - F_i) / gamma_i``.
    The derivative is piecewise linear and non-decreasing; sorting the switch
    points and accumulating the per-branch coefficients gives it on every
    segment, and the root lies on the first segment where it turns non-negative.
    O(m log m), no iteration.

    Parameters
    ----------
    cumulative_margin : ndarray (m,)
        ``F_{t-1}(i) = sum_{l < t} alpha_l gamma_l(x_i)`` (zeros for the first layer).
    margin : ndarray (m,)
        This layer's margins ``gamma_t(x_i)`` (eq. 46).
    loss : MarginDistributionLoss
        l_md of eq. 48; its two curvatures make the objective piecewise quadratic.
    upper : float, default=inf
        Upper bound of alpha (the minimiser is clipped to ``[0, upper]``, which
        is exact for a convex objective).
    sample_weight : ndarray (m,) or None
        w_i of the weighted mean of eq. 48's loss (None: all 1). Integer weights
        give the minimiser of the rows repeated that many times.

    Returns
    -------
    float in [0, upper]. Zero when no positive alpha lowers the loss (including
    when every margin is 0).
    """
    F = np.asarray(cumulative_margin, dtype=np.float64)
    g = np.asarray(margin, dtype=np.float64)
    loss = check_loss(loss)
    margin_mean, left, right = loss.margin_mean, loss.curvature_below, loss.curvature_above
    active = g != 0
    F, g = F[active], g[active]
    # the weights scale each sample's curvature; a common factor does not move the root
    w = 1.0 if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)[active]
    if g.size == 0:
        return 0.0
    r = F - margin_mean  # residual at alpha = 0
    # Branch at alpha slightly above 0: left branch iff z <= g, i.e. r + alpha*g <= 0.
    # The derivative of c*(r + a g)^2 is 2c(g^2 a + g r) = A a + B.
    breaks = -r / g  # where r + a g = 0
    # Curvature just to the right of 0 for each sample.
    on_left = (r < 0) | ((r == 0) & (g < 0))
    c0 = np.where(on_left, left, right) * w
    A = 2.0 * np.sum(c0 * g * g)
    B = 2.0 * np.sum(c0 * g * r)
    if B >= 0:  # derivative at 0 already non-negative: alpha = 0 is optimal
        return 0.0
    # Samples that switch branch at some positive alpha, in order of alpha.
    switching = breaks > 0
    order = np.argsort(breaks[switching], kind="stable")
    b = breaks[switching][order]
    gs, rs = g[switching][order], r[switching][order]
    ws = 1.0 if sample_weight is None else w[switching][order]
    c_before = np.where(on_left[switching][order], left, right) * ws
    c_after = np.where(on_left[switching][order], right, left) * ws
    dc = c_after - c_before
    A_seg = A + np.cumsum(2.0 * dc * gs * gs)  # coefficients after each switch point
    B_seg = B + np.cumsum(2.0 * dc * gs * rs)
    A_all = np.concatenate([[A], A_seg])
    B_all = np.concatenate([[B], B_seg])
    # Derivative evaluated at the right end of each segment (just before the switch).
    d_at_break = A_all[:-1] * b + B_all[:-1]
    seg = int(np.searchsorted(d_at_break >= 0, True))  # first segment whose end is >= 0
    A_s, B_s = A_all[seg], B_all[seg]
    if A_s <= 0:  # flat segment (cannot happen with some gamma != 0); stay at its start
        return float(min(upper, b[seg - 1] if seg > 0 else 0.0))
    return float(min(upper, max(0.0, -B_s / A_s)))


def solve_alpha_sgd(
    cumulative_margin,
    margin,
    loss,
    *,
    batch_size=256,
    n_epochs=50,
    alpha_init=1.0,
    upper=np.inf,
    random_state=None,
    sample_weight=None,
):
    """Alpha by projected mini-batch SGD, as Algorithm 2 (line 6) prescribes.

    Starts from ``alpha = 1`` (the paper's initialisation), samples shuffled
    mini-batches each epoch, steps against the mini-batch gradient and projects
    onto ``[0, upper]``. The step is ``grad / (H (1 + k / n_batches))`` with k the
    step count and H a running average of the mini-batch curvatures
    ``2 mean(c_i gamma_i^2)`` seen so far: one scalar, so the iteration still
    seeks the zero of the expected gradient, but scaled to the local curvature,
    which eq. 48 lets vary by two orders of magnitude between the two branches.
    The returned value averages the iterates of the last half of the epochs
    (Polyak-Ruppert), which lands within 1e-3 of :func:`solve_alpha_exact`.

    With ``sample_weight`` the objective is the weighted mean of eq. 48's loss,
    and the SGD weights the gradient rather than sampling rows in proportion to
    the weights: the mini-batches are drawn as before, uniformly among the rows
    of positive weight, and the step uses the batch's weighted mean gradient and
    curvature (``sum w_i ... / sum w_i``). The fixed point is the same as that of
    proportional sampling (the weighted objective's minimiser), without the extra
    variance of drawing rows, and weights that are all equal give exactly the
    iterates of the unweighted solver.

    Parameters
    ----------
    cumulative_margin, margin, loss
        As in :func:`solve_alpha_exact`; the step scales by ``loss``'s curvature
        (:meth:`~.loss.MarginDistributionLoss.curvature`).
    batch_size : int, default=256
    n_epochs : int, default=50
    alpha_init : float, default=1.0
    upper : float, default=inf
        Iterates are projected onto ``[0, upper]``.
    random_state : int, RandomState or None
    sample_weight : ndarray (m,) or None
        w_i of the weighted mean (None: all 1); rows of weight 0 are left out.

    Returns
    -------
    float in [0, upper]
    """
    F = np.asarray(cumulative_margin, dtype=np.float64)
    g = np.asarray(margin, dtype=np.float64)
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        positive = w > 0
        F, g, w = F[positive], g[positive], w[positive]
    m = len(g)
    rng = check_random_state(random_state)
    loss = check_loss(loss)
    margin_mean = loss.margin_mean
    if not np.any(g):
        return 0.0
    batch_size = min(batch_size, m)
    n_batches = int(np.ceil(m / batch_size))
    alpha = float(min(upper, alpha_init))
    step = 0
    curvature_sum = 0.0
    averaged, n_averaged = 0.0, 0
    for epoch in range(n_epochs):
        perm = rng.permutation(m)
        for start in range(0, m, batch_size):
            idx = perm[start : start + batch_size]
            gi = g[idx]
            d = F[idx] + alpha * gi - margin_mean
            c = loss.curvature(d)
            wi = None if w is None else w[idx]
            grad = 2.0 * _mean(c * d * gi, wi)
            curvature_sum += 2.0 * _mean(c * gi * gi, wi)
            curvature = curvature_sum / (step + 1)
            if curvature > 0:
                alpha = min(upper, max(0.0, alpha - grad / (curvature * (1.0 + step / n_batches))))
            step += 1
            if epoch >= n_epochs // 2:
                averaged += alpha
                n_averaged += 1
    return averaged / n_averaged


def _mean(x, weight):
    """Mean of ``x``, weighted by ``weight`` (None: unweighted); all-ones weights give the mean's exact bits."""
    if weight is None:
        return np.mean(x)
    return np.sum(weight * x) / np.sum(weight)


def solve_layer_share(
    mixture_margin,
    margin,
    loss,
    *,
    solver="exact",
    random_state=None,
    sample_weight=None,
):
    """Share of a new layer in the normalised mixture (the simplex reading of Section 3).

    Section 3 takes the ensemble ``F = sum_t alpha_t h_t`` with alpha in the
    simplex, so that margins ``y F(x)`` lie in [-1, 1], the range the margin
    mean of eq. 48 refers to. Adding layer t with weight alpha_t to previous
    weights summing to A turns the normalised cumulative margin into
    ``(1 - beta) Fbar_{t-1}(x_i) + beta gamma_t(x_i)`` with
    ``beta = alpha_t / (A + alpha_t)`` in [0, 1]. Algorithm 2's line 6 then
    minimises ``mean l_md`` of that over beta: convex in beta, so the solvers of
    the additive reading apply with ``F = Fbar`` and direction ``gamma_t - Fbar``
    on ``[0, 1]``. beta = 1 means the new layer alone beats every mixture with
    the previous ones.

    Parameters
    ----------
    mixture_margin : ndarray (m,)
        ``Fbar_{t-1}``, the margins of the current normalised mixture.
    margin : ndarray (m,)
        ``gamma_t``.
    loss : MarginDistributionLoss
        l_md of eq. 48.
    solver : {"exact", "sgd"}
        SGD starts at beta = 1/2 (alpha_t = 1 against previous weights summing to 1,
        the paper's initial alpha).
    sample_weight : ndarray (m,) or None
        Weights of the weighted mean loss (see :func:`solve_alpha_sgd` for how SGD uses them).

    Returns
    -------
    float in [0, 1]
    """
    base = np.asarray(mixture_margin, dtype=np.float64)
    direction = np.asarray(margin, dtype=np.float64) - base
    if solver == "exact":
        return solve_alpha_exact(base, direction, loss, upper=1.0, sample_weight=sample_weight)
    return solve_alpha_sgd(
        base,
        direction,
        loss,
        alpha_init=0.5,
        upper=1.0,
        random_state=random_state,
        sample_weight=sample_weight,
    )
