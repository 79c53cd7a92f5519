"""A tree's attributions: decoded trees route as the stored ones, exact TreeSHAP equals the Shapley values of the
path-dependent value function found by enumeration, and both kinds of attribution add up to the tree's output."""

from itertools import combinations
from math import factorial

import numpy as np
import pytest
from tree_helpers import forest_of, grow

from mddf.trees import FeatureBinner, GrownTree, attribution
from mddf.trees.attribution import decode_tree, edge_layout, path_contributions, quadrature, tree_shap
from mddf.trees.packing import decode_shares
from mddf.trees.predictor import NO_MISSING, route_trees


def _data(n=240, d=5, seed=0, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    y = np.digitize(signal, [-0.5, 0.5]).astype(np.int64)
    binner = FeatureBinner().fit(X)
    return binner, binner.transform(X), y


def _forest(seed=0, missing=0.0, n_classes=3, regression=False, categorical=None, max_depth=6, **grow_options):
    binner, codes, y = _data(seed=seed, missing=missing)
    if categorical is not None:  # a few categories in the columns split into subsets
        codes[:, np.flatnonzero(categorical)] %= 7
    target = y.astype(np.float64) + 0.1 * codes[:, 3] if regression else y
    missing_bin = binner.missing_bins_ if missing else None
    weight = np.random.default_rng(seed).integers(1, 4, size=len(y)).astype(np.float64)  # bootstrap-like counts
    trees = [
        grow(codes, target, weight, n_classes=None if regression else n_classes, max_depth=max_depth, seed=s,
             missing_bin=missing_bin, categorical=categorical, **grow_options)
        for s in range(3)
    ]  # fmt: skip
    return forest_of(binner, None if regression else n_classes, trees), codes


def _missing(forest, codes):
    return np.asarray(forest.binner.missing_bins_, dtype=np.int64)


def _value_function(nodes, codes_row, known, missing_codes, category_bits):
    """v(S): the tree's output for the row with only the features of ``known`` known (the path-dependent
    expectation), computed by recursion on the decoded nodes: the specification."""

    def walk(node):
        f = nodes.feature[node]
        if f < 0:
            return nodes.value[node]
        left, right = node + 1, nodes.right[node]
        if f in known:
            code = int(codes_row[f])
            if nodes.category[node] >= 0:
                bits = category_bits[nodes.category[node]]
                goes_left = bool((int(bits[code >> 6]) >> (code & 63)) & 1)
            else:
                goes_left = code <= nodes.split_bin[node] or (
                    nodes.missing_left[node] == 1 and code == missing_codes[f]
                )
            return walk(left if goes_left else right)
        s = nodes.left_share[node]
        return s * walk(left) + (1 - s) * walk(right)

    return walk(0)


def _brute_force_shapley(nodes, codes_row, n_features, missing_codes, category_bits):
    """The Shapley values of the value function, by enumeration of every subset of the features."""
    phi = np.zeros((n_features, nodes.value.shape[1]))
    players = range(n_features)
    for i in players:
        others = [j for j in players if j != i]
        for size in range(n_features):
            weight = factorial(size) * factorial(n_features - size - 1) / factorial(n_features)
            for subset in combinations(others, size):
                with_i = _value_function(nodes, codes_row, set(subset) | {i}, missing_codes, category_bits)
                without = _value_function(nodes, codes_row, set(subset), missing_codes, category_bits)
                phi[i] += weight * (with_i - without)
    return phi


@pytest.mark.parametrize("missing", [0.0, 0.15])
def test_a_decoded_tree_routes_every_row_to_the_leaf_the_stored_words_route_it_to(missing):
    forest, codes = _forest(missing=missing)
    missing_codes = _missing(forest, codes)
    rows = np.arange(len(codes), dtype=np.int64)
    for t in range(forest.n_trees):
        routed = np.zeros((len(codes), 3))
        route_trees(forest.packed, t, t + 1, codes, rows, missing_codes, routed)
        nodes = decode_tree(forest.packed, t, decode_shares(forest.left_shares), 3)
        values = np.zeros((len(codes), 5, 3))
        path_contributions(nodes, codes, rows, missing_codes, forest.packed.category_bits, 1.0, values)
        # the contributions telescope from the root's value to the leaf's: the routed output
        assert np.allclose(nodes.value[0] + values.sum(axis=1), routed, atol=1e-12)


def test_a_split_value_is_the_mean_of_its_children_weighted_by_their_training_weight():
    forest, _ = _forest()
    nodes = decode_tree(forest.packed, 0, decode_shares(forest.left_shares), 3)
    splits = np.flatnonzero(nodes.feature >= 0)
    share = nodes.left_share[splits, None]
    expected = share * nodes.value[splits + 1] + (1 - share) * nodes.value[nodes.right[splits]]
    assert np.allclose(nodes.value[splits], expected)
    assert np.all((nodes.left_share[splits] > 0) & (nodes.left_share[splits] < 1))
    assert np.allclose(nodes.value[0].sum(), 1.0)  # the expected class shares


@pytest.mark.parametrize(
    "options",
    [
        dict(missing=0.15),
        dict(regression=True),
        dict(categorical=[1, 0, 0, 0, 1], max_depth=8),  # category splits, features repeated on the paths
        dict(random_split=True, max_depth=10),
        dict(n_classes=70),  # past 64 columns: every column of every node is walked
    ],
    ids=["missing", "regression", "categories", "deep-random", "many-classes"],
)
def test_exact_attributions_are_the_shapley_values_of_the_path_dependent_value_function(options):
    forest, codes = _forest(**options)
    width = forest.n_classes or 1
    missing_codes = _missing(forest, codes)
    rows = np.arange(12 if width < 64 else 3, dtype=np.int64)
    for t in range(forest.n_trees):
        nodes = decode_tree(forest.packed, t, decode_shares(forest.left_shares), width)
        found = np.zeros((len(rows), 5, width))
        base = tree_shap(nodes, codes, rows, missing_codes, forest.packed.category_bits, 1.0, found)
        assert np.allclose(base, nodes.value[0])
        for k in rows:
            expected = _brute_force_shapley(nodes, codes[k], 5, missing_codes, forest.packed.category_bits)
            assert np.allclose(found[k], expected, atol=1e-12, rtol=1e-9)


def test_exact_attributions_add_up_and_scale_and_do_not_depend_on_the_rows_taken_together():
    forest, codes = _forest(seed=3, missing=0.1, max_depth=-1)
    missing_codes = _missing(forest, codes)
    nodes = decode_tree(forest.packed, 1, decode_shares(forest.left_shares), 3)
    rows = np.arange(len(codes), dtype=np.int64)
    together = np.zeros((len(rows), 5, 3))
    tree_shap(nodes, codes, rows, missing_codes, forest.packed.category_bits, 0.5, together)
    routed = np.zeros((len(rows), 3))
    route_trees(forest.packed, 1, 2, codes, rows, missing_codes, routed)
    assert np.allclose(nodes.value[0] + 2 * together.sum(axis=1), routed, atol=1e-12)
    one = np.zeros((1, 5, 3))
    tree_shap(nodes, codes, rows[7:8], missing_codes, forest.packed.category_bits, 0.5, one)
    assert np.array_equal(one[0], together[7])


@pytest.mark.parametrize(
    "options",
    [
        dict(missing=0.15),
        dict(regression=True, missing=0.1),
        dict(categorical=[1, 0, 0, 1, 0], missing=0.1),
        dict(random_split=True),
    ],
    ids=["missing", "regression", "categories", "random"],
)
def test_exact_attributions_of_a_row_are_the_same_whatever_rows_are_walked_with_it(options, monkeypatch):
    # fully grown trees, every row at once, in blocks of 7 rows and one row at a time: the same values, to the bit
    forest, codes = _forest(max_depth=-1, **options)
    width = forest.n_classes or 1
    missing_codes = _missing(forest, codes)
    rows = np.random.default_rng(0).permutation(len(codes)).astype(np.int64)
    for t in range(forest.n_trees):
        nodes = decode_tree(forest.packed, t, decode_shares(forest.left_shares), width)
        together = np.zeros((len(rows), 5, width))
        tree_shap(nodes, codes, rows, missing_codes, forest.packed.category_bits, 1.0, together)
        with monkeypatch.context() as patch:
            patch.setattr(attribution, "BLOCK_ROWS", 7)
            in_blocks = np.zeros_like(together)
            tree_shap(nodes, codes, rows, missing_codes, forest.packed.category_bits, 1.0, in_blocks)
        alone = np.zeros_like(together)
        for k in range(len(rows)):
            tree_shap(nodes, codes, rows[k : k + 1], missing_codes, forest.packed.category_bits, 1.0, alone[k : k + 1])
        assert np.array_equal(in_blocks, together) and np.array_equal(alone, together)
        routed = np.zeros((len(rows), width))
        route_trees(forest.packed, t, t + 1, codes, rows, missing_codes, routed)
        assert np.allclose(nodes.value[0] + together.sum(axis=1), routed, atol=1e-12)


def test_blocks_hold_at_most_the_rows_and_values_allowed_and_split_the_rows_evenly():
    for n_rows, levels, width, n_points in [(300, 30, 1, 7), (1024, 30, 1, 7), (300, 33, 26, 8), (5, 40, 300, 60)]:
        block = attribution._block_rows(n_rows, levels, width, n_points)
        n_blocks = -(-n_rows // block)
        assert 1 <= block <= attribution.BLOCK_ROWS
        assert block == 1 or block * levels * width * n_points <= attribution.BLOCK_VALUES
        assert n_blocks * block - n_rows < n_blocks  # the last block is at most one row short of the others
    assert attribution._block_rows(300, 30, 1, 7) == 300  # a default model's 300 rows: one walk of each tree


def test_the_layout_finds_the_last_split_above_on_the_same_feature_and_the_shares_along_it():
    forest, _ = _forest(max_depth=-1, random_split=True)
    nodes = decode_tree(forest.packed, 0, decode_shares(forest.left_shares), 3)
    parent, depth, end, previous, share, _ = edge_layout(nodes.feature, nodes.right, nodes.left_share)
    for node in range(1, len(parent)):
        path = [node]  # the node and the nodes above it, up to the root
        while parent[path[-1]] >= 0:
            path.append(int(parent[path[-1]]))
        f = nodes.feature[parent[node]]
        above = [m for m in path[1:-1] if nodes.feature[parent[m]] == f]
        assert previous[node] == (above[0] if above else -1)
        shares = [
            nodes.left_share[parent[m]] if m == parent[m] + 1 else 1 - nodes.left_share[parent[m]]
            for m in path[:-1]
            if nodes.feature[parent[m]] == f
        ]
        assert np.isclose(share[node], np.prod(shares))
        assert depth[node] == len(path) - 1
        assert end[node] == max(m for m in range(node, len(parent)) if node in _above(parent, m)) + 1


def _above(parent, node):
    """The node and every node above it."""
    found = [node]
    while parent[found[-1]] >= 0:
        found.append(int(parent[found[-1]]))
    return found


def test_a_feature_no_split_reads_gets_nothing():
    forest, codes = _forest(max_depth=3)
    nodes = decode_tree(forest.packed, 0, decode_shares(forest.left_shares), 3)
    unused = sorted(set(range(5)) - set(nodes.feature[nodes.feature >= 0].tolist()))
    assert unused
    found = np.zeros((len(codes), 5, 3))
    tree_shap(nodes, codes, np.arange(len(codes), dtype=np.int64), NO_MISSING, forest.packed.category_bits, 1.0, found)
    assert np.all(found[:, unused] == 0.0)


def test_the_layout_counts_the_distinct_features_of_the_longest_path_and_the_points_integrate_exactly():
    forest, _ = _forest(max_depth=-1)
    nodes = decode_tree(forest.packed, 0, decode_shares(forest.left_shares), 3)
    *_, n_distinct = edge_layout(nodes.feature, nodes.right, nodes.left_share)
    assert 1 <= n_distinct <= 5
    points, weights = quadrature(3)
    for degree in range(6):  # 3 points integrate polynomials of degree at most 5 exactly
        assert np.isclose(np.sum(weights * points**degree), 1 / (degree + 1))


def test_two_features_the_tree_reads_alike_get_equal_values_where_the_row_has_equal_codes():
    # class 1 when both features are at most bin 5: the tree is the same with the features swapped
    tree = GrownTree(
        feature=np.array([0, 1, -1, -1, 1, -1, -1], dtype=np.int32),
        split_bin=np.array([5, 5, 0, 0, 5, 0, 0], dtype=np.uint8),
        right=np.array([4, 3, 1, 0, 6, 0, 0], dtype=np.int32),
        leaf_values=np.zeros((0, 2), dtype=np.float32),
        missing_left=np.zeros(7, dtype=np.uint8),
        category=np.empty(0, dtype=np.int32),
        category_bits=np.empty((0, 4), dtype=np.uint64),
        depth=2,
        importance=np.zeros(2),
        left_share=np.array([0.3, 0.3, 0, 0, 0.3, 0, 0]),
    )
    binner = FeatureBinner().fit(np.arange(40, dtype=np.float32).reshape(20, 2))
    forest = forest_of(binner, 2, [tree])
    nodes = decode_tree(forest.packed, 0, decode_shares(forest.left_shares), 2)
    codes = np.array([[3, 3], [7, 7], [3, 7]], dtype=np.uint8)
    found = np.zeros((3, 2, 2))
    tree_shap(nodes, codes, np.arange(3, dtype=np.int64), NO_MISSING, forest.packed.category_bits, 1.0, found)
    assert found[0, 0, 1] == pytest.approx(found[0, 1, 1]) and found[0, 0, 1] > 0
    assert found[1, 0, 1] == pytest.approx(found[1, 1, 1]) and found[1, 0, 1] < 0
    assert found[2, 0, 1] > 0 > found[2, 1, 1]  # the met condition helps, the failed one hurts
