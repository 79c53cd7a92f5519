"""What each forest kind of a block means: the one table both blocks and the reference estimators read.

``"rf"``: random forest (Breiman): every tree bootstraps its training rows and
splits on the best of ``max_features`` candidate features. ``"crf"``:
completely-random forest (Zhou and Feng): no bootstrap, one random feature per
split with a random threshold. ``"et"``: extremely-randomised trees (Geurts et
al.; DF21's "ERF"): no bootstrap, a random threshold on each of ``max_features``
candidate features and the best of them. The classification block's
``max_features`` is sqrt(d) (:data:`MAX_FEATURES`); the regression block's is its parameter.
:func:`make_forest` and :func:`make_regression_forest` give each kind as the
scikit-learn forest it is equivalent to.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from ..trees.grower import BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD

#: The tasks of a forest: its output is class probabilities, or a predicted value.
TASKS = ("classification", "regression")
#: Candidate features per split of the classification forests (but the completely-random ones', which draw one).
MAX_FEATURES = "sqrt"


@dataclass(frozen=True)
class ForestKind:
    """One kind of forest.

    Attributes
    ----------
    name : str
    bootstrap : bool
        Every tree trains on a bootstrap of the forest's training rows (otherwise on the rows themselves).
    one_feature : bool
        One candidate feature per split, whatever the block's ``max_features``.
    split_rule : int
        The split rule of :func:`mddf.trees.grow_tree`: :data:`~mddf.trees.BEST`,
        :data:`~mddf.trees.COMPLETELY_RANDOM` or :data:`~mddf.trees.RANDOM_THRESHOLD`.
    exact_tree : type
        scikit-learn's tree class that grows this kind's trees on float values (``tree_method="exact"``).
    classifier, regressor : type
        scikit-learn's forest that this kind is equivalent to (:meth:`make`).
    """

    name: str
    bootstrap: bool
    one_feature: bool
    split_rule: int
    exact_tree: type
    classifier: type
    regressor: type

    def max_features(self, setting):
        """The ``max_features`` of this kind's trees in a block whose setting is ``setting``."""
        return 1 if self.one_feature else setting

    def n_candidates(self, setting, n_features):
        """Candidate features per split among ``n_features`` (:func:`resolve_max_features`)."""
        return resolve_max_features(self.max_features(setting), n_features)

    def make(self, task, n_estimators, max_depth, max_features, random_state):
        """The scikit-learn forest equivalent to this kind, for ``task`` ``"classification"`` or ``"regression"``.

        One thread (``n_jobs=1``): the blocks parallelise over forests and never nest.
        """
        forest = self.classifier if task == "classification" else self.regressor
        return forest(
            n_estimators=n_estimators,
            max_depth=max_depth,
            max_features=self.max_features(max_features),
            random_state=random_state,
            n_jobs=1,
        )


#: The forest kinds, by name.
FORESTS = {
    kind.name: kind
    for kind in (
        ForestKind("rf", True, False, BEST, DecisionTreeClassifier, RandomForestClassifier, RandomForestRegressor),
        ForestKind(
            "crf", False, True, COMPLETELY_RANDOM, ExtraTreeClassifier, ExtraTreesClassifier, ExtraTreesRegressor
        ),
        ForestKind(
            "et", False, False, RANDOM_THRESHOLD, ExtraTreeClassifier, ExtraTreesClassifier, ExtraTreesRegressor
        ),
    )
}
#: Names of the forest kinds.
FOREST_KINDS = tuple(FORESTS)


def forest_kind(name, hint=""):
    """The :class:`ForestKind` called ``name``; a ``ValueError`` (ending with ``hint``) for any other name."""
    try:
        return FORESTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown forest type {name!r}; expected one of {FOREST_KINDS}{hint}") from None


def resolve_max_features(max_features, n_features):
    """Number of candidate features per split, as scikit-learn's forests read ``max_features``.

    None or 1.0: every feature; ``"sqrt"`` / ``"log2"``: ``max(1, int(sqrt(d)))`` /
    ``max(1, int(log2(d)))``; an int: that many (at most ``d``); a float in (0, 1]:
    ``max(1, int(max_features * d))``.
    """
    d = n_features
    if max_features is None:
        return d
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(np.sqrt(d)))
        if max_features == "log2":
            return max(1, int(np.log2(d)))
        raise ValueError(
            f"max_features must be 'sqrt', 'log2', an int, a float in (0, 1] or None, got {max_features!r}"
        )
    if isinstance(max_features, Integral) and not isinstance(max_features, bool):
        return max(1, min(int(max_features), d))
    if isinstance(max_features, Real):
        return max(1, int(max_features * d))
    raise ValueError(f"max_features must be 'sqrt', 'log2', an int, a float in (0, 1] or None, got {max_features!r}")


def make_forest(kind, n_estimators, max_depth, random_state):
    """A forest of the classification block, as the scikit-learn estimator it is equivalent to.

    The block grows these trees itself, one at a time (:func:`mddf.forests.fit_forest`): with
    ``tree_method="exact"`` the very same scikit-learn trees, with ``"hist"`` (the default) the
    same split rules on binned features (:mod:`mddf.trees`). With :data:`MAX_FEATURES` candidate
    features, ``"rf"`` is ``RandomForestClassifier``, ``"crf"``
    ``ExtraTreesClassifier(max_features=1)`` and ``"et"``
    ``ExtraTreesClassifier(max_features="sqrt")``. A convenience for users who
    want the block's forests on their own.
    """
    forest = forest_kind(kind, " (other members: mddf.forests.make_gbdt)")
    return forest.make("classification", n_estimators, max_depth, MAX_FEATURES, random_state)


def make_regression_forest(kind, n_estimators, max_depth, max_features, random_state):
    """A forest of the regression block, as the scikit-learn estimator it is equivalent to.

    The block grows these trees itself on binned features (:func:`mddf.forests.fit_forest`),
    with the same split rules: ``"rf"`` is ``RandomForestRegressor(max_features=max_features)``,
    ``"crf"`` ``ExtraTreesRegressor(max_features=1)`` and ``"et"``
    ``ExtraTreesRegressor(max_features=max_features)``.
    """
    return forest_kind(kind).make("regression", n_estimators, max_depth, max_features, random_state)
