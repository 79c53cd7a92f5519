"""AdaBoost as the special case of DeepBoost used in Cortes, Mohri and Syed (2014).

With lambda = beta = 0 and the exponential loss, DeepBoost's direction rule (Figure 2, lines 5-10)
picks the hypothesis of largest |eps - 1/2| and its step (lines 12-16) is
log sqrt((1 - eps) / eps): exactly AdaBoost (Freund and Schapire 1997; Algorithm 1 of the
lecture notes of Zhang 2019) over the same candidate hypotheses (Section 3.2).
"""

from __future__ import annotations

from .deepboost import DeepBoostClassifier


class AdaBoostClassifier(DeepBoostClassifier):
    """The paper's AdaBoost: DeepBoost with lambda = beta = 0 and the exponential loss.

    Each round the weak learner returns the candidate of lowest weighted error (for
    ``max_depth=1`` the best decision stump by exhaustive search; deeper trees are grown one layer
    at a time as in Section 4); a hypothesis already in the ensemble is re-weighted instead of
    duplicated. The step is alpha_t = 1/2 log((1 - eps_t) / eps_t). Unlike
    ``sklearn.ensemble.AdaBoostClassifier`` (SAMME), this is binary AdaBoost, extended to more
    classes by one-vs-rest.

    ``fit`` takes ``sample_weight`` (D_1 proportional to w; integer weights act as repeated rows;
    with lambda = 0 rescaling the weights changes nothing), NaN is handled natively by the trees
    (missing rows go to the side of lower weighted error, at prediction NaN follows the learned
    side or the heavier child), and ``feature_importances_`` is the ``|alpha|``-weighted Gini
    decrease; see :class:`DeepBoostClassifier` for the precise definitions.

    Parameters
    ----------
    n_iter : int, default=100
        Boosting rounds.
    max_depth : int, default=1
        Deepest candidate tree (1: decision stumps).
    base : {"trees", "stumps"}, default="trees"
        ``"stumps"`` searches H_1^stumps and H_2^stumps (Table 1 of the paper).
    grow : {"last_layer", "any_leaf"}, default="last_layer"
        See :class:`DeepBoostClassifier`.
    categorical_features : "from_dtype", None, array-like of bool, int or str, default="from_dtype"
        Categorical columns of X, encoded as ordinal codes; see :class:`DeepBoostClassifier`.
    random_state : int, RandomState or None, default=None
        Accepted for API uniformity; the fit is deterministic.
    verbose : int, default=0

    Attributes
    ----------
    See :class:`DeepBoostClassifier`.
    """

    #: Tag of the verbose log lines.
    _log_name = "AdaBoost"

    #: DeepBoost's constraints of the parameters AdaBoost keeps.
    _parameter_constraints: dict = {
        name: DeepBoostClassifier._parameter_constraints[name]
        for name in ("n_iter", "max_depth", "base", "grow", "categorical_features", "random_state", "verbose")
    }

    def __init__(
        self,
        *,
        n_iter=100,
        max_depth=1,
        base="trees",
        grow="last_layer",
        categorical_features="from_dtype",
        random_state=None,
        verbose=0,
    ):
        self.n_iter = n_iter
        self.max_depth = max_depth
        self.base = base
        self.grow = grow
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.verbose = verbose

    # The loss used by predict_proba's link function.
    loss = "exponential"

    def _boosting_params(self) -> dict:
        return dict(
            n_iter=self.n_iter,
            max_depth=self.max_depth,
            loss="exponential",
            lam=0.0,
            beta=0.0,
            base=self.base,
            grow=self.grow,
            complexity="paper",
        )
