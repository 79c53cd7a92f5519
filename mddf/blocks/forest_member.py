"""The forests a block grows itself, tree by tree (``"rf"``, ``"crf"``, ``"et"``): a member kind of the protocol
(:mod:`mddf.blocks.member`) on :mod:`mddf.forests`.

Each fold model is one forest grown on the layer's shared input (:func:`mddf.forests.fit_forest`): binned once for
every forest of the layer (``tree_method="hist"``, a :class:`~mddf.forests.BinnedForest` or
:class:`~mddf.forests.BinnedRegressionForest`) or scikit-learn's trees on the float values (``"exact"``, a
:class:`~mddf.forests.CompactForest`). A probe grows its first trees, then the rest (``staged_forest``); the bagged
forests give out-of-bag class vectors (``class_vectors="oob"``); the stored forests are written array by array and
explained by their trees (:mod:`mddf.forests.attribution`).
"""

from __future__ import annotations

from ..forests import FOREST_KINDS, MAX_FEATURES, ForestSpec, PackedForest, fit_forest, fit_oob_forest
from ..forests.growing import staged_forest, staged_oob_forest
from .member import Capabilities, FitTask, Member, register_member


@register_member
class ForestMember(Member):
    """A forest grown by the block (see the module): ``"rf"``, ``"crf"`` or ``"et"`` (:mod:`mddf.forests.kinds`).

    A classification forest has ``max_features`` :data:`mddf.forests.MAX_FEATURES` (the completely-random one
    draws one feature a split), a regression forest the block's. Dispatched after the members fitted whole, the
    random forests before the others (one candidate feature a split: the quickest).
    """

    names = FOREST_KINDS
    forest = True

    def capabilities(self):
        """Grown by the block: categories, NaN, several targets, monotone constraints and exact attributions."""
        return Capabilities(categories=True, several_targets=True, monotone=True, attributions=True)

    @property
    def dispatch_rank(self):
        return 1 if self.kind == "rf" else 2

    def _max_features(self, layer):
        return MAX_FEATURES if self.task == "classification" else layer.max_features

    def fit_task(self, fold, layer, position):
        """The forest of ``fold`` (:func:`mddf.forests.fit_forest`): it trains on ``fold.fit_rows`` with
        ``fold.weight`` and ``fold.draws``, keeps ``fold.kept`` trees for new rows, and gives the class vectors (or
        predictions) of ``fold.test``."""
        spec = ForestSpec(
            self.kind,
            layer.n_estimators,
            layer.max_depth,
            self._max_features(layer),
            fold.seeds[position],
            layer.forest_input,
            layer.y,
            fold.fit_rows,
            fold.weight,
            fold.test,
            layer.n_classes,
            fold.draws,
            fold.kept,
            layer.monotone,
        )
        return FitTask(fit_forest, (spec,), staged_forest)

    def oob_task(self, seed, layer, weight, rows):
        """The bagged forest fitted once on ``rows`` (None: every row) with the sample weights ``weight``, giving every
        row's out-of-bag class vector (:func:`mddf.forests.fit_oob_forest`)."""
        args = (
            self.kind,
            layer.n_estimators,
            layer.max_depth,
            MAX_FEATURES,
            seed,
            layer.forest_input,
            layer.y,
            weight,
            layer.n_classes,
            rows,
            layer.monotone,
        )
        return FitTask(fit_oob_forest, args, staged_oob_forest)

    def predict(self, model, X, codes, has_missing):
        """A binned forest's output of the rows' bin ``codes``, a compacted one's of ``X``."""
        if isinstance(model, PackedForest):
            if self.task == "classification":
                return model.predict_proba_binned(codes, has_missing)
            return model.predict_binned(codes, has_missing)
        return model.predict_proba(X) if self.task == "classification" else model.predict(X)

    def attributions(self, model, X, codes, has_missing, fast, width):
        """Its trees' attributions (exact TreeSHAP, or path contributions with ``fast``), averaged."""
        if isinstance(model, PackedForest):
            return model.attributions(codes, has_missing, fast)
        return model.attributions(X, fast)

    def importances(self, model, n_features):
        """The forest's impurity decreases per column, the mean over its trees."""
        return model.importances / model.n_trees
