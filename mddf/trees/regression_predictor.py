"""Routing rows through one grown regression tree, compiled with numba.

A tree is the node arrays returned by
:func:`mddf.trees.regression_grower.grow_regression_tree`: a row at internal
node ``i`` goes to node ``i + 1`` when its bin of feature ``feature[i]`` is at
most ``split_bin[i]``, and to ``right[i]`` otherwise; a leaf
(``feature[i] < 0``) holds its value ``values[right[i]]``. A missing value (its
feature's missing bin, :mod:`mddf.trees.binning`) goes left exactly when
``missing_left[i]`` is 1, as in :func:`mddf.trees.predictor.add_tree_proba`.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def add_tree_values(feature, split_bin, right, values, missing_left, Xb, missing_bin, rows, out):
    """Add the tree's prediction of each row ``rows[k]`` of ``Xb`` to ``out[k]``.

    Parameters
    ----------
    feature, split_bin, right, values, missing_left : ndarray
        The tree, as returned by :func:`mddf.trees.regression_grower.grow_regression_tree`.
    Xb : ndarray of uint8 or uint16 (n, d)
        Bin codes, binned with the edges the tree was grown on.
    missing_bin : ndarray of int64 (d,) or (0,)
        Code of NaN in each feature (``FeatureBinner.missing_bins_``); empty
        when ``Xb`` has no missing value, which skips the check.
    rows : ndarray of int64 (n_rows,)
        Rows of ``Xb`` to route.
    out : ndarray of float64 (n_rows,)
        Accumulator, added to in place.
    """
    has_missing = len(missing_bin) > 0
    for k in range(len(rows)):
        r = rows[k]
        node = 0
        if has_missing:
            while feature[node] >= 0:
                f = feature[node]
                code = Xb[r, f]
                if code == missing_bin[f]:
                    go_left = missing_left[node] == 1
                else:
                    go_left = code <= split_bin[node]
                if go_left:
                    node += 1
                else:
                    node = right[node]
        else:
            while feature[node] >= 0:
                if Xb[r, feature[node]] <= split_bin[node]:
                    node += 1
                else:
                    node = right[node]
        out[k] += values[right[node]]
