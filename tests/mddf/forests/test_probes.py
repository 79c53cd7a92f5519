"""Probe trees: shallow trees cross-fitted by zero weights on binned columns, their held-out losses, the leaves rows
reach, and a small forest's importances."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from mddf.forests.probes import ProbeTrees, binned_columns, forest_importances, route
from mddf.trees import BEST, TreeSettings, grow_tree


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[rng.random(n) < 0.1, 1] = np.nan
    y = ((X[:, 0] > 0) ^ (np.nan_to_num(X[:, 1]) > 0.5)).astype(np.int64)
    return X, y


def test_route_sends_every_row_to_the_leaf_whose_training_class_shares_the_tree_stores():
    X, y = _table()
    codes, n_bins, missing_bin = binned_columns(X)
    assert missing_bin is not None and missing_bin[1] >= 0 and missing_bin[0] == -1
    tree = grow_tree(codes, y, np.ones(len(y)), n_bins, missing_bin, None, 2, TreeSettings(4, 3, BEST, 0, 0), 0)
    leaf = route(tree, codes, missing_bin)
    assert (tree.feature[leaf] == -1).all()
    for node in np.unique(leaf):
        rows = leaf == node
        shares = np.bincount(y[rows], minlength=2) / rows.sum()
        stored = tree.right[node]
        expected = np.eye(2)[stored] if stored >= 0 else tree.leaf_values[-stored - 1]
        np.testing.assert_allclose(shares, expected, atol=1e-6)


def test_every_row_gets_the_loss_of_the_fold_that_held_it_out_and_informative_columns_lose_less():
    X, y = _table()
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    probes = ProbeTrees(y, folds, False, 2, max_depth=4, seed=0)
    codes, n_bins, missing_bin = binned_columns(X)
    both = probes.losses(codes[:, :2].copy(), n_bins[:2], missing_bin[:2])
    noise = probes.losses(codes[:, 2:].copy(), n_bins[2:], None)
    assert both.shape == (600,) and (both > 0).all() and np.isfinite(both).all()
    assert both.mean() < 0.5 * noise.mean()  # the two columns of the label against a noise column
    assert noise.mean() == pytest.approx(np.log(2), abs=0.1)  # about the prior's log-loss
    values = X[:, 0] * 3 + np.nan_to_num(X[:, 1])
    regression = ProbeTrees(values, folds, True, 0, max_depth=4, seed=0)
    assert regression.losses(codes[:, :2].copy(), n_bins[:2], missing_bin[:2]).mean() < 0.2 * values.var()


def test_a_probe_forest_ranks_the_columns_the_label_depends_on_first():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(800, 12))
    y = ((X[:, 4] + X[:, 9]) > 0).astype(np.int64)
    codes, n_bins, missing_bin = binned_columns(X)
    importance = forest_importances(codes, n_bins, missing_bin, y, 2, n_trees=16, max_depth=6, seed=0)
    assert set(np.argsort(-importance)[:2]) == {4, 9}
    again = forest_importances(codes, n_bins, missing_bin, y, 2, n_trees=16, max_depth=6, seed=0)
    np.testing.assert_array_equal(importance, again)


@pytest.mark.parametrize("regression", [False, True])
def test_a_held_out_loss_is_that_of_its_leaf_smoothed_towards_the_fitting_rows_by_leaf_prior_rows(regression):
    from mddf.forests.probes import LEAF_PRIOR_ROWS

    X, y = _table(n=400, seed=3)
    target = X[:, 0] + np.nan_to_num(X[:, 1]) if regression else y
    folds = list(StratifiedKFold(2, shuffle=True, random_state=1).split(X, y))
    codes, n_bins, missing_bin = binned_columns(X[:, :2])
    losses = ProbeTrees(target, folds, regression, 0 if regression else 2, max_depth=3, seed=0).losses(
        codes, n_bins, missing_bin
    )
    for fit, held_out in folds:
        w = np.zeros(len(y))
        w[fit] = 1.0
        settings = TreeSettings(3, 2, BEST, 0, 0)
        tree = grow_tree(codes, target, w, n_bins, missing_bin, None, 0 if regression else 2, settings, 0)
        leaf, nodes = route(tree, codes, missing_bin), len(tree.feature)
        if regression:
            sums = np.bincount(leaf[fit], weights=target[fit], minlength=nodes)
            counts = np.bincount(leaf[fit], minlength=nodes)
            means = (sums + LEAF_PRIOR_ROWS * target[fit].mean()) / (counts + LEAF_PRIOR_ROWS)
            expected = (target[held_out] - means[leaf[held_out]]) ** 2
        else:
            counts = np.bincount(leaf[fit] * 2 + y[fit], minlength=2 * nodes).reshape(nodes, 2)
            prior = (np.bincount(y[fit], minlength=2) + 1.0) / (len(fit) + 2)
            shares = (counts + LEAF_PRIOR_ROWS * prior) / (counts.sum(axis=1, keepdims=True) + LEAF_PRIOR_ROWS)
            expected = -np.log(shares[leaf[held_out], y[held_out]])
        np.testing.assert_array_equal(losses[held_out], expected)
