"""Stored forests: node words gathered tree by tree, predicting new float rows as their trees route bins."""

import pickle

import numpy as np
import pytest
from tree_helpers import forest_of, grow, left_chain, packed_tree, reference_route

from mddf.forests import BinnedInput, ForestBuilder
from mddf.trees import FeatureBinner, nodes
from mddf.trees.nodes import EXTENDED, LEAF, LEFT_CLASS, RIGHT_CLASS, TABLE_ROW, deduplicate_rows


def _data(n=2000, seed=11, nan=0.0):
    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.standard_normal(n), rng.randint(0, 5, n), rng.rand(n)]).astype(np.float32)
    y = (X[:, 0] + X[:, 1] / 2 + rng.standard_normal(n) > 1).astype(int) + (X[:, 2] > 0.7)
    if nan:
        X[rng.rand(*X.shape) < nan] = np.nan
    return X, y


def test_stored_forest_predicts_new_raw_rows_as_its_trees_route_their_bins():
    X, y = _data(nan=0.05)
    binned = BinnedInput(X)
    rng = np.random.RandomState(0)
    X_new = np.column_stack([rng.standard_normal(500) * 2, rng.randint(-1, 7, 500), rng.rand(500)]).astype(np.float32)
    X_new[rng.rand(500, 3) < 0.05] = np.nan
    codes_new = binned.binner.transform(X_new)
    missing = binned.binner.missing_bins_
    trees = [
        grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, max_features=2, seed=seed,
             random_split=rule, max_depth=depth, n_classes=3)
        for seed, (rule, depth) in enumerate([(False, -1), (True, 4), (2, -1), (True, -1)])
    ]  # fmt: skip
    expected = sum(reference_route(tree, codes_new, 3, missing) for tree in trees)
    forest = forest_of(binned.binner, 3, trees)
    assert forest.n_trees == 4 and len(forest.words) == forest.n_words + 3
    assert np.array_equal(forest.predict_proba(X_new), expected / 4)
    assert np.array_equal(forest.importances, np.sum([t.importance for t in trees], axis=0))
    assert forest.words.dtype == np.uint32  # one 4-byte word a split or unfolded leaf
    assert forest.nbytes == sum(getattr(forest, name).nbytes for name in forest._stored_arrays)


def test_pure_leaves_take_no_word_of_their_own():
    X, y = _data()
    binned = BinnedInput(X)
    trees = [grow(binned.codes, y, max_features=2, seed=s, n_classes=3) for s in range(3)]  # fully grown
    forest = forest_of(binned.binner, 3, trees)
    n_nodes = sum(len(t.feature) for t in trees)
    n_splits = sum(int((t.feature >= 0).sum()) for t in trees)
    pure = sum(int(((t.feature < 0) & (t.right >= 0)).sum()) for t in trees)
    assert pure > n_nodes / 3  # most leaves of fully grown trees are pure
    assert forest.n_words == n_nodes - pure and (forest.words[: forest.n_words] & LEAF == 0).sum() == n_splits
    assert np.array_equal(forest.words[forest.n_words :] >> 2, np.arange(3))  # a leaf word for each class
    assert np.array_equal(forest.route(binned.codes), sum(reference_route(t, binned.codes, 3) for t in trees))


def test_a_regression_forest_predicts_the_mean_of_its_trees():
    X, _ = _data(n=800, seed=3)
    target = (X[:, 0] * X[:, 2] + X[:, 1]).astype(np.float64)
    binned = BinnedInput(X)
    trees = [grow(binned.codes, target, max_features=2, seed=s, random_split=s % 2, max_depth=6) for s in range(3)]
    forest = forest_of(binned.binner, None, trees)
    expected = sum(reference_route(t, binned.codes, 1) for t in trees)[:, 0] / 3
    assert np.array_equal(forest.predict(X), expected)


def test_node_words_are_64_bit_beyond_256_features():
    rng = np.random.RandomState(1)
    X = rng.rand(300, 300).astype(np.float32)
    y = rng.randint(0, 2, 300)
    binned = BinnedInput(X)
    trees = [grow(binned.codes, y, max_features=40, seed=s) for s in range(2)]
    forest = forest_of(binned.binner, 2, trees)
    assert forest.words.dtype == np.uint64 and forest.feature_bits == 9
    assert np.array_equal(forest.predict_proba(X), sum(reference_route(t, binned.codes, 2) for t in trees) / 2)


def test_far_right_children_take_a_side_table_row_and_route_as_near_ones():
    d = 256  # 8 feature bits: right-child offsets of 2,048 words and more go to the side table
    binner = FeatureBinner().fit(np.random.RandomState(0).rand(5, d).astype(np.float32))
    tree = left_chain(1500, d)
    forest = forest_of(binner, 2, [tree])
    internal = (forest.words & LEAF) == 0
    assert forest.words.dtype == np.uint32
    assert ((forest.words & EXTENDED) != 0)[internal].sum() == len(forest.side_offset) > 0
    assert (forest.side_offset >= 1 << (32 - 13 - forest.feature_bits)).all()
    codes = np.random.RandomState(1).randint(90, 110, size=(300, d)).astype(np.uint8)
    assert np.array_equal(forest.route(codes, has_missing=False), reference_route(tree, codes, 2))


def test_a_tree_whose_side_table_overflows_32_bit_words_makes_the_forest_64_bit():
    d = 256  # 8 feature bits: 11 offset bits, 2,048 side-table rows at most
    binner = FeatureBinner().fit(np.random.RandomState(0).rand(5, d).astype(np.float32))
    small, big = left_chain(50, d), left_chain(5000, d)
    assert packed_tree(small, d, 2).words.dtype == np.uint32 and packed_tree(big, d, 2).words.dtype == np.uint64
    codes = np.random.RandomState(1).randint(90, 110, size=(300, d)).astype(np.uint8)
    forest = forest_of(binner, 2, [small, big])
    assert forest.words.dtype == np.uint64
    expected = reference_route(small, codes, 2) + reference_route(big, codes, 2)
    assert np.array_equal(forest.route(codes, has_missing=False), expected)


def test_the_leaf_table_keeps_each_distinct_row_once():
    X, y = _data(n=3000, seed=13)
    binned = BinnedInput(X)
    trees = [grow(binned.codes, y, max_depth=4, seed=s, max_features=2, n_classes=3) for s in range(6)]
    rows = np.concatenate([t.leaf_values for t in trees])
    forest = forest_of(binned.binner, 3, trees)
    assert len(forest.table) == len(np.unique(rows, axis=0)) < len(rows)
    assert np.array_equal(forest.route(binned.codes), sum(reference_route(t, binned.codes, 3) for t in trees))
    table, row_map = deduplicate_rows(np.array([[0.5, 0.5], [1.0, 0.0], [0.5, 0.5]], dtype=np.float32))
    assert table.tolist() == [[0.5, 0.5], [1.0, 0.0]] or table.tolist() == [[1.0, 0.0], [0.5, 0.5]]
    assert row_map[0] == row_map[2] != row_map[1]


@pytest.mark.parametrize("width, dtype", [(1, np.float64), (3, np.float64), (4, np.float32)])
def test_deduplicated_rows_are_distinct_bit_for_bit_and_map_back_to_every_row(width, dtype):
    rng = np.random.default_rng(width)
    distinct = rng.random((50, width)).astype(dtype)
    distinct[0] = 0.0
    distinct[1] = -0.0  # equal as floats, different bits: kept apart
    table = distinct[rng.integers(0, 50, 2000)]
    unique, row_map = deduplicate_rows(table)
    assert np.array_equal(unique[row_map].view(np.uint8), table.view(np.uint8))
    assert len(np.unique(unique.view(np.dtype((np.void, unique.itemsize * width))))) == len(unique)
    assert len(unique) == len(np.unique(table.view(np.dtype((np.void, table.itemsize * width)))))


def test_the_builder_lets_go_of_each_tree_once_joined():
    X, y = _data(n=500)
    binned = BinnedInput(X)
    builder = ForestBuilder(binned.binner, 3)
    for s in range(3):
        builder.add(grow(binned.codes, y, seed=s, max_features=2, n_classes=3))
    builder.finish()
    assert builder.trees == []
    with pytest.raises(ValueError, match="at least one tree"):
        ForestBuilder(binned.binner, 3).finish()


@pytest.fixture(scope="module")
def small_forest():
    """A forest with missing values, table and class leaves, threshold and category splits, and rows to predict."""
    rng = np.random.RandomState(14)
    X = rng.randint(0, 6, size=(800, 5)).astype(np.float32)  # 5 features: 3 feature bits, feature 6 is invalid
    X[rng.rand(800, 5) < 0.1] = np.nan
    y = rng.randint(0, 3, 800)
    binned = BinnedInput(X, categorical=np.array([False, True, False, False, False]))
    trees = [
        grow(binned.codes, y, n_bins=binned.n_bins, missing_bin=binned.missing_bin, max_depth=depth, seed=seed,
             random_split=seed % 2, max_features=2, n_classes=3, categorical=binned.categorical)
        for seed, depth in enumerate([3, -1, 3, -1])
    ]  # fmt: skip
    return forest_of(binned.binner, 3, trees), X


def damaged(forest, name, index, value):
    """A copy of ``forest`` whose array ``name`` holds ``value`` at ``index``."""
    copy = pickle.loads(pickle.dumps(forest))
    array = getattr(copy, name).copy()
    array[index] = value
    setattr(copy, name, array)
    return copy


def _in_trees(forest):
    return np.arange(len(forest.words)) < forest.n_words  # not the class words


def _internal(forest, extended=False, folded=0):
    """The splits (with their right offset or side-table row in their field when ``folded`` is 0)."""
    words = forest.words
    internal = _in_trees(forest) & ((words & LEAF) == 0) & (((words & EXTENDED) != 0) == extended)
    return internal & ((words & (LEFT_CLASS | RIGHT_CLASS)) == folded)


def _leaf(forest, table_row):
    return _in_trees(forest) & ((forest.words & (LEAF | TABLE_ROW)) == (LEAF | (TABLE_ROW if table_row else 0)))


def _word(forest, where, field, value):
    """``(index, word)``: the first node where ``where`` holds, its field (``"offset"``, ``"feature"``, ``"bin"`` or
    ``"payload"``) replaced by ``value``."""
    i = int(np.flatnonzero(where(forest))[0])
    w = int(forest.words[i])
    shift = {"offset": 13 + forest.feature_bits, "feature": 13, "bin": 5, "payload": 2}[field]
    width = {"offset": 32 - shift, "feature": forest.feature_bits, "bin": 8, "payload": 30}[field]
    mask = ((1 << width) - 1) << shift
    return i, (w & ~mask) | (value << shift)


def test_valid_forest_passes_the_checks_and_pickles_to_the_same_predictions(small_forest):
    forest, X = small_forest
    forest.check_arrays()
    assert _leaf(forest, True).any() and _leaf(forest, False).any() and len(forest.category_bits)  # preconditions
    assert np.array_equal(pickle.loads(pickle.dumps(forest)).predict_proba(X), forest.predict_proba(X))


@pytest.mark.parametrize(
    "where, field, value, problem",
    [
        (_internal, "offset", 0, "not after its split"),  # back to the node itself: routing would loop
        (_internal, "offset", 1, "not after its split"),  # the left child's place
        (_internal, "offset", 60_000, "not after its split"),  # past the tree's end
        (_internal, "feature", 6, "split feature"),
        (_internal, "bin", 200, "split threshold"),
        (lambda f: _leaf(f, False), "payload", 3, "leaf"),  # class 3 of 3
        (lambda f: _leaf(f, True), "payload", 5_000, "leaf"),  # past the leaf table
        (lambda f: _internal(f, extended=True), "offset", 5_000, "side-table row"),
        (lambda f: _internal(f, folded=LEFT_CLASS | RIGHT_CLASS), "offset", 7, "class"),  # class 7 of 3
        (lambda f: ~_in_trees(f), "payload", 2, "class word"),  # class word 0 names class 2
    ],
)
def test_node_words_that_could_misroute_a_row_raise_when_checked_and_unpickled(
    small_forest, where, field, value, problem
):
    forest, _ = small_forest
    bad = damaged(forest, "words", *_word(forest, where, field, value))
    with pytest.raises(ValueError, match=problem):
        bad.check_arrays()
    with pytest.raises(ValueError, match=problem):
        pickle.loads(pickle.dumps(bad))


def test_the_words_are_checked_in_chunks_of_whole_trees_with_the_same_verdict(small_forest, monkeypatch):
    # the check of a saved model's words runs numpy over chunks of trees (a compiled check would compile at load)
    forest, _ = small_forest
    damages = [_word(forest, _internal, "offset", 60_000), _word(forest, lambda f: _leaf(f, True), "payload", 5_000)]
    whole = [damaged(forest, "words", *damage)._first_bad_node(forest.offsets) for damage in damages]
    monkeypatch.setattr(nodes, "CHECK_WORDS", 1)  # one tree a chunk
    assert [damaged(forest, "words", *damage)._first_bad_node(forest.offsets) for damage in damages] == whole
    assert all(problem for problem, _ in whole) and forest._first_bad_node(forest.offsets) == (0, -1)


@pytest.mark.parametrize(
    "name, index, value, problem",
    [
        ("table", 0, np.nan, "leaf table"),
        ("table", 0, -0.5, "leaf table"),
        ("offsets", 2, 10**6, "offsets"),
        ("side_bases", 1, 10**6, "side-table bases"),
        ("side_offset", 0, 1, "not after its split"),
        ("side_category", 0, 10**6, "category split"),
        ("left_shares", 0, np.nextafter(np.float16(0.5), np.float16(1)), "left_shares holds a share outside"),
        ("left_shares", 0, -np.inf, "left_shares holds a share outside"),
        ("left_shares", 0, np.nan, "left_shares holds a share outside"),
    ],
)
def test_other_arrays_that_could_misroute_a_row_raise_when_checked(small_forest, name, index, value, problem):
    forest, _ = small_forest
    bad = damaged(forest, name, index, value)
    with pytest.raises(ValueError, match=problem):
        bad.check_arrays()


def test_shares_of_a_half_either_way_pass_the_check(small_forest):
    forest, _ = small_forest
    for share in (0.5, -0.5, -0.0):
        damaged(forest, "left_shares", 0, share).check_arrays()


def test_a_forest_stores_each_distinct_category_set_once_and_routes_as_its_trees():
    # a column of four categories has few subsets, so the splits of ten trees repeat their sets
    rng = np.random.RandomState(4)
    codes = np.column_stack([rng.randint(0, 4, 800), rng.randint(0, 30, 800)]).astype(np.uint8)
    y = ((codes[:, 0] % 2 == 0) ^ (codes[:, 1] > 15)).astype(np.int64)
    binner = FeatureBinner().fit(codes.astype(np.float32))
    trees = [grow(codes, y, seed=s, max_features=1, categorical=np.array([1, 0])) for s in range(10)]
    n_splits = sum(int((tree.category >= 0).sum()) for tree in trees)
    forest = forest_of(binner, 2, trees)
    assert len(forest.category_bits) < n_splits
    assert len(np.unique(forest.category_bits, axis=0)) == len(forest.category_bits)
    got = forest.route(codes, has_missing=False)
    assert np.array_equal(got, sum(reference_route(tree, codes, 2) for tree in trees))
    forest.check_arrays()  # every split's row of the shared table is in range


def _checked_forests(small_forest):
    """Forests of every node layout: classes in 2 bits of which 3 are used, with category splits (small_forest);
    regression; 2 classes; far right children in the side table; 64-bit words."""
    forest, X = small_forest
    binned = BinnedInput(X, categorical=np.array([False, True, False, False, False]))
    target = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 2])
    regression = forest_of(binned.binner, None, [grow(binned.codes, target, seed=s, max_features=2) for s in range(3)])
    two = forest_of(binned.binner, 2, [grow(binned.codes, target > 5, seed=s, n_classes=2) for s in range(3)])
    binner = FeatureBinner().fit(np.random.RandomState(0).rand(300, 256).astype(np.float32))  # bin 100 exists
    far = forest_of(binner, 2, [left_chain(100, 256), left_chain(1500, 256)])
    wide = forest_of(binner, 2, [left_chain(50, 256), left_chain(5000, 256)])
    assert far.words.dtype == np.uint32 and len(far.side_offset) and wide.words.dtype == np.uint64
    return {"classes": forest, "regression": regression, "two classes": two, "far right": far, "64-bit": wide}


def _damages(forest, rng, n):
    """``n`` copies of ``forest`` (its attributes, not its arrays), each with one entry of its words or of its side
    table damaged at random: bits flipped, or the entry replaced."""
    names = ["words"] * 4 + [name for name in ("side_offset", "side_category") if len(getattr(forest, name))]
    for _ in range(n):
        name = names[rng.integers(len(names))]
        array = getattr(forest, name).copy()
        i, info = rng.integers(len(array)), np.iinfo(array.dtype)
        if rng.random() < 0.7:
            flips = rng.choice(array.itemsize * 8 - 1, rng.integers(1, 4), replace=False)  # (not the sign bit)
            array[i] ^= array.dtype.type(sum(1 << int(b) for b in flips))
        else:
            array[i] = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), dtype=array.dtype)
        copy = object.__new__(type(forest))
        copy.__dict__.update(forest.__dict__, **{name: array})
        yield copy


def test_a_chunk_passes_as_one_verdict_exactly_when_every_word_passes_its_checks(small_forest, monkeypatch):
    # the check of every load: a chunk of trees passes or fails as one verdict (nodes._trees_pass), the word by
    # word check finds the first bad word; the verdict must never pass a word that the word by word check fails
    rng = np.random.default_rng(0)
    monkeypatch.setattr(nodes, "CHECK_WORDS", 64)  # several chunks a forest
    outcomes = set()
    for name, forest in _checked_forests(small_forest).items():
        offsets = np.asarray(forest.offsets)
        damaged = list(_damages(forest, rng, 400))
        with monkeypatch.context() as every_word:
            every_word.setattr(nodes, "_trees_pass", lambda *args: False)
            expected = [copy._first_bad_node(offsets) for copy in damaged]
        assert [copy._first_bad_node(offsets) for copy in damaged] == expected, name
        outcomes.update(problem for problem, _ in expected)
    assert outcomes == {0, 1, 2, 3, 4, 5, 6, 7}  # every problem was met, and damages that are harmless


def test_the_words_of_a_valid_forest_pass_without_the_word_by_word_check(small_forest, monkeypatch):
    def never(*args):
        raise AssertionError("a valid forest's chunk failed the one-verdict check")

    monkeypatch.setattr(nodes, "_first_bad_in_trees", never)
    monkeypatch.setattr(nodes, "CHECK_WORDS", 64)
    for forest in _checked_forests(small_forest).values():
        assert forest._first_bad_node(np.asarray(forest.offsets)) == (0, -1)
