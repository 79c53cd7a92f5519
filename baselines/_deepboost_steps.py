"""The pieces of DeepBoost's coordinate descent (Cortes, Mohri and Syed 2014): the losses Phi and their derivatives
at ``1 - y f(x)`` (eqs. 4-5), the Rademacher-complexity proxies of the hypothesis families (eqs. 7-9), and the
direction and step of a coordinate (Figure 2, lines 5-16)."""

from __future__ import annotations

import numpy as np
from scipy.special import log_expit

LN2 = np.log(2.0)

#: Weighted errors are clipped to [EPS_FLOOR, 1 - EPS_FLOOR] in the step (lines 12-16) so that a
#: hypothesis with zero training error gets a large finite weight instead of an infinite one.
EPS_FLOOR = 1e-10


def loss_values(z, loss):
    """Phi(z) per sample: exp(z) (exponential) or log2(1 + exp(z)) (logistic)."""
    if loss == "exponential":
        with np.errstate(over="ignore"):  # inf for a hugely negative margin is the right value
            return np.exp(z)
    return np.logaddexp(0.0, z) / LN2


def loss_derivative_weights(z, loss, log_sample_weight=None):
    """The distribution D_t and the normaliser S_t of eq. 5 for margins ``z = 1 - y f``.

    Computed in the log domain: once the ensemble separates the data with large margins, every
    Phi'(z_i) can underflow (S_t = 0 in floating point) while D_t is still well defined.

    Parameters
    ----------
    z : ndarray of shape (m,)
    loss : {"exponential", "logistic"}
    log_sample_weight : ndarray of shape (m,), optional
        log w_i of positive sample weights: then D_t(i) = w_i Phi'(z_i) / S_t with
        S_t = sum_i w_i Phi'(z_i) (the derivative of the w-weighted objective, see
        :func:`~._deepboost_descent.fit_binary`). None: every w_i = 1, computed by the unweighted formulas.

    Returns
    -------
    D : ndarray, sums to 1
        D_t(i) = Phi'(z_i) / S_t.
    log_S : float
        log S_t, with S_t = sum_i Phi'(z_i) the *unnormalised* sum (Phi'(z) = exp(z), or
        1 / (ln 2 (1 + exp(-z))) for the logistic loss).
    """
    log_w = z if loss == "exponential" else log_expit(z) - np.log(LN2)
    if log_sample_weight is not None:
        log_w = log_w + log_sample_weight
    top = float(log_w.max())
    e = np.exp(log_w - top)
    total = float(e.sum())
    return e / total, top + float(np.log(total))


def penalty_scale(log_s, n_samples):
    """m / (2 S_t) from log S_t (may be inf when S_t underflows)."""
    with np.errstate(over="ignore"):
        return float(np.exp(np.log(n_samples / 2.0) - log_s))


def scaled_penalty(lambdas, scale):
    """Lambda_j m / (2 S_t); exactly 0 where Lambda_j = 0, even when the scale is inf."""
    lambdas = np.asarray(lambdas, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(lambdas > 0, lambdas * scale, 0.0)


def rademacher_stump(n_samples, n_features):
    """Eq. 7: sqrt(2 log(2 m d) / m) for H_1^stumps."""
    return np.sqrt(2.0 * np.log(2.0 * n_samples * n_features) / n_samples)


def rademacher_stump2(n_samples, n_features):
    """Eq. 8: sqrt(2 log(2 m^2 d (d - 1)) / m) for H_2^stumps (needs d >= 2)."""
    m, d = float(n_samples), float(n_features)
    return np.sqrt(2.0 * np.log(2.0 * m * m * d * max(d - 1.0, 1.0)) / m)


def rademacher_tree(n_internal, n_samples, n_features, convention="paper"):
    """Eq. 9 for decision trees with ``n_internal`` internal nodes.

    ``"paper"``: sqrt((4 n + 2) log2(d + 2) ln(m + 1) / m) with n the internal nodes (eq. 9).
    ``"reference"``: sqrt((2 s + 1) log2(d + 2) ln(m) / m) with s = 2 n + 1 all nodes, as in the
    C++ reference implementation (google/deepboost, tree.cc).
    """
    n = np.asarray(n_internal, dtype=np.float64)
    m, d = float(n_samples), float(n_features)
    if convention == "paper":
        return np.sqrt((4.0 * n + 2.0) * np.log2(d + 2.0) * np.log(m + 1.0) / m)
    return np.sqrt((2.0 * (2.0 * n + 1.0) + 1.0) * np.log2(d + 2.0) * np.log(m) / m)


def direction(error, alpha, penalty):
    """d_j of Figure 2, lines 5-9, vectorised over hypotheses.

    Parameters
    ----------
    error : array-like
        Weighted errors eps_{t,j} (eq. 6).
    alpha : array-like
        Current weights alpha_{t-1,j}.
    penalty : array-like
        Lambda_j m / (2 S_t).

    Returns
    -------
    ndarray: (eps - 1/2) + sgn(alpha) penalty if alpha != 0; else 0 if |eps - 1/2| <= penalty
    (the sparsity case); else (eps - 1/2) - sgn(eps - 1/2) penalty.
    """
    error, alpha, penalty = np.broadcast_arrays(
        np.asarray(error, float), np.asarray(alpha, float), np.asarray(penalty, float)
    )
    edge = error - 0.5
    inactive = np.where(np.abs(edge) <= penalty, 0.0, edge - np.sign(edge) * penalty)
    return np.where(alpha != 0, edge + np.sign(alpha) * penalty, inactive)


def step_size(error, alpha, penalty2):
    """eta_t of Figure 2, lines 12-16 (exact for the exponential loss; used for both losses).

    Parameters
    ----------
    error : float
        eps_t, the weighted error of the chosen hypothesis (clipped to [EPS_FLOOR, 1 - EPS_FLOOR]).
    alpha : float
        Its current weight alpha_{t-1,k}.
    penalty2 : float
        Lambda_k m / S_t.

    Returns
    -------
    float: -alpha when |(1 - eps) e^alpha - eps e^-alpha| <= Lambda_k m / S_t (the new weight is
    exactly 0), else log(-/+ c + sqrt(c^2 + (1 - eps) / eps)) with c = Lambda_k m / (2 eps S_t).
    """
    eps = min(max(float(error), EPS_FLOOR), 1.0 - EPS_FLOOR)
    with np.errstate(over="ignore"):  # |alpha| > 709 (unpenalised, separable): a = +-inf compares right
        a = (1.0 - eps) * np.exp(alpha) - eps * np.exp(-alpha)
    if abs(a) <= penalty2:
        return -float(alpha)
    c = penalty2 / (2.0 * eps)
    q = (1.0 - eps) / eps
    root = np.sqrt(c * c + q)
    if a > penalty2:
        return float(np.log(q / (c + root)))  # = log(-c + root), without cancellation
    return float(np.log(c + root))
