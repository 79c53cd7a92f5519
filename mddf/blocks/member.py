"""The member protocol: what a block asks of each of its members, and the registry of the members' kinds.

A block's ``forest_types`` lists its members; each entry is turned into a :class:`Member` (:func:`as_member`), and
the block calls only the methods of :class:`Member`: the fit on a fold's rows (:meth:`Member.fit_task`, or the
out-of-bag fit :meth:`Member.oob_task`), the prediction of a fitted model (:meth:`Member.predict`), its
attributions (:meth:`Member.attributions`), its importances, and how a model is written to a block's store and
read back (:meth:`Member.save`, :meth:`Member.load`). The kinds built in:

- :class:`mddf.blocks.forest_member.ForestMember`: ``"rf"``, ``"crf"``, ``"et"``, grown by the block tree by tree;
- :class:`mddf.blocks.boosted_member.BoostedMember`: ``"gbdt"``, ``"gbdt_es"``, ``"gbdt_vector"`` and any XGBoost
  estimator instance;
- :class:`mddf.blocks.lgbm_member.LightGBMMember`: ``"lgbm"``, ``"lgbm_es"`` and any LightGBM estimator
  instance;
- :class:`mddf.blocks.members.EstimatorMember`: any other scikit-learn estimator instance.

Adding a kind of member is writing one class in one module and registering it: subclass :class:`Member` (or
:class:`~mddf.blocks.members.EstimatorMember`, for an estimator of another library fitted whole on each fold), name
the ``forest_types`` entries it answers in :attr:`Member.names` (and the estimator instances it takes in
:meth:`Member.claims`), declare what it can do in :meth:`Member.capabilities` (categories, missing values, several
targets, monotone constraints, attributions, early stopping: a :class:`Capabilities`), decorate it with
:func:`register_member`, and import its module in :mod:`mddf.blocks` (``__init__.py``) so that it registers when
mddf is imported. Nothing else changes: the blocks, the probes, the stores, ``explain`` and the cascades' checks reach
it through these methods and its declaration, never through lists of names.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

#: The member kinds by the ``forest_types`` name each answers (:func:`register_member`).
_NAMED = {}
#: The member kinds that take estimator instances, the last registered first (:meth:`Member.claims`).
_CLAIMING = []


@dataclass(frozen=True)
class FitTask:
    """One fit of a member, as a worker runs it: ``fit(*args)`` returns ``(model, output)``, the fitted model and its
    output of the rows it holds out (``(len(rows), n_classes)`` class probabilities, or ``(len(rows),)`` predictions).

    ``stage``, when given, takes the same ``args`` and returns the fit in stages, or None: an object with
    ``n_estimators`` (trees or rounds), ``probe(first, trees)`` (the held-out outputs after ``first`` and after
    ``trees`` of them) and ``grow(n).finish()`` (the ``(model, output)`` of ``fit``, bit for bit), as
    :class:`mddf.forests.growing.StagedForest` and :class:`mddf.blocks.staged_boosting.StagedBoosting`; a layer
    probe fits such a member in two stages, and any other in full.
    """

    fit: object
    args: tuple
    stage: object = None


@dataclass(frozen=True)
class Capabilities:
    """What a member can do, declared once by its kind (:meth:`Member.capabilities`) and read by the cascade's checks
    instead of lists of names.

    Attributes
    ----------
    categories : bool, default=False
        It splits the layer's category columns as categories (it is given them).
    missing_values : bool, default=True
        It takes NaN in its input.
    several_targets : bool, default=False
        It fits a 2-D ``y`` of several regression targets.
    monotone : bool, default=False
        It honours ``monotonic_cst`` (the layer's constraints are given to it).
    attributions : bool, default=False
        ``explain()`` attributes its outputs exactly (its fitted models are then checked one by one).
    early_stopping : bool, default=False
        It stops its rounds on rows held out of each fold model's training rows.
    """

    categories: bool = False
    missing_values: bool = True
    several_targets: bool = False
    monotone: bool = False
    attributions: bool = False
    early_stopping: bool = False


@dataclass
class LayerFit:
    """What a block's fit gives its members: the layer's input and targets, and the block's settings.

    Attributes
    ----------
    X : ndarray of float32 (n, d)
        The layer input (NaN: missing).
    forest_input : BinnedInput or ndarray
        The input of the forests the block grows: ``X`` binned once for all of them, or ``X`` itself
        (``tree_method="exact"``).
    y : ndarray (n,)
        Class indices, or the targets.
    n_classes : int or None
        Classes of a classification block; None for regression.
    categorical : ndarray of bool (d,) or None
        The columns that hold category codes.
    n_estimators, max_depth, max_features
        The block's forests' settings.
    resample_weight : ndarray (n,)
        The rows' weights, drawn in proportion to for a member that takes no ``sample_weight``.
    weights_name : str
        What those weights are, for the warning that such a member gets them as a resample.
    weights_equal : bool, default=False
        The rows' weights are all equal: a member fitted whole gets no ``sample_weight``.
    warned : set
        What the members were already warned of (a resample, too few rows): once each a layer.
    monotone : tuple of int or None, default=None
        The monotone constraint of each input column (1, -1, 0; ``monotonic_cst``), for the members that take one;
        None: none.
    categories : ndarray of bool (d,) or None, default=None
        Every column that holds category codes, whatever its number of levels, for the members that read categories
        themselves (CatBoost's ``cat_features``); None: those of ``categorical``.
    """

    X: object
    forest_input: object
    y: object
    n_classes: object
    categorical: object
    n_estimators: int
    max_depth: object
    max_features: object
    resample_weight: object
    weights_name: str
    weights_equal: bool = False
    warned: set = field(default_factory=set)
    monotone: object = None
    categories: object = None


def layer_categories(categories, n_columns):
    """A layer's category columns over its ``n_columns`` input columns (:attr:`LayerFit.categories`): ``categories``,
    those of the cascade's ``x`` (its first columns), the rest numbers; None when ``categories`` is None."""
    if categories is None:
        return None
    return np.r_[np.asarray(categories, dtype=bool), np.zeros(n_columns - len(categories), dtype=bool)]


def layer_constraints(monotone, n_columns, passed):
    """A layer's monotone constraints over its ``n_columns`` input columns (:attr:`LayerFit.monotone`): ``monotone``,
    those of the cascade's ``x`` (its first columns), then the pattern ``passed`` repeated over the outputs passed on
    (``(1,)``: each prediction of ``y`` increasing; ``(-1, 1)``: each binary class vector, its negative class's share
    decreasing and its positive class's increasing); None when ``monotone`` is None."""
    if monotone is None:
        return None
    n_passed = n_columns - len(monotone)
    pattern = np.tile(np.asarray(passed, dtype=np.int8), n_passed // len(passed))
    if n_passed < 0 or len(pattern) != n_passed:
        raise ValueError(f"a layer input of {n_columns} columns does not begin with the {len(monotone)} constrained")
    return tuple(int(c) for c in np.concatenate([np.asarray(monotone, dtype=np.int8), pattern]))


class Member(ABC):
    """One member of a block: how it is fitted on a fold's rows, predicts, explains, and is stored.

    The base of every kind (see the module for the kinds and how to add one): a kind writes :meth:`fit_task`,
    :meth:`predict` and :meth:`attributions` (abstract here), and the other methods where their defaults do not
    fit it. An instance stands for one entry of ``forest_types`` in a block of ``task``; it holds no fitted model
    (the block keeps those, one a fold), so that it is made again from ``forest_types`` whenever the block needs it.

    Parameters
    ----------
    kind : str or estimator
        The entry of ``forest_types``.
    task : {"classification", "regression"}, default="classification"
    """

    #: The ``forest_types`` names this kind answers.
    names = ()
    #: Whether the block grows it on its binned input (``tree_method="hist"``), as it grows its forests.
    forest = False
    #: Where its fits go in a layer's queue, the lowest first: the longest fits (boosted members) before the forests.
    dispatch_rank = 0

    def __init__(self, kind, task="classification"):
        self.kind = kind
        self.task = task

    @classmethod
    def claims(cls, estimator):
        """Whether this kind takes the estimator instance ``estimator`` of ``forest_types``; none by default."""
        return False

    def check(self, where):
        """Raise a clear error naming ``where`` if this member cannot be one of a block of its task; nothing here."""
        return None

    def capabilities(self):
        """What it can do (:class:`Capabilities`); nothing beyond taking NaN here."""
        return Capabilities()

    def check_takes_nan(self, where):
        """Raise a ``ValueError`` naming ``where`` when it cannot take the NaN of the layer input (its
        :meth:`capabilities` say so); nothing here."""
        return None

    @abstractmethod
    def fit_task(self, fold, layer, position):
        """The :class:`FitTask` that fits it on ``fold`` (a :class:`mddf.blocks.base.Fold`: the rows it trains on,
        their weights or draws, its seed ``fold.seeds[position]``) of ``layer`` (a :class:`LayerFit`), and gives the
        outputs of the fold's held-out rows ``fold.test``."""

    def oob_task(self, seed, layer, weight, rows):
        """The :class:`FitTask` of an out-of-bag fit on every row (``class_vectors="oob"``), or None: it is
        cross-fitted on folds instead (the default)."""
        return None

    @abstractmethod
    def predict(self, model, X, codes, has_missing):
        """A fitted model's output of new rows ``X`` (float32) or their bin ``codes`` (the layer's, or None):
        class probabilities ``(n, n_classes)`` or predictions ``(n,)``."""

    def check_explainable(self, model, where, role="member"):
        """Raise a ``ValueError`` naming ``where`` unless :meth:`attributions` explains ``model``; nothing here."""
        return None

    @abstractmethod
    def attributions(self, model, X, codes, has_missing, fast, width):
        """``(base, values)`` of a fitted model's output for ``X`` (or ``codes``): ``base`` ``(width,)`` and
        ``values`` ``(n, d, width)``, which add up to the output less the base (``width`` 1 for regression)."""

    def importances(self, model, n_features):
        """A fitted model's importances of the ``n_features`` input columns, or None to leave it out of the block's
        ``importances_``; None here."""
        return None

    def save(self, model, writer, name):
        """Write a fitted model with ``writer`` (:class:`mddf.storage.ModelWriter`) as ``name``; return its record.
        The store writes a model that names its arrays array by array, any other pickled (:mod:`mddf.storage`)."""
        return writer.save(model, name)

    def load(self, record, folder):
        """The model that :meth:`save` wrote, from its record and the store's folder (checked as it is read)."""
        return record.load(folder)


def register_member(cls):
    """Register the member kind ``cls`` (a subclass of :class:`Member` that defines its abstract methods, else a
    ``TypeError``): its :attr:`~Member.names` and the instances it :meth:`~Member.claims`; a name it shares with a
    kind registered before is now its. Returns ``cls`` (a class decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, Member)):
        raise TypeError(f"register_member takes a subclass of Member, got {cls!r}")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        raise TypeError(f"register_member: {cls.__name__} does not define {missing} of the member protocol")
    for name in cls.names:
        _NAMED[name] = cls
    if cls in _CLAIMING:
        _CLAIMING.remove(cls)
    _CLAIMING.insert(0, cls)
    return cls


def unregister_member(cls):
    """Remove the kind ``cls`` from the registry (its names and its claims)."""
    for name in [name for name, kind in _NAMED.items() if kind is cls]:
        del _NAMED[name]
    if cls in _CLAIMING:
        _CLAIMING.remove(cls)


def member_names():
    """The names of the registered kinds, in the order they were registered."""
    return tuple(_NAMED)


def member_class(kind, where="forest_types"):
    """The registered kind of the ``forest_types`` entry ``kind``: by its name, or the latest registered kind that
    claims the estimator instance; a clear error (naming ``where``) for anything else."""
    if isinstance(kind, str):
        if kind not in _NAMED:
            raise ValueError(
                f"{where}: unknown kind {kind!r}; expected one of {member_names()} or an estimator instance"
            )
        return _NAMED[kind]
    if isinstance(kind, type):
        raise TypeError(f"{where}: {kind.__name__} is a class; pass an instance, e.g. {kind.__name__}()")
    if not hasattr(kind, "fit"):
        raise TypeError(f"{where}: {kind!r} is neither one of {member_names()} nor an estimator (it has no fit method)")
    for cls in _CLAIMING:
        if cls.claims(kind):
            return cls
    raise TypeError(f"{where}: no registered member kind takes {type(kind).__name__}")


def as_member(kind, task="classification", position=None, name="forest_types"):
    """The :class:`Member` of the ``forest_types`` (or ``name``) entry ``kind`` (at ``position``) in a block of
    ``task``, checked: a clear error when it is unknown or cannot serve the task."""
    where = name if position is None else f"{name}[{position}]"
    member = member_class(kind, where)(kind, task)
    member.check(where)
    return member


def capable_kinds(capability, task="classification"):
    """The names of the registered kinds that declare ``capability`` (a field of :class:`Capabilities`) for
    ``task``."""
    return tuple(name for name in _NAMED if getattr(_NAMED[name](name, task).capabilities(), capability))


def is_forest(kind):
    """Whether ``kind`` names a kind that the block grows as a forest (``"rf"``, ``"crf"``, ``"et"``)."""
    return isinstance(kind, str) and kind in _NAMED and _NAMED[kind].forest


def member_name(kind):
    """A short name of a member for messages: the kind, or the estimator's class name."""
    return kind if isinstance(kind, str) else type(kind).__name__


def check_member(kind, position=None, task="classification", name="forest_types"):
    """Raise a clear error unless ``kind`` is a registered name or an estimator instance fit for ``task``
    (:func:`as_member`); return ``kind`` unchanged."""
    as_member(kind, task, position, name)
    return kind


def check_forest_types(forest_types, task="classification", name="forest_types", empty=False):
    """Validate a ``forest_types`` sequence (or the parameter ``name``'s, which may be ``empty``) for ``task``; return
    it as a tuple (estimator instances unchanged)."""
    if isinstance(forest_types, str) or not hasattr(forest_types, "__len__"):
        raise ValueError(f"{name} must be a {'' if empty else 'non-empty '}sequence of members, got {forest_types!r}")
    types = tuple(forest_types)
    if not types and not empty:
        raise ValueError(f"{name} must be a non-empty sequence of {member_names()} or estimators, got {types!r}")
    for j, kind in enumerate(types):
        check_member(kind, j, task, name)
    return types
