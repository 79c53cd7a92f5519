"""``mddf benchmark --monotone COL:+1,COL:-1 [--monotone-class LABEL]``: mdDF built with ``monotonic_cst``."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace

from .registry import SEVERAL_TARGETS, Registry
from .runner import task_of
from .studies import UsageError

CONSTRAINED_METHODS = ("mdDF",)  #: The methods that take the constraints: the cascades (:func:`~.methods.build_mddf`).


def parse_monotone(text: str) -> dict:
    """``{column: 1 or -1}`` of the option's ``COL:+1,COL:-1`` text, else a :class:`~.studies.UsageError`."""
    constraints = {}
    for entry in text.split(","):
        column, colon, sign = entry.strip().rpartition(":")
        if not colon or not column:
            raise UsageError(f"--monotone {entry.strip()!r}: expected COLUMN:+1 or COLUMN:-1")
        if sign.strip() not in ("+1", "1", "-1"):
            raise UsageError(f"--monotone {entry.strip()!r}: the sign must be +1 or -1, not {sign.strip()!r}")
        if column in constraints:
            raise UsageError(f"--monotone names {column!r} twice")
        constraints[column] = -1 if sign.strip() == "-1" else 1
    return constraints


def constraint_vector(constraints: dict, dataset) -> list:
    """The constraint of each feature column of the loaded ``--data`` ``dataset`` (0 for the others); a
    :class:`~.studies.UsageError` for a column it lacks or holds as text, or a target of more than two classes."""
    names = [str(name) for name in dataset.feature_names]
    for column in constraints:
        if column not in names:
            shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
            raise UsageError(f"--monotone {column!r} is not a feature column of the --data file (columns: {shown})")
        if dataset.categorical_mask is not None and dataset.categorical_mask[names.index(column)]:
            raise UsageError(f"--monotone {column!r} is a text column: its categories have no order")
    if task_of(dataset) != "regression" and len(dataset.classes) != 2:
        raise UsageError(f"--monotone is for a regression or two-class target; this one has {len(dataset.classes)}")
    return [constraints.get(name, 0) for name in names]


def constrained_class(label, dataset) -> int | None:
    """The position in ``dataset.classes`` of the class whose probability is constrained: ``label``'s (as text), by
    default the second (what ``monotonic_cst`` constrains); None for a regression."""
    if task_of(dataset) == "regression":
        if label is not None:
            raise UsageError("--monotone-class names the class of a two-class target; this target is a regression")
        return None
    labels = [str(c) for c in dataset.classes]
    if label is None:
        return 1
    if label not in labels:
        raise UsageError(f"--monotone-class {label!r} is not a class of the target: its classes are "
                         f"{', '.join(map(repr, labels))}")  # fmt: skip
    return labels.index(label)


def statement(constraints: dict, dataset, position) -> str:
    """What the constraints say, in words: ``the probability of class 'yes' never falls as income grows, never rises
    as debt grows`` (the prediction's for a regression, ``position`` None)."""
    what = "the prediction" if position is None else f"the probability of class {str(dataset.classes[position])!r}"
    moves = [f"never {'falls' if sign > 0 else 'rises'} as {column} grows" for column, sign in constraints.items()]
    return f"{what} {', '.join(moves)}"


@dataclass(frozen=True)
class Constrained:
    """A method's builder with ``monotonic_cst`` added (picklable); ``about``: what the constraints hold."""

    build: object
    monotonic_cst: tuple
    about: dict | None = None

    def __call__(self, ctx, **params):
        return self.build(ctx, monotonic_cst=list(self.monotonic_cst), **params)

    def __repr__(self) -> str:  # the same in every process: a run's settings hash reads it
        return f"{self.build.__module__}.{self.build.__qualname__}(monotonic_cst={list(self.monotonic_cst)})"


def with_monotone(text, dataset, registry, specs, label=None, log=None):
    """``(registry, specs)`` with the :data:`CONSTRAINED_METHODS` constrained as ``text`` says, said with ``log``."""
    if dataset is not None and task_of(dataset) in SEVERAL_TARGETS and (text, label) != (None, None):
        given = "--monotone" if text is not None else "--monotone-class"
        raise UsageError(f"{given} takes one --target: several targets take no monotone constraints")
    if text is None:
        if label is not None:
            raise UsageError("--monotone-class goes with --monotone")
        return registry, specs
    if dataset is None:
        raise UsageError("--monotone goes with --data PATH (it names the file's columns)")
    constraints = parse_monotone(text)
    vector = constraint_vector(constraints, dataset)
    position = constrained_class(label, dataset)
    if position == 0:  # P(classes[0]) = 1 - P(classes[1]): rising with a column is the other falling
        vector = [-sign for sign in vector]
    said = statement(constraints, dataset, position)
    about = {"constraints": dict(constraints), "statement": said}
    if position is not None:
        about["probability_of"] = str(dataset.classes[position])
    (log or (lambda line: print(line, file=sys.stderr)))(
        f"{', '.join(CONSTRAINED_METHODS)}: monotone constraints: {said}"
        + ("" if position is None else " (--monotone-class names the class)")
    )
    changed = Registry(
        replace(spec, build=Constrained(spec.build, tuple(vector), about), description=f"{spec.description}; {said}")
        if spec.name in CONSTRAINED_METHODS
        else spec
        for spec in registry
    )
    return changed, [changed.get(spec.name) for spec in specs]
