"""Growing one tree: fully grown and depth-limited trees, leaves, and row weights."""

import numpy as np
import pytest
from tree_helpers import grow, proba

from mddf.forests import BinnedInput


def test_fully_grown_trees_fit_distinct_rows_exactly():
    rng = np.random.RandomState(4)
    X = rng.rand(400, 3).astype(np.float32)
    y = rng.randint(0, 4, 400)
    Xb = BinnedInput(X).codes
    assert len(np.unique(Xb, axis=0)) == 400  # distinct after binning too
    for random_split in (False, True):
        tree = grow(Xb, y, max_features=1, random_split=random_split)
        assert np.array_equal(proba(tree, Xb, 4).argmax(axis=1), y)


def test_depth_limit_and_leaf_distributions():
    rng = np.random.RandomState(5)
    Xb = rng.randint(0, 50, size=(300, 4)).astype(np.uint8)
    y = rng.randint(0, 3, 300)
    tree = grow(Xb, y, max_depth=2)
    assert tree.depth == 2
    assert (tree.feature >= 0).sum() == 3  # a full tree of depth 2
    distributions = proba(tree, Xb, 3)
    assert distributions.sum(axis=1) == pytest.approx(np.ones(300))
    assert np.all(tree.leaf_values.sum(axis=1) == pytest.approx(1.0))


def test_zero_weight_rows_are_left_out_and_integer_weights_count_as_copies():
    rng = np.random.RandomState(6)
    Xb = rng.randint(0, 30, size=(200, 5)).astype(np.uint8)
    y = rng.randint(0, 3, 200)
    w = rng.randint(0, 3, 200).astype(np.float64)  # bootstrap-like counts
    weighted = grow(Xb, y, w, max_features=2, seed=7)
    copies = np.repeat(np.arange(200), w.astype(int))
    copied = grow(Xb[copies], y[copies], max_features=2, seed=7, n_classes=3)
    for a, b in zip(weighted[:5], copied[:5]):
        assert np.array_equal(a, b)


# ---------------------------------------------------------------- best thresholds
def _best_threshold_score(codes, y, w, n_classes, missing_code=None):
    """The best Gini proxy over every threshold of ``codes`` and, with missing rows, every side for them."""
    real = codes != missing_code
    best = -1.0
    for b in np.unique(codes[real]):
        for missing_left in (False, True) if (~real).any() else (False,):
            left = (codes <= b) & real | (~real & missing_left)
            best = max(best, _subset_score(left.astype(np.uint8), y, w, [1], n_classes))
    return best


@pytest.mark.parametrize(
    "rows, bins, n_classes, missing",
    [
        (3000, 20, 2, False),  # a node of more rows than histogram cells: the histogram scanned bin by bin
        (3000, 20, 3, True),
        (80, 200, 2, False),  # fewer rows than cells: the bins its rows fill, scanned through their bitset
        (80, 200, 6, True),
        (150, 200, 40, False),  # fewer rows than cells and many classes: the rows sorted by bin
        (150, 200, 40, True),
    ],
)
def test_the_best_threshold_is_the_best_of_every_threshold_and_missing_side(rows, bins, n_classes, missing):
    rng = np.random.RandomState(rows + n_classes)
    # labels that step at the first bin, at the last and at random bins, so that the best threshold falls anywhere
    for level in [0.0, 1.0, *rng.rand(10)]:
        codes = rng.randint(0, bins, rows).astype(np.uint8)
        step = codes > np.unique(codes)[int(level * (len(np.unique(codes)) - 2))]
        noise = (rng.rand(rows) < 0.2 * (0 < level < 1)) * rng.randint(0, n_classes, rows)
        y = (step * rng.randint(1, n_classes) + noise) % n_classes
        if missing:
            codes[rng.rand(rows) < 0.2] = bins  # the feature's missing code, its last one
        w = rng.randint(1, 4, rows).astype(np.float64)
        tree = grow(codes[:, None], y, w, n_classes=n_classes, max_depth=1, n_bins=np.array([bins + 1]),
                    missing_bin=[bins] if missing else None)  # fmt: skip
        assert tree.feature[0] == 0
        real = codes != bins
        left = (codes <= tree.split_bin[0]) & real | (~real & bool(tree.missing_left[0]))
        found = _subset_score(left.astype(np.uint8), y, w, [1], n_classes)
        best = _best_threshold_score(codes, y, w, n_classes, bins if missing else None)
        assert found == pytest.approx(best, rel=1e-12)


# ---------------------------------------------------------------- category subsets
def _subset_score(codes, y, w, left_set, width):
    """sum over the children of (sum of each statistic)^2 / weight: class weights (Gini) or the weighted target sum."""
    score = 0.0
    for side in (np.isin(codes, left_set), ~np.isin(codes, left_set)):
        if w[side].sum() == 0:
            return -1.0
        if width:
            stats = np.bincount(y[side], weights=w[side], minlength=width)
            score += (stats**2).sum() / w[side].sum()
        else:
            score += (w[side] * y[side]).sum() ** 2 / w[side].sum()
    return score


def _best_partition(codes, y, w, width):
    categories = np.unique(codes)
    best = -1.0
    for mask in range(1, 2 ** (len(categories) - 1)):  # every split into two non-empty sets, once
        left = categories[[bool(mask >> i & 1) for i in range(len(categories))]]
        best = max(best, _subset_score(codes, y, w, left, width))
    return best


@pytest.mark.parametrize("task", ["binary", "regression"])
@pytest.mark.parametrize("seed", range(4))
def test_the_best_category_subset_is_the_best_of_every_partition(task, seed):
    # with two classes (Breiman) and for the squared error (Fisher), sorting the categories by their class
    # share or mean and scanning that order finds the optimal partition
    rng = np.random.RandomState(seed)
    codes = rng.randint(0, 7, 300).astype(np.uint8)
    effect = rng.rand(7)
    if task == "binary":
        y, width = (rng.rand(300) < effect[codes]).astype(np.int64), 2
    else:
        y, width = effect[codes] + 0.3 * rng.standard_normal(300), 0
    w = rng.randint(1, 4, 300).astype(np.float64)
    tree = grow(codes[:, None], y, w, max_depth=1, categorical=[1], n_classes=width or None)
    assert tree.category[0] == 0
    bits = int(tree.category_bits[0, 0])
    left = [c for c in range(7) if bits >> c & 1]
    assert _subset_score(codes, y, w, left, width) == pytest.approx(_best_partition(codes, y, w, width), rel=1e-12)


def test_a_category_set_no_threshold_separates_is_found_in_one_split():
    rng = np.random.RandomState(1)
    codes = rng.randint(0, 8, size=(400, 1)).astype(np.uint8)
    y = np.isin(codes[:, 0], [1, 4, 6]).astype(np.int64)
    subset = grow(codes, y, max_depth=1, categorical=[1])
    threshold = grow(codes, y, max_depth=1)
    assert np.array_equal(proba(subset, codes, 2).argmax(axis=1), y)
    assert (proba(threshold, codes, 2).argmax(axis=1) != y).any()


def test_missing_and_unseen_categories_go_to_the_heavier_child_or_the_learned_side():
    codes = np.array([0] * 30 + [1] * 10 + [2] * 40, dtype=np.uint8)[:, None]
    y = np.array([0] * 30 + [1] * 10 + [0] * 40)
    tree = grow(codes, y, max_depth=1, categorical=[1])
    bits = int(tree.category_bits[0, 0])
    assert [bits >> c & 1 for c in range(3)] in ([1, 0, 1], [0, 1, 0])  # {0, 2} against {1}
    heavy_left = bits & 1  # the side of categories 0 and 2 (70 rows) is the heavier child
    unseen = np.array([[3], [200]], dtype=np.uint8)  # never seen, and the missing code of a wider feature
    words = tree.category_bits[0]
    assert all(int(words[c >> 6]) >> (c & 63) & 1 == heavy_left for c in (3, 200))
    assert (proba(tree, unseen, 2).argmax(axis=1) == 0).all()
    # a node with missing rows learns their side: missing (code 3) rows of class 1 go with category 1
    codes_m = np.vstack([codes, np.full((10, 1), 3, dtype=np.uint8)])
    y_m = np.concatenate([y, np.ones(10, dtype=int)])
    tree = grow(codes_m, y_m, max_depth=1, categorical=[1], missing_bin=[3])
    assert np.array_equal(proba(tree, np.array([[1], [3]], dtype=np.uint8), 2, [3]).argmax(axis=1), [1, 1])


@pytest.mark.parametrize("random_split", [True, 2])
def test_random_category_subsets_split_the_categories_present_and_vary_with_the_seed(random_split):
    rng = np.random.RandomState(2)
    codes = rng.choice([3, 9, 17, 30, 31], size=(200, 1)).astype(np.uint8)
    y = rng.randint(0, 2, 200)
    sets = set()
    for seed in range(40):
        tree = grow(codes, y, max_depth=1, random_split=random_split, categorical=[1], seed=seed)
        bits = int(tree.category_bits[0, 0])
        present = [c for c in (3, 9, 17, 30, 31) if bits >> c & 1]
        assert 0 < len(present) < 5  # both children get a category
        sets.add(tuple(present))
    assert len(sets) > 8


def test_categorical_none_and_all_numeric_grow_the_same_tree():
    rng = np.random.RandomState(3)
    Xb = rng.randint(0, 30, size=(300, 4)).astype(np.uint8)
    y = rng.randint(0, 3, 300)
    for rule in (False, True, 2):
        a = grow(Xb, y, random_split=rule, max_features=2, seed=5)
        b = grow(Xb, y, random_split=rule, max_features=2, seed=5, categorical=[0, 0, 0, 0])
        assert all(np.array_equal(u, v) for u, v in zip(a[:5], b[:5])) and (b.category == -1).all()
