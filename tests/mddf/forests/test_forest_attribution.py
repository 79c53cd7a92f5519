"""A stored forest's attributions: shap's TreeExplainer finds the same values on the same trees, they add up to the
forest's output, and a forest without the training weight of its nodes says it cannot be explained."""

import pickle

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from mddf.forests import BinnedInput, CompactForest, ForestSpec, fit_forest
from mddf.trees.attribution import decode_tree
from mddf.trees.packing import decode_shares

shap = pytest.importorskip("shap", reason="shap (the 'explain' extra) is the reference TreeSHAP")


def _rows(n=300, d=6, seed=0, missing=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[rng.random(X.shape) < missing] = np.nan
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] * z[:, 2] > 0).astype(np.int64) + (z[:, 3] > 1)
    return X, y


def _binned_forest(regression=False, seed=0, n_outputs=1):
    X, y = _rows(seed=seed)
    binned = BinnedInput(X, None, None)
    target = y + 0.3 * np.nan_to_num(X[:, 4]) if regression else y
    if n_outputs > 1:  # several targets, each read from other columns: multi-output trees
        z = np.nan_to_num(X)
        target = np.column_stack([target] + [z[:, k] * z[:, 5 - k] for k in range(1, n_outputs)])
    n_classes = None if regression else 3
    rows, none = np.arange(len(y)), np.arange(0)
    forest, _ = fit_forest(ForestSpec("rf", 8, None, "sqrt", seed, binned, target, rows, None, none, n_classes))
    return forest, binned.codes, X


def _as_shap_model(forest, width):
    """The forest's decoded trees in shap's dictionary format, on bin codes (a missing code as NaN)."""
    trees = []
    for t in range(forest.n_trees):
        nodes = decode_tree(forest.packed, t, decode_shares(forest.left_shares), width)
        n, leaf = len(nodes.feature), nodes.feature < 0
        left = np.where(leaf, -1, np.arange(n) + 1)
        right = np.where(leaf, -1, nodes.right)
        weight = np.zeros(n)
        weight[0] = 1.0
        for i in np.flatnonzero(~leaf):  # depth first: a split's weight is known before its children's
            weight[i + 1] = weight[i] * nodes.left_share[i]
            weight[nodes.right[i]] = weight[i] * (1 - nodes.left_share[i])
        trees.append(
            {
                "children_left": left,
                "children_right": right,
                "children_default": np.where(nodes.missing_left == 1, left, right),
                "features": np.where(leaf, -2, nodes.feature),
                "thresholds": nodes.split_bin + 0.5,
                "values": nodes.value / forest.n_trees,
                "node_sample_weight": weight,
            }
        )
    return {"trees": trees}


@pytest.mark.parametrize("regression, width", [(False, 3), (True, 1), (True, 3)], ids=["classes", "one", "targets"])
def test_the_exact_attributions_are_shaps_tree_explainers_on_the_same_trees(regression, width):
    forest, codes, X = _binned_forest(regression, n_outputs=width if regression else 1)
    base, values = forest.attributions(codes)
    explainer = shap.TreeExplainer(_as_shap_model(forest, width), feature_perturbation="tree_path_dependent")
    as_floats = np.where(np.isnan(X), np.nan, codes.astype(np.float64))
    expected = np.asarray(explainer.shap_values(as_floats)).reshape(values.shape)
    assert np.abs(values - expected).max() < 1e-6
    assert np.allclose(base, np.ravel(explainer.expected_value))


def test_both_kinds_of_attribution_add_up_to_the_forests_output_on_every_row():
    forest, codes, _ = _binned_forest()
    proba = forest.predict_proba_binned(codes)
    for fast in (False, True):
        base, values = forest.attributions(codes, fast=fast)
        assert values.shape == (len(codes), 6, 3)
        assert np.abs(base + values.sum(axis=1) - proba).max() < 1e-12


def test_a_multi_output_forests_attributions_add_up_to_each_targets_prediction():
    forest, codes, _ = _binned_forest(regression=True, n_outputs=3)
    predicted = forest.predict_binned(codes)
    assert predicted.shape == (len(codes), 3)
    for fast in (False, True):
        base, values = forest.attributions(codes, fast=fast)
        assert base.shape == (3,) and values.shape == (len(codes), 6, 3)
        assert np.abs(base + values.sum(axis=1) - predicted).max() < 1e-12


def test_the_fast_attributions_are_the_path_contributions_not_the_shapley_values():
    forest, codes, _ = _binned_forest()
    _, exact = forest.attributions(codes)
    _, fast = forest.attributions(codes, fast=True)
    assert not np.allclose(exact, fast, atol=1e-3)


def test_scikit_learns_trees_compacted_are_explained_as_shap_explains_the_original_forest():
    X, y = _rows(missing=0.0)
    sk_forest = RandomForestClassifier(n_estimators=6, max_depth=7, random_state=0).fit(X, y)
    compact = CompactForest(sk_forest, 3)
    base, values = compact.attributions(X)
    expected = np.asarray(shap.TreeExplainer(sk_forest).shap_values(X)).reshape(values.shape)
    # the compacted forest keeps each split's share of its weight in two bytes (a relative precision of about 5e-4):
    # the attributions of its own shares are exact (the tests above); the original's differ by that much at most
    assert np.abs(values - expected).max() < 5e-4 * np.abs(expected).max()
    assert np.abs(base + values.sum(axis=1) - compact.predict_proba(X)).max() < 1e-12


def test_missing_values_follow_the_side_the_compacted_trees_send_them_to():
    X, y = _rows(missing=0.2)
    sk_forest = RandomForestClassifier(n_estimators=4, max_depth=6, random_state=1).fit(X, y)
    compact = CompactForest(sk_forest, 3)
    base, values = compact.attributions(X)
    assert np.abs(base + values.sum(axis=1) - compact.predict_proba(X)).max() < 1e-12


def test_a_pickled_forest_explains_the_same_and_one_without_node_weights_says_to_refit():
    forest, codes, _ = _binned_forest()
    copy = pickle.loads(pickle.dumps(forest))
    assert np.array_equal(copy.attributions(codes[:20])[1], forest.attributions(codes[:20])[1])
    old = type(forest).__new__(type(forest))  # unpickled from a forest fitted before the weights were stored
    old.__setstate__({name: value for name, value in vars(forest).items() if name != "left_shares"})
    assert old.left_shares is None  # filled in (mddf.storage.layouts)
    old = pickle.loads(pickle.dumps(old))  # its pickle's digest is taken without them: it loads
    assert np.array_equal(old.predict_proba_binned(codes), forest.predict_proba_binned(codes))
    with pytest.raises(ValueError, match="fit the model again"):
        old.attributions(codes)


def test_node_weights_outside_zero_to_one_are_refused_when_the_forest_is_checked():
    forest, _, _ = _binned_forest()
    forest.left_shares = forest.left_shares.copy()
    forest.left_shares[0] = 1.5
    with pytest.raises(ValueError, match="outside"):
        forest.check_arrays()
