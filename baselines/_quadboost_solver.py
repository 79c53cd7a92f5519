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
    _, n_voters = H.shape
    y = np.asarray(y, dtype=np.float64)
    rule = _Regularizer(regularization, lam, alpha_max)
    path = _Path(y, _Moments.of(H, sample_weight), rule)
    stop_reason = "n_iter"
    if n_voters == 0:
        stop_reason = "exhausted"
        n_iter = 0
    for it in range(n_iter):
        j = path.best_voter(reweight)
        if j is None:
            stop_reason = "exhausted"
            break
        if not path.update(j, tol):
            stop_reason = "converged"
            break
        if log is not None:
            log(it + 1, path.risk[-1], path.objective[-1], int(np.count_nonzero(path.alpha)))
    return path.result(stop_reason)


@dataclass(frozen=True)
class _Regularizer:
    """The regularisation of one run and the per-voter formulas it leads to (eqs. 6-9).

    Attributes
    ----------
    kind : {None, "l1", "l2", "linf"}
    lam : float
        lambda of eq. 7 / eq. 8.
    alpha_max : float or None
        Bound of eq. 9.
    """

    kind: str | None
    lam: float
    alpha_max: float | None

    def decrease(self, g, alpha, eta):
        """:func:`objective_decrease` of voters with correlations ``g``, weights ``alpha`` and ``eta``."""
        return objective_decrease(g, alpha, eta, self.kind, self.lam, self.alpha_max)

    def weight(self, c, eta):
        """:func:`optimal_weight` of a voter with ``c = mu_j - M_j`` and ``eta``."""
        return optimal_weight(c, eta, self.kind, self.lam, self.alpha_max)

    def penalty_change(self, old, new):
        """How much the penalty grows when a weight moves from ``old`` to ``new`` (0 without L1 or L2)."""
        if self.kind == "l1":
            return 2.0 * self.lam * (abs(new) - abs(old))
        if self.kind == "l2":
            return self.lam * (new * new - old * old)
        return 0.0


@dataclass(frozen=True)
class _Moments:
    """The inner products of eqs. 3-5 on the training rows: ``<a, b> = (1/m) sum_k a_k b_k``, or
    ``sum_k p_k a_k b_k`` with the normalised sample weights ``p`` (see :func:`quadboost_path`).

    Attributes
    ----------
    H : ndarray of float32, shape (n_samples, n_voters)
        Voter outputs, Fortran order.
    p : ndarray of float64 (n_samples,) or None
        ``w / sum(w)``; None: ``1/m`` each, computed by the unweighted formulas.
    eta : ndarray of float64 (n_voters,)
        ``eta_j = <h_j, h_j>`` (eq. 5).
    """

    H: np.ndarray
    p: np.ndarray | None
    eta: np.ndarray

    @classmethod
    def of(cls, H, sample_weight):
        """The moments of ``H`` under ``sample_weight`` (positive weights, or None)."""
        if sample_weight is None:
            return cls(H, None, np.einsum("ij,ij->j", H, H, dtype=np.float64) / H.shape[0])
        p = np.asarray(sample_weight, dtype=np.float64)
        p = p / p.sum()
        return cls(H, p, np.einsum("ij,ij,i->j", H, H, p, dtype=np.float64))

    @property
    def broadcast_eta(self):
        """``eta`` as one float when every voter has the same (scalar broadcasting is cheaper per iteration)."""
        eta = self.eta
        return float(eta[0]) if len(eta) and np.all(eta == eta[0]) else eta

    def mean_square(self, v):
        """``<v, v>`` as a float: the quadratic risk of the residual ``v``."""
        return float(v @ v) / self.H.shape[0] if self.p is None else float(self.p @ (v * v))

    def correlations(self, r):
        """``<r, h_j>`` of every voter, in float64 from one float32 matrix-vector product ``H^T r``."""
        Ht = self.H.T  # C-contiguous view when H is Fortran-ordered: BLAS gemv without a copy
        if self.p is None:
            g = (Ht @ r.astype(np.float32)).astype(np.float64)
            g /= self.H.shape[0]
            return g
        return (Ht @ (self.p * r).astype(np.float32)).astype(np.float64)

    def correlation(self, h, r):
        """``<r, h>`` of one voter's outputs ``h``, in float64, as a Python float."""
        return float(h @ r) / self.H.shape[0] if self.p is None else float(h @ (self.p * r))


class _Path:
    """The ensemble of one QuadBoost run after each iteration, and the path that led to it.

    Parameters
    ----------
    y : ndarray of float64 (n_samples,)
        Targets in {-1, +1}.
    moments : _Moments
    rule : _Regularizer

    Attributes
    ----------
    alpha : ndarray of float64 (n_voters,)
        The voters' weights.
    used : ndarray of bool (n_voters,)
        The voters updated at least once.
    r : ndarray of float64 (n_samples,)
        The residual ``y - F``.
    risk, objective : list of float
        The quadratic risk and it plus the penalty, before the first and after each iteration.
    penalty : float
        The current penalty.
    voters, deltas : list
        Per iteration, the voter updated and the change of its weight.
    """

    def __init__(self, y, moments, rule):
        self.moments, self.rule = moments, rule
        self.eta = moments.broadcast_eta
        self.alpha = np.zeros(moments.H.shape[1])
        self.used = np.zeros(moments.H.shape[1], dtype=bool)
        self.r = y.copy()
        self.risk = [moments.mean_square(self.r)]
        self.objective = [self.risk[0]]
        self.penalty = 0.0
        self.voters, self.deltas = [], []

    def best_voter(self, reweight):
        """The voter whose update lowers the objective most, by the float32 correlations; None when
        no voter may be updated (``reweight=False`` and every voter used)."""
        decrease = self.rule.decrease(self.moments.correlations(self.r), self.alpha, self.eta)
        if not reweight:
            decrease[self.used] = -np.inf
        j = int(np.argmax(decrease))
        return None if decrease[j] == -np.inf else j

    def update(self, j, tol):
        """Move voter ``j``'s weight to its optimum (eqs. 6-9, Section 3.1) and record the iteration, unless
        that lowers the objective by at most ``tol``; returns whether it did."""
        h = self.moments.H[:, j]
        # the winner's correlation, step and decrease again in float64, as Python scalars
        g_j = self.moments.correlation(h, self.r)
        a_j, eta_j = float(self.alpha[j]), float(self.moments.eta[j])
        if not self.rule.decrease(g_j, a_j, eta_j) > tol:
            return False
        new_a = float(self.rule.weight(g_j + a_j * eta_j, eta_j))
        delta = new_a - a_j
        self.r -= np.multiply(h, delta, dtype=np.float64)  # a Python float would keep float32 precision
        self.penalty += self.rule.penalty_change(a_j, new_a)
        self.alpha[j] = new_a
        self.used[j] = True
        self.voters.append(j)
        self.deltas.append(delta)
        self.risk.append(self.moments.mean_square(self.r))
        self.objective.append(self.risk[-1] + self.penalty)
        return True

    def result(self, stop_reason):
        """The :class:`QuadBoostPath` of the iterations taken."""
        return QuadBoostPath(
            coef=self.alpha,
            path_voters=np.asarray(self.voters, dtype=np.int64),
            path_deltas=np.asarray(self.deltas, dtype=np.float64),
            risk=np.asarray(self.risk),
            objective=np.asarray(self.objective),
            stop_reason=stop_reason,
        )
