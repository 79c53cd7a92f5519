"""The weak learners' candidates of one boosting round (Section 4): the best tree of each depth, each grown from the
previous one by a layer of leaves (:func:`grow_tree_candidates`), or the stump families' depth-2 trees that ask one
second question in both children (:func:`grow_stump_candidates`)."""

from __future__ import annotations

import numpy as np

from ._binned_features import BinnedFeatures
from ._split_search import SplitSearch, quantize
from ._weak import Candidate, Tree


class _GrowingTree:
    """Node lists of a tree under construction plus the leaf of every training sample."""

    def __init__(self, n_samples):
        self.feature, self.threshold, self.left, self.right = [-1], [0.0], [-1], [-1]
        self.missing_left = [False]
        self.pending = []  # nodes whose NaN side is the heavier child, decided by resolve_pending
        self.leaf_node = np.array([0])
        self.leaf_depth = np.array([0])
        self.leaf_of = np.zeros(n_samples, dtype=np.int64)

    @property
    def n_leaves(self):
        return len(self.leaf_node)

    @property
    def n_internal(self):
        return len(self.feature) - self.n_leaves

    def split(self, leaves, bins, binned: BinnedFeatures, sides=None):
        """Split ``leaves`` (increasing leaf ids) at the global ``bins``.

        ``sides``: per split leaf, the ``missing_side`` code of :meth:`SplitSearch.split_errors`
        (None: no missing rows anywhere, every NaN side is the heavier child).
        """
        n_leaves = self.n_leaves
        split_bin = np.full(n_leaves, -1, dtype=np.int64)
        split_bin[leaves] = bins
        is_split = split_bin >= 0
        leaf_side = np.full(n_leaves, -1, dtype=np.int8)
        if sides is not None:
            leaf_side[leaves] = sides
        # Samples of split leaves go right when their code is above the split bin of their leaf
        # (the missing bin is the last bin of its feature: missing rows go right by default).
        col = np.where(is_split, binned.bin_column[np.maximum(split_bin, 0)], 0)
        sample_bin = split_bin[self.leaf_of]
        code = binned.codes[np.arange(len(self.leaf_of)), col[self.leaf_of]]
        goes_right = (code > sample_bin) & (sample_bin >= 0)
        if np.any(leaf_side == 1):
            missing_left = (code == binned.missing_bin[col[self.leaf_of]]) & (leaf_side[self.leaf_of] == 1)
            goes_right &= ~missing_left
        width = 1 + is_split
        new_start = np.concatenate([[0], np.cumsum(width)[:-1]])
        self.leaf_of = new_start[self.leaf_of] + goes_right

        new_node = np.empty(int(width.sum()), dtype=np.int64)
        new_depth = np.empty_like(new_node)
        for leaf in range(n_leaves):  # at most 2**depth leaves
            pos, node = new_start[leaf], int(self.leaf_node[leaf])
            if not is_split[leaf]:
                new_node[pos], new_depth[pos] = node, self.leaf_depth[leaf]
                continue
            b, n = int(split_bin[leaf]), len(self.feature)
            self.feature[node] = int(binned.bin_feature[b])
            self.threshold[node] = float(binned.bin_values[b])
            self.left[node], self.right[node] = n, n + 1
            self.missing_left[node] = bool(leaf_side[leaf] == 1)
            if leaf_side[leaf] < 0:
                self.pending.append(node)
            self.missing_left += [False, False]
            self.feature += [-1, -1]
            self.threshold += [0.0, 0.0]
            self.left += [-1, -1]
            self.right += [-1, -1]
            new_node[pos : pos + 2] = (n, n + 1)
            new_depth[pos : pos + 2] = self.leaf_depth[leaf] + 1
        self.leaf_node, self.leaf_depth = new_node, new_depth

    def resolve_pending(self, totals):
        """NaN goes to the heavier child (by the weight of the training rows, left on a tie) at
        the nodes just split where no training row was missing. Call right after :meth:`split`."""
        if not self.pending:
            return
        weight = totals.sum(axis=0)
        leaf_of_node = {int(node): leaf for leaf, node in enumerate(self.leaf_node)}
        for node in self.pending:
            left, right = leaf_of_node[self.left[node]], leaf_of_node[self.right[node]]
            self.missing_left[node] = bool(weight[left] >= weight[right])
        self.pending = []

    def candidate(self, totals, family) -> Candidate:
        """The current tree with leaves predicting their weighted majority (+1 on ties)."""
        leaf_value = np.where(totals[1] >= totals[0], 1, -1).astype(np.int8)
        value = np.zeros(len(self.feature), dtype=np.int8)
        value[self.leaf_node] = leaf_value
        tree = Tree(
            feature=np.array(self.feature, dtype=np.int32),
            threshold=np.array(self.threshold, dtype=np.float32),
            left=np.array(self.left, dtype=np.int32),
            right=np.array(self.right, dtype=np.int32),
            value=value,
            family=family,
            missing_left=np.array(self.missing_left, dtype=bool),
        )
        error = float(np.minimum(totals[0], totals[1]).sum()) / float(totals.sum())
        leaf_totals = np.zeros((2, len(self.feature)), dtype=np.int64)
        leaf_totals[:, self.leaf_node] = totals
        return Candidate(tree, leaf_value[self.leaf_of], error, leaf_totals)


def _best_split_per_leaf(search: SplitSearch, wq, tree: _GrowingTree, active):
    """Best split (bin, error, missing side) of every ``active`` leaf; error ``_NO_SPLIT`` elsewhere.

    ``wq`` are the quantised weights as int64."""
    n_leaves = tree.n_leaves
    act = np.flatnonzero(active)
    if len(act) == n_leaves:
        return search.best_splits(wq, tree.leaf_of, n_leaves)
    best_bin = np.zeros(n_leaves, dtype=np.int64)
    best_err = np.full(n_leaves, SplitSearch._NO_SPLIT, dtype=np.int64)
    best_side = np.full(n_leaves, -1, dtype=np.int8)
    if len(act):
        # Search only the samples of the active leaves, under compact leaf ids.
        compact = np.full(n_leaves, -1, dtype=np.int64)
        compact[act] = np.arange(len(act))
        best_bin[act], best_err[act], best_side[act] = search.best_splits(wq, compact[tree.leaf_of], len(act))
    return best_bin, best_err, best_side


def grow_tree_candidates(search: SplitSearch, w, max_depth, score, grow="last_layer", copies=None):
    """Candidates h_1*, ..., h_K* of Section 4 for the tree families H_k^trees.

    h_1* is the best stump. h_k* adds one layer of leaves to h_{k-1}*: every eligible leaf gets
    its own best split (lowest weighted error), and the set of leaves actually split is the one
    that maximises the selection criterion ``score`` (|d_j| of Figure 2, lines 5-9). The
    weighted error of a tree is a sum over its leaves, so the best set of s leaves is the s
    leaves with the largest error reductions, and every s is tried. A split that does not lower
    the weighted error is never added below the root; growth stops when no leaf can be improved.

    Parameters
    ----------
    search : SplitSearch
    w : ndarray of shape (n_samples,)
        The distribution D_t.
    max_depth : int
        K, the deepest family searched.
    score : callable (errors, n_internal) -> ndarray
        Vectorised |d| of a new hypothesis with the given weighted errors and internal node
        counts; the split set maximising it is kept (ties: fewer splits).
    grow : {"last_layer", "any_leaf"}
        Which leaves of h_{k-1}* may be split: those at depth k-1 (the paper's "adding a single
        layer of leaves") or any leaf.
    copies : ndarray of shape (n_samples,), optional
        Integer-valued sample weights: quantise with :func:`~._split_search.quantize_copies`.

    Returns
    -------
    list of Candidate, shallowest first; empty when no feature can be split.
    """
    wq = quantize(w, copies)
    wq_int = wq.astype(np.int64)
    total = float(wq.sum())
    tree = _GrowingTree(search.n_samples)
    totals = search.leaf_totals(wq, tree.leaf_of, 1)
    candidates = []
    for level in range(1, max_depth + 1):
        parent_err = np.minimum(totals[0], totals[1])
        active = parent_err > 0 if level > 1 else np.ones(1, dtype=bool)
        if grow == "last_layer":
            active &= tree.leaf_depth == level - 1
        best_bin, best_err, best_side = _best_split_per_leaf(search, wq_int, tree, active)
        if level == 1:
            if best_err[0] == SplitSearch._NO_SPLIT:
                break
            # h_1* is the best stump even when it does not lower the error.
            chosen = np.array([0])
        else:
            gain = np.where(best_err == SplitSearch._NO_SPLIT, 0, parent_err - best_err)
            leaves = np.flatnonzero(gain > 0)
            if len(leaves) == 0:
                break
            order = np.argsort(-gain[leaves], kind="stable")
            leaves = leaves[order]
            errors = (parent_err.sum() - np.cumsum(gain[leaves])) / total
            n_internal = tree.n_internal + np.arange(1, len(leaves) + 1)
            n_split = int(np.argmax(score(errors, n_internal))) + 1
            chosen = np.sort(leaves[:n_split])
        tree.split(chosen, best_bin[chosen], search.binned, best_side[chosen])
        totals = search.leaf_totals(wq, tree.leaf_of, tree.n_leaves)
        tree.resolve_pending(totals)
        candidates.append(tree.candidate(totals, "tree"))
    return candidates


def grow_stump_candidates(search: SplitSearch, w, copies=None):
    """Candidates of the stump families H_1^stumps and H_2^stumps (Section 4, eqs. 7-8).

    The first is the best stump (exhaustive). The second adds to it the best second question
    ``x[j'] <= theta'`` on a feature j' other than the root's, asked in both children (the family
    H_2^stumps, whose growth function (2m)^2 d(d-1)/2 gives eq. 8). A child in which the second
    question separates no samples stays a leaf. With missing values each child sends its missing
    rows to its own better side.

    Returns
    -------
    list of Candidate: [] when no feature can be split, [h_1*] when only one feature can.
    """
    b = search.binned
    wq = quantize(w, copies)
    w_entries = search.entry_weights(wq)
    tree = _GrowingTree(search.n_samples)
    best_bin, best_err, best_side = _best_split_per_leaf(search, wq.astype(np.int64), tree, np.ones(1, dtype=bool))
    if best_err[0] == SplitSearch._NO_SPLIT:
        return []
    tree.split(np.array([0]), best_bin[:1], b, best_side[:1])
    totals = search.leaf_totals(wq, tree.leaf_of, 2)
    tree.resolve_pending(totals)
    candidates = [tree.candidate(totals, "stump")]

    err, _, side = search.split_errors(wq, w_entries, tree.leaf_of, 2, return_missing=True)
    parent_err = np.minimum(totals[0], totals[1])
    splits = err != SplitSearch._NO_SPLIT
    total_err = np.where(splits, err, parent_err[:, None]).sum(axis=0)
    allowed = (b.bin_column != b.bin_column[best_bin[0]]) & splits.any(axis=0)
    if not allowed.any():
        return candidates
    total_err[~allowed] = SplitSearch._NO_SPLIT
    second = int(np.argmin(total_err))
    leaves = np.flatnonzero(splits[:, second])
    tree.split(leaves, np.full(len(leaves), second), b, None if side is None else side[leaves, second])
    totals = search.leaf_totals(wq, tree.leaf_of, tree.n_leaves)
    tree.resolve_pending(totals)
    candidates.append(tree.candidate(totals, "stump2"))
    return candidates
