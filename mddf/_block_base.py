"""What the classification and regression blocks share: folds, seeds, parallel dispatch, storage, prediction.

A block (one cascade layer) fits each of its members on k folds and gives every
training row the output of the fold model that never saw it; new rows get the
mean over the fold models. :class:`BlockBase` draws the folds and the seeds,
dispatches the fits to joblib, keeps the fitted models in a store
(:class:`mddf._storage.MemoryStore` or, with ``model_dir``,
:class:`mddf._storage.ModelStore`) and averages the fold models' outputs; a
subclass says how one member is fitted and what its output is.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.parallel import Parallel

from ._forest_kinds import forest_kind
from ._storage import MemoryStore
from ._weights import Bootstrap
from .trees import BinnedForest, BinnedRegressionForest, FeatureBinner, ForestBuilder, TreeSettings, grow_tree

MAX_SEED = np.iinfo(np.int32).max
#: The forests grown on a :class:`BinnedInput`, which predict from the layer's bin codes.
BINNED_FORESTS = (BinnedForest, BinnedRegressionForest)
#: The most categories on the smaller side of a best category subset (LightGBM's ``max_cat_threshold``).
MAX_CATEGORY_SPLITS = 32
#: The fewest rows a category needs in a node to be placed by a best category subset (LightGBM's
#: ``min_data_per_group``); rarer ones go right.
MIN_CATEGORY_COUNT = 1
#: Most categories of a column split into category subsets (a 256-bit set holds them and the missing code);
#: a column of more is split at thresholds of its codes.
MAX_SUBSET_CATEGORIES = 255


class BinnedInput:
    """A layer input quantised once for every tree of the block (``tree_method="hist"``).

    Parameters
    ----------
    X : ndarray of float32 (n, d)
    categorical : ndarray of bool (d,) or None
        Columns to split into subsets of categories. A column is split so only
        when each of its values among the rows has a bin of its own and there
        are at most 255 of them (so that every code, the missing one included,
        fits a 256-bit set); other columns, and every column when None, are
        split at thresholds.
    prefix : BinnedInput or None
        The binned first columns of ``X`` (the cascade's ``x``, the same rows at
        every layer): only the other columns are binned, and the codes and bin
        edges are those of binning all of ``X``.

    Attributes
    ----------
    binner : FeatureBinner
        The bin edges, fitted on the layer's training rows; kept by the fitted forests.
    codes : ndarray of uint8 (n, d), C-contiguous
        Bin of every value.
    n_bins : ndarray of int64 (d,)
        Bins of each feature, its missing bin included when it has NaN.
    missing_bin : ndarray of int64 (d,) or None
        Code of NaN in each feature that has NaN, -1 in the others (what the trees
        split on); None when the input has no NaN.
    has_missing : bool
        Whether the input has NaN.
    categorical : ndarray of uint8 (d,) or None
        1 for the columns split into category subsets; None when there is none.
    """

    def __init__(self, X, categorical=None, prefix=None):
        if prefix is None:
            self.binner = FeatureBinner().fit(X)
            self.codes = self.binner.transform(X)
        else:
            p = prefix.codes.shape[1]
            rest = FeatureBinner().fit(X[:, p:])
            self.binner = prefix.binner.joined(rest)
            self.codes = np.hstack([prefix.codes, rest.transform(X[:, p:])])
        has_missing = self.binner.has_missing_
        self.n_bins = np.array([len(e) + 1 for e in self.binner.edges_], dtype=np.int64) + has_missing
        self.has_missing = bool(has_missing.any())
        self.missing_bin = (
            np.where(has_missing, self.binner.missing_bins_, -1).astype(np.int64) if self.has_missing else None
        )
        self.categorical = None
        if categorical is not None:
            few = self.binner.missing_bins_ <= MAX_SUBSET_CATEGORIES
            subset = np.asarray(categorical, dtype=bool) & self.binner.exact_ & few
            if subset.any():
                self.categorical = subset.astype(np.uint8)


class PrefixCodes:
    """The bin codes of the columns of ``x`` in rows being predicted, computed once and reused by every layer.

    The cascade bins ``x`` once at fit (``BinnedInput(prefix=...)``), so each layer whose input
    begins with ``x`` has the same edges for those columns; a layer's rows ``[x, passed]`` are then
    binned by reusing the codes of ``x`` and binning only the columns that the previous layers pass
    on. A layer whose edges for ``x`` differ (compared value by value) bins all its columns.

    Parameters
    ----------
    X : ndarray of float32 (n, d)
        The rows' ``x``.
    """

    def __init__(self, X):
        self.X = X
        self._edges = self._codes = None

    def transform(self, binner, X):
        """Bin codes of ``X``, a layer's input beginning with ``x``, with ``binner``'s edges."""
        p = self.X.shape[1]
        if self._codes is None:
            self._edges, self._codes = binner.edges_[:p], binner.columns(0, p).transform(self.X)
        elif not all(a is b or np.array_equal(a, b) for a, b in zip(self._edges, binner.edges_[:p])):
            return binner.transform(X)
        if X.shape[1] == p:
            return self._codes
        return np.hstack([self._codes, binner.columns(p).transform(X[:, p:])])


class TreeGrower:
    """The trees of one forest of :mod:`mddf.trees`, grown on a :class:`BinnedInput` and packed as they come.

    Parameters
    ----------
    kind : str
        The forest kind (:mod:`mddf._forest_kinds`): its split rule and how many candidate features.
    max_depth : int or None
    max_features : int, float, str or None
        The block's ``max_features`` setting (:meth:`mddf._forest_kinds.ForestKind.n_candidates`).
    X : BinnedInput
    y : ndarray of int64 (class indices) or float64 (targets)
    n_classes : int or None
        Classes of a classification forest; None for regression.
    """

    def __init__(self, kind, max_depth, max_features, X, y, n_classes):
        forest = forest_kind(kind)
        self.X, self.y, self.n_classes = X, y, n_classes
        self.width = n_classes or 1  # columns of a tree's output
        self.settings = TreeSettings(
            -1 if max_depth is None else int(max_depth),
            forest.n_candidates(max_features, X.codes.shape[1]),
            forest.split_rule,
            MAX_CATEGORY_SPLITS,
            MIN_CATEGORY_COUNT,
        )
        self.builder = ForestBuilder(X.binner, n_classes)

    def add(self, weight, seed, keep=True):
        """Grow one tree on the rows' ``weight`` (0: not in the tree's sample); keep it in the forest if ``keep``.

        A tree not kept serves :meth:`accumulate_last` only.
        """
        X = self.X
        tree = grow_tree(
            X.codes, self.y, weight, X.n_bins, X.missing_bin, X.categorical, self.n_classes or 0, self.settings, seed
        )
        self.builder.add(tree, keep)

    def accumulate_last(self, rows, out):
        """Add the last tree's output for the rows ``rows`` of the input to ``out`` ``(len(rows), n_classes or 1)``."""
        self.builder.route_last(self.X.codes, rows, self.X.has_missing, out)

    def finish(self):
        return self.builder.finish()


def grow_forest(trees, n_estimators, seed, n, rows, weight, bootstrap, predict_rows, draws=None, n_kept=None):
    """Grow one forest tree by tree on the rows ``rows`` of the shared layer input.

    Each tree is fitted on the whole layer input with a row weight that is zero
    outside its training rows, so no fold or bootstrap copy of the data is ever
    made, and it is packed at once (``trees``: a :class:`TreeGrower`, or the
    classification block's scikit-learn trees).

    Parameters
    ----------
    trees : TreeGrower or compatible
        ``add(weight, seed, keep)``, ``accumulate_last(rows, out)`` and ``finish()``.
    n_estimators, seed : int
    n : int
        Rows of the layer input.
    rows : ndarray of int
        Training rows of the forest, repeated rows counted as many times (a
        weighted resample of a fold).
    weight : ndarray (n,) or None
        Per-row weight multiplying the row counts (sample weights, or D_t in
        ``sample_weight`` mode).
    bootstrap : bool
        Each tree draws ``len(rows)`` rows with replacement from ``rows``:
        uniformly, unlike scikit-learn >= 1.8 forests, which draw the bootstrap in
        proportion to ``sample_weight`` (see :func:`mddf._block.fit_oob_forest`),
        unless ``draws`` is given.
    predict_rows : ndarray of int, or "oob"
        Rows whose outputs are returned: the held-out fold, or ``"oob"`` for
        each row's mean over the trees whose bootstrap left it out.
    draws : Bootstrap over ``rows``, or None
        Draws of the bootstrap in proportion to D_t: every tree then trains on its
        own weighted resample of ``rows``.
    n_kept : int or None
        The forest keeps its first ``n_kept`` trees (None: all); every tree gives
        its outputs of ``predict_rows``.

    Returns
    -------
    (forest, output): the forest and, for held-out rows, the mean output of its trees
    ``(len(predict_rows), width)``; for ``"oob"``, the sum of each row's outputs over the trees
    whose bootstrap left it out ``(n, width)`` and their number ``(n,)``.
    """
    rng = np.random.RandomState(seed)
    if bootstrap and draws is None:
        draws = Bootstrap(rows)
    base_counts = None if bootstrap else np.bincount(rows, minlength=n).astype(np.float64)
    oob = isinstance(predict_rows, str)
    if oob:
        output_sum, output_count = np.zeros((n, trees.width)), np.zeros(n)
    else:
        predict_rows = np.asarray(predict_rows, dtype=np.int64)
        output_sum = np.zeros((len(predict_rows), trees.width))
    n_kept = n_estimators if n_kept is None else n_kept
    for t in range(n_estimators):
        tree_seed = rng.randint(MAX_SEED)
        if bootstrap:
            counts = draws.counts(rng, n, len(rows))
        else:
            counts = base_counts
        trees.add(counts if weight is None else counts * weight, tree_seed, t < n_kept)
        if oob:
            out = np.flatnonzero(counts == 0)
            if len(out):
                last = np.zeros((len(out), trees.width))
                trees.accumulate_last(out, last)
                output_sum[out] += last
                output_count[out] += 1
        else:
            trees.accumulate_last(predict_rows, output_sum)  # in place: no per-tree output array
    forest = trees.finish()
    if not oob:
        return forest, output_sum / n_estimators
    return forest, (output_sum, output_count)


def fold_share(n_estimators, n_folds, fold):
    """The trees fold model ``fold`` of a forest keeps with ``fold_trees="share"``: its share of ``n_estimators``.

    ``n_estimators // n_folds``, one more for the first ``n_estimators % n_folds`` folds, and at least one.
    """
    share, rest = divmod(n_estimators, n_folds)
    return max(1, share + (fold < rest))


class BlockBase:
    """The members of one layer, cross-fitted on k folds, their models kept in a store.

    Parameters
    ----------
    forest_types : sequence
        One entry per member.
    n_estimators : int
        Trees per forest (not used by the other members).
    max_depth : int or None
        Depth limit of every tree of the block's forests (not used by the other members).
    n_folds : int
        k of the k-fold outputs.
    n_jobs : int or None
        Fits and predictions run in parallel through joblib (threads: the
        compiled tree code, scikit-learn's tree building and XGBoost release the
        GIL, and threads share the data instead of copying it), or on whatever
        backend ``joblib.parallel_config`` selects (e.g. ``"dask"``). Every seed
        is drawn before the fits are dispatched and results are gathered in a
        fixed order, so they do not depend on it.
    store : mddf._storage.MemoryStore, mddf._storage.ModelStore or None
        Where the fitted models are kept; None: in memory. With a
        :class:`~mddf._storage.ModelStore`, the worker that fits a model writes
        it into the store's folder, under ``name``, as soon as it has given its
        out-of-fold output, and ``models_`` holds
        :class:`mddf._storage.StoredModel` handles that load it (memory-mapped)
        for each prediction and let it go; at most one model per parallel
        worker is then in memory, in fit and in prediction. Results are
        bit-identical to those of the models kept in memory.
    name : str or None
        The subfolder of the store that holds this block's files (``layer-001``).
    fold_trees : {"all", "share"}, default="all"
        What a forest's fold models keep for new rows. ``"all"``: every tree,
        so that new rows get the mean of the k fold models (k x ``n_estimators``
        trees). ``"share"``: each fold model keeps its first
        ``n_estimators / k`` trees (the remainder spread over the first folds,
        at least one each), so that new rows get the mean of ``n_estimators``
        trees drawn from the k fold models, as many as one forest fitted once;
        the others give their out-of-fold outputs and are dropped. Forests
        with out-of-bag outputs have one model and keep every tree.

    Attributes
    ----------
    models_ : list (n_members) of lists of fitted models (or their stored handles)
        Each member's fold models.
    forests_ : list (n_folds or 1) of lists (n_members)
        The same models, fold first; only when every member has as many models.
    importances_ : ndarray of float64 (d,)
        Impurity-based importance of each input column, averaged over every
        model that has importances (see the subclass).
    """

    #: The scikit-learn splitter class that draws the folds (``KFold`` or ``StratifiedKFold``).
    splitter = None
    #: Said after the error for a fold without a training row of positive weight.
    empty_fold_hint = ""

    def __init__(self, forest_types, n_estimators, max_depth, n_folds, n_jobs, store=None, name=None, fold_trees="all"):
        self.forest_types = tuple(forest_types)
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.n_folds = n_folds
        self.n_jobs = n_jobs
        self.store = MemoryStore() if store is None else store
        self.name = name
        self.fold_trees = fold_trees

    def __setstate__(self, state):
        if state.get("store") is None:  # a block pickled when in-memory models had no store
            state["store"] = MemoryStore()
        self.__dict__.update(state)

    # ------------------------------------------------------------------ fit
    def _folds(self, rng, y, trainable):
        """Draw the folds and one seed per fold and member (in this order); yield ``(i, train, test, seeds)``.

        ``train`` holds the fold's training rows that are ``trainable`` (all when it is None).
        """
        n = len(y)
        folds = self.splitter(self.n_folds, shuffle=True, random_state=rng.randint(MAX_SEED))
        splits = list(folds.split(np.zeros(n), y))
        seeds = rng.randint(MAX_SEED, size=(self.n_folds, len(self.forest_types)))
        for i, (train, test) in enumerate(splits):
            if trainable is not None:
                train = train[trainable[train]]
                if not len(train):
                    raise ValueError(
                        f"every training row of fold {i + 1} of {self.n_folds} has sample weight 0; "
                        f"every fold needs training rows of positive weight{self.empty_fold_hint}"
                    )
            yield i, train, test, seeds[i]

    def _kept_trees(self, fold):
        """Trees the forest of fold ``fold`` keeps for new rows (``fold_trees``)."""
        if getattr(self, "fold_trees", "all") == "all":
            return self.n_estimators
        return fold_share(self.n_estimators, self.n_folds, fold)

    def _task(self, name, fit, *args):
        """A joblib task that runs ``fit(*args)`` (a model and its output) and keeps the model in the store."""
        return self.store.fit_task(self.name, name, fit, *args)

    def _gather(self, tasks, slots, n_rows, width):
        """Run the fit tasks; keep each member's models in ``models_``; return the out-of-fold outputs.

        ``slots[k]`` is ``(member, rows)`` of task ``k``: the rows its output is of, or None for every
        row (out-of-bag). Returns an array ``(n_rows, n_members) + width``.
        """
        results = Parallel(n_jobs=self.n_jobs, prefer="threads")(tasks)
        out = np.zeros((n_rows, len(self.forest_types)) + width)
        self.models_ = [[] for _ in self.forest_types]
        for (j, rows), (model, output) in zip(slots, results):
            self.models_[j].append(self.store.handle(model))
            if rows is None:
                out[:, j] = output
            else:
                out[rows, j] = output
        self._set_importances()
        return out

    @property
    def forests_(self):
        counts = {len(models) for models in self.models_}
        if len(counts) != 1:
            raise AttributeError(
                "forests_ lists the models fold first only when every member has as many of them; see models_"
            )
        return [list(fold) for fold in zip(*self.models_)]

    def _flat_models(self):
        """Every fitted model, fold first (fold 0 of every member, then fold 1, ...)."""
        depth = max(len(models) for models in self.models_)
        return [models[i] for i in range(depth) for models in self.models_ if i < len(models)]

    def _model_importances(self, model):
        """A fitted model's importances per input column, or None to leave it out of ``importances_``."""
        return model.importances / model.n_trees

    def _set_importances(self):
        values = [self._model_importances(model) for model in self._flat_models()]
        values = [v for v in values if v is not None]
        self.importances_ = np.mean(values, axis=0) if values else np.zeros(self.n_features_in_)

    # -------------------------------------------------------------- predict
    def _binned(self, model):
        return issubclass(self.store.model_class(model), BINNED_FORESTS)

    def _predict_members(self, X, predict, width, prefix=None):
        """Each member's output for new rows, averaged over its fold models: ``(n, n_members) + width``.

        ``predict(model, rows, has_missing)`` runs in a worker; a binned forest gets the rows' bin
        codes, binned once for all of the layer's forests (reusing ``prefix``, a :class:`PrefixCodes`
        of the ``x`` that ``X`` begins with, when given), any other model ``X``.
        """
        has_missing = bool(np.isnan(X).any())
        flat = [(j, model) for j, models in enumerate(self.models_) for model in models]
        binned = next((model for _, model in flat if self._binned(model)), None)
        codes = None
        if binned is not None:
            codes = binned.binner.transform(X) if prefix is None else prefix.transform(binned.binner, X)

        def task(model):
            return self.store.predict_task(model, predict, codes if self._binned(model) else X, has_missing)

        results = Parallel(n_jobs=self.n_jobs, prefer="threads")(task(model) for _, model in flat)
        out = np.zeros((X.shape[0], len(self.models_)) + width)
        for (j, _), output in zip(flat, results):  # fixed order: bit-identical for any n_jobs
            out[:, j] += output
        for j, models in enumerate(self.models_):
            out[:, j] /= len(models)
        return out

    @property
    def nbytes(self):
        """Memory held by the block's models (and bin edges), in bytes (pickled size for other members)."""
        flat = self._flat_models()
        total = sum(model.nbytes for model in flat)
        binned = next((model for model in flat if self._binned(model)), None)
        if binned is not None:
            total += sum(e.nbytes for e in binned.binner.edges_)
        return total

    # --------------------------------------------------------------- storage
    def discard(self):
        """Delete the models of a layer that is not kept from the store."""
        self.store.remove(self.name)

    def move_to(self, store):
        """Move the models into ``store`` (same layer name): a layer shared by the candidates of a grid search."""
        if store is self.store:
            return
        self.store.move(self.name, [model for models in self.models_ for model in models], store)
        self.store = store

    def to_memory(self):
        """Load every stored model into memory (arrays read, not mapped) and keep them in memory from now on."""
        self.models_ = [[self.store.loaded(model) for model in models] for models in self.models_]
        self.store = MemoryStore()
