"""Monotone constraints of mddf's tree kernels (``grow_tree(monotone=...)``, :mod:`mddf.trees.monotone`): along a
constrained feature, the other features fixed, a tree's output never moves the wrong way, for the Gini and the
squared-error criteria and every split rule; an unconstrained tree is the tree grown without constraints."""

import numpy as np
import pytest
from tree_helpers import grow, proba

CONSTRAINT = np.array([1, -1, 0, 0], dtype=np.int8)
RULES = {"best": False, "completely random": True, "random thresholds": 2}


def _data(seed=0, n=800, missing=False):
    """Bin codes of 4 features and a noisy target that rises with feature 0 and falls with feature 1 on average,
    but not everywhere: an unconstrained tree moves the wrong way somewhere."""
    rng = np.random.default_rng(seed)
    Xb = rng.integers(0, 64, size=(n, 4)).astype(np.uint8)
    x = Xb.astype(float) / 63
    z = x[:, 0] - x[:, 1] + np.sin(12 * x[:, 0]) * 0.4 + np.sin(9 * x[:, 2]) + 0.5 * rng.normal(size=n)
    missing_bin = None
    if missing:  # code 64 is each feature's missing bin
        Xb[rng.random(Xb.shape) < 0.1] = 64
        missing_bin = np.full(4, 64)
    return Xb, z, missing_bin


def _worst_step(tree, Xb, width, column, value_of, seed=1, n_rows=150):
    """The most negative ``sign * step`` of a tree's output between neighbouring codes 0..63 of ``column``, the other
    features of ``n_rows`` random training rows fixed; ``value_of`` takes the routed output ``(n, width)``."""
    rows = Xb[np.random.default_rng(seed).choice(len(Xb), n_rows, replace=False)]
    along = []
    for code in range(64):
        grid = rows.copy()
        grid[:, column] = code
        along.append(value_of(proba(tree, grid, width)))
    return float((CONSTRAINT[column] * np.diff(np.array(along), axis=0)).min())


def _check(tree, Xb, width, value_of):
    return {column: _worst_step(tree, Xb, width, column, value_of) for column in (0, 1)}


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing values"])
@pytest.mark.parametrize("rule", RULES)
def test_a_gini_tree_is_monotone_in_the_positive_class_share(rule, missing):
    Xb, z, missing_bin = _data(missing=missing)
    y = (z > np.median(z)).astype(np.int64)
    for seed in range(3):
        tree = grow(Xb, y, random_split=RULES[rule], seed=seed, missing_bin=missing_bin, monotone=CONSTRAINT)
        worst = _check(tree, Xb, 2, lambda out: out[:, 1])
        assert min(worst.values()) >= 0.0, worst
        # the other class's share moves the other way, exactly (both columns come from one clipped share)
        worst_other = _check(tree, Xb, 2, lambda out: -out[:, 0])
        assert min(worst_other.values()) >= 0.0, worst_other
        assert len(np.unique(tree.feature[tree.feature >= 0])) > 1  # not a stump: the constraint leaves splits


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing values"])
@pytest.mark.parametrize("rule", RULES)
def test_a_squared_error_tree_is_monotone_in_its_mean(rule, missing):
    Xb, z, missing_bin = _data(missing=missing)
    for seed in range(3):
        tree = grow(Xb, z, random_split=RULES[rule], seed=seed, missing_bin=missing_bin, monotone=CONSTRAINT)
        worst = _check(tree, Xb, 1, lambda out: out[:, 0])
        assert min(worst.values()) >= 0.0, worst
        assert np.ptp(tree.leaf_values) > 0.5  # the tree still fits the target


@pytest.mark.parametrize("rule", RULES)
def test_without_the_constraint_the_same_trees_move_the_wrong_way(rule):
    Xb, z, _ = _data()
    worst = min(
        min(_check(grow(Xb, z, random_split=RULES[rule], seed=seed), Xb, 1, lambda out: out[:, 0]).values())
        for seed in range(3)
    )
    assert worst < -0.05  # so the checks above can fail


def test_small_targets_are_bounded_on_their_scale():
    Xb, z, _ = _data()
    tree = grow(Xb, z * 1e-12, monotone=CONSTRAINT)  # grown on targets scaled by a power of two
    assert min(_check(tree, Xb, 1, lambda out: out[:, 0]).values()) >= 0.0


@pytest.mark.parametrize("rule", RULES)
def test_no_constrained_feature_grows_the_unconstrained_tree(rule):
    Xb, z, missing_bin = _data(missing=True)
    y = (z > np.median(z)).astype(np.int64)
    for labels in (z, y):
        plain = grow(Xb, labels, random_split=RULES[rule], missing_bin=missing_bin)
        zeros = grow(Xb, labels, random_split=RULES[rule], missing_bin=missing_bin, monotone=np.zeros(4))
        for a, b in zip(plain, zeros):
            np.testing.assert_array_equal(a, b)


def test_bad_constraints_are_refused_in_one_line():
    Xb, z, _ = _data(n=50)
    y = np.arange(50) % 3
    with pytest.raises(ValueError, match="-1, 0 or 1 for each of the 4 features"):
        grow(Xb, z, monotone=[1, 0])
    with pytest.raises(ValueError, match="need two classes, not 3"):
        grow(Xb, y, monotone=CONSTRAINT)
    with pytest.raises(ValueError, match="categorical feature"):
        grow(Xb, z, categorical=[1, 0, 0, 0], monotone=CONSTRAINT)


def _in_order_scores(x, y, sign, classes):
    """``{threshold: score}`` of the splits of ``x`` whose children's values (mean, or share of class 1) are in the
    order of ``sign``, by enumeration: the specification of a constrained best split."""
    scores = {}
    for t in np.unique(x)[:-1]:
        parts = [y[x <= t], y[x > t]]
        if classes:
            score = sum(sum(np.sum(p == c) ** 2 for c in (0, 1)) / len(p) for p in parts)
            values = [np.mean(p == 1) for p in parts]
        else:
            score = sum(p.sum() ** 2 / len(p) for p in parts)
            values = [p.mean() for p in parts]
        if (values[0] - values[1]) * sign <= 0:
            scores[int(t)] = score
    return scores


@pytest.mark.parametrize("classes", [False, True], ids=["squared error", "gini"])
@pytest.mark.parametrize("sign", [1, -1])
def test_the_best_split_of_a_constrained_feature_is_the_best_in_order(sign, classes):
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(20):
        x = rng.integers(0, 12, size=60).astype(np.uint8)
        z = sign * 0.3 * x + 3 * np.sin(x) + rng.normal(size=60)  # the order holds on average, not everywhere
        y = (z > np.median(z)).astype(np.int64) if classes else z
        tree = grow(x[:, None], y, max_depth=1, monotone=[sign])
        scores = _in_order_scores(x, y, sign, classes)
        if not scores:
            assert tree.feature[0] == -1
        else:  # the best in order (of two that tie exactly, either)
            assert tree.feature[0] == 0 and scores.get(int(tree.split_bin[0]), -1) >= max(scores.values()) - 1e-9
            found += 1
    assert found >= 10
