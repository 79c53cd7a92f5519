"""What the classification and regression blocks share: folds, seeds, parallel dispatch, storage, prediction.

A block (one cascade layer) fits each of its members on k folds and gives every
training row the output of the fold model that never saw it; new rows get the
mean over the fold models. :class:`BlockBase` draws the folds and the seeds,
dispatches the fits to joblib, keeps the fitted models in a store
(:class:`mddf.storage.MemoryStore` or, with ``model_dir``,
:class:`mddf.storage.ModelStore`) and averages the fold models' outputs; each
member, whatever its kind, is reached through the member protocol
(:class:`mddf.blocks.member.Member`: its fit on a fold, its prediction, its
importances, how its models are stored), and a subclass says what a task's
folds and weights are.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

import numpy as np

from .._runtime.memory import release_freed_memory
from .._runtime.threads import Parallel, in_one_thread, one_blas_thread
from ..forests import PackedForest, fold_share
from ..forests.growing import MAX_SEED
from ..storage import MemoryStore, StoredModel, filled_in
from .member import as_member, member_class
from .target_stats import BlockStatistics

#: The fold index of the fit on every training row that ``fold_trees="refit"`` adds after the k folds.
REFIT = "all"


@dataclass(frozen=True)
class Fold:
    """One fold of a block's cross-fitting: the rows its members train on and are scored on, and their seeds.

    :meth:`BlockBase._folds` yields one per fold, in which the members train on ``train`` with
    neither sample weights nor resampling; the classification block's
    :meth:`~mddf.blocks.classifier.ForestBlock._weighted_folds` replaces ``fit_rows``, ``weight``
    or ``draws`` with how the sample distribution D_t reaches the fold's members.

    Attributes
    ----------
    index : int or str
        The fold's number, ``0 .. n_folds - 1``, or :data:`REFIT` for the fit on every training row.
    train : ndarray of int
        The fold's training rows that may train a member (all of them when every row is trainable).
    test : ndarray of int
        Its held-out rows, which get the fold models' outputs (none in the :data:`REFIT` fold).
    seeds : ndarray of int (n_members,)
        One seed per member.
    fit_rows : ndarray of int
        The rows the members train on: ``train``, or one weighted resample of it that every member
        of the fold shares.
    weight : ndarray of float64 (n,) or None, default=None
        Sample weights of every row, taken at the rows a member trains on; None: none.
    draws : mddf.forests.sampling.Bootstrap or None, default=None
        Weighted draws over ``train`` from which each member (each tree of a forest) takes a
        resample of its own; None: none.
    kept : int or None, default=None
        The trees a forest's fold model keeps for new rows (``fold_trees``); None: all.
    """

    index: int | str
    train: np.ndarray
    test: np.ndarray
    seeds: np.ndarray
    fit_rows: np.ndarray
    weight: np.ndarray | None = None
    draws: object = None
    kept: int | None = None


@dataclass(frozen=True)
class MemberFit:
    """One model fit of a block under probe (``probe_trees``), as it waits between the probe and the finish.

    Attributes
    ----------
    name : str
        The model's name in the store (``m<member>-fold<fold>``, ``m<member>-oob``).
    keep : bool
        Whether the model is kept for new rows (False: a fold model of ``fold_trees="refit"``, dropped once it
        has given its out-of-fold output).
    member : mddf.blocks.member.Member
        The member fitted (it writes the model to the store).
    fit : callable
        The fit task, ``fit(*args) -> (model, output)``.
    args : tuple
    stage : callable or None, default=None
        ``stage(*args)``: the fit in stages, or None (:class:`mddf.blocks.member.FitTask`).
    deferred : bool, default=False
        Fitted only at the finish: the refit on every training row, which gives no out-of-fold output.
    """

    name: str
    keep: bool
    member: object
    fit: object
    args: tuple
    stage: object = None
    deferred: bool = False


@dataclass(frozen=True)
class BlockProbe:
    """The out-of-fold outputs of a block under probe: after half of the probe's trees and after all of them.

    A forest's outputs are those of its first ``trees[0]`` and first ``trees[1]`` trees; every other member is
    fitted in full in the probe, and its outputs are the same in both.

    Attributes
    ----------
    trees : (int, int)
    first, outputs : ndarray ``(n, n_members) + width``
    """

    trees: tuple
    first: np.ndarray
    outputs: np.ndarray


class BlockBase(ABC):
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
    store : mddf.storage.MemoryStore, mddf.storage.ModelStore or None
        Where the fitted models are kept; None: in memory. With a
        :class:`~mddf.storage.ModelStore`, the worker that fits a model writes
        it into the store's folder, under ``name``, as soon as it has given its
        out-of-fold output, and ``models_`` holds
        :class:`mddf.storage.StoredModel` handles that load it (memory-mapped)
        for each prediction and let it go; at most one model per parallel
        worker is then in memory, in fit and in prediction. Results are
        bit-identical to those of the models kept in memory.
    name : str or None
        The subfolder of the store that holds this block's files (``layer-001``).
    fold_trees : {"all", "share", "refit"}, default="all"
        What a forest's fold models keep for new rows. ``"all"``: every tree,
        so that new rows get the mean of the k fold models (k x ``n_estimators``
        trees). ``"share"``: each fold model keeps its first
        ``n_estimators / k`` trees (the remainder spread over the first folds,
        at least one each), so that new rows get the mean of ``n_estimators``
        trees drawn from the k fold models, as many as one forest fitted once;
        the others give their out-of-fold outputs and are dropped. Forests
        with out-of-bag outputs have one model and keep every tree.
        ``"refit"``: the fold models give the out-of-fold outputs and are
        dropped; each member is then fitted once more on every training row
        (the :data:`REFIT` fold, drawn after the k folds' seeds), and new rows
        get that one model's output (scikit-learn's ``StackingClassifier``
        practice).
    probe_trees : int or None, default=None
        With a number m below ``n_estimators``, :meth:`fit` grows each forest's first m trees only (its other
        members in full) and returns their out-of-fold outputs, with those of the first ``m // 2`` in
        ``probe_``; :meth:`finish` then grows the forests on to ``n_estimators`` trees, the same trees as
        without the probe, and the block is the one fitted without it. None: no probe.

    Attributes
    ----------
    models_ : list (n_members) of lists of fitted models (or their stored handles)
        Each member's fold models.
    forests_ : list (n_folds or 1) of lists (n_members)
        The same models, fold first; only when every member has as many models.
    importances_ : ndarray of float64 (d,)
        Impurity-based importance of each input column, averaged over every
        model that has importances (see the subclass).
    probe_ : BlockProbe or None
        Under probe, between :meth:`fit` and :meth:`finish`; None otherwise.
    statistics_ : list of mddf.blocks.target_stats.FoldStatistics or None
        With ``target_statistics``, those of each kept fold model, in the order of ``models_[j]``; None without.
    member_weights_ : ndarray of float64 (n_members,) or None
        Each member's weight in the layer's output (:mod:`mddf.blocks.member_weights`, set by the cascade); None: equal.
    """

    #: Said after the error for a fold without a training row of positive weight.
    empty_fold_hint = ""
    #: The task of its members (:class:`mddf.blocks.member.Member`): ``"classification"`` or ``"regression"``.
    task = "classification"

    @property
    @abstractmethod
    def splitter(self):
        """The scikit-learn splitter class that draws the folds (``KFold`` or ``StratifiedKFold``)."""

    @abstractmethod
    def fit(self, X, y, *args, **kwargs):
        """Fit every member on the folds (through :meth:`_folds`, :meth:`_task` and :meth:`_gather`) and set
        ``n_features_in_``; return the out-of-fold outputs of the training rows, ``(n, n_members) + width``."""

    def __init__(
        self,
        forest_types,
        n_estimators,
        max_depth,
        n_folds,
        n_jobs,
        store=None,
        name=None,
        fold_trees="all",
        probe_trees=None,
        target_statistics=None,
    ):
        self.forest_types = tuple(forest_types)
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.n_folds = n_folds
        self.n_jobs = n_jobs
        self.store = MemoryStore() if store is None else store
        self.name = name
        self.fold_trees = fold_trees
        self.probe_trees = probe_trees
        self.target_statistics = target_statistics
        self.statistics_ = self.member_weights_ = None
        self.probe_ = None
        self._waiting = None  # under probe: the MemberFit and probe result of each task, and how they gather

    def __setstate__(self, state):
        state = filled_in("block", dict(state))  # what a block of an earlier version lacks (mddf.storage.layouts)
        if state.get("store") is None:  # a block pickled when in-memory models had no store
            state["store"] = MemoryStore()
        self.__dict__.update(state)

    # ------------------------------------------------------------------ fit
    def _folds(self, rng, y, trainable):
        """Draw the folds and one seed per fold and member (in this order); yield a :class:`Fold` per fold.

        A fold's ``train`` (and ``fit_rows``) holds its training rows that are ``trainable`` (all when
        it is None); it has no sample weights nor draws. With ``fold_trees="refit"`` a last fold
        follows, ``index`` = :data:`REFIT`: every trainable row, no held-out row, and seeds drawn from
        ``rng`` once the k folds are consumed.
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
            yield Fold(i, train, test, seeds[i], fit_rows=train, kept=self._kept_trees(i))
        if self.refits:
            seeds = rng.randint(MAX_SEED, size=len(self.forest_types))
            train = np.arange(n) if trainable is None else np.flatnonzero(trainable)
            yield Fold(REFIT, train, np.zeros(0, dtype=np.intp), seeds, fit_rows=train, kept=self._kept_trees(REFIT))

    def members(self):
        """The :class:`mddf.blocks.member.Member` of each entry of ``forest_types``, checked (:func:`as_member`)."""
        return [as_member(kind, self.task, j) for j, kind in enumerate(self.forest_types)]

    def _check_members_take_nan(self, X, members):
        """Raise if ``X`` holds NaN that one of ``members`` cannot take, naming the first
        (its :meth:`~mddf.blocks.member.Member.capabilities`); ``X`` is scanned only when there is such a member."""
        rejecting = [j for j, member in enumerate(members) if not member.capabilities().missing_values]
        if rejecting and np.isnan(X).any():
            for j in rejecting:
                members[j].check_takes_nan(f"forest_types[{j}]")

    def _member_task(self, fold, j, member, layer):
        """The task that fits member ``j`` (``member``) on ``fold`` of ``layer``
        (:meth:`~mddf.blocks.member.Member.fit_task`)."""
        return self._fold_task(fold.index, j, member, member.fit_task(fold, layer, j))

    def _statistics(self, rng, X, y, n_classes):
        """The fit's :class:`~mddf.blocks.target_stats.BlockStatistics` (seeds from ``rng``); None without any."""
        spec = self.target_statistics
        self.statistics_ = None if spec is None else []
        return None if spec is None else BlockStatistics(spec, rng, X, y, n_classes, self.n_folds)

    def _fold_layer(self, layer, fold, statistics, categorical, prefix):
        """``layer`` as ``fold``'s members read it, with its statistics appended when there are (kept in
        ``statistics_`` for a kept fold model: :meth:`~mddf.blocks.target_stats.BlockStatistics.layer`)."""
        if statistics is None:
            return layer
        stats, fold_layer = statistics.layer(layer, fold, fold.index == REFIT, categorical, prefix)
        if not (self.refits and fold.index != REFIT):
            self.statistics_.append(stats)
        return fold_layer

    @property
    def refits(self):
        """Whether the members are refitted on every training row and the fold models dropped."""
        return self.fold_trees == "refit"

    def _kept_trees(self, fold):
        """Trees the forest of fold ``fold`` keeps for new rows (``fold_trees``)."""
        if self.fold_trees != "share":
            return self.n_estimators
        return fold_share(self.n_estimators, self.n_folds, fold)

    def _fold_task(self, fold, j, member, task):
        """The task of the :class:`~mddf.blocks.member.FitTask` ``task`` of member ``j`` (``member``) on fold ``fold``
        (:meth:`_model_task`, named ``m<j>-fold<fold>``).

        With ``fold_trees="refit"`` a fold model gives its out-of-fold output and is dropped in the
        worker (its slot's model is None); only the :data:`REFIT` fold's model is kept.
        """
        keep = not (self.refits and fold != REFIT)
        spec = MemberFit(f"m{j}-fold{fold}", keep, member, task.fit, task.args, task.stage, deferred=fold == REFIT)
        return self._model_task(spec)

    def _model_task(self, spec):
        """The task of a :class:`MemberFit`: the fit, its model kept in the store (``keep``) or dropped; under probe,
        the probe's stage of it (:func:`_probe_stage`)."""
        if self._probing:
            self._waiting.append(spec)
            return in_one_thread(_probe_stage)(spec, self.probe_trees, self.n_estimators)
        if not spec.keep:
            return in_one_thread(_output_only)(spec.fit, *spec.args)
        return self._task(spec)

    @property
    def _probing(self):
        """Whether the block grows a probe first (``probe_trees`` below ``n_estimators``)."""
        return self.probe_trees is not None and self.probe_trees < self.n_estimators

    def _task(self, spec):
        """A joblib task that runs the fit of the :class:`MemberFit` ``spec`` (a model and its output) and keeps the
        model in the store.

        With a store that writes its models (``model_dir``), the task writes the model as ``spec.name`` in
        the block's folder (its member's :meth:`~mddf.blocks.member.Member.save`) and returns its record in the
        model's place (:func:`_fit_and_store`).
        """
        writer = self.store.writer(self.name)
        if writer is None:
            return in_one_thread(spec.fit)(*spec.args)
        return in_one_thread(_fit_and_store)(spec.member, writer, spec.name, spec.fit, *spec.args)

    def _gather(self, tasks, slots, n_rows, width):
        """Run the fit tasks; keep each member's models in ``models_``; return the out-of-fold outputs.

        ``slots[k]`` is ``(member, rows)`` of task ``k``: the rows its output is of, or None for every
        row (out-of-bag). Returns an array ``(n_rows, n_members) + width``.
        """
        results = self._run(tasks, slots)
        if self._waiting is not None:  # the probe's stage: the forests' first trees
            return self._gather_probe(results, slots, n_rows, width)
        self.models_ = [[] for _ in self.forest_types]
        for (j, _), (model, _) in zip(slots, results):
            if model is not None:  # None: a fold model dropped once it gave its output (fold_trees="refit")
                self.models_[j].append(self.store.handle(model))
        self._set_importances()
        return _outputs([output for _, output in results], slots, n_rows, len(self.forest_types), width)

    def _run(self, tasks, slots):
        """Run the tasks through joblib, the longest first (:func:`dispatch_rank`); the results in the tasks' order.

        Each task's seeds are drawn before any runs, so the order changes when the workers finish, not what they
        compute: a layer with a boosted member waits for one long fit less at its end."""
        order = sorted(range(len(tasks)), key=lambda k: dispatch_rank(self.forest_types[slots[k][0]]))
        with one_blas_thread():  # each task one busy thread (in_one_thread, mddf._runtime.threads)
            done = Parallel(n_jobs=self.n_jobs, prefer="threads")(tasks[k] for k in order)
        results = dict(zip(order, done))
        return [results[k] for k in range(len(tasks))]

    def _begin(self):
        """Start a fit: under probe, the list that collects the tasks' :class:`MemberFit` (see :meth:`_model_task`)."""
        self.probe_ = None
        self._waiting = [] if self._probing else None

    def _gather_probe(self, results, slots, n_rows, width):
        """Keep the probe's results for :meth:`finish`, set ``probe_`` and return the outputs of its trees."""
        n_members = len(self.forest_types)
        first = _outputs([outputs[0] for _, outputs in results], slots, n_rows, n_members, width)
        both = _outputs([outputs[1] for _, outputs in results], slots, n_rows, n_members, width)
        self._waiting = (list(zip(self._waiting, results)), slots, n_rows, width)
        m = self.probe_trees
        self.probe_ = BlockProbe((m // 2, m), first, both)
        return both

    def finish(self):
        """Finish a block fitted under probe: grow its forests on to ``n_estimators`` trees and fit what waited (the
        refit), keep the models as :meth:`fit` does without a probe; return the out-of-fold outputs."""
        if self.probe_ is None:
            raise ValueError(f"block {self.name}: finish() follows a fit under probe (probe_trees)")
        waiting, slots, n_rows, width = self._waiting
        self.probe_, self._waiting, self.probe_trees = None, None, None  # the block is now the one without a probe
        tasks = []
        for spec, (held, outputs) in waiting:
            if spec.deferred:
                finished = spec
            elif isinstance(held, _Staged):
                finished = replace(spec, fit=_finish_staged, args=(held.staged,), stage=None)
            else:  # fitted in full by the probe
                finished = replace(spec, fit=_fitted, args=(held, outputs[1]), stage=None)
            tasks.append(self._model_task(finished))
        return self._gather(tasks, slots, n_rows, width)

    @property
    def forests_(self):
        counts = {len(models) for models in self.models_}
        if len(counts) != 1:
            raise AttributeError(
                "forests_ lists the models fold first only when every member has as many of them; see models_"
            )
        return [list(fold) for fold in zip(*self.models_)]

    def _flat_models(self, with_members=False):
        """Every fitted model, fold first (fold 0 of every member, then fold 1, ...); with ``with_members``, each as
        ``(member, model)``."""
        members = self.members() if with_members else [None] * len(self.models_)
        depth = max(len(models) for models in self.models_)
        return [
            (members[j], models[i]) if with_members else models[i]
            for i in range(depth)
            for j, models in enumerate(self.models_)
            if i < len(models)
        ]

    def _set_importances(self):
        """``importances_``: the mean of the fitted models' importances (their members'
        :meth:`~mddf.blocks.member.Member.importances`), of those that have them; zeros when none has."""
        stats = self.statistics_
        d, appended = self.n_features_in_, stats[0].width if stats else 0
        values = [member.importances(model, d + appended) for member, model in self._flat_models(True)]
        values = [v for v in values if v is not None]
        self.importances_ = np.mean(values, axis=0) if values else np.zeros(d + appended)
        if appended:  # a statistic's importance goes to its column, half to each of a pair's
            width = appended // len(self.target_statistics.sources)
            self.importances_ = self.importances_ @ self.target_statistics.weights(d, width)

    # -------------------------------------------------------------- predict
    def _binned(self, model):
        return issubclass(self.store.model_class(model), PackedForest)

    def _predict_members(self, X, width, prefix=None):
        """Each member's output for new rows, averaged over its fold models: ``(n, n_members) + width``.

        Each model predicts through its member (:meth:`~mddf.blocks.member.Member.predict`, in a worker) from
        ``X`` or the rows' bin codes, binned once for all of the layer's binned forests (reusing ``prefix``, a
        :class:`~mddf.forests.PrefixCodes` of the ``x`` that ``X`` begins with, when given). A member that cannot
        take the NaN of ``X`` raises a ``ValueError`` naming it first. With ``statistics_``, each fold's models
        read ``X`` with its statistics appended.
        """
        members = self.members()
        self._check_members_take_nan(X, members)
        out = np.zeros((X.shape[0], len(self.models_)) + width)
        if self.statistics_:
            levels = self.target_statistics.levels(X)
            for i, stats in enumerate(self.statistics_):  # fold i's models read its statistics
                fold = [(j, models[i]) for j, models in enumerate(self.models_)]
                self._add_outputs(out, stats.appended_to(X, levels), fold, prefix)
        else:
            self._add_outputs(out, X, [(j, model) for j, models in enumerate(self.models_) for model in models], prefix)
        for j, models in enumerate(self.models_):
            out[:, j] /= len(models)
        return out

    def _add_outputs(self, out, X, flat, prefix):
        """Add to ``out[:, j]`` the output for ``X`` of each ``(j, model)`` of ``flat``, in this order."""
        members = self.members()
        has_missing = bool(np.isnan(X).any())
        binned = next((model for _, model in flat if self._binned(model)), None)
        codes = None
        if binned is not None:
            codes = binned.binner.transform(X) if prefix is None else prefix.transform(binned.binner, X)

        def task(j, model):
            member = members[j]
            if isinstance(model, StoredModel):  # the worker loads it (memory-mapped) and lets it go
                return in_one_thread(_predict_stored)(member, model.record, self.store.path, X, codes, has_missing)
            return in_one_thread(member.predict)(model, X, codes, has_missing)

        with one_blas_thread():
            results = Parallel(n_jobs=self.n_jobs, prefer="threads")(task(j, model) for j, model in flat)
        for (j, _), output in zip(flat, results):  # fixed order: bit-identical for any n_jobs
            out[:, j] += output

    @property
    def nbytes(self):
        """Memory held by the block's models (and bin edges), in bytes (pickled size for other members); 0 under probe,
        before :meth:`finish`."""
        if self.probe_ is not None:
            return 0
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


def dispatch_rank(kind):
    """Where the fits of the member ``kind`` go in a layer's queue, the lowest first (its kind's
    :attr:`~mddf.blocks.member.Member.dispatch_rank`): the members fitted whole (a boosted member's rounds take
    several forests' time), then the random forests, then the other forests (one candidate feature a split: the
    quickest)."""
    return member_class(kind)(kind).dispatch_rank


def _outputs(outputs, slots, n_rows, n_members, width):
    """The tasks' ``outputs`` in one array ``(n_rows, n_members) + width``: ``slots[k]`` is ``(member, rows)`` of
    task k, its rows None for every row (out-of-bag)."""
    out = np.zeros((n_rows, n_members) + width)
    for (j, rows), output in zip(slots, outputs):
        if rows is None:
            out[:, j] = output
        elif len(rows):
            out[rows, j] = output
    return out


@dataclass(frozen=True)
class _Staged:
    """A forest (or boosted member) of a probe, grown to the probe's trees, waiting to be grown on."""

    staged: object


def _probe_stage(spec, trees, n_estimators):
    """The probe's stage of a :class:`MemberFit` (runs in a worker): the first ``trees // 2`` and ``trees`` of a
    forest's ``n_estimators`` trees (as large a share of an XGBoost member's rounds), another member in full;
    nothing for a deferred one. Returns ``(held, (first, outputs))``."""
    if spec.deferred:
        return None, (None, None)
    staged = None if spec.stage is None else spec.stage(*spec.args)
    if staged is None:
        model, output = spec.fit(*spec.args)
        return model, (output, output)

    def share(k):  # k of the forests' n_estimators, in this member's trees (rounds)
        return max(1, int(round(staged.n_estimators * k / n_estimators)))

    return _Staged(staged), staged.probe(share(trees // 2), share(trees))


def _finish_staged(staged):
    """Grow a probe's forest (or boosted member) on to its ``n_estimators`` trees (rounds); ``(model, output)`` as its
    fit returns them."""
    return staged.grow(staged.n_estimators).finish()


def _fitted(model, output):
    """A model the probe fitted in full, as a fit task returns it."""
    return model, output


def _output_only(fit, *args):
    """Run ``fit(*args)`` and return ``(None, output)``: the model leaves memory in the worker that fitted it."""
    _, output = fit(*args)
    return None, output


def _fit_and_store(member, writer, name, fit, *args):
    """Run ``fit(*args)``, write the fitted model with ``writer`` (:meth:`~mddf.blocks.member.Member.save` of
    ``member``) and return its record with the model's output.

    Runs in the worker that fits the model, so that the model leaves memory as soon as its
    out-of-fold output is computed.
    """
    model, out = fit(*args)
    record = member.save(model, writer, name)
    del model
    release_freed_memory()
    return record, out


def _predict_stored(member, record, folder, *args):
    """Load a stored model through its ``member`` (memory-mapped), return its prediction ``member.predict(model,
    *args)``, and let it go (runs in a worker)."""
    return member.predict(member.load(record, folder), *args)
