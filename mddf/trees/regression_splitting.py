"""Split search of regression trees on binned features (squared-error criterion), compiled with numba.

The criterion is scikit-learn's ``DecisionTreeRegressor(criterion="squared_error")``:
a node's impurity is its weighted variance, and splitting it into children L
and R decreases ``w_node * var_node`` by

    S_L^2 / W_L + S_R^2 / W_R - S_node^2 / W_node,

with ``W`` a child's weight and ``S`` its weighted sum of targets. The last
term is the node's own, so a split is scored by the proxy
``S_L^2 / W_L + S_R^2 / W_R`` (higher is better), as scikit-learn's criterion
does (``proxy_impurity_improvement``). A threshold costs O(1): a feature's rows
are first summed per bin (weight, weighted target sum and row count), on a
histogram for larger nodes and by an insertion sort for a few rows, then the
bins are scanned in order.

Three split rules:

- best split (:func:`best_split_mse`): the best threshold of each candidate
  feature (random forests; scikit-learn's ``DecisionTreeRegressor``);
- random threshold (:func:`threshold_score_mse` on the bin that
  :func:`mddf.trees.splitting.random_split_bin` draws): a threshold drawn
  uniformly among the bin boundaries inside the node, scored so that the best
  of several candidate features can be taken (extremely randomized trees,
  ``ExtraTreeRegressor``); with one candidate feature it is the
  completely-random tree of Zhou and Feng, and nothing needs scoring.

Missing values (NaN) sit in their feature's last bin (:mod:`mddf.trees.binning`).
The best split scores every threshold with the missing rows on either side,
and the split of the real rows from the missing ones, as the classification
split search does (:mod:`mddf.trees.splitting`); a random threshold draws the
side (:func:`~mddf.trees.splitting.random_split_bin`). The side is reported
as 1 (missing rows left), 0 (right) or -1 (the node has none).
"""

from __future__ import annotations

from numba import njit

# the regression grower's on-disk numba cache (regression_grower.py) holds this module's
# functions compiled in and does not see changes to this file: delete mddf/trees/__pycache__
# after editing it.

_INSERTION_SORT_ROWS = 24


@njit(cache=True, nogil=True)
def _bin_sums(
    Xb, node_y, node_w, samples, start, end, f, bin_sum, bin_weight, bin_count, out_bin, out_sum, out_weight, out_count
):
    """Sum the node's rows of feature ``f`` per bin; returns the number ``k`` of non-empty bins.

    ``out_*[:k]`` receive, in increasing bin order, each non-empty bin's code,
    weighted target sum, weight and row count. ``bin_sum``, ``bin_weight`` and
    ``bin_count`` are histogram scratch space, zero on entry and on exit.
    """
    n_node = end - start
    if n_node <= _INSERTION_SORT_ROWS:
        # a few rows: insertion sort by bin, then merge the rows of equal bins
        for i in range(n_node):
            b = Xb[samples[start + i], f]
            h = node_w[start + i]
            s = h * node_y[start + i]
            k = i
            while k > 0 and out_bin[k - 1] > b:
                out_bin[k] = out_bin[k - 1]
                out_sum[k] = out_sum[k - 1]
                out_weight[k] = out_weight[k - 1]
                k -= 1
            out_bin[k] = b
            out_sum[k] = s
            out_weight[k] = h
        k = 0
        for i in range(n_node):
            if i > 0 and out_bin[i] == out_bin[k - 1]:
                out_sum[k - 1] += out_sum[i]
                out_weight[k - 1] += out_weight[i]
                out_count[k - 1] += 1
            else:
                out_bin[k] = out_bin[i]
                out_sum[k] = out_sum[i]
                out_weight[k] = out_weight[i]
                out_count[k] = 1
                k += 1
        return k
    # larger node: a histogram over the node's range of bins
    lo = 1 << 16
    hi = -1
    for i in range(start, end):
        b = Xb[samples[i], f]
        h = node_w[i]
        bin_sum[b] += h * node_y[i]
        bin_weight[b] += h
        bin_count[b] += 1
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    k = 0
    for b in range(lo, hi + 1):
        if bin_count[b] > 0:
            out_bin[k] = b
            out_sum[k] = bin_sum[b]
            out_weight[k] = bin_weight[b]
            out_count[k] = bin_count[b]
            k += 1
            bin_sum[b] = 0.0
            bin_weight[b] = 0.0
            bin_count[b] = 0
    return k


@njit(cache=True, nogil=True)
def best_split_mse(
    Xb,
    node_y,
    node_w,
    samples,
    start,
    end,
    f,
    node_sum,
    node_weight,
    bin_sum,
    bin_weight,
    bin_count,
    out_bin,
    out_sum,
    out_weight,
    out_count,
    missing_bins,
):
    """Best squared-error threshold of feature ``f`` on the node's rows ``samples[start:end]``.

    Returns (score, threshold bin, missing side). The score, to be maximised,
    is ``S_L^2 / W_L + S_R^2 / W_R`` (see the module); it is -1 when the feature
    is constant in the node. ``node_y`` and ``node_w`` are the target and weight
    of ``samples[i]`` at position i; ``node_sum`` and ``node_weight`` the node's
    weighted target sum and weight. ``missing_bins[f]`` is the code of NaN in
    feature ``f`` (-1 when the feature has none; ``missing_bins`` is None when no
    feature has any). The remaining arguments are scratch space (see
    :func:`_bin_sums`).
    """
    k = _bin_sums(
        Xb,
        node_y,
        node_w,
        samples,
        start,
        end,
        f,
        bin_sum,
        bin_weight,
        bin_count,
        out_bin,
        out_sum,
        out_weight,
        out_count,
    )
    if k < 2:
        return -1.0, 0, -1
    best = -1.0
    best_bin = 0
    side = -1
    n_real = k
    if missing_bins is not None:
        if out_bin[k - 1] == missing_bins[f]:  # the missing bin is the feature's last code
            n_real = k - 1
    if n_real == k:
        s_left = 0.0
        w_left = 0.0
        for i in range(k - 1):
            s_left += out_sum[i]
            w_left += out_weight[i]
            w_right = node_weight - w_left
            if w_left <= 0.0 or w_right <= 0.0:  # rounding, when rows weigh next to nothing
                continue
            s_right = node_sum - s_left
            score = s_left * s_left / w_left + s_right * s_right / w_right
            if score > best:
                best = score
                best_bin = out_bin[i]
        return best, best_bin, -1
    # missing rows in the node: each threshold between real bins with them right and with them left,
    # and the split of the real rows (left) from the missing ones (right)
    s_missing = out_sum[k - 1]
    w_missing = out_weight[k - 1]
    s_left = 0.0
    w_left = 0.0
    for i in range(n_real):
        s_left += out_sum[i]
        w_left += out_weight[i]
        w_right = node_weight - w_left
        if w_left > 0.0 and w_right > 0.0:
            s_right = node_sum - s_left
            score = s_left * s_left / w_left + s_right * s_right / w_right
            if score > best:
                best = score
                best_bin = out_bin[i]
                side = 0
        if i + 1 == n_real:  # real | missing has no missing-left twin
            break
        w_left_m = w_left + w_missing
        w_right_m = node_weight - w_left_m
        if w_left_m > 0.0 and w_right_m > 0.0:
            s_left_m = s_left + s_missing
            s_right_m = node_sum - s_left_m
            score = s_left_m * s_left_m / w_left_m + s_right_m * s_right_m / w_right_m
            if score > best:
                best = score
                best_bin = out_bin[i]
                side = 1
    return best, best_bin, side


@njit(cache=True, nogil=True)
def threshold_score_mse(Xb, node_y, node_w, samples, start, end, f, split_b, missing_code, node_sum, node_weight):
    """Score ``S_L^2 / W_L + S_R^2 / W_R`` of one given split of the node's rows.

    Rows with bin ``<= split_b``, and rows coded ``missing_code`` (the
    feature's missing bin when missing values go left, -1 otherwise), go left.
    Returns -1 when a side has no weight.
    """
    s_left = 0.0
    w_left = 0.0
    for i in range(start, end):
        code = Xb[samples[i], f]
        if code <= split_b or code == missing_code:
            h = node_w[i]
            s_left += h * node_y[i]
            w_left += h
    w_right = node_weight - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -1.0
    s_right = node_sum - s_left
    return s_left * s_left / w_left + s_right * s_right / w_right
