"""The method registry's types: :class:`BuildContext`, :class:`MethodSpec` and :class:`Registry`."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .defaults import BASELINE, image_shape_of

#: The tasks of several targets (``mddf benchmark --target a,b``), and what their methods build for them.
SEVERAL_TARGETS = {"multioutput": "regression", "multilabel": "classification"}


def learner_task(task: str) -> str:
    """``"regression"`` or ``"classification"``: the kind of estimator a method builds for ``task``."""
    return SEVERAL_TARGETS.get(task, task)


@dataclass(frozen=True)
class BuildContext:
    """What a builder needs to know about the run it builds an estimator for."""

    seed: int
    n_jobs: int | None
    profile: str
    n_features: int
    n_classes: int
    categorical_mask: tuple = ()
    image_shape: tuple | None = None
    n_trees: int | None = None  # tree budget (RF, XGBoost)
    task: str = "classification"  # or "regression", or several targets' (:data:`SEVERAL_TARGETS`)
    protocol: str = "paper"  #: "paper": the papers' reproductions; "practitioner": the estimators' defaults

    @classmethod
    def of(cls, dataset, n_classes: int, **run) -> BuildContext:
        """The context of a run on ``dataset`` of ``n_classes`` classes (0: a regression); ``run``: the other fields."""
        mask = () if dataset.categorical_mask is None else tuple(bool(b) for b in dataset.categorical_mask)
        shape = dict(
            n_features=int(dataset.X_train.shape[1]), categorical_mask=mask, image_shape=image_shape_of(dataset)
        )
        return cls(n_classes=n_classes, **shape, **run)


@dataclass(frozen=True)
class MethodSpec:
    """One compared method: how it is built, when it runs, and how the command line finds it."""

    name: str  #: name on the command line, in results and as a table column
    build: Callable[..., Any]  #: ``build(ctx, **params) -> estimator`` (a module-level function)
    requires: tuple  #: ``(module, attribute)`` imported to decide whether the method is available
    description: str = ""
    grid: Callable[[BuildContext], list] | None = None  #: ``grid(ctx)``: candidates, chosen on the validation rows
    binary_only: bool = False  #: runs only on two-class datasets
    tree_budget: bool = False  #: uses ``trees_per_layer x k`` trees, k from mdDF's layers on the same run
    default: bool = True  #: included when no ``--methods`` are given
    ablation: bool = False  #: one of the paper's Table 3 structures (added by ``--ablation``)
    image_only: bool = False  #: runs only on datasets whose rows are images (``image_shape`` known)
    peer: bool = False  #: one of today's peers, added by ``--peers`` and tabulated apart
    aliases: tuple = field(default_factory=tuple)
    practitioner: bool = False  #: included when no ``--methods`` are given under the practitioner protocol
    tasks: tuple = ("classification",)  #: the tasks ``build`` makes an estimator for (``ctx.task``)
    warm_up: Callable[[BuildContext], Any] | None = None  #: ``warm_up(ctx)``: a tiny model fitted before the timed fit
    min_class_rows: int = 1  #: training rows of every class it needs (after :func:`~.methods.adapt_to_small_classes`)
    regressor: str | None = None  #: the class of ``requires``' module built for a regression (``LGBMRegressor``)
    extra: str | None = None  #: the extra of this package that installs an optional ``requires``' module


class Registry:
    """Ordered collection of :class:`MethodSpec`, looked up case-insensitively by name or alias."""

    def __init__(self, specs=()):
        self._specs: dict[str, MethodSpec] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: MethodSpec, replace: bool = False) -> None:
        if spec.name in self._specs and not replace:
            raise ValueError(f"method {spec.name!r} is already registered")
        self._specs[spec.name] = spec

    def names(self) -> list[str]:
        return list(self._specs)

    def __iter__(self):
        return iter(self._specs.values())

    def get(self, name: str) -> MethodSpec:
        wanted = name.strip().lower()
        for spec in self._specs.values():
            if wanted == spec.name.lower() or wanted in (a.lower() for a in spec.aliases):
                return spec
        raise ValueError(f"unknown method {name!r}; known: {', '.join(self._specs)}")

    def select(
        self, names=None, ablation: bool = False, peers: bool = False, protocol: str = "paper"
    ) -> list[MethodSpec]:
        """Methods named in ``names`` (default: the ``protocol``'s), plus Table 3's with ``ablation``, today's peers
        with ``peers`` and the baseline under the practitioner protocol, in registry order."""
        if names:
            chosen = [self.get(n) for n in names]
        elif protocol == "practitioner":
            chosen = [s for s in self._specs.values() if s.practitioner]
        else:
            chosen = [s for s in self._specs.values() if s.default]
        chosen += [s for s in self._specs.values() if (ablation and s.ablation) or (peers and s.peer)]
        chosen += [self.get(BASELINE)] if protocol == "practitioner" else []
        # Registry order, so that mdDF runs before the methods whose tree budget depends on it.
        order = list(self._specs.values())
        return sorted(dict.fromkeys(chosen), key=order.index)


def unavailable_reason(spec: MethodSpec, task: str = "classification") -> str | None:
    """None if the estimator the method builds for ``task`` imports, else why not (and the extra that installs it)."""
    module, attribute = spec.requires
    if learner_task(task) == "regression" and spec.regressor:
        attribute = spec.regressor
    try:
        getattr(importlib.import_module(module), attribute)
    except Exception as exc:  # an import can fail in many ways (ImportError, AttributeError, ...)
        why = f"{spec.name} is not available: cannot import {module}.{attribute} ({type(exc).__name__}: {exc})"
        return why + (f'; install it with pip install -e ".[{spec.extra}]"' if spec.extra else "")
    return None
