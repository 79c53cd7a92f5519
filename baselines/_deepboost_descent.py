"""DeepBoost's coordinate descent (Cortes, Mohri and Syed, "Deep Boosting", ICML 2014, Figure 2), one binary problem.

The ensemble the descent builds (:class:`BoostedEnsemble`) and :func:`fit_binary`, the descent itself, which
:class:`mddf.baselines.DeepBoostClassifier` runs once (two classes) or per class (one-vs-rest); its losses,
complexity proxies, directions and steps are :mod:`._deepboost_steps`'s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from scipy.special import expit, log_expit

from ._deepboost_steps import (
    direction,
    loss_derivative_weights,
    loss_values,
    penalty_scale,
    rademacher_stump,
    rademacher_stump2,
    rademacher_tree,
    scaled_penalty,
    step_size,
)
from ._split_search import SplitSearch
from ._tree_growth import grow_stump_candidates, grow_tree_candidates
from ._weak import Tree, tree_feature_importances

#: An old hypothesis is preferred over a new one whose |d| is larger by less than this: it
#: revises an existing weight instead of adding a (near-)duplicate hypothesis.
TIE_TOL = 1e-12


# ----------------------------------------------------------------------------------------------
# One binary ensemble
# ----------------------------------------------------------------------------------------------


@dataclass(eq=False)
class BoostedEnsemble:
    """What one binary DeepBoost fit learned.

    Attributes
    ----------
    hypotheses : list of Tree
        Every hypothesis ever selected, in order of first selection (weights may be 0 now).
    rademacher, penalty, alpha : ndarray of shape (n_hypotheses,)
        r_j (eqs. 7-9), Lambda_j = lam r_j + beta (eq. 3) and the final weights alpha_{T,j}.
    selected, steps, errors, directions, normalizers, objective : ndarray of shape (n_rounds,)
        Per round t: the index k of the hypothesis updated, eta_t, eps_t, d_k, S_t (the sum of
        the unnormalised Phi' values used in round t, eq. 5) and F(alpha_t) after the step (eq. 4).
    is_new : ndarray of bool, shape (n_rounds,)
        Whether round t added a new hypothesis (True) or revised an old weight (False).
    importances : ndarray of shape (n_hypotheses, n_features)
        Per hypothesis, its normalised Gini decrease per feature under the distribution D_t of the
        round that selected it (:func:`tree_feature_importances`).
    stop_reason : str
        ``"n_iter"``, or ``"converged"`` when every candidate had d = 0 (0 is in the
        subdifferential of F along every coordinate searched).
    fit_seconds : float
    """

    hypotheses: list
    rademacher: np.ndarray
    penalty: np.ndarray
    alpha: np.ndarray
    selected: np.ndarray
    steps: np.ndarray
    errors: np.ndarray
    directions: np.ndarray
    normalizers: np.ndarray
    objective: np.ndarray
    is_new: np.ndarray
    stop_reason: str = "n_iter"
    fit_seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    importances: np.ndarray | None = None

    def feature_importances(self) -> np.ndarray:
        """sum_j |alpha_j| I_j / sum_j |alpha_j| over the hypotheses, I_j their ``importances``
        (zeros when no hypothesis has a non-zero weight and a positive impurity decrease)."""
        weights = np.abs(self.alpha)
        total = self.importances.T @ weights
        s = total.sum()
        return total / s if s > 0 else total

    @property
    def n_rounds(self) -> int:
        return len(self.steps)

    def alpha_after(self, n_rounds=None) -> np.ndarray:
        """Weights after the first ``n_rounds`` rounds (same summation order as in fit)."""
        n_rounds = self.n_rounds if n_rounds is None else min(n_rounds, self.n_rounds)
        alpha = np.zeros(len(self.hypotheses))
        np.add.at(alpha, self.selected[:n_rounds], self.steps[:n_rounds])
        return alpha

    def predictions(self, X) -> np.ndarray:
        """Hypothesis outputs, int8 array of shape (n_samples, n_hypotheses)."""
        out = np.empty((X.shape[0], len(self.hypotheses)), dtype=np.int8)
        has_nan = bool(np.isnan(X).any())
        for j, tree in enumerate(self.hypotheses):
            out[:, j] = tree.predict(X, has_nan)
        return out

    def decision_function(self, X) -> np.ndarray:
        return self.predictions(X) @ self.alpha

    def staged_decision_function(self, X):
        """f_t(X) after each round t = 1 .. n_rounds (each a new array); the last is :meth:`decision_function`'s, bit
        for bit (a sum in round order and the product with ``alpha`` round differently)."""
        preds = self.predictions(X)
        f = np.zeros(X.shape[0])
        last = len(self.selected) - 1
        for t, (k, eta) in enumerate(zip(self.selected, self.steps)):
            f = f + eta * preds[:, k]
            yield preds @ self.alpha if t == last else f

    def tree_stats(self, n_rounds=None) -> dict:
        """Number of trees with non-zero weight and their mean size after ``n_rounds`` rounds.

        Returns
        -------
        dict with ``n_trees``, ``avg_tree_size`` (all nodes, Tables 2-3), ``avg_internal`` and
        ``avg_questions`` (distinct questions, Table 1), ``avg_depth``.
        """
        alpha = self.alpha_after(n_rounds)
        live = [t for t, a in zip(self.hypotheses, alpha) if a != 0]
        if not live:
            return dict(n_trees=0, avg_tree_size=0.0, avg_internal=0.0, avg_questions=0.0, avg_depth=0.0)
        return dict(
            n_trees=len(live),
            avg_tree_size=float(np.mean([t.n_nodes for t in live])),
            avg_internal=float(np.mean([t.n_internal for t in live])),
            avg_questions=float(np.mean([t.n_questions for t in live])),
            avg_depth=float(np.mean([t.depth for t in live])),
        )


def fit_binary(
    X,
    y,
    binned,
    *,
    n_iter,
    max_depth,
    loss,
    lam,
    beta,
    base="trees",
    grow="last_layer",
    complexity="paper",
    n_features=None,
    verbose=0,
    label="",
    name="DeepBoost",
    sample_weight=None,
):
    """Run DeepBoost (Figure 2) on one binary problem.

    With sample weights w (all > 0; rows of weight 0 are dropped by the caller) the empirical
    average of eq. 4 becomes the w-weighted one and m becomes the total weight W = sum_i w_i:

        F(alpha) = 1/W sum_i w_i Phi(1 - y_i f(x_i)) + sum_j Lambda_j |alpha_j|.

    Its derivative along alpha_j is -(S_t / W)(1 - 2 eps_{t,j}) + Lambda_j sgn(alpha_j) with
    S_t = sum_i w_i Phi'(z_i) and eps_{t,j} the error under D_t(i) = w_i Phi'(z_i) / S_t, so
    eqs. 5-6, lines 5-9 (penalty Lambda_j W / (2 S_t)) and the step of lines 12-16 keep their
    form with m -> W: D_1 is proportional to w and every D_t carries w. The complexities r_j
    (eqs. 7-9) are evaluated at m = W, so integer weights give exactly the fit on repeated rows.

    Parameters
    ----------
    X : ndarray of shape (m, d), float32
    y : ndarray of shape (m,) in {-1, +1}
    binned : BinnedFeatures of X
    n_iter, max_depth, loss, lam, beta, base, grow, complexity
        See :class:`DeepBoostClassifier`.
    n_features : int, optional
        d in eqs. 7-9 (default: ``X.shape[1]``).
    verbose : int, default=0
        Prints a line every ``n_iter // 10`` rounds.
    label, name : str
        The log lines start with ``[{name}{label}]``: the estimator that runs and, one-vs-rest, the class.
    sample_weight : ndarray of shape (m,), optional
        Positive weights w (see above). None: unit weights, m = number of rows.

    Returns
    -------
    BoostedEnsemble
    """
    t0 = time.perf_counter()
    y = np.asarray(y, dtype=np.float64)
    search = SplitSearch(binned, y)
    rows = _RowWeights.of(sample_weight, X.shape[0])
    d = X.shape[1] if n_features is None else n_features
    penalties = _Penalties(lam, beta, rows.total, d, complexity)
    descent = _Descent(y, n_iter, X.shape[1], loss, rows)
    stop_reason = "n_iter"
    log_every = max(1, n_iter // 10)
    for t in range(n_iter):
        unit = penalty_scale(descent.log_s, rows.total)  # Lambda_j * unit = Lambda_j m / (2 S_t)
        if base == "trees":
            score = partial(penalties.score, unit=unit)
            cands = grow_tree_candidates(search, descent.D, max_depth, score, grow, copies=rows.copies)
        else:
            cands = grow_stump_candidates(search, descent.D, copies=rows.copies)
        move = descent.best_move(cands, unit, penalties)
        if move is None:
            stop_reason = "converged"
            break
        eta = descent.take(move, unit)
        if verbose and ((t + 1) % log_every == 0 or t + 1 == n_iter):
            seconds = time.perf_counter() - t0
            print(f"[{name}{label}] round {t + 1}/{n_iter}: {descent.progress(move, eta)} {seconds:.2f}s", flush=True)
    return descent.ensemble(stop_reason, time.perf_counter() - t0)


@dataclass(frozen=True)
class _RowWeights:
    """The sample weights w of one :func:`fit_binary` run, in the forms the descent uses.

    Attributes
    ----------
    weight : ndarray of float64 (m,) or None
        w; None: unit weights (the unweighted formulas).
    log : ndarray of float64 (m,) or None
        log w (:func:`loss_derivative_weights`); None with unit weights.
    total : int or float
        m of eqs. 4-9: W = sum_i w_i, or the number of rows with unit weights.
    copies : ndarray of float64 (m,) or None
        w when every weight is an integer, so that the split search counts a row as that many
        copies and ties as on repeated rows; else None.
    """

    weight: np.ndarray | None
    log: np.ndarray | None
    total: int | float
    copies: np.ndarray | None

    @classmethod
    def of(cls, sample_weight, n_rows):
        """The weights ``sample_weight`` (positive, or None for unit weights) of ``n_rows`` rows."""
        if sample_weight is None:
            return cls(None, None, n_rows, None)
        w = np.asarray(sample_weight, dtype=np.float64)
        # Integer weights are quantised as that many copies, so the split search ties as on repeated rows.
        return cls(w, np.log(w), float(w.sum()), w if np.all(w == np.rint(w)) else None)

    def mean(self, values):
        """The w-weighted mean of ``values`` (per row), as a float: the data term of eq. 4."""
        if self.weight is None:
            return float(values.mean())
        return float(self.weight @ values) / self.total


@dataclass(frozen=True)
class _Penalties:
    """Lambda_j = lam r_j + beta (eq. 3), with r_j of eqs. 7-9 at ``n_samples`` (m, or W) and ``n_features`` (d).

    Attributes
    ----------
    lam, beta : float
        See :class:`DeepBoostClassifier`.
    n_samples : int or float
        m of eqs. 7-9.
    n_features : int
        d of eqs. 7-9.
    convention : {"paper", "reference"}
        Eq. 9's convention (:func:`rademacher_tree`).
    """

    lam: float
    beta: float
    n_samples: int | float
    n_features: int
    convention: str

    def tree_rademacher(self, n_internal):
        """r of eq. 9 for trees with ``n_internal`` internal nodes (an int or an array of them)."""
        return rademacher_tree(n_internal, self.n_samples, self.n_features, self.convention)

    def rademacher(self, tree: Tree) -> float:
        """r_j of hypothesis ``tree``'s family: eq. 7 (stumps), 8 (two-level stumps) or 9 (trees)."""
        if tree.family == "stump":
            return float(rademacher_stump(self.n_samples, self.n_features))
        if tree.family == "stump2":
            return float(rademacher_stump2(self.n_samples, self.n_features))
        return float(self.tree_rademacher(tree.n_internal))

    def score(self, errors, n_internal, unit):
        """The score :func:`grow_tree_candidates` maximises: ``max(1/2 - eps - Lambda m / (2 S_t), 0)`` for new trees
        with weighted errors ``errors`` (eps) and ``n_internal`` internal nodes, |d| of lines 5-9 at alpha = 0 for
        an error below 1/2; ``unit`` is m / (2 S_t) (:func:`penalty_scale`)."""
        lam_j = self.lam * self.tree_rademacher(n_internal) + self.beta
        return np.maximum(0.5 - errors - scaled_penalty(lam_j, unit), 0.0)


@dataclass(frozen=True)
class _Move:
    """The coordinate one round of Figure 2 updates (line 10): a hypothesis already selected or a new one.

    Attributes
    ----------
    error : float
        eps_{t,k}, its weighted error under D_t (eq. 6).
    direction : float
        d_k (lines 5-9), non-zero.
    old : int or None
        The index of the hypothesis whose weight is revised; None for a new one.
    new : Candidate or None
        The new hypothesis (its tree, training outputs and leaf totals); None for an old one.
    rademacher, penalty : float
        r_k and Lambda_k of the new hypothesis (0 for an old one).
    """

    error: float
    direction: float
    old: int | None = None
    new: object = None
    rademacher: float = 0.0
    penalty: float = 0.0


class _Descent:
    """DeepBoost's coordinate descent (Figure 2) on one binary problem: its state after each round.

    Parameters
    ----------
    y : ndarray of float64 (m,) in {-1, +1}
    n_iter : int
        The most rounds, hence the most hypotheses.
    n_features_in : int
        Columns of X (the width of the hypotheses' importances).
    loss : {"exponential", "logistic"}
    rows : _RowWeights

    Attributes
    ----------
    H : ndarray of float64 (m, capacity), Fortran order
        Outputs of the hypotheses on the training rows, one column each, cached so that the
        errors of all old hypotheses are one matrix-vector product per round. Column-major so
        the active block is contiguous; float64 so that old and new errors are computed
        identically. Capacity doubles on demand: memory follows the number of distinct hypotheses.
    hypotheses : list of Tree
        Every hypothesis selected so far, in order of first selection.
    rademacher, penalty, alpha : ndarray of float64 (n_iter,)
        r_j, Lambda_j and alpha_j of hypothesis j (the first ``len(hypotheses)`` entries).
    importances : list of ndarray (n_features_in,)
        Per hypothesis, its importances under the D_t of the round that selected it.
    f : ndarray of float64 (m,)
        The ensemble's output on the training rows.
    D, log_s : ndarray (m,), float
        D_t and log S_t of the next round (eq. 5, :func:`loss_derivative_weights`).
    history : dict of lists
        Per round, what :class:`BoostedEnsemble` keeps: ``selected``, ``steps``, ``errors``,
        ``directions``, ``normalizers``, ``objective``, ``is_new``.
    """

    def __init__(self, y, n_iter, n_features_in, loss, rows):
        self.y, self.n_iter, self.n_features_in, self.loss, self.rows = y, n_iter, n_features_in, loss, rows
        self.H = np.zeros((len(y), min(n_iter, 32)), dtype=np.float64, order="F")
        self.hypotheses, self.importances = [], []
        self.rademacher, self.penalty, self.alpha = np.zeros(n_iter), np.zeros(n_iter), np.zeros(n_iter)
        keys = ("selected", "steps", "errors", "directions", "normalizers", "objective", "is_new")
        self.history = {k: [] for k in keys}
        self.f = np.zeros(len(y))
        self.D, self.log_s = loss_derivative_weights(1.0 - y * self.f, loss, rows.log)

    def best_move(self, cands, unit, penalties):
        """The coordinate of largest |d| among the new candidates ``cands`` and the old hypotheses, or None
        when every d is 0 (lines 5-10); on a tie the old hypothesis wins. ``unit`` is m / (2 S_t)."""
        n_h = len(self.hypotheses)
        Dy = self.D * self.y
        # Errors of new and old hypotheses computed the same way (eq. 6), so that a new
        # candidate identical to an old hypothesis ties with it exactly.
        new_err = np.array([0.5 * (1.0 - Dy @ c.train_pred) for c in cands])
        new_rad = np.array([penalties.rademacher(c.tree) for c in cands])
        new_pen = penalties.lam * new_rad + penalties.beta
        d_new = direction(new_err, 0.0, scaled_penalty(new_pen, unit))
        if n_h:
            old_err = 0.5 * (1.0 - Dy @ self.H[:, :n_h])
            d_old = direction(old_err, self.alpha[:n_h], scaled_penalty(self.penalty[:n_h], unit))
        else:
            d_old = np.zeros(0)
        i_new = int(np.argmax(np.abs(d_new))) if len(cands) else -1
        i_old = int(np.argmax(np.abs(d_old))) if n_h else -1
        use_old = n_h > 0 and (i_new < 0 or abs(d_old[i_old]) >= abs(d_new[i_new]) - TIE_TOL)
        best_d = d_old[i_old] if use_old else (d_new[i_new] if i_new >= 0 else 0.0)
        if best_d == 0.0:
            return None
        if use_old:
            return _Move(float(old_err[i_old]), float(best_d), old=i_old)
        new = dict(new=cands[i_new], rademacher=new_rad[i_new], penalty=new_pen[i_new])
        return _Move(float(new_err[i_new]), float(best_d), **new)

    def take(self, move, unit):
        """Take the step of lines 12-16 along ``move`` (adding its hypothesis if new), update f, D_t and S_t,
        and record the round; returns eta_t."""
        k = move.old if move.new is None else self._add(move)
        eta = step_size(move.error, self.alpha[k], 2.0 * float(scaled_penalty(self.penalty[k], unit)))
        self.alpha[k] += eta
        self.f += eta * self.H[:, k]
        rounds = self.history
        rounds["selected"].append(k)
        rounds["steps"].append(eta)
        rounds["errors"].append(move.error)
        rounds["directions"].append(move.direction)
        rounds["normalizers"].append(float(np.exp(self.log_s)))
        rounds["is_new"].append(move.new is not None)
        z = 1.0 - self.y * self.f
        self.D, self.log_s = loss_derivative_weights(z, self.loss, self.rows.log)
        n_h = len(self.hypotheses)
        rounds["objective"].append(
            self.rows.mean(loss_values(z, self.loss)) + float(self.penalty[:n_h] @ np.abs(self.alpha[:n_h]))
        )
        return eta

    def _add(self, move):
        """Add the new hypothesis of ``move`` (its outputs to ``H``, growing it if full); returns its index."""
        cand, k = move.new, len(self.hypotheses)
        self.hypotheses.append(cand.tree)
        self.importances.append(tree_feature_importances(cand.tree, cand.leaf_totals, self.n_features_in))
        if k == self.H.shape[1]:
            grown = np.zeros((len(self.y), min(self.H.shape[1], self.n_iter - k)))
            self.H = np.asfortranarray(np.hstack([self.H, grown]))
        self.H[:, k] = cand.train_pred
        self.rademacher[k], self.penalty[k] = move.rademacher, move.penalty
        return k

    def progress(self, move, eta):
        """``F=... eps=... eta=... trees=...``: the last round, for the verbose log line."""
        live = int(np.count_nonzero(self.alpha[: len(self.hypotheses)]))
        return f"F={self.history['objective'][-1]:.6g} eps={move.error:.4f} eta={eta:+.4f} trees={live}"

    def ensemble(self, stop_reason, fit_seconds):
        """The :class:`BoostedEnsemble` of the rounds taken."""
        n_h = len(self.hypotheses)
        rounds = self.history
        return BoostedEnsemble(
            hypotheses=self.hypotheses,
            rademacher=self.rademacher[:n_h].copy(),
            penalty=self.penalty[:n_h].copy(),
            alpha=self.alpha[:n_h].copy(),
            selected=np.array(rounds["selected"], dtype=np.int64),
            steps=np.array(rounds["steps"], dtype=np.float64),
            errors=np.array(rounds["errors"], dtype=np.float64),
            directions=np.array(rounds["directions"], dtype=np.float64),
            normalizers=np.array(rounds["normalizers"], dtype=np.float64),
            objective=np.array(rounds["objective"], dtype=np.float64),
            is_new=np.array(rounds["is_new"], dtype=bool),
            stop_reason=stop_reason,
            fit_seconds=fit_seconds,
            importances=np.array(self.importances).reshape(n_h, self.n_features_in),
        )


# ----------------------------------------------------------------------------------------------
# The scikit-learn estimator
# ----------------------------------------------------------------------------------------------


def proba_positive(f, loss):
    """P(y = +1 | x) at the population minimiser of the loss (not a calibrated estimate).

    Exponential: minimising p e^{1-f} + (1-p) e^{1+f} gives f = logit(p) / 2, so p = expit(2 f).
    Logistic: the stationarity condition p sigma(1 - f) = (1 - p) sigma(1 + f) gives
    p = sigma(1 + f) / (sigma(1 + f) + sigma(1 - f)).
    """
    if loss == "exponential":
        return expit(2.0 * f)
    a, b = log_expit(1.0 + f), log_expit(1.0 - f)
    return np.exp(a - np.logaddexp(a, b))
