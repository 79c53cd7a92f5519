"""Weak-learner search for DeepBoost and AdaBoost (Cortes, Mohri and Syed 2014, Section 4).

The hypotheses are binary decision trees whose leaves predict -1 or +1. Each boosting round
asks for the candidates h_1*, ..., h_K* of Section 4:

* h_1* is the best decision stump, found by exhaustive search over every feature and every
  threshold between two consecutive distinct training values;
* h_k* (k >= 2) is the best tree obtained from h_{k-1}* by adding one layer of leaves
  (:func:`grow_tree_candidates`), or, for the stump families of eqs. 7-8, the best depth-2 tree
  that asks one and the same second question in both children (:func:`grow_stump_candidates`).

Speed: every feature is reduced once per fit to dense value codes (:class:`BinnedFeatures`).
At each level of a tree the (class, leaf, value) histogram of all leaves and all features is
built in one pass over the samples' values, the weighted class totals left of every threshold are
running sums along the values, and each leaf's best split is the running minimum of the weighted
errors, all in exact integer arithmetic on quantised weights (:func:`quantize_weights`). Only
leaves that can still be improved are histogrammed. The growers use the compiled search of
:mod:`mddf.baselines._weak_splits`; :meth:`SplitSearch.split_errors` computes the same errors for
every (leaf, bin) at once with numpy (the second question of the stump family, and the tests'
reference).

Missing values (NaN): a feature with NaN at training gets one extra bin after its values, the
missing bin. A split ``x <= threshold`` of such a feature sends the missing rows of the node to the
side with the lower weighted error (to the right on a tie); the split "present vs missing" is the
threshold at the feature's largest value. At prediction NaN follows the side stored in the node
(``missing_left``); where no training row reaching the node was missing (in particular for a
feature without NaN at training) that is the heavier child under the distribution the tree was
grown with (left on a tie).

Ties are broken deterministically: among splits of equal error the lowest feature index, then the
lowest threshold wins, and the threshold stored is the largest training value that goes left
(``x <= threshold`` goes left), as in the C++ reference implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._weak_splits import best_splits


class BinnedFeatures:
    """Each feature's sorted distinct values and every sample's value code, computed once per fit.

    Only features with at least two distinct values can be split, so only those get codes.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32
        Training inputs, finite or NaN (missing).

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_used), int32
        Global bin code of every sample for every usable feature: ``offsets[c] + rank`` where
        ``rank`` is the rank of the sample's value among the feature's distinct values.
    used_features : ndarray of shape (n_used,), int
        Original index of each usable feature (column of ``codes``).
    offsets : ndarray of shape (n_used + 1,)
        First global bin of each usable feature, and the total number of bins.
    n_bins : int
        Total number of (feature, distinct value) bins.
    bin_values, bin_feature, bin_column : ndarray of shape (n_bins,)
        For every bin: its value (float32), original feature, and column in ``codes``.
    mode_bin : ndarray of shape (n_used,)
        Global bin of each feature's most frequent value (lowest on ties).
    entry_rows, entry_codes : ndarray of shape (n_entries,)
        Feature-major list of the (sample, global bin) entries not at their feature's mode bin.
    row_start, row_codes : ndarray of shape (n_samples + 1,) and (n_entries,)
        The same entries grouped by sample (each sample's in column order): sample i's global bins
        are ``row_codes[row_start[i]:row_start[i + 1]]``.
    has_missing : bool
        Whether any usable feature has NaN; then:
    missing_bin : ndarray of shape (n_used,)
        Global bin of each usable feature's missing values (its last bin, value NaN), -1 without NaN.
    missing_bins : ndarray
        The missing bins that exist, in column order.
    split_bins : ndarray
        The value bins of the features with a missing bin (where a split can send NaN left).
    split_missing_index : ndarray of shape (len(split_bins),)
        Index into ``missing_bins`` of the feature of each of ``split_bins``.
    """

    def __init__(self, X):
        X = np.asarray(X, dtype=np.float32)
        n_samples, n_features = X.shape
        self.n_samples, self.n_features = n_samples, n_features
        order = np.argsort(X, axis=0, kind="stable")
        xs = np.take_along_axis(X, order, axis=0)
        is_new = np.ones_like(xs, dtype=bool)
        is_new[1:] = xs[1:] != xs[:-1]
        nan_sorted = np.isnan(xs) if np.isnan(xs[-1:]).any() else None  # NaN sorts last
        if nan_sorted is not None:
            is_new[1:] &= ~(nan_sorted[1:] & nan_sorted[:-1])  # all NaN share one bin
        rank = np.cumsum(is_new, axis=0, dtype=np.int64) - 1
        n_unique = rank[-1] + 1 if n_samples else np.zeros(n_features, dtype=np.int64)
        used = np.flatnonzero(n_unique >= 2)
        sizes = n_unique[used]
        self.used_features = used
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.n_bins = int(self.offsets[-1])
        # Feature-major listing of the distinct values of the usable features.
        self.bin_values = xs.T[used][is_new.T[used]].astype(np.float32)
        self.bin_column = np.repeat(np.arange(len(used)), sizes)
        self.bin_feature = used[self.bin_column]
        codes = np.empty((n_samples, len(used)), dtype=np.int64)
        np.put_along_axis(codes, order[:, used], rank[:, used] + self.offsets[:-1], axis=0)
        dtype = np.int32 if self.n_bins < 2**31 else np.int64
        self.codes = np.ascontiguousarray(codes, dtype=dtype)
        # The most frequent value of each feature ("mode bin", lowest on ties): its histogram
        # entry is obtained by subtraction, so only the other (sample, feature) entries are
        # histogrammed -- a large saving on sparse data such as MNIST pixels.
        counts = np.bincount(codes.ravel(), minlength=self.n_bins)
        if self.n_bins:
            seg_max = np.maximum.reduceat(counts, self.offsets[:-1])
            at_max = np.flatnonzero(counts == seg_max[self.bin_column])
            _, first = np.unique(self.bin_column[at_max], return_index=True)
            self.mode_bin = at_max[first]
        else:
            self.mode_bin = np.zeros(0, dtype=np.int64)
        # The other entries, feature-major (the numpy split search: updates of one feature hit a
        # small, cache-resident block of bins) and grouped by row (the compiled search: a row's
        # leaf and weight are read once for all its entries).
        codes_t = codes.T
        keep = codes_t != self.mode_bin[:, None]
        self.entry_codes = codes_t[keep]
        self.entry_rows = np.broadcast_to(np.arange(n_samples), codes_t.shape)[keep]
        keep_by_row = keep.T
        self.row_codes = codes[keep_by_row].astype(dtype)
        self.row_start = np.concatenate([[0], np.cumsum(keep_by_row.sum(axis=1))]).astype(np.int64)
        self.missing_bin = np.full(len(used), -1, dtype=np.int64)
        if nan_sorted is not None:
            has_nan = nan_sorted[-1, used]
            self.missing_bin[has_nan] = self.offsets[1:][has_nan] - 1
        self.has_missing = bool(np.any(self.missing_bin >= 0))
        self.missing_bins = self.missing_bin[self.missing_bin >= 0]
        index = np.cumsum(self.missing_bin >= 0) - 1
        bin_miss = self.missing_bin[self.bin_column] if self.n_bins else np.zeros(0, dtype=np.int64)
        self.split_bins = np.flatnonzero((bin_miss >= 0) & (np.arange(self.n_bins) != bin_miss))
        self.split_missing_index = index[self.bin_column[self.split_bins]]

    @property
    def n_used(self) -> int:
        return len(self.used_features)


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


#: Weights are quantised to integers summing to about 2**QUANT_BITS before the search, so that
#: every histogram, cumulative sum and error below is exact integer arithmetic: ties are exact
#: (hence deterministic), emptiness of a child is exact, and numpy's integer cumsum is faster
#: than its floating-point one. Sums stay below 2**53, exact in float64 too.
QUANT_BITS = 50


def quantize_weights(w):
    """Integer-valued float64 weights ``max(1, rint(w / sum(w) * 2**QUANT_BITS))``.

    Every sample keeps a weight of at least one unit (2**-50 of the total), so an empty child is
    exactly a child of zero weight.
    """
    w = np.asarray(w, dtype=np.float64)
    return np.maximum(np.rint(w * (2.0**QUANT_BITS / w.sum())), 1.0)


def quantize_copies(w, copies):
    """Quantised weights of rows that stand for ``copies`` (integer-valued) repeated rows.

    ``copies * max(1, rint(w / copies * 2**QUANT_BITS / sum(w)))``: each copy is quantised as a row of its
    own would be, so sums over rows (histograms, errors) equal those of the repeated rows exactly and
    splits whose errors tie for the repeated rows tie here too (up to the rare rounding of a value at
    exactly half a unit).
    """
    w = np.asarray(w, dtype=np.float64)
    return copies * np.maximum(np.rint((w / copies) * (2.0**QUANT_BITS / w.sum())), 1.0)


#: The most copies (sum of the integer sample weights) quantised copy by copy. Each copy gets at least
#: one unit, so beyond 2**QUANT_BITS copies the floor of one unit would outweigh D_t itself (and the
#: integer sums overflow int64 past 2**63); up to 2**30 copies, a copy of average weight still gets about
#: 2**20 units. Above it the copies are quantised as plain weights, which depends only on the ratios
#: of the weights: any scale of the sample weights gives the same search.
MAX_QUANTIZED_COPIES = 2.0**30


def _quantize(w, copies):
    if copies is None or copies.sum() > MAX_QUANTIZED_COPIES:
        return quantize_weights(w)
    return quantize_copies(w, copies)


class SplitSearch:
    """Exhaustive split search over all leaves and features of a growing tree (one per fit and class).

    Parameters
    ----------
    binned : BinnedFeatures
    y : ndarray of shape (n_samples,) in {-1, +1}
    """

    _NO_SPLIT = np.iinfo(np.int64).max
    #: Bound on the scratch histogram of :meth:`best_splits` (bytes), reached only with millions
    #: of distinct feature values; a single leaf's histogram is always allowed.
    max_scratch_bytes = 256 * 2**20

    def __init__(self, binned: BinnedFeatures, y):
        self.binned = binned
        self.is_pos = (np.asarray(y) > 0).astype(np.int64)
        self.n_samples = len(self.is_pos)
        # Histogram cell of an entry for a single leaf: class * n_bins + bin.
        self.root_cells = binned.entry_codes + (self.is_pos * binned.n_bins)[binned.entry_rows]
        # Where each feature's bins start: running sums restart there (a feature's bins
        # partition the leaf, so the previous feature's running sum ends at the leaf total).
        self.reset_at = binned.offsets[1:-1]
        # The arrays the compiled search reads, typed for it, and its scratch histogram.
        self._offsets = np.asarray(binned.offsets, dtype=np.int64)
        self._mode_bin = np.asarray(binned.mode_bin, dtype=np.int64)
        self._missing_bin = np.asarray(binned.missing_bin, dtype=np.int64)
        self._scratch = None

    def best_splits(self, wq_int, leaf_of, n_leaves):
        """Each leaf's best split: (bin, error, missing side) as ``argmin`` over :meth:`split_errors`.

        ``wq_int`` are the quantised weights as int64; ``leaf_of`` as in :meth:`split_errors`.
        Compiled (:func:`mddf.baselines._weak_splits.best_splits`). Its scratch histogram holds
        ``2 * n_bins`` int64 per leaf and is kept between calls; when all leaves would need more
        than :attr:`max_scratch_bytes`, the leaves are searched in groups that fit (each group
        one more pass over the entries; the splits are the same).
        """
        leaf_of = np.ascontiguousarray(leaf_of, dtype=np.int64)
        per_leaf = 2 * max(self.binned.n_bins, 1)
        chunk = int(max(1, min(n_leaves, self.max_scratch_bytes // (8 * per_leaf))))
        if self._scratch is None or len(self._scratch) < chunk * per_leaf:
            self._scratch = np.zeros(chunk * per_leaf, dtype=np.int64)
        best_bin = np.empty(n_leaves, dtype=np.int64)
        best_err = np.empty(n_leaves, dtype=np.int64)
        best_side = np.empty(n_leaves, dtype=np.int8)
        for first in range(0, n_leaves, chunk):
            last = min(first + chunk, n_leaves)
            if (first, last) == (0, n_leaves):
                chunk_leaf_of = leaf_of
            else:
                chunk_leaf_of = np.where((leaf_of >= first) & (leaf_of < last), leaf_of - first, -1)
            best_splits(
                self.binned.row_start,
                self.binned.row_codes,
                self._offsets,
                self._mode_bin,
                self._missing_bin,
                self.is_pos,
                wq_int,
                chunk_leaf_of,
                last - first,
                self._scratch,
                best_bin[first:last],
                best_err[first:last],
                best_side[first:last],
            )
        return best_bin, best_err, best_side

    def entry_weights(self, wq):
        """The weights of the histogrammed entries (computed once per round)."""
        return wq[self.binned.entry_rows]

    def leaf_totals(self, wq, leaf_of, n_leaves):
        """Quantised weights of each leaf by class: int64 array (2, n_leaves) = (negative, positive)."""
        idx = self.is_pos * n_leaves + leaf_of
        return np.bincount(idx, weights=wq, minlength=2 * n_leaves).astype(np.int64).reshape(2, n_leaves)

    def split_errors(self, wq, w_entries, leaf_of, n_leaves, return_missing=False):
        """Weighted error (quantised units) of every split of every leaf.

        Parameters
        ----------
        wq : ndarray of shape (n_samples,)
            Quantised weights (:func:`quantize_weights`).
        w_entries : ndarray
            ``entry_weights(wq)``.
        leaf_of : ndarray of shape (n_samples,)
            Leaf of each sample in ``0 .. n_leaves - 1``, or -1 for samples to leave out.
        n_leaves : int

        Returns
        -------
        err : int64 ndarray of shape (n_leaves, n_bins)
            Error of the split ``x[feature] <= bin value`` with both children predicting their
            weighted majority, i.e. min(neg, pos) of the left plus that of the right child;
            ``_NO_SPLIT`` where a child would be empty (including every feature's last bin).
        totals : int64 ndarray of shape (2, n_leaves)
        missing_side : int8 ndarray of shape (n_leaves, n_bins) or None
            Only with ``return_missing``, None when no feature has NaN. For the split at each bin:
            1 if the leaf's missing rows go left (strictly lower error), 0 if they go right (some
            are missing), -1 if none of the leaf's rows is missing for that feature. ``err`` is the
            error with the missing rows on their side.
        """
        b = self.binned
        n_bins = b.n_bins
        cls_leaf = self.is_pos * n_leaves + leaf_of
        left_out = leaf_of < 0
        cls_leaf[left_out] = 2 * n_leaves  # a dump cell block past the end
        totals = np.bincount(cls_leaf, weights=wq, minlength=2 * n_leaves + 1)[: 2 * n_leaves]
        totals = totals.astype(np.int64).reshape(2, n_leaves)
        if n_bins == 0:
            empty = np.empty((n_leaves, 0), dtype=np.int64)
            return (empty, totals, None) if return_missing else (empty, totals)
        if n_leaves == 1 and not left_out.any():
            idx = self.root_cells
        else:
            idx = b.entry_codes + (cls_leaf * n_bins)[b.entry_rows]
        size = 2 * n_leaves * n_bins
        hist = np.bincount(idx, weights=w_entries, minlength=size + n_bins)[:size]
        hist = hist.astype(np.int64).reshape(2, n_leaves, n_bins)
        # Mode bins hold what the other bins of their feature do not.
        seg = np.add.reduceat(hist, b.offsets[:-1], axis=2)
        hist[:, :, b.mode_bin] = totals[:, :, None] - seg
        missing = hist[:, :, b.missing_bins] if b.has_missing else None  # a copy (fancy indexing)
        hist[:, :, self.reset_at] -= totals[:, :, None]
        np.cumsum(hist, axis=2, out=hist)  # now: totals left of (and including) each bin
        neg, pos = hist[0], hist[1]
        if missing is not None:
            # The same splits with the missing rows sent left instead of right.
            sel, mi = b.split_bins, b.split_missing_index
            m_neg, m_pos = missing[0][:, mi], missing[1][:, mi]
            l_neg, l_pos = neg[:, sel] + m_neg, pos[:, sel] + m_pos
            err_left = np.minimum(l_neg, l_pos) + np.minimum(totals[0][:, None] - l_neg, totals[1][:, None] - l_pos)
            l_count = l_neg + l_pos
            err_left[(l_count == 0) | (l_count == (totals[0] + totals[1])[:, None])] = self._NO_SPLIT
            has_missing = (m_neg + m_pos) > 0
        count = neg + pos
        err = np.minimum(neg, pos)
        np.subtract(totals[0][:, None], neg, out=neg)  # now: totals right of each bin
        np.subtract(totals[1][:, None], pos, out=pos)
        err += np.minimum(neg, pos)
        empty = count == 0
        empty |= count == (totals[0] + totals[1])[:, None]
        err[empty] = self._NO_SPLIT
        if not return_missing:
            return err, totals
        if missing is None:
            return err, totals, None
        side = np.full(err.shape, -1, dtype=np.int8)
        go_left = err_left < err[:, sel]
        err[:, sel] = np.where(go_left, err_left, err[:, sel])
        side[:, sel] = np.where(go_left, 1, np.where(has_missing, 0, -1))
        return err, totals, side


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
        Integer-valued sample weights: quantise with :func:`quantize_copies`.

    Returns
    -------
    list of Candidate, shallowest first; empty when no feature can be split.
    """
    wq = _quantize(w, copies)
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
    wq = _quantize(w, copies)
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
