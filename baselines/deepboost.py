"""DeepBoost (Cortes, Mohri and Syed, "Deep Boosting", ICML 2014), Figure 2.

Coordinate descent on the objective (eq. 4)

    F(alpha) = 1/m sum_i Phi(1 - y_i sum_j alpha_j h_j(x_i)) + sum_j Lambda_j |alpha_j|,
    Lambda_j = lam * r_j + beta                                               (eq. 3)

where r_j is the Rademacher-complexity proxy of the family of hypothesis h_j (eqs. 7-9) and
Phi(-u) = exp(-u) (exponential loss) or log2(1 + exp(-u)) (logistic loss). Special cases
(Section 3.2): lam = beta = 0 with the exponential loss is AdaBoost, lam = 0 < beta is
AdaBoost-L1; with the logistic loss they are additive logistic regression (LogReg) and LogReg-L1.
"""

from __future__ import annotations

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

from ._binned_features import BinnedFeatures
from ._deepboost_descent import fit_binary, proba_positive
from ._labels import plain_label


class DeepBoostClassifier(SaveMixin, ClassifierMixin, BaseEstimator):
    """DeepBoost: capacity-conscious boosting of decision trees (Cortes, Mohri and Syed 2014).

    Coordinate descent on F(alpha) (eq. 4) following Figure 2: each round draws the distribution
    D_t from Phi' (eq. 5), computes the weighted errors eps_{t,j} (eq. 6) of the candidate
    hypotheses, picks the coordinate k maximising ``|d_j|`` (lines 5-10, with d_j = 0 in the sparsity
    case) and takes the closed-form step of lines 12-16, which sets alpha_k to exactly 0 when the
    complexity penalty outweighs the hypothesis' edge.

    Candidates each round (Section 4): the best stump (exhaustive search), for k = 2..K the best
    tree obtained by adding one layer of leaves to the previous candidate, and every hypothesis
    already selected (so old weights are revised or zeroed rather than duplicated; on a tie of
    ``|d|`` the old hypothesis wins, and among new candidates the shallowest).

    Parameters
    ----------
    n_iter : int, default=100
        Number of boosting rounds T (the paper uses 100). Fewer are run when every candidate
        has d_j = 0 (see ``stop_reason_``).
    max_depth : int, default=4
        K: candidates are trees of depth 1..K (``base="trees"``). Ignored for ``base="stumps"``.
    loss : {"exponential", "logistic"}, default="exponential"
        Phi(-u) = exp(-u) or log2(1 + exp(-u)).
    lam : float >= 0, default=1e-5
        lambda of eq. 3 (weight of the Rademacher complexities).
    beta : float >= 0, default=1e-5
        beta of eq. 3 (L1 penalty on the mixture weights).
    base : {"trees", "stumps"}, default="trees"
        Hypothesis families: H^trees = union of H_k^trees, k <= K, with complexities from eq. 9;
        or H^stumps = H_1^stumps union H_2^stumps (Table 1) with eqs. 7 and 8.
    grow : {"last_layer", "any_leaf"}, default="last_layer"
        How h_k* extends h_{k-1}*: split leaves at depth k-1 only (the paper's "adding a single
        layer of leaves"), or any leaf. In both cases the set of leaves split is the one that
        maximises ``|d|`` (so with lam = beta = 0 every leaf whose best split lowers the error).
    complexity : {"paper", "reference"}, default="paper"
        r_j of a tree with n internal nodes: eq. 9, sqrt((4n+2) log2(d+2) ln(m+1) / m), or the
        C++ reference's sqrt((2s+1) log2(d+2) ln(m) / m) with s = 2n+1 nodes. Stumps families
        always use eqs. 7-8.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Categorical columns of X, as in scikit-learn's ``HistGradientBoostingClassifier``
        (``"from_dtype"``: pandas ``category``, string and ``object`` (strings) columns). Each is
        replaced in place by ordinal codes 0 .. k-1 of the categories seen in training (a
        ``category`` dtype's order kept, other values sorted); missing values and unseen
        categories become NaN (rejected like any NaN). The trees split the codes by thresholds:
        categories are ordered by code, not partitioned into subsets.
    random_state : int, RandomState or None, default=None
        Accepted for API uniformity; the algorithm has no random step (ties are broken by
        feature and threshold order), so every fit is deterministic.
    verbose : int, default=0
        Print a progress line every n_iter/10 rounds.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X is a DataFrame with string column names.
    is_categorical_ : ndarray of bool ``(n_features_in_,)`` or None
        The categorical columns; None when there is none.
    categories_ : list or None
        Per column, a categorical column's categories in code order (None for a numeric one).
    ensembles_ : list of BoostedEnsemble
        One for a binary problem (``classes_[1]`` is the +1 class); one per class for more
        classes (one-vs-rest: class c against the rest, predict the largest f_c).
    hypotheses_, alphas_, tree_depths_, tree_sizes_, rademacher_ : per hypothesis
        The selected trees, their final weights, depths, sizes (all nodes) and r_j.
    selected_, steps_, errors_, normalizers_, objective_ : per round
        Index of the hypothesis updated, eta_t, eps_t, S_t (eq. 5) and F(alpha_t) (eq. 4).
    n_trees_, avg_tree_size_ : int, float
        Hypotheses with non-zero weight and their mean number of nodes (Tables 2-3).
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        Impurity-based importances, non-negative and summing to 1: for a binary problem
        sum_j |alpha_j| I_j / sum_j |alpha_j|, where I_j is hypothesis j's Gini decrease per
        feature, weighted by the distribution D_t of the round t that first selected it (which
        carries the sample weights) and normalised to sum to 1 per tree; one-vs-rest: the mean over the
        classes, renormalised.
        All zeros in the degenerate case where no weighted hypothesis has an informative split.
    n_iter_ : int
        Rounds actually run.
    stop_reason_ : str

    For multi-class problems every attribute from ``hypotheses_`` on is a list with one entry
    per class.

    Notes
    -----
    ``predict_proba`` maps f through the population minimiser of the loss (expit(2f) for the
    exponential loss, sigma(1+f) / (sigma(1+f) + sigma(1-f)) for the logistic loss with its
    margin offset 1); it ranks like ``decision_function`` but is not calibrated. For multiple
    classes the one-vs-rest probabilities are normalised to sum to 1.

    Missing values are handled natively by the trees. A feature with NaN at training has a
    missing bin: every split ``x_f <= theta`` is evaluated with the node's missing rows sent
    left and sent right, and the side of lower weighted error under D_t (eq. 6) is kept (right
    on a tie); the split "x_f present vs missing" is among the candidates. At prediction NaN
    follows the side learned at each node; at a node no missing training row reached (e.g. for a
    feature without NaN at training, or a category unseen at training mapped to NaN) NaN goes to
    the heavier child under the D_t the tree was grown with. A hypothesis is still a function
    into {-1, +1}, so Figure 2 and eqs. 3-9 are unchanged.
    """

    #: Tag of the verbose log lines.
    _log_name = "DeepBoost"

    _parameter_constraints: dict = {
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "loss": [StrOptions({"exponential", "logistic"})],
        "lam": [Interval(Real, 0, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="left")],
        "base": [StrOptions({"trees", "stumps"})],
        "grow": [StrOptions({"last_layer", "any_leaf"})],
        "complexity": [StrOptions({"paper", "reference"})],
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        n_iter=100,
        max_depth=4,
        loss="exponential",
        lam=1e-5,
        beta=1e-5,
        base="trees",
        grow="last_layer",
        complexity="paper",
        categorical_features="from_dtype",
        random_state=None,
        verbose=0,
    ):
        self.n_iter = n_iter
        self.max_depth = max_depth
        self.loss = loss
        self.lam = lam
        self.beta = beta
        self.base = base
        self.grow = grow
        self.complexity = complexity
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.verbose = verbose

    def _boosting_params(self) -> dict:
        return dict(
            n_iter=self.n_iter,
            max_depth=self.max_depth,
            loss=self.loss,
            lam=float(self.lam),
            beta=float(self.beta),
            base=self.base,
            grow=self.grow,
            complexity=self.complexity,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the ensemble (one-vs-rest for more than two classes).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric inputs (converted to float32); NaN marks a missing value (see Notes),
            infinity is rejected; categorical columns are ordinal-encoded (see
            ``categorical_features``; unseen categories are missing values).
        y : array-like of shape (n_samples,)
            At least two distinct class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights w, at least one positive. The objective (eq. 4) becomes
            the w-weighted average of the loss, so D_1 is proportional to w and every D_t
            (eq. 5) carries w, and m in eqs. 7-9 becomes W = sum_i w_i (see :func:`fit_binary`):
            an integer weight k acts as k copies of the row. Rows of weight 0 are dropped before
            anything is computed from the data (thresholds included); unit weights give the
            unweighted fit. With ``lam > 0`` rescaling the weights rescales m, so W must be at
            least 1 there.

        Returns
        -------
        self
        """
        check_label_types(y, estimator_name=type(self).__name__)
        X, y = validate_tabular(self, X, y, reset=True, dtype=np.float32, ensure_all_finite="allow-nan")
        check_classification_targets(y)
        check_random_state(self.random_state)
        self.classes_, y_code = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in y; "
                f"got 1 class ({plain_label(self.classes_[0])!r})"
            )
        params = self._boosting_params()
        X, y_code, sample_weight = self._positive_weight_rows(X, y_code, sample_weight, params["lam"])
        binned = BinnedFeatures(X)
        if len(self.classes_) == 2:
            problems = [(np.where(y_code == 1, 1.0, -1.0), "")]
        else:
            problems = [
                (np.where(y_code == c, 1.0, -1.0), f" class {plain_label(self.classes_[c])!r}")
                for c in range(len(self.classes_))
            ]
        self.ensembles_ = [
            fit_binary(
                X,
                y_pm,
                binned,
                verbose=self.verbose,
                label=label,
                name=self._log_name,
                sample_weight=sample_weight,
                **params,
            )
            for y_pm, label in problems
        ]
        self._set_summary_attributes()
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _positive_weight_rows(self, X, y_code, sample_weight, lam):
        """The rows of positive weight and their weights (None for unit weights: the unweighted fit)."""
        name = type(self).__name__
        if sample_weight is None:
            return X, y_code, None
        w = check_sample_weight(sample_weight, X, estimator_name=name)
        if np.all(w == 1.0):
            return X, y_code, None
        keep = w > 0
        X, y_code, w = X[keep], y_code[keep], w[keep]
        check_weighted_classes(y_code, w, self.classes_, estimator_name=name)
        if lam > 0 and w.sum() < 1.0:
            raise ValueError(
                f"{name}: with lam > 0 the total sample weight is the m of eqs. 7-9 and must be at "
                f"least 1; got sum(sample_weight) = {w.sum():.3g}. Rescale the weights (e.g. to mean 1) "
                "or set lam=0."
            )
        return X, y_code, w

    def _set_summary_attributes(self):
        def per_model(fn):
            values = [fn(e) for e in self.ensembles_]
            return values[0] if len(values) == 1 else values

        self.hypotheses_ = per_model(lambda e: list(e.hypotheses))
        self.alphas_ = per_model(lambda e: e.alpha)
        self.tree_depths_ = per_model(lambda e: np.array([t.depth for t in e.hypotheses], dtype=int))
        self.tree_sizes_ = per_model(lambda e: np.array([t.n_nodes for t in e.hypotheses], dtype=int))
        self.rademacher_ = per_model(lambda e: e.rademacher)
        self.selected_ = per_model(lambda e: e.selected)
        self.steps_ = per_model(lambda e: e.steps)
        self.errors_ = per_model(lambda e: e.errors)
        self.normalizers_ = per_model(lambda e: e.normalizers)
        self.objective_ = per_model(lambda e: e.objective)
        self.n_trees_ = per_model(lambda e: e.tree_stats()["n_trees"])
        self.avg_tree_size_ = per_model(lambda e: e.tree_stats()["avg_tree_size"])
        self.stop_reason_ = per_model(lambda e: e.stop_reason)
        self.n_iter_ = max(e.n_rounds for e in self.ensembles_)

    @property
    def feature_importances_(self):
        """Impurity-based feature importances (see the class docstring)."""
        check_is_fitted(self)
        imp = np.mean([e.feature_importances() for e in self.ensembles_], axis=0)
        total = imp.sum()
        return imp / total if total > 0 else imp

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_tabular(self, X, reset=False, dtype=np.float32, ensure_all_finite="allow-nan")

    def decision_function(self, X):
        """f(x) = sum_j alpha_j h_j(x): shape (n_samples,) for two classes (> 0 means
        ``classes_[1]``), else (n_samples, n_classes) of one-vs-rest scores."""
        X = self._validate_X_predict(X)
        scores = [e.decision_function(X) for e in self.ensembles_]
        return scores[0] if len(scores) == 1 else np.column_stack(scores)

    def staged_decision_function(self, X):
        """Yield the decision function after each boosting round (1 .. ``n_iter_``).

        For one-vs-rest models a class whose fit stopped early keeps its final scores.
        """
        X = self._validate_X_predict(X)
        gens = [e.staged_decision_function(X) for e in self.ensembles_]
        last = [np.zeros(X.shape[0]) for _ in gens]
        for _ in range(self.n_iter_):
            for i, g in enumerate(gens):
                last[i] = next(g, last[i])
            yield last[0] if len(gens) == 1 else np.column_stack(last)

    def _scores_to_labels(self, scores):
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _scores_to_proba(self, scores):
        if scores.ndim == 1:
            p = proba_positive(scores, self.loss)
            return np.column_stack([1.0 - p, p])
        p = proba_positive(scores, self.loss)
        total = p.sum(axis=1, keepdims=True)
        return np.divide(p, total, out=np.full_like(p, 1.0 / p.shape[1]), where=total > 0)

    def predict(self, X):
        """Class labels: ``classes_[1]`` where f(x) > 0 (binary), else argmax of the OvR scores."""
        return self._scores_to_labels(self.decision_function(X))

    def predict_proba(self, X):
        """Class probabilities from the loss' link function (see Notes); rows sum to 1."""
        return self._scores_to_proba(self.decision_function(X))

    def staged_predict(self, X):
        """Yield the predictions after each boosting round."""
        for scores in self.staged_decision_function(X):
            yield self._scores_to_labels(scores)

    def staged_predict_proba(self, X):
        """Yield the class probabilities after each boosting round."""
        for scores in self.staged_decision_function(X):
            yield self._scores_to_proba(scores)

    def tree_stats(self, n_rounds=None):
        """Trees with non-zero weight and their mean size after ``n_rounds`` rounds.

        Returns a dict (see ``BoostedEnsemble.tree_stats``) for a binary model; for one-vs-rest
        models ``n_trees`` is summed over the classes and the averages are over all their trees.
        """
        check_is_fitted(self)
        stats = [e.tree_stats(n_rounds) for e in self.ensembles_]
        if len(stats) == 1:
            return stats[0]
        total = sum(s["n_trees"] for s in stats)
        out = {"n_trees": total}
        for key in ("avg_tree_size", "avg_internal", "avg_questions", "avg_depth"):
            out[key] = sum(s[key] * s["n_trees"] for s in stats) / total if total else 0.0
        return out
