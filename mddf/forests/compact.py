"""Compact storage of fitted forests, for keeping every fold's trees in memory.

A scikit-learn tree node costs 64 bytes plus 8 bytes per class for its value
row, so the k-fold forest blocks of a deep forest (k x 4 forests of 100 trees
per layer) take gigabytes per layer of fully grown trees on a 26-class problem
such as letter (see ``docs/benchmarks/trees.md``). A fitted tree needs far less
to predict: for each internal node its split feature, its threshold and its right child
(scikit-learn grows trees depth first, so the left child is the next node); for
each leaf its class distribution, which for the pure leaves of fully grown trees
is a single class index. :class:`CompactForest` keeps exactly that, 10 bytes a
node, plus the side of the missing values (scikit-learn's
``missing_go_to_left``) as one bit, packed eight nodes to a byte, and the float32
share of each split's weight that went left (for the attributions), and rebuilds
a scikit-learn ``Tree`` for one tree at a time to route samples with its
compiled ``apply``.

Thresholds are stored as the largest float32 not above scikit-learn's float64
threshold. Inputs are float32 (scikit-learn's trees cast to float32 too), and
no float32 lies strictly between the two, so every comparison ``x <= t`` gives
the same answer as with the original threshold: routing is exact.

These are the forests of ``tree_method="exact"``; like the binned forests, a
:class:`CompactForest` is a :class:`~mddf.forests.stored.StoredForest`, whose
arrays are checked when it is unpickled or loaded from a model file.
"""

from __future__ import annotations

import numpy as np
from sklearn.tree._tree import NODE_DTYPE, Tree

from ..trees.packing import encode_shares
from .attribution import compact_forest_attributions
from .stored import StoredForest

_LEAF = -1
_EMPTY_CLASSES = np.array([1], dtype=np.intp)


def _round_down_float32(threshold):
    t32 = threshold.astype(np.float32)
    above = t32.astype(np.float64) > threshold
    t32[above] = np.nextafter(t32[above], np.float32(-np.inf))
    return t32


def _first_bad_exact_node(feature, threshold, right, offsets, n_features, n_classes, n_impure):
    """``(problem, node)`` of the first node that could misroute a row, a key of :data:`mddf.trees.nodes.NODE_PROBLEMS`
    (:meth:`~mddf.forests.stored.StoredForest.check_arrays`), else ``(0, -1)``.

    An internal node needs a feature below ``n_features``, a right child after its left child (the next node)
    and inside its tree, and a finite threshold; a leaf (feature -1) a class below ``n_classes`` or a row of
    ``impure_values``. The caller has checked that the offsets span the node arrays. Written with numpy, not
    compiled, as :func:`mddf.trees.nodes.first_bad_node` (a fit never runs it).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    f = np.asarray(feature, dtype=np.int64)
    r = np.asarray(right, dtype=np.int64)
    local = np.arange(len(f), dtype=np.int64) - np.repeat(offsets[:-1], sizes)
    split = f >= 0
    checks = [
        (split & (f >= n_features), 1),
        (split & ((r <= local + 1) | (r >= np.repeat(sizes, sizes))), 2),
        (split & ~np.isfinite(threshold), 3),
        (~split & ((f != _LEAF) | (r >= n_classes) | (-r - 1 >= n_impure)), 4),
    ]
    problem = np.select([bad for bad, _ in checks], [code for _, code in checks], 0)
    bad = np.flatnonzero(problem)
    return (int(problem[bad[0]]), int(bad[0])) if len(bad) else (0, -1)


class CompactForest(StoredForest):
    """A fitted tree ensemble in compact form, predicting class probabilities.

    Parameters
    ----------
    forest : fitted ``RandomForestClassifier`` or ``ExtraTreesClassifier``
        Trained on labels that are column indices ``0 .. n_classes - 1``
        (the forest may have seen only a subset of them).
    n_classes : int
        Number of columns of the probabilities this forest returns.

    Attributes
    ----------
    importances : ndarray of float64 (n_features,)
        Sum over the trees of ``tree_.compute_feature_importances(normalize=False)``
        (weighted Gini impurity decrease per feature, divided by the root's weight),
        taken before compaction.
    left_shares : ndarray of float16 (n_nodes,)
        Each split's share of its training weight (``weighted_n_node_samples``) that went to its left child (0 for a
        leaf), for the attributions; None in forests fitted before it was stored.
    """

    _stored_arrays = (
        "feature",
        "threshold",
        "right",
        "offsets",
        "depths",
        "impure_values",
        "missing_left_bits",
        "left_shares",
    )
    _node_array = "feature"
    _leaf_table = "impure_values"

    def __init__(self, forest, n_classes):
        self._start(n_classes, forest.n_features_in_)
        for est in forest.estimators_:
            self.add_tree(est, forest.classes_)
        self.finish()

    @classmethod
    def growing(cls, n_classes, n_features):
        """An empty forest to which fitted trees are added one at a time.

        Lets a caller compact each tree as soon as it is fitted and drop it, so that
        at most one full scikit-learn tree is alive per worker (call :meth:`finish`
        after the last :meth:`add_tree`).
        """
        self = cls.__new__(cls)
        self._start(n_classes, n_features)
        return self

    def _start(self, n_classes, n_features):
        self.n_classes = int(n_classes)
        self.n_features = int(n_features)
        self._feature_dtype = np.int16 if self.n_features < np.iinfo(np.int16).max else np.int32
        self._parts = {"feature": [], "threshold": [], "right": [], "depth": [], "impure": [], "missing_left": []}
        self._parts["left_shares"] = []
        self._importances = np.zeros(self.n_features)
        self._offsets = [0]
        self._n_impure = 0

    def add_tree(self, estimator, classes):
        """Append one fitted decision tree.

        Parameters
        ----------
        estimator : fitted ``DecisionTreeClassifier`` or ``ExtraTreeClassifier``
        classes : array of int
            Column index of each of the tree's classes (its ``classes_`` when it was
            trained on column indices).
        """
        forest_classes = np.asarray(classes, dtype=np.intp)
        tree = estimator.tree_
        n = tree.node_count
        left = tree.children_left
        leaf = left == _LEAF
        internal = np.flatnonzero(~leaf)
        if not np.array_equal(left[internal], internal + 1):
            raise RuntimeError("expected a depth-first tree layout (left child = next node)")
        feature = tree.feature.astype(self._feature_dtype)
        feature[leaf] = _LEAF
        threshold = _round_down_float32(tree.threshold)
        threshold[leaf] = 0.0
        right = tree.children_right.astype(np.int32)
        # Leaves: class index when pure, else -(row + 1) into the impure table.
        values = tree.value[leaf, 0, :]
        values = values / values.sum(axis=1, keepdims=True)
        pure = values.max(axis=1) == 1.0
        code = np.empty(len(values), dtype=np.int32)
        code[pure] = forest_classes[values[pure].argmax(axis=1)]
        n_new = int((~pure).sum())
        code[~pure] = -(self._n_impure + 1 + np.arange(n_new, dtype=np.int32))
        if n_new:
            rows = np.zeros((n_new, self.n_classes), dtype=np.float32)
            rows[:, forest_classes] = values[~pure]
            self._parts["impure"].append(rows)
            self._n_impure += n_new
        right[leaf] = code
        self._importances += tree.compute_feature_importances(normalize=False)
        self._parts["missing_left"].append(np.asarray(tree.missing_go_to_left, dtype=bool))
        weight = tree.weighted_n_node_samples
        shares = np.zeros(n)
        shares[internal] = weight[internal + 1] / weight[internal]
        self._parts["left_shares"].append(encode_shares(shares))
        self._parts["feature"].append(feature)
        self._parts["threshold"].append(threshold)
        self._parts["right"].append(right)
        self._parts["depth"].append(tree.max_depth)
        self._offsets.append(self._offsets[-1] + n)

    def finish(self):
        """Concatenate the added trees into the flat arrays used for prediction."""
        parts = self.__dict__.pop("_parts")
        if not parts["depth"]:
            raise ValueError("a CompactForest needs at least one tree")
        self.feature = np.concatenate(parts["feature"])
        self.threshold = np.concatenate(parts["threshold"])
        self.right = np.concatenate(parts["right"])
        self.offsets = np.asarray(self.__dict__.pop("_offsets"), dtype=np.int64)
        self.depths = np.asarray(parts["depth"], dtype=np.int32)
        self.missing_left_bits = np.packbits(np.concatenate(parts["missing_left"]), bitorder="little")
        self.left_shares = np.concatenate(parts["left_shares"])
        self.importances = self.__dict__.pop("_importances")
        self.impure_values = (
            np.concatenate(parts["impure"]) if parts["impure"] else np.zeros((0, self.n_classes), dtype=np.float32)
        )
        del self._n_impure, self._feature_dtype
        return self

    @property
    def node_count(self):
        return int(self.offsets[-1])

    def _check_layout(self, offsets):
        """Every per-node array has an entry per node, and the missing sides a bit per node."""
        n_nodes = len(self.feature)
        for name in ("right", "threshold"):
            if len(getattr(self, name)) != n_nodes:
                raise ValueError(f"{name} holds {len(getattr(self, name))} entries for {n_nodes} nodes")
        if len(self.missing_left_bits) < (n_nodes + 7) // 8:
            raise ValueError(f"missing_left_bits holds {len(self.missing_left_bits)} bytes for {n_nodes} nodes")
        shares = self.left_shares  # None in forests fitted before it was stored
        if shares is not None and (shares.shape != (n_nodes,) or not (np.abs(shares) <= 0.5).all()):
            raise ValueError(
                f"left_shares holds {len(shares)} entries for {n_nodes} nodes, or one outside [-0.5, 0.5] (their "
                "two-byte form)"
            )

    def _first_bad_node(self, offsets):
        return _first_bad_exact_node(
            self.feature,
            self.threshold,
            self.right,
            offsets,
            self.n_features,
            self.n_classes,
            len(self.impure_values),
        )

    def _tree(self, i):
        """Rebuild tree ``i`` as a scikit-learn ``Tree`` (structure only, no values)."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        n = int(hi - lo)
        feature = self.feature[lo:hi]
        leaf = feature == _LEAF
        nodes = np.zeros(n, dtype=NODE_DTYPE)
        nodes["left_child"] = np.where(leaf, _LEAF, np.arange(1, n + 1))
        nodes["right_child"] = np.where(leaf, _LEAF, self.right[lo:hi])
        nodes["feature"] = np.where(leaf, -2, feature)
        nodes["threshold"] = np.where(leaf, -2.0, self.threshold[lo:hi])
        first = lo >> 3  # the bytes of this tree's bits only
        bits = np.unpackbits(self.missing_left_bits[first : (hi + 7) >> 3], bitorder="little")
        nodes["missing_go_to_left"] = bits[lo - 8 * first : hi - 8 * first]
        tree = Tree(self.n_features, _EMPTY_CLASSES, 1)
        tree.__setstate__(
            {
                "max_depth": int(self.depths[i]),
                "node_count": n,
                "nodes": nodes,
                "values": np.zeros((n, 1, 1)),
            }
        )
        return tree

    def attributions(self, X, fast=False):
        """``(base, values)``: the forest's class probabilities for float rows ``X`` attributed to its features
        (:func:`mddf.forests.attribution.compact_forest_attributions`)."""
        return compact_forest_attributions(self, X, fast)

    def predict_proba(self, X):
        """Mean of the trees' class distributions.

        Parameters
        ----------
        X : ndarray of float32, shape (n_samples, n_features), C-contiguous
            NaN goes where the trees send missing values.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
        """
        n = X.shape[0]
        proba = np.zeros((n, self.n_classes))
        rows = np.arange(n)
        for i in range(self.n_trees):
            leaves = self._tree(i).apply(X)
            code = self.right[self.offsets[i] + leaves]
            pure = code >= 0
            proba[rows[pure], code[pure]] += 1.0
            if not pure.all():
                proba[~pure] += self.impure_values[-code[~pure] - 1]
        proba /= self.n_trees
        return proba
