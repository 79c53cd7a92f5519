"""Weak-learner search for DeepBoost and AdaBoost (Cortes, Mohri and Syed 2014, Section 4).

The hypotheses are binary decision trees whose leaves predict -1 or +1. Each boosting round
asks for the candidates h_1*, ..., h_K* of Section 4:

* h_1* is the best decision stump, found by exhaustive search over every feature and every
  threshold between two consecutive distinct training values;
* h_k* (k >= 2) is the best tree obtained from h_{k-1}* by adding one layer of leaves
  (:func:`~._tree_growth.grow_tree_candidates`), or, for the stump families of eqs. 7-8, the best depth-2 tree
  that asks one and the same second question in both children (:func:`~._tree_growth.grow_stump_candidates`).

The modules of the search: :mod:`._binned_features` (the value codes, computed once per fit),
:mod:`._split_search` (the exact, quantised split search) and :mod:`._tree_growth` (the candidates); this one holds
what they find, :class:`Tree` and :class:`Candidate`.

Missing values (NaN): a split ``x <= threshold`` of a feature with NaN at training sends the missing rows of the
node to the side with the lower weighted error (to the right on a tie); the split "present vs missing" is the
threshold at the feature's largest value. At prediction NaN follows the side stored in the node
(``missing_left``); where no training row reaching the node was missing (in particular for a feature without NaN
at training) that is the heavier child under the distribution the tree was grown with (left on a tie).

Ties are broken deterministically: among splits of equal error the lowest feature index, then the
lowest threshold wins, and the threshold stored is the largest training value that goes left
(``x <= threshold`` goes left), as in the C++ reference implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(eq=False)
class Tree:
    """A binary decision tree with leaves in {-1, +1}: ``x[feature] <= threshold`` goes left.

    Attributes
    ----------
    feature : ndarray of int32, shape (n_nodes,)
        Split feature of each node, -1 at leaves.
    threshold : ndarray of float32
    left, right : ndarray of int32
        Child node ids (-1 at leaves).
    value : ndarray of int8
        Leaf prediction (+1 or -1), 0 at internal nodes.
    family : str
        Hypothesis family: ``"tree"`` (H_k^trees, eq. 9), ``"stump"`` (H_1^stumps, eq. 7) or
        ``"stump2"`` (H_2^stumps, eq. 8: the same question in both children of the root).
    missing_left : ndarray of bool, optional
        Per node: whether a NaN value of the split feature goes left (None: NaN goes right).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    family: str = "tree"
    missing_left: np.ndarray | None = None

    def __post_init__(self):
        depth = np.zeros(len(self.feature), dtype=np.int64)
        for node in range(len(self.feature)):  # parents precede children
            if self.feature[node] >= 0:
                depth[self.left[node]] = depth[self.right[node]] = depth[node] + 1
        self.depth = int(depth.max()) if len(depth) else 0

    @property
    def n_nodes(self) -> int:
        """All nodes, internal and leaves (the papers' "tree size" in Tables 2-3)."""
        return len(self.feature)

    @property
    def n_internal(self) -> int:
        """Internal (split) nodes: the n of eq. 9."""
        return int(np.count_nonzero(self.feature >= 0))

    @property
    def n_leaves(self) -> int:
        return self.n_nodes - self.n_internal

    @property
    def n_questions(self) -> int:
        """Distinct (feature, threshold) questions (the "tree size" of Table 1: 1 or 2 for stumps)."""
        internal = self.feature >= 0
        return len(set(zip(self.feature[internal].tolist(), self.threshold[internal].tolist())))

    def apply_levels(self, X, has_nan=None):
        """Yield the node of every row of ``X`` at depth 0, 1, .., ``depth`` (rows at a leaf stay there)."""
        n = X.shape[0]
        node = np.zeros(n, dtype=np.int32)
        rows = np.arange(n)
        if has_nan is None:
            has_nan = bool(np.isnan(X).any())
        nan_left = has_nan and self.missing_left is not None
        yield node
        for _ in range(self.depth):
            feat = self.feature[node]
            internal = feat >= 0
            x = X[rows, np.where(internal, feat, 0)]
            goes_left = x <= self.threshold[node]
            if nan_left:
                goes_left |= np.isnan(x) & self.missing_left[node]
            child = np.where(goes_left, self.left[node], self.right[node])
            node = np.where(internal, child, node)
            yield node

    def predict(self, X, has_nan=None) -> np.ndarray:
        """Leaf values (int8 in {-1, +1}) for the rows of ``X`` (float32, already validated).

        ``has_nan``: whether ``X`` holds NaN (computed when None).
        """
        *_, node = self.apply_levels(X, has_nan)
        return self.value[node]


@dataclass(eq=False)
class Candidate:
    """A candidate hypothesis of one boosting round.

    Attributes
    ----------
    tree : Tree
    train_pred : ndarray of int8, shape (n_samples,)
        Its outputs on the training set.
    error : float
        Its weighted error under the (quantised) distribution, eq. 6.
    leaf_totals : ndarray of shape (2, n_nodes), optional
        Quantised weight of the negative and positive training rows at each leaf (0 at internal
        nodes), for :func:`tree_feature_importances`.
    """

    tree: Tree
    train_pred: np.ndarray
    error: float
    leaf_totals: np.ndarray | None = None


def tree_feature_importances(tree: Tree, leaf_totals, n_features) -> np.ndarray:
    """Normalised weighted Gini decrease of ``tree`` per feature.

    ``leaf_totals`` (2, n_nodes) holds the weight of the negative and positive training rows at
    each leaf under the distribution the tree was grown with. For every internal node n with
    children l, r the decrease N_n G_n - N_l G_l - N_r G_r, where N is the weight of the rows
    reaching the node and G = 2 p (1 - p) its Gini impurity (p the weighted share of y = +1), is
    credited to the node's feature; the vector is then divided by its sum (all zeros when no
    split lowers the impurity), as for scikit-learn's trees.
    """
    neg, pos = (np.asarray(v, dtype=np.float64).copy() for v in leaf_totals)
    internal = np.flatnonzero(tree.feature >= 0)
    for node in internal[::-1]:  # children come after their parent
        left, right = tree.left[node], tree.right[node]
        neg[node], pos[node] = neg[left] + neg[right], pos[left] + pos[right]
    tot = neg + pos
    impurity = 2.0 * pos * neg / np.where(tot > 0, tot, 1.0)  # N G
    gain = impurity[internal] - impurity[tree.left[internal]] - impurity[tree.right[internal]]
    out = np.zeros(n_features)
    np.add.at(out, tree.feature[internal], np.maximum(gain, 0.0))
    total = out.sum()
    return out / total if total > 0 else out
