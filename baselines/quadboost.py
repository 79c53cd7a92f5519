"""QuadBoost: boosting with the quadratic loss and L1 / L2 / L-infinity regularised weights.

Roy, Marchand and Laviolette, "A general risk bound for ensembles ... QuadBoost" (see
``/work/shared/papers/quadboost-lp-risk-bound.txt``). The public reference implementation (``jsleb333/quadboost``)
has no regularised variant; the L1, L2 and L-infinity versions here follow the paper's equations 7-9 and the
re-weighting of Section 3.1.
"""

from __future__ import annotations

from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from mddf.utils import (
    CATEGORICAL_FEATURES_CONSTRAINT,
    SaveMixin,
    check_label_types,
    check_sample_weight,
    check_weighted_classes,
    validate_tabular,
)

from ._labels import plain_label
from ._quadboost_solver import QuadBoostPath, quadboost_path
from ._quadboost_voters import THRESHOLD_PLACEMENTS, StumpPool, fit_stump_pool


@contextmanager
def _finite_arithmetic(X):
    """Turn a float64 overflow while normalising or thresholding ``X`` into a clear ``ValueError``.

    Validation rejects infinity (NaN is a missing value), but finite values near the float64 limit (say 1e300) still
    overflow in the training mean and variance or in the threshold grid; without this check the fit would
    go on with infinite statistics and predict a single class.
    """
    try:
        with np.errstate(over="raise", invalid="raise"):
            yield
    except FloatingPointError as exc:
        largest = float(np.max(np.abs(X))) if X.size else 0.0
        raise ValueError(
            f"X holds values too large for QuadBoostClassifier (largest magnitude {largest:.3g}): normalising "
            f"the features overflows float64 ({exc}). Rescale the features, e.g. with StandardScaler."
        ) from exc


#: Total sample weight beyond which the weights are scaled down (exactly, by a power of two) before the fit,
#: so that the weighted sums of the pool and the solver cannot overflow.
_LARGEST_TOTAL_WEIGHT = 2.0**512

VOTER_DTYPE = np.dtype(
    [
        ("problem", np.int64),
        ("feature", np.int64),
        ("threshold", np.float64),
        ("raw_threshold", np.float64),
        ("sign", np.int8),
        ("weight", np.float64),
    ]
)


class QuadBoostClassifier(SaveMixin, ClassifierMixin, BaseEstimator):
    """QuadBoost (Section 3): greedy minimisation of the quadratic risk over decision stumps.

    At each iteration the stump maximising ``|mu_j - M_j|`` (eq. 3-5) receives the weight of eq. 6 (vanilla),
    7 (L1), 8 (L2) or 9 (L-infinity). With ``reweight_voters=True`` (Section 3.1) a stump already in the ensemble
    can be chosen again and its weight revised, so the procedure is coordinate descent over all stumps; under L1 a
    weight can then return to exactly 0. The voters are the stumps of Section 4: ``n_thresholds`` per attribute
    and their complements, on attributes normalised by a hyperbolic tangent fitted on the training set (see
    the docstring of ``baselines/_quadboost_voters.py`` for how we read that section).

    Labels are mapped to -1 / +1 (``classes_[0]`` -> -1). With more than two classes the estimator trains one
    binary QuadBoost per class (one-vs-rest, target +1 for the class and -1 otherwise) on the same stumps, and
    predicts the class with the largest output.

    Parameters
    ----------
    n_iter : int, default=100
        Maximum number of iterations ``T`` (one voter added or re-weighted per iteration). L1 usually stops by
        itself before: when no voter has ``|mu_j - M_j| > lam`` and no weight can be improved.
    regularization : {None, "l1", "l2", "linf"}, default="l1"
        ``None``: vanilla (eq. 6); ``"l1"``: eq. 7, objective ``R + 2 lam ||alpha||_1``; ``"l2"``: eq. 8, objective
        ``R + lam ||alpha||_2^2`` (the objective eq. 8 is the minimiser of); ``"linf"``: eq. 9, ``|alpha_j| <=
        alpha_max``.
    lam : float, default=0.01
        ``lambda`` of eq. 7 / eq. 8. Ignored by the vanilla and L-infinity variants.
    alpha_max : float, default=0.1
        Weight bound of eq. 9. Used only with ``regularization="linf"``.
    n_thresholds : int, default=10
        Stumps per attribute (complements come on top, as sign flips).
    threshold_placement : {"range", "quantile"}, default="range"
        ``"range"``: evenly spaced strictly inside the attribute's normalised training range; ``"quantile"``: at
        the ``k / (n_thresholds + 1)`` training quantiles.
    normalization : {"tanh", None}, default="tanh"
        ``"tanh"``: ``tanh((x - mean) / std)`` with the training mean and standard deviation (Section 4).
    reweight_voters : bool, default=True
        Allow re-weighting voters already in the ensemble (Section 3.1). ``False``: every voter is added once with
        its eq. 6-9 weight and never revised.
    tol : float, default=1e-12
        Stop when the best update lowers the training objective by at most ``tol``.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Categorical columns of X, as in scikit-learn's ``HistGradientBoostingClassifier``
        (``"from_dtype"``: pandas ``category``, string and ``object`` (strings) columns). Each is
        replaced in place by ordinal codes 0 .. k-1 (float64) of the categories seen in training (a
        ``category`` dtype's order kept, other values sorted); missing values and unseen categories
        become NaN (rejected like any NaN). The stumps threshold the codes like numbers.
    random_state : int, RandomState instance or None, default=None
        Breaks ties between equally good stumps (the candidate order is shuffled once per fit).
    verbose : int, default=0
        Print one line every ``max(1, n_iter // 10)`` iterations when positive.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.
    is_categorical_ : ndarray of bool ``(n_features_in_,)`` or None
        The categorical columns; None when there is none.
    categories_ : list or None
        Per column, a categorical column's categories in code order (None for a numeric one).
    pool_ : StumpPool
        Candidate stumps (attribute, threshold on the normalised scale) and the fitted normalisation.
    n_candidate_voters_ : int
        Number of candidate stumps (complements not counted; stumps splitting the training set identically merged).
    ensembles_ : list of QuadBoostPath
        One per binary problem (one for two classes, one per class otherwise): final weights over the candidate
        stumps, the voter updated and the weight change at every iteration, and risk / objective per iteration.
    coef_ : ndarray of shape ``(n_problems, n_candidate_voters_)``
        Signed weights over the candidate stumps; a negative weight is the complement stump with a positive one.
    voters_ : structured ndarray
        One row per selected voter and problem, in order of first selection, with fields ``problem``, ``feature``,
        ``threshold`` (normalised scale), ``raw_threshold`` (original scale: the stump is ``+1`` where
        ``x > raw_threshold``), ``sign`` (+1 stump, -1 its complement) and ``weight`` (> 0).
    voter_weights_ : ndarray
        ``voters_["weight"]``.
    n_voters_ : int
        Distinct stumps with a non-zero weight (over all problems).
    n_iter_ : int
        Iterations run (the largest over the problems).
    train_risk_ : ndarray of shape ``(n_iter_ + 1,)``
        Quadratic risk on the training set before the first and after each iteration (averaged over the
        one-vs-rest problems when there are more than two classes).
    train_objective_ : ndarray of shape ``(n_iter_ + 1,)``
        ``train_risk_`` plus the penalty (``2 lam ||alpha||_1`` for L1, ``lam ||alpha||_2^2`` for L2).
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        Impurity-based importances with the (weighted) quadratic risk as the impurity: the decrease of the
        training objective (risk plus penalty, eqs. 6-9) achieved by each iteration is credited to the attribute
        of the stump it updated, the totals are divided by their sum; one-vs-rest: the mean over the problems,
        renormalised. Non-negative (every iteration lowers the objective) and summing to 1 (all zeros only if no
        iteration ran). Like scikit-learn's gradient boosting, an update that a later L1 step undoes still
        counts.

    Notes
    -----
    Probabilities: the quadratic loss makes the output ``F(x)`` an estimate of ``E[y | x] = 2 P(y=+1 | x) - 1``,
    so ``predict_proba`` returns ``clip((1 + F) / 2, 0, 1)`` for two classes. With more classes it normalises the
    one-vs-rest estimates ``max(1 + F_k, 0)``; rows where every ``F_k <= -1`` put all mass on the largest ``F_k``.

    Missing values: NaN is accepted in ``fit`` and at prediction. A stump abstains (outputs 0) on a row whose
    attribute is missing, so the voters take values in {-1, 0, +1}, inside the [-1, 1] range the paper's risk
    bound and quadratic-risk derivation allow, and the voter class stays symmetric (the complement abstains
    too). In the quadratic risk such a voter simply does not move ``F`` on that row: ``eta_j = <h_j, h_j>``
    (eq. 5) is then the (weighted) fraction of rows where the attribute is present, and eqs. 6-9 use it as
    written (the greedy choice maximises the decrease ``(mu_j - M_j)^2 / eta_j``, which for ``eta_j = 1`` is the
    paper's ``|mu_j - M_j|`` rule). The normalisation statistics and thresholds are computed over the present
    values of each attribute; an attribute without any value at training gets no stumps.

    Memory: the voter outputs are held as a float32 matrix of ``n_samples x n_candidate_voters_`` (at most
    ``n_samples * n_features * n_thresholds * 4`` bytes).
    """

    _parameter_constraints: dict = {
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "regularization": [StrOptions({"l1", "l2", "linf"}), None],
        "lam": [Interval(Real, 0, None, closed="left")],
        "alpha_max": [Interval(Real, 0, None, closed="neither")],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "threshold_placement": [StrOptions(set(THRESHOLD_PLACEMENTS))],
        "normalization": [StrOptions({"tanh"}), None],
        "reweight_voters": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        n_iter=100,
        regularization="l1",
        lam=0.01,
        alpha_max=0.1,
        n_thresholds=10,
        threshold_placement="range",
        normalization="tanh",
        reweight_voters=True,
        tol=1e-12,
        categorical_features="from_dtype",
        random_state=None,
        verbose=0,
    ):
        self.n_iter = n_iter
        self.regularization = regularization
        self.lam = lam
        self.alpha_max = alpha_max
        self.n_thresholds = n_thresholds
        self.threshold_placement = threshold_placement
        self.normalization = normalization
        self.reweight_voters = reweight_voters
        self.tol = tol
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the ensemble.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Finite values or NaN (missing; see Notes). Infinity and values whose normalisation overflows
            float64 are rejected. Categorical columns are ordinal-encoded (see ``categorical_features``;
            unseen categories are missing values).
        y : array-like of shape (n_samples,)
            At least two distinct labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights w, at least one positive. The quadratic risk becomes the w-weighted
            mean ``sum_k p_k (y_k - F(x_k))^2``, ``p = w / sum(w)``: every inner product of eqs. 3-5 is taken
            under ``p`` and eqs. 6-9 keep their form; the stump pool's normalisation and placement are weighted
            too. An integer weight acts as repeated rows, and a common factor changes nothing (but for the
            ``"quantile"`` placement). Rows of weight 0 are dropped. See :ref:`the user guide <sample-weights>`.

        Returns
        -------
        self
        """
        check_label_types(y, estimator_name=type(self).__name__)
        X, y = validate_tabular(self, X, y, reset=True, dtype=np.float64, ensure_all_finite="allow-nan")
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least two classes in y; "
                f"got one class: {plain_label(self.classes_[0])!r}"
            )
        rng = check_random_state(self.random_state)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X, estimator_name=type(self).__name__)
            if np.all(sample_weight == 1.0):
                sample_weight = None
            else:
                check_weighted_classes(y_codes, sample_weight, self.classes_, estimator_name=type(self).__name__)
                keep = sample_weight > 0
                X, y_codes, sample_weight = X[keep], y_codes[keep], sample_weight[keep]
                with np.errstate(over="ignore"):
                    total = sample_weight.sum()
                if not total <= _LARGEST_TOTAL_WEIGHT:
                    # so large that weighted sums overflow: scaled exactly (by a power of two) to a largest
                    # weight in [1/2, 1); the frequency reading of the quantiles is moot at such totals
                    sample_weight = np.ldexp(sample_weight, -np.frexp(sample_weight.max())[1])

        with _finite_arithmetic(X):
            pool = fit_stump_pool(
                X, self.n_thresholds, self.threshold_placement, self.normalization, sample_weight=sample_weight
            )
            # a fixed random order of the candidates decides ties (argmax keeps the first maximum)
            order = rng.permutation(pool.n_voters)
            self.pool_ = StumpPool(pool.features[order], pool.thresholds[order], pool.offset, pool.scale)
            self.n_candidate_voters_ = self.pool_.n_voters
            H = self.pool_.voter_matrix(self.pool_.normalize(X))

        if len(self.classes_) == 2:
            targets = [np.where(y_codes == 1, 1.0, -1.0)]
        else:
            targets = [np.where(y_codes == k, 1.0, -1.0) for k in range(len(self.classes_))]
        self.ensembles_ = [
            quadboost_path(
                H,
                t,
                n_iter=self.n_iter,
                regularization=self.regularization,
                lam=self.lam,
                alpha_max=self.alpha_max,
                reweight=self.reweight_voters,
                tol=self.tol,
                log=self._logger(k) if self.verbose else None,
                sample_weight=sample_weight,
            )
            for k, t in enumerate(targets)
        ]
        self._summarise()
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @property
    def feature_importances_(self):
        """Objective-decrease importances (see the class docstring)."""
        check_is_fitted(self)
        per_problem = []
        for p in self.ensembles_:
            gain = np.maximum(-np.diff(p.objective), 0.0)
            imp = np.bincount(self.pool_.features[p.path_voters], weights=gain, minlength=self.n_features_in_)
            total = imp.sum()
            per_problem.append(imp / total if total > 0 else imp)
        imp = np.mean(per_problem, axis=0)
        total = imp.sum()
        return imp / total if total > 0 else imp

    def _logger(self, problem):
        every = max(1, self.n_iter // 10)
        name = "" if len(self.classes_) == 2 else f"class {plain_label(self.classes_[problem])!r} vs rest: "

        def log(it, risk, objective, n_voters):
            if it % every == 0:
                print(
                    f"[QuadBoost] {name}iter {it:>6}  risk {risk:.6f}  objective {objective:.6f}  voters {n_voters}",
                    flush=True,
                )

        return log

    def _summarise(self):
        paths = self.ensembles_
        self.coef_ = np.vstack([p.coef for p in paths])
        self.n_voters_ = int(np.count_nonzero(np.any(self.coef_ != 0, axis=0)))
        self.n_iter_ = max(p.n_iter for p in paths)
        # a problem that stopped early keeps its last value for the remaining stages
        self.train_risk_ = np.mean([_pad(p.risk, self.n_iter_ + 1) for p in paths], axis=0)
        self.train_objective_ = np.mean([_pad(p.objective, self.n_iter_ + 1) for p in paths], axis=0)
        rows = []
        for k, p in enumerate(paths):
            voters = _first_selection_order(p)
            voters = voters[p.coef[voters] != 0]
            w = p.coef[voters]
            rows.append(
                np.rec.fromarrays(
                    [
                        np.full(len(voters), k),
                        self.pool_.features[voters],
                        self.pool_.thresholds[voters],
                        self.pool_.raw_thresholds(voters),
                        np.sign(w).astype(np.int8),
                        np.abs(w),
                    ],
                    dtype=VOTER_DTYPE,
                )
            )
        self.voters_ = np.concatenate(rows).view(np.ndarray)
        self.voter_weights_ = self.voters_["weight"].copy()

    def _problem_outputs(self, X, coef):
        """``F`` for each binary problem: (n_samples, n_problems)."""
        active = np.flatnonzero(np.any(coef != 0, axis=0))
        if len(active) == 0:
            return np.zeros((len(X), coef.shape[0]))
        with _finite_arithmetic(X):
            H = self.pool_.voter_matrix(self.pool_.normalize(X), active)
        return H.astype(np.float64) @ coef[:, active].T

    def _validated(self, X):
        check_is_fitted(self)
        return validate_tabular(self, X, reset=False, dtype=np.float64, ensure_all_finite="allow-nan")

    def _to_decision(self, F):
        return F[:, 0] if len(self.classes_) == 2 else F

    def decision_function(self, X):
        """Weighted vote ``F(x) = sum_j alpha_j h_j(x)``.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means ``classes_[1]``), else (n_samples, n_classes).
        """
        X = self._validated(X)
        return self._to_decision(self._problem_outputs(X, self.coef_))

    def _decision_at(self, X, n_iters):
        """Decision function after each of the given iteration counts (for cross-validating ``T`` in one fit).

        Equals ``decision_function`` of the same estimator fitted with ``n_iter=t``, because an iteration never
        depends on the budget.

        Returns
        -------
        list of ndarray, one per entry of ``n_iters``
        """
        X = self._validated(X)
        return [
            self._to_decision(self._problem_outputs(X, np.vstack([p.coef_at(t) for p in self.ensembles_])))
            for t in n_iters
        ]

    def staged_decision_function(self, X):
        """Decision function after each iteration, 1 to ``n_iter_`` (generator)."""
        X = self._validated(X)
        used = np.unique(np.concatenate([p.path_voters for p in self.ensembles_]))
        with _finite_arithmetic(X):
            H = self.pool_.voter_matrix(self.pool_.normalize(X), used).astype(np.float64)
        column = np.full(self.n_candidate_voters_, -1)
        column[used] = np.arange(len(used))
        F = np.zeros((len(X), len(self.ensembles_)))
        for t in range(self.n_iter_):
            for k, p in enumerate(self.ensembles_):
                if t < p.n_iter:
                    F[:, k] += p.path_deltas[t] * H[:, column[p.path_voters[t]]]
            yield self._to_decision(F.copy())

    def predict(self, X):
        """Class of the weighted vote: ``sgn(F)`` for two classes (``sgn(0) = -1``, Section 2), else ``argmax``."""
        return self._predict_from_decision(self.decision_function(X))

    def _predict_from_decision(self, decision):
        if decision.ndim == 1:
            return self.classes_[(decision > 0).astype(np.intp)]
        return self.classes_[np.argmax(decision, axis=1)]

    def staged_predict(self, X):
        """Predicted classes after each iteration (generator)."""
        for decision in self.staged_decision_function(X):
            yield self._predict_from_decision(decision)

    def predict_proba(self, X):
        """Class probabilities read off the quadratic-loss output (see Notes).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return _proba_from_decision(self.decision_function(X))


def _pad(values, length):
    return np.concatenate([values, np.full(length - len(values), values[-1])])


def _first_selection_order(path: QuadBoostPath) -> np.ndarray:
    voters, first = np.unique(path.path_voters, return_index=True)
    return voters[np.argsort(first)]


def _proba_from_decision(decision):
    if decision.ndim == 1:
        p1 = np.clip((1.0 + decision) / 2.0, 0.0, 1.0)
        return np.column_stack([1.0 - p1, p1])
    mass = np.maximum(1.0 + decision, 0.0)
    total = mass.sum(axis=1, keepdims=True)
    none = total[:, 0] == 0
    if np.any(none):
        top = decision[none] == decision[none].max(axis=1, keepdims=True)
        mass[none] = top
        total[none] = top.sum(axis=1, keepdims=True)
    return mass / total
