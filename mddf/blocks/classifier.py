"""One cascade layer: the forest block of Algorithm 1 (Lv, Yang and Zhou; Zhou and Feng).

Each member of the block gives every training row a class vector from models
that never saw that row (k-fold cross-fitting, or out-of-bag estimates for the
bagged forests), and gives new rows the average over its fold models. The
members are the forests the block grows itself (random, completely-random and
extremely-randomised forests) and, beyond the paper, boosted trees and any other
classifier, each reached through the member protocol (:mod:`mddf.blocks.member`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ..forests import MAX_FEATURES, BinnedInput
from ..forests.growing import MAX_SEED
from ..forests.sampling import Bootstrap, weighted_resample
from .base import BlockBase, MemberFit
from .member import LayerFit, layer_categories, layer_constraints

TREE_METHODS = ("hist", "exact")
WEIGHTINGS = ("resample", "resample_fold", "sample_weight")


class ForestBlock(BlockBase):
    """The members of one cascade layer (Algorithm 1, "random forest block").

    Parameters
    ----------
    forest_types : sequence of {"rf", "crf", "et", "gbdt"} or estimator instances
        One entry per member; the paper's block is 2 random + 2 completely-random
        forests. ``"et"``: extremely-randomised trees (:func:`mddf.forests.make_forest`).
        ``"gbdt"``: XGBoost with fixed settings (:func:`mddf.forests.make_gbdt`).
        An estimator instance with ``predict_proba`` is cloned for every fold
        model, its ``random_state`` parameters drawn from the block's seeds, and
        never fitted itself (:mod:`mddf.blocks.members`). Any name registered
        with :func:`mddf.blocks.member.register_member` is its kind's member.
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
    store, name, fold_trees, probe_trees
        Where the fitted models are kept, what the fold models of a forest
        keep for new rows, and the probe that grows a share of the trees first
        (see :class:`mddf.blocks.base.BlockBase`).

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
        :class:`mddf.blocks.members.FoldModel` for the others.
        With a :class:`mddf.storage.ModelStore`, a :class:`mddf.storage.StoredModel`
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

    #: The constraint of each column of the cascade's ``x`` (int8; ``monotonic_cst``), or None: set by the cascade.
    monotone = None
    #: Every column of the cascade's ``x`` that holds category codes, when the layer's input begins with ``x`` (None
    #: otherwise): set by the cascade.
    categories = None

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
        probe_trees=None,
        target_statistics=None,
    ):
        super().__init__(
            forest_types,
            n_estimators,
            max_depth,
            n_folds,
            n_jobs,
            store,
            name,
            fold_trees,
            probe_trees,
            target_statistics,
        )
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
            (:class:`mddf.forests.BinnedInput`); None: none.
        prefix : BinnedInput or None
            The first columns of ``X`` already binned (the cascade's ``x``).

        Returns
        -------
        ndarray of shape (n, n_members, n_classes): each member's out-of-fold class vectors.
        """
        self._check_settings()
        self._begin()
        members = self.members()
        self._check_members_take_nan(X, members)
        self.n_features_in_ = X.shape[1]
        has_binned_forests = self.tree_method == "hist" and any(member.forest for member in members)
        forest_input = BinnedInput(X, categorical, prefix) if has_binned_forests else X  # the forests' input
        rows = None if trainable is None else np.flatnonzero(trainable)
        uniform = np.ptp(distribution if rows is None else distribution[rows]) == 0
        # a member whose fit takes no sample_weight gets D_t as a weighted resample instead
        layer = LayerFit(
            X,
            forest_input,
            y,
            n_classes,
            categorical,
            self.n_estimators,
            self.max_depth,
            MAX_FEATURES,
            resample_weight=distribution,
            weights_name="the sample distribution D_t",
            monotone=layer_constraints(self.monotone, X.shape[1], (-1, 1)),
            categories=layer_categories(self.categories, X.shape[1]),
        )
        if self.class_vectors == "oob" and self.target_statistics is not None:
            raise ValueError("target_statistics needs class_vectors='kfold' (each fold computes its own statistics)")
        statistics = self._statistics(rng, X, y, n_classes)
        if self.class_vectors == "oob":
            weight = None if uniform else distribution * len(y)
            tasks, slots = self._oob_tasks(rng, members, layer, weight, rows)
            # the other members: cross-fitted on folds drawn after the forests' seeds, D_t as sample weights
            crossed = [j for j in range(len(members)) if j not in {j for j, _ in slots}]
            folds = self._weighted_folds(rng, y, trainable, distribution, uniform, "sample_weight") if crossed else ()
        else:
            tasks, slots = [], []
            crossed = range(len(members))
            folds = self._weighted_folds(rng, y, trainable, distribution, uniform, self.weighting)
        for fold in folds:  # slots[k]: (member, held-out rows, or None for out-of-bag) of task k
            fold_layer = self._fold_layer(layer, fold, statistics, categorical, prefix)
            for j in crossed:
                tasks.append(self._member_task(fold, j, members[j], fold_layer))
                slots.append((j, fold.test))
        return self._gather(tasks, slots, len(y), (n_classes,))

    def _check_settings(self):
        """Raise a ``ValueError`` for an unknown ``tree_method`` or ``weighting`` (in this order)."""
        if self.tree_method not in TREE_METHODS:
            raise ValueError(f"unknown tree_method {self.tree_method!r}; expected one of {TREE_METHODS}")
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"unknown weighting {self.weighting!r}; expected one of {WEIGHTINGS}")

    def _oob_tasks(self, rng, members, layer, weight, rows):
        """The fit tasks of the members with out-of-bag class vectors (``class_vectors="oob"``: the bagged forests,
        :meth:`~mddf.blocks.member.Member.oob_task`), and their slots.

        Draws one seed per member from ``rng`` (the other members' too, unused), then makes one task
        per such member, fitted once on the rows ``rows`` (None: all) with sample weights ``weight``
        (None: none), named ``m<member>-oob``; its slot is ``(member, None)``: every row gets its
        out-of-bag class vector.

        Returns
        -------
        (list of tasks, list of (int, None)) for :meth:`_gather`.
        """
        seeds = rng.randint(MAX_SEED, size=len(members))
        tasks, slots = [], []
        for j, member in enumerate(members):
            task = member.oob_task(seeds[j], layer, weight, rows)
            if task is not None:
                tasks.append(self._model_task(MemberFit(f"m{j}-oob", True, member, task.fit, task.args, task.stage)))
                slots.append((j, None))
        return tasks, slots

    def _weighted_folds(self, rng, y, trainable, distribution, uniform, weighting):
        """The stratified folds and their seeds (:meth:`_folds`), with how D_t reaches each fold's members.

        Yields a :class:`~mddf.blocks.base.Fold` per fold: its trainable training
        rows (``train``), its held-out rows (``test``), the rows the members
        train on (``fit_rows``: a shared resample with ``"resample_fold"``), D_t
        as sample weights (``weight``: ``"sample_weight"``), the fold's
        :class:`Bootstrap` (``draws``: ``"resample"``), and one seed per member
        (``seeds``). A uniform D_t (``uniform``) reaches the members as it is:
        no weights, no resample; so does a D_t that is 0 on every training row
        of a fold (every one of them at the margin target): its members fit
        those rows uniformly, as eq. 47 falls back to D_1 when every loss is 0
        (``"resample_fold"`` draws its shared resample uniformly then). ``rng``
        is consumed for the folds, then every seed, then each fold's shared
        resample, whatever the members.
        """
        for fold in self._folds(rng, y, trainable):
            train = fold.train
            if uniform or (weighting != "resample_fold" and not distribution[train].sum() > 0):
                yield fold
            elif weighting == "resample":
                yield replace(fold, draws=Bootstrap(train, distribution[train]))  # one alias table for the members
            elif weighting == "resample_fold":
                yield replace(fold, fit_rows=weighted_resample(train, distribution, rng))
            else:
                yield replace(fold, weight=distribution * (len(train) / distribution[train].sum()))

    def predict_proba(self, X, prefix=None):
        """Each member's class vectors for new rows, averaged over its fold models.

        ``prefix``: the :class:`mddf.forests.PrefixCodes` of the ``x`` that ``X`` begins with, or None.

        Returns
        -------
        ndarray of shape (n, n_members, n_classes)
        """
        return self._predict_members(X, (self.models_[0][0].n_classes,), prefix)
