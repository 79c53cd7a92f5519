"""QuadBoost on a precomputed voter-output matrix: greedy coordinate descent on the (regularised) quadratic risk.

Roy, Marchand and Laviolette, Section 3. With ``F = sum_i alpha_i h_i`` and the residual ``r = y - F``, the
quadratic risk decomposes as (eq. 5 and 10)

    R(alpha) = c - 2 alpha_j (mu_j - M_j) + alpha_j^2 eta_j

in the weight of any one voter ``h_j``, with ``mu_j = <y, h_j>`` (eq. 3), ``eta_j = <h_j, h_j>`` (eq. 5) and
``M_j = <F - alpha_j h_j, h_j>`` the correlation of ``h_j`` with the rest of the ensemble (eq. 4; Section 3.1 for a
voter already in the ensemble); ``<a, b> = (1/m) sum_k a_k b_k``. Hence ``mu_j - M_j = <r, h_j> + alpha_j eta_j``:
one matrix-vector product ``H^T r`` gives it for every voter at once.

The per-voter minimisers are eq. 6 (vanilla), 7 (L1: penalty ``2 lam ||alpha||_1``), 8 (L2) and 9 (L-infinity:
``|alpha_j| <= alpha_max``). Eq. 8 is the stationary point of ``R + lam ||alpha||_2^2``, so that squared norm is
the L2 objective we report (the text's ``lam ||alpha||_2`` does not lead to eq. 8).

Each iteration updates the one voter whose update lowers the objective most. For a voter not yet in the ensemble
(``alpha_j = 0``) the decrease is ``(mu_j - M_j)^2 / eta_j`` (vanilla), ``(|mu_j - M_j| - lam)_+^2 / eta_j`` (L1),
``(mu_j - M_j)^2 / (eta_j + lam)`` (L2), and increasing in ``|mu_j - M_j|`` for L-infinity, so with the +-1 stumps
(all ``eta_j = 1``) this is exactly the paper's rule "pick the voter maximising ``|mu_j - M_j|``". With
``reweight=True`` the voters already in the ensemble compete on equal terms with their Section 3.1 update
(coordinate descent; under L1 a weight can return to exactly 0). With ``reweight=False`` each voter is added at
most once and its weight is never revised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

REGULARIZATIONS = (None, "l1", "l2", "linf")


def optimal_weight(c, eta, regularization=None, lam=0.0, alpha_max=None):
    """Weight minimising ``-2 x c + x^2 eta + penalty(x)`` (eq. 6, 7, 8, 9 with ``c = mu_j - M_j``).

    Parameters
    ----------
    c : float or ndarray
        ``mu_j - M_j`` (``M_j`` excluding voter ``j``'s own contribution).
    eta : float or ndarray
        ``eta_j`` (1 for +-1 voters).
    regularization : {None, "l1", "l2", "linf"}
    lam : float
        ``lambda`` of eq. 7 (penalty ``2 lam |x|``) or eq. 8 (penalty ``lam x^2``).
    alpha_max : float
        Bound of eq. 9.

    Returns
    -------
    float or ndarray
    """
    if regularization is None:
        return c / eta
    if regularization == "l1":
        # "+ 0.0" turns the -0.0 of a zeroed negative weight into 0.0
        return np.copysign(np.maximum(abs(c) - lam, 0.0), c) / eta + 0.0
    if regularization == "l2":
        return c / (eta + lam)
    if regularization == "linf":
        return np.minimum(np.maximum(c / eta, -alpha_max), alpha_max)
    raise ValueError(f"unknown regularization {regularization!r}; known: {REGULARIZATIONS}")


def penalty(alpha, regularization=None, lam=0.0):
    """Regulariser added to the quadratic risk: ``2 lam ||alpha||_1`` (L1), ``lam ||alpha||_2^2`` (L2), else 0."""
    alpha = np.asarray(alpha, dtype=np.float64)
    if regularization == "l1":
        return 2.0 * lam * float(np.abs(alpha).sum())
    if regularization == "l2":
        return lam * float(np.square(alpha).sum())
    return 0.0


def objective_decrease(g, alpha, eta, regularization=None, lam=0.0, alpha_max=None):
    """Decrease of the objective when a voter's weight moves from ``alpha`` to its optimum (eq. 6-9).

    In one weight ``x`` the objective is ``Q(x) = -2 x c + x^2 eta + penalty(x)`` up to a constant, with
    ``c = mu_j - M_j = g + alpha eta``; the decrease is ``Q(alpha) - Q(x*)``. Works on floats and on arrays
    (one entry per voter).

    Parameters
    ----------
    g : float or ndarray
        ``<r, h_j>``, the correlation of each voter with the current residual.
    alpha : float or ndarray
        Current weights (0 for voters not in the ensemble).
    eta : float or ndarray
    regularization, lam, alpha_max
        As in :func:`optimal_weight`.

    Returns
    -------
    float or ndarray, non-negative up to rounding.
    """
    if regularization is None:
        return g * g / eta
    if regularization == "l2":
        d = g - alpha * lam
        return d * d / (eta + lam)
    # Q(alpha) = -alpha (alpha eta + 2 g) + penalty(alpha)
    q_alpha = -alpha * (alpha * eta + 2.0 * g)
    c = g + alpha * eta
    if regularization == "l1":
        s = np.maximum(abs(c) - lam, 0.0)
        return q_alpha + 2.0 * lam * abs(alpha) + s * s / eta  # Q(x*) = -(|c| - lam)_+^2 / eta
    if regularization == "linf":
        x = np.minimum(np.maximum(c / eta, -alpha_max), alpha_max)
        return q_alpha - x * (x * eta - 2.0 * c)
    raise ValueError(f"unknown regularization {regularization!r}; known: {REGULARIZATIONS}")


@dataclass(frozen=True)
class QuadBoostPath:
    """What one binary QuadBoost run learned, iteration by iteration.

    Attributes
    ----------
    coef : ndarray of float64, shape (n_voters,)
        Final signed weight of every candidate voter (0 if unused; negative = the complement voter).
    path_voters : ndarray of int64, shape (n_iter,)
        Voter updated at each iteration.
    path_deltas : ndarray of float64, shape (n_iter,)
        Change of that voter's weight at each iteration.
    risk : ndarray of float64, shape (n_iter + 1,)
        Quadratic risk ``(1/m) sum (y - F)^2`` before the first and after each iteration.
    objective : ndarray of float64, shape (n_iter + 1,)
        ``risk`` plus the penalty (eq. 7: ``2 lam ||alpha||_1``; eq. 8: ``lam ||alpha||_2^2``; none otherwise).
    stop_reason : str
        ``"n_iter"`` (budget used), ``"converged"`` (no voter lowers the objective by more than ``tol``; under L1
        this is the paper's "no voter has ``|mu_j - M_j| > lambda``"), or ``"exhausted"`` (``reweight=False`` and
        every voter is in the ensemble).
    """

    coef: np.ndarray
    path_voters: np.ndarray
    path_deltas: np.ndarray
    risk: np.ndarray
    objective: np.ndarray
    stop_reason: str

    @property
    def n_iter(self) -> int:
        return len(self.path_voters)

    @property
    def n_voters(self) -> int:
        """Distinct voters with a non-zero weight."""
        return int(np.count_nonzero(self.coef))

    def coef_at(self, n_iter) -> np.ndarray:
        """Weights after the first ``n_iter`` iterations (capped at the number actually run)."""
        coef = np.zeros_like(self.coef)
        t = min(int(n_iter), self.n_iter)
        np.add.at(coef, self.path_voters[:t], self.path_deltas[:t])
        return coef


def quadboost_path(
    H,
    y,
    *,
    n_iter,
    regularization=None,
    lam=0.0,
    alpha_max=None,
    reweight=True,
    tol=1e-12,
    log=None,
    sample_weight=None,
) -> QuadBoostPath:
    """Run QuadBoost on a fixed voter-output matrix.

    Parameters
    ----------
    H : ndarray of float32, shape (n_samples, n_voters)
        Voter outputs on the training rows, Fortran order (contiguous columns).
    y : ndarray of shape (n_samples,)
        Targets in {-1, +1}.
    n_iter : int
        Maximum number of iterations (voter updates).
    regularization : {None, "l1", "l2", "linf"}
    lam : float
        lambda of eq. 7 / eq. 8 (ignored otherwise).
    alpha_max : float
        Weight bound of eq. 9 (``"linf"`` only).
    reweight : bool
        Let voters already in the ensemble be updated again (Section 3.1).
    tol : float
        Stop when the best update lowers the objective by at most ``tol``.
    log : callable, optional
        Called as ``log(iteration, risk, objective, n_voters)`` after each iteration.
    sample_weight : ndarray of shape (n_samples,), optional
        Positive weights w. The risk becomes the w-weighted mean ``sum_k p_k (y_k - F_k)^2`` with
        ``p = w / sum(w)``, i.e. every inner product ``<a, b> = (1/m) sum_k a_k b_k`` of eqs. 3-5 becomes
        ``sum_k p_k a_k b_k``: ``mu_j = <y, h_j>_p``, ``eta_j = <h_j, h_j>_p`` (still 1 for +-1 voters),
        ``M_j = <F - alpha_j h_j, h_j>_p``. Eqs. 6-9 and the Section 3.1 update keep their form in these
        moments, and ``mu_j - M_j = <r, h_j>_p + alpha_j eta_j`` as before. None: ``p_k = 1/m``, computed by
        the unweighted formulas.

    Returns
    -------
    QuadBoostPath

    Notes
    -----
    Cost per iteration: one ``n_voters x n_samples`` float32 matrix-vector product ``H^T r`` (the moments
    ``mu_j - M_j`` of all voters at once) plus O(n_samples + n_voters) work. The winner's correlation is then
    recomputed in float64 from its column, so the step itself is exact.
    """
    if regularization not in REGULARIZATIONS:
        raise ValueError(f"unknown regularization {regularization!r}; known: {REGULARIZATIONS}")
    if regularization == "linf" and (alpha_max is None or alpha_max <= 0):
        raise ValueError(f"regularization='linf' needs alpha_max > 0, got {alpha_max!r}")
    m, n_voters = H.shape
    y = np.asarray(y, dtype=np.float64)
    Ht = H.T  # C-contiguous view when H is Fortran-ordered: BLAS gemv without a copy
    if sample_weight is None:
        p = None
        eta = np.einsum("ij,ij->j", H, H, dtype=np.float64) / m

        def mean_square(v):
            return float(v @ v) / m
    else:
        p = np.asarray(sample_weight, dtype=np.float64)
        p = p / p.sum()
        eta = np.einsum("ij,ij,i->j", H, H, p, dtype=np.float64)

        def mean_square(v):
            return float(p @ (v * v))

    alpha = np.zeros(n_voters)
    used = np.zeros(n_voters, dtype=bool)
    r = y.copy()
    risk = [mean_square(r)]
    objective = [risk[0]]
    current_penalty = 0.0
    path_voters, path_deltas = [], []
    stop_reason = "n_iter"
    if n_voters == 0:
        stop_reason = "exhausted"
        n_iter = 0
    eta_scalar = float(eta[0]) if n_voters and np.all(eta == eta[0]) else None
    eta_vec = eta if eta_scalar is None else eta_scalar  # scalar broadcasting is cheaper per iteration
    for it in range(n_iter):
        if p is None:
            g = (Ht @ r.astype(np.float32)).astype(np.float64)
            g /= m
        else:
            g = (Ht @ (p * r).astype(np.float32)).astype(np.float64)
        decrease = objective_decrease(g, alpha, eta_vec, regularization, lam, alpha_max)
        if not reweight:
            decrease[used] = -np.inf
        j = int(np.argmax(decrease))
        if decrease[j] == -np.inf:
            stop_reason = "exhausted"
            break
        h = H[:, j]
        # the winner's correlation, step and decrease again in float64, as Python scalars
        g_j = float(h @ r) / m if p is None else float(h @ (p * r))
        a_j, eta_j = float(alpha[j]), float(eta[j])
        if not objective_decrease(g_j, a_j, eta_j, regularization, lam, alpha_max) > tol:
            stop_reason = "converged"
            break
        new_a = float(optimal_weight(g_j + a_j * eta_j, eta_j, regularization, lam, alpha_max))
        delta = new_a - a_j
        r -= np.multiply(h, delta, dtype=np.float64)  # a Python float would keep float32 precision
        if regularization == "l1":
            current_penalty += 2.0 * lam * (abs(new_a) - abs(a_j))
        elif regularization == "l2":
            current_penalty += lam * (new_a * new_a - a_j * a_j)
        alpha[j] = new_a
        used[j] = True
        path_voters.append(j)
        path_deltas.append(delta)
        risk.append(mean_square(r))
        objective.append(risk[-1] + current_penalty)
        if log is not None:
            log(it + 1, risk[-1], objective[-1], int(np.count_nonzero(alpha)))
    return QuadBoostPath(
        coef=alpha,
        path_voters=np.asarray(path_voters, dtype=np.int64),
        path_deltas=np.asarray(path_deltas, dtype=np.float64),
        risk=np.asarray(risk),
        objective=np.asarray(objective),
        stop_reason=stop_reason,
    )
