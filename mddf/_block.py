"""One cascade layer: the forest block of Algorithm 1 (Lv, Yang and Zhou; Zhou and Feng).

Each member of the block gives every training row a class vector from models
that never saw that row (k-fold cross-fitting, or out-of-bag estimates for the
bagged forests), and gives new rows the average over its fold models. The
members are the forests the block grows itself (random, completely-random and
extremely-randomised forests) and, beyond the paper, any other classifier
(:mod:`mddf._members`).
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ._block_base import MAX_SEED, BinnedInput, BlockBase, TreeGrower, grow_forest
from ._compact_forest import CompactForest
from ._forest_kinds import forest_kind
from ._members import MemberBlockMixin, is_forest, member_template
from ._weights import Bootstrap, weighted_resample
from .trees import BinnedForest
from .trees._compile_notice import announce_compilation
from .trees.grower import GROW_GINI

#: Candidate features per split of the block's forests (but the completely-random ones', which draw one).
MAX_FEATURES = "sqrt"
TREE_METHODS = ("hist", "exact")
WEIGHTINGS = ("resample", "resample_fold", "sample_weight")


def make_forest(kind, n_estimators, max_depth, random_state):
    """A forest of the block, as the scikit-learn estimator it is equivalent to.

    :class:`ForestBlock` grows these trees itself, one at a time (see
    :func:`mddf._block_base.grow_forest`): with ``tree_method="exact"`` the very same scikit-learn
    trees, with ``"hist"`` (the default) the same split rules on binned features
    (:mod:`mddf.trees`). The kinds are those of :mod:`mddf._forest_kinds`, with
    sqrt(d) candidate features: ``"rf"`` is ``RandomForestClassifier``, ``"crf"``
    ``ExtraTreesClassifier(max_features=1)`` and ``"et"``
    ``ExtraTreesClassifier(max_features="sqrt")``. A convenience for users who
    want the block's forests on their own.
    """
    forest = forest_kind(kind, " (other members: mddf._members.make_gbdt)")
    return forest.make("classification", n_estimators, max_depth, MAX_FEATURES, random_state)


def check_exact_trees_missing(kind):
    """Raise if scikit-learn's tree class of forest ``kind`` does not accept NaN.

    ``DecisionTreeClassifier`` (random forests) handles missing values since
    scikit-learn 1.3 and ``ExtraTreeClassifier`` (completely-random and
    extremely-randomised forests) since 1.6, both below the supported minimum; the check guards against a version
    that does not.
    """
    tree_class = forest_kind(kind).exact_tree
    if not tree_class().__sklearn_tags__().input_tags.allow_nan:
        raise ValueError(
            f"tree_method='exact': scikit-learn's {tree_class.__name__} (forest type {kind!r}) does not accept "
            "missing values (NaN) in this scikit-learn version; use tree_method='hist', whose trees handle NaN"
        )


class _ExactTrees:
    """scikit-learn's trees on the float layer input, compacted as they are fitted.

    NaN in the input are scikit-learn's missing values: each split sends them to
    the side it chooses (the best one for ``DecisionTreeClassifier``, a random
    one for ``ExtraTreeClassifier``), or to the child with more samples when the
    node had none. The interface is :class:`mddf._block_base.TreeGrower`'s.
    """

    def __init__(self, kind, max_depth, X, y, n_classes):
        forest = forest_kind(kind)
        self.tree_class = forest.exact_tree
        self.max_features = forest.max_features(MAX_FEATURES)
        self.max_depth, self.X, self.y, self.n_classes = max_depth, X, y, n_classes
        self.width = n_classes
        self.compact = CompactForest.growing(n_classes, X.shape[1])
        self._last = self._rows = self._X_rows = None
        # scikit-learn's trees find the features with NaN only when they check their input
        self.check_input = bool(np.isnan(X).any())
        if self.check_input:
            check_exact_trees_missing(kind)

    def add(self, weight, seed, keep=True):
        tree = self.tree_class(max_features=self.max_features, max_depth=self.max_depth, random_state=seed)
        # check_input=False: X is validated once per layer (float32), not once per tree; with NaN the
        # check also tells the tree which features have missing values
        tree.fit(self.X, self.y, sample_weight=weight, check_input=self.check_input)
        if keep:
            self.compact.add_tree(tree, tree.classes_.astype(np.intp))
        self._last = tree  # at most one full scikit-learn tree alive per worker

    def accumulate_last(self, rows, out):
        if rows is not self._rows:  # the held-out rows are the same for every tree: slice them once
            self._rows, self._X_rows = rows, self.X[rows]
        out[:, self._last.classes_.astype(np.intp)] += self._last.predict_proba(self._X_rows, check_input=False)

    def finish(self):
        self._last = None
        return self.compact.finish()


def _forest_trees(kind, max_depth, X, y, n_classes):
    """The tree grower of one forest: :mod:`mddf.trees` on a binned input, scikit-learn's trees on floats."""
    if isinstance(X, BinnedInput):
        return TreeGrower(kind, max_depth, MAX_FEATURES, X, y.astype(np.int64, copy=False), n_classes)
    return _ExactTrees(kind, max_depth, X, y, n_classes)


def _fit_fold_forest(
    kind, n_estimators, max_depth, seed, X, y, fit_rows, heldout_rows, weight, n_classes, draws=None, n_kept=None
):
    """Fit one forest on ``fit_rows`` and predict the held-out rows (runs in a worker).

    Random forests bootstrap (the completely-random and extremely-randomised
    ones do not); with ``draws`` (a :class:`Bootstrap` over
    ``fit_rows``) every tree of any kind trains on its own weighted resample.
    The trees are the ones :func:`make_forest` builds (same split rules, same
    ``max_features``); the forest keeps its first ``n_kept`` (None: all).
    """
    return grow_forest(
        _forest_trees(kind, max_depth, X, y, n_classes),
        n_estimators,
        seed,
        len(y),
        fit_rows,
        weight,
        bootstrap=forest_kind(kind).bootstrap or draws is not None,
        predict_rows=heldout_rows,
        draws=draws,
        n_kept=n_kept,
    )


def fit_oob_forest(kind, n_estimators, max_depth, seed, X, y, weight, n_classes, rows=None):
    """Fit one bootstrapped forest on every row (or on ``rows``); its out-of-bag class vectors.

    Each tree draws its bootstrap rows uniformly and receives D_t as weights of
    the rows it drew. scikit-learn's own forests (since 1.8) draw the bootstrap
    in proportion to ``sample_weight`` instead; then the heavily weighted rows,
    the misclassified ones, are almost never out of bag, whether a row has an
    out-of-bag estimate depends on its label, and the next layer learns that
    (its out-of-bag accuracy then overstates its test accuracy; see
    ``docs/benchmarks/cascade-defaults.md``). Uniform
    bootstrap keeps out-of-bag membership independent of the labels. Rows left
    out of ``rows`` (of sample weight 0) are out of every bag, and a row that is
    in every bag (about 0.37^n_estimators of them) gets the uninformative
    ``1 / n_classes`` in every column.
    """
    forest, (sums, counts) = grow_forest(
        _forest_trees(kind, max_depth, X, y, n_classes),
        n_estimators,
        seed,
        len(y),
        np.arange(len(y)) if rows is None else rows,
        weight,
        bootstrap=True,
        predict_rows="oob",
    )
    seen = counts > 0
    proba = np.full((len(y), n_classes), 1.0 / n_classes)
    proba[seen] = sums[seen] / counts[seen, None]
    return forest, proba


def _predict_one(model, X, has_missing):
    if isinstance(model, BinnedForest):
        return model.predict_proba_binned(X, has_missing)  # X holds the layer's bin codes
    return model.predict_proba(X)


class ForestBlock(MemberBlockMixin, BlockBase):
    """The members of one cascade layer (Algorithm 1, "random forest block").

    Parameters
    ----------
    forest_types : sequence of {"rf", "crf", "et", "gbdt"} or estimator instances
        One entry per member; the paper's block is 2 random + 2 completely-random
        forests. ``"et"``: extremely-randomised trees (:func:`make_forest`).
        ``"gbdt"``: XGBoost with fixed settings (:func:`mddf._members.make_gbdt`).
        An estimator instance with ``predict_proba`` is cloned for every fold
        model, its ``random_state`` parameters drawn from the block's seeds, and
        never fitted itself (:mod:`mddf._members`).
    n_estimators : int
        Trees per forest (not used by the other members).
    max_depth : int or None
        Depth limit of every tree of this layer's forests (the paper grows it
        with the layer; not used by the other members).
    n_folds : int
        k of the k-fold class vectors (with ``class_vectors="oob"``, used only by
        the members that are not forests).
    class_vectors : {"kfold", "oob"}
        ``"kfold"``: for each of k stratified folds, each member is trained on the
        other folds and predicts the held-out fold; new rows get the mean of the k
        fold models (Algorithm 1, lines 1-7). ``"oob"``: each forest is fitted once
        on all rows with bootstrap and training rows get out-of-bag estimates
        (about k times cheaper, slightly noisier vectors, one model per forest).
        Only the bagged forests have out-of-bag estimates: the other members
        (``"gbdt"`` and estimator instances) are still cross-fitted on k folds,
        drawn after the forests' seeds, with D_t as sample weights.
    weighting : {"resample", "resample_fold", "sample_weight"}
        How the sample distribution D_t reaches the members (Algorithm 1, input
        line: "re-sample a training set with the distribution D_t"). ``"resample"``:
        every tree of either kind trains on its own draw, with replacement, of as
        many rows as the fold trains on, row i with probability proportional to
        D_t(i); for random forests this draw is the bootstrap; every other member
        trains on one such draw of its own. ``"resample_fold"``: one such draw per
        fold, shared by every member of the block, and random
        forests bootstrap it again; the ~e^-1 of the fold's rows it leaves out are
        then lost to the whole fold. ``"sample_weight"``: D_t is passed to the
        members as sample weights. A uniform D_t is never resampled (it would only
        add a second bootstrap). Out-of-bag class vectors need each row's identity,
        so ``class_vectors="oob"`` always uses sample weights. Every member can
        be trained on a resample, so D_t always reaches it: a member whose
        ``fit`` takes no ``sample_weight`` gets, where sample weights are called
        for, a weighted resample of its training rows instead, with a
        ``UserWarning``.
    tree_method : {"hist", "exact"}
        ``"hist"``: trees of :mod:`mddf.trees`, grown on the layer input
        quantised to at most 256 bins per feature (once per layer, shared by all
        trees). ``"exact"``: scikit-learn's ``DecisionTreeClassifier`` /
        ``ExtraTreeClassifier`` on the float values. The other members always
        get the float values.
    n_jobs : int or None
        Member fits run in parallel through joblib (threads: scikit-learn's tree
        building and XGBoost release the GIL, and threads share the data instead of copying it),
        or on whatever backend ``joblib.parallel_config`` selects (e.g. ``"dask"``).
        Every seed is drawn before the fits are dispatched, so results do not
        depend on it (an estimator instance's own ``n_jobs`` is left as it is).
    store, name, fold_trees
        Where the fitted models are kept, and what the fold models of a forest
        keep for new rows (see :class:`mddf._block_base.BlockBase`).

    Missing values (NaN) in the layer input are handled by the trees: see
    :mod:`mddf.trees.splitting` (``"hist"``) and scikit-learn's trees
    (``"exact"``); XGBoost handles them too. An estimator instance whose
    scikit-learn tags say it does not accept NaN raises a ``ValueError`` naming
    it, at fit and at prediction. The class vectors never hold NaN.

    Attributes
    ----------
    models_ : list (n_members) of lists of fitted models
        Each member's fold models (one per fold, or a single out-of-bag forest):
        CompactForest (``"exact"``) or BinnedForest (``"hist"``) for the forests,
        :class:`mddf._members.FoldModel` for the others.
        With a :class:`mddf._storage.ModelStore`, a :class:`mddf._storage.StoredModel`
        for each of them (with the same ``predict_proba``).
    forests_ : list (n_folds or 1) of lists (n_members)
        The same models, fold first; only when every member has as many models
        (not for out-of-bag forests beside cross-fitted members).
    importances_ : ndarray of float64 (d,)
        Impurity-based importance of each input column: a tree's weighted Gini
        impurity decrease per feature divided by its root's weight (scikit-learn's
        ``compute_feature_importances(normalize=False)``), averaged over every
        tree of every forest and fold model. Not normalised: its sum is the mean
        share of the root impurity the trees remove. A fold model of another
        member adds its ``feature_importances_`` as it is (scikit-learn and
        XGBoost normalise them to sum to 1) to the average; a member without
        them is left out of it, and a block none of whose models has any gets zeros.
    """

    splitter = StratifiedKFold
    empty_fold_hint = " (or use class_vectors='oob')"

    def __init__(
        self,
        forest_types,
        n_estimators,
        max_depth,
        n_folds,
        class_vectors,
        weighting,
        n_jobs,
        tree_method="hist",
        store=None,
        name=None,
        fold_trees="all",
    ):
        super().__init__(forest_types, n_estimators, max_depth, n_folds, n_jobs, store, name, fold_trees)
        self.class_vectors = class_vectors
        self.weighting = weighting
        self.tree_method = tree_method

    def fit(self, X, y, distribution, n_classes, rng, trainable=None, categorical=None, prefix=None):
        """Fit the block and return out-of-fold class vectors of the training rows.

        Parameters
        ----------
        X : ndarray of float32 (n, d), C-contiguous
            Layer input.
        y : ndarray of int (n,)
            Class column indices.
        distribution : ndarray (n,)
            Sample distribution D_t (sums to 1).
        n_classes : int
        rng : numpy.random.RandomState
            Source of every seed of this layer, consumed in a fixed order so that
            results do not depend on ``n_jobs``.
        trainable : ndarray of bool (n,) or None
            Rows that may train the members (those of positive sample weight);
            None: all. The others never reach a model, neither in a resample nor in
            a bootstrap, but still get class vectors: the folds are drawn over all
            rows, and with ``"oob"`` they are out of every bag.
        categorical : ndarray of bool (d,) or None
            Columns the binned trees split into subsets of categories
            (:class:`mddf._block_base.BinnedInput`); None: none.
        prefix : BinnedInput or None
            The first columns of ``X`` already binned (the cascade's ``x``).

        Returns
        -------
        ndarray of shape (n, n_members, n_classes): each member's out-of-fold class vectors.
        """
        if self.tree_method not in TREE_METHODS:
            raise ValueError(f"unknown tree_method {self.tree_method!r}; expected one of {TREE_METHODS}")
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"unknown weighting {self.weighting!r}; expected one of {WEIGHTINGS}")
        kinds = self.forest_types
        forests = [j for j, kind in enumerate(kinds) if is_forest(kind)]
        others = [j for j, kind in enumerate(kinds) if not is_forest(kind)]
        X_float = X
        self._check_members_take_nan(X, kinds)
        templates = {j: member_template(kinds[j], categorical=categorical) for j in others}
        self.n_features_in_ = X.shape[1]
        if self.tree_method == "hist" and forests:
            announce_compilation(GROW_GINI)  # the first fit of a fresh install compiles the trees
            X = BinnedInput(X, categorical, prefix)
        n = len(y)
        rows = None if trainable is None else np.flatnonzero(trainable)
        uniform = np.ptp(distribution if rows is None else distribution[rows]) == 0
        warned = set()

        def member_task(j, seed, fold):
            # a member whose fit takes no sample_weight gets D_t as a weighted resample instead
            args = (X_float, y, n_classes, distribution, warned, "the sample distribution D_t")
            return self._member_task(j, templates[j], seed, fold[:6], *args)

        tasks, slots = [], []  # slots[k]: (member, held-out rows, or None for out-of-bag) of task k
        if self.class_vectors == "oob":
            seeds = rng.randint(MAX_SEED, size=len(kinds))
            weight = None if uniform else distribution * n
            for j in forests:
                tasks.append(
                    self._task(
                        f"m{j}-oob",
                        fit_oob_forest,
                        kinds[j],
                        self.n_estimators,
                        self.max_depth,
                        seeds[j],
                        X,
                        y,
                        weight,
                        n_classes,
                        rows,
                    )
                )
                slots.append((j, None))
            if others:  # cross-fitted on folds drawn after the forests' seeds; D_t as sample weights
                for fold in self._weighted_folds(rng, y, trainable, distribution, uniform, "sample_weight"):
                    for j in others:
                        tasks.append(member_task(j, fold[-1][j], fold))
                        slots.append((j, fold[2]))
        else:
            for fold in self._weighted_folds(rng, y, trainable, distribution, uniform, self.weighting):
                i, _, test, fit_rows, weight, draws, fold_seeds = fold
                for j, kind in enumerate(kinds):
                    if j in templates:
                        tasks.append(member_task(j, fold_seeds[j], fold))
                    else:
                        tasks.append(
                            self._task(
                                f"m{j}-fold{i}",
                                _fit_fold_forest,
                                kind,
                                self.n_estimators,
                                self.max_depth,
                                fold_seeds[j],
                                X,
                                y,
                                fit_rows,
                                test,
                                weight,
                                n_classes,
                                draws,
                                self._kept_trees(i),
                            )
                        )
                    slots.append((j, test))
        return self._gather(tasks, slots, n, (n_classes,))

    def _weighted_folds(self, rng, y, trainable, distribution, uniform, weighting):
        """The stratified folds and their seeds (:meth:`_folds`), with how D_t reaches each fold's members.

        Yields ``(i, train, test, fit_rows, weight, draws, seeds)`` per fold:
        the fold's trainable training rows, its held-out rows, the rows the
        members train on (a shared resample with ``"resample_fold"``), D_t as
        sample weights (``"sample_weight"``), the fold's :class:`Bootstrap`
        (``"resample"``), and one seed per member. ``rng`` is consumed for the
        folds, then every seed, then each fold's shared resample, whatever the members.
        """
        for i, train, test, seeds in self._folds(rng, y, trainable):
            weight = draws = None
            fit_rows = train
            if not uniform:
                if weighting == "resample":
                    draws = Bootstrap(train, distribution[train])  # one alias table for the fold's members
                elif weighting == "resample_fold":
                    fit_rows = weighted_resample(train, distribution, rng)
                else:
                    weight = distribution * (len(train) / distribution[train].sum())
            yield i, train, test, fit_rows, weight, draws, seeds

    def predict_proba(self, X, prefix=None):
        """Each member's class vectors for new rows, averaged over its fold models.

        ``prefix``: the :class:`mddf._block_base.PrefixCodes` of the ``x`` that ``X`` begins with, or None.

        Returns
        -------
        ndarray of shape (n, n_members, n_classes)
        """
        self._check_members_take_nan(X, self.forest_types)
        return self._predict_members(X, _predict_one, (self.models_[0][0].n_classes,), prefix)
