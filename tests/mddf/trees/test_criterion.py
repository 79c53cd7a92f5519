"""Every registered split criterion keeps the contract the grower compiles against, and the grower uses the registry."""

import types

import numpy as np
import pytest
from tree_helpers import grow

from mddf.trees import criterion as contract
from mddf.trees import gini, grower

CRITERIA = sorted(contract.CRITERIA.items())
IDS = [name for name, _ in CRITERIA]


@pytest.mark.parametrize("name, module", CRITERIA, ids=IDS)
def test_every_registered_criterion_defines_the_contracts_functions(name, module):
    assert contract.check_criterion(module) == []


def test_a_module_that_breaks_the_contract_is_told_what_it_lacks():
    broken = types.SimpleNamespace(**{f.name: getattr(gini, f.name) for f in contract.FUNCTIONS})
    broken.partition = gini.partition.py_func  # not compiled
    broken.split_score = gini.total_weight  # compiled, but of one parameter
    del broken.best_subset
    broken.LABEL_KINDS = "class indices"
    problems = contract.check_criterion(broken)
    assert problems == [
        "partition is not compiled by numba",
        "split_score takes 1 parameters, not 13",
        "best_subset is missing",
        "LABEL_KINDS is 'class indices', not a string of numpy dtype kinds",
    ]


def _node(module, n_classes, seed=0):
    """A node of 40 rows on two features (the second with missing values, in bin 9), as the grower holds it."""
    rng = np.random.RandomState(seed)
    n = 40
    Xb = np.column_stack([rng.randint(0, 9, n), rng.randint(0, 10, n)]).astype(np.uint8)
    y = rng.randint(0, n_classes, n) if "i" in module.LABEL_KINDS else rng.normal(size=n)
    if module.LABEL_NDIM == 2:  # several targets a row: as many as n_classes (what the grower passes there)
        y = rng.normal(size=(n, n_classes))
    w = rng.randint(1, 4, n).astype(np.float64)
    node_y = module.new_labels(n, n_classes)
    node_y[:] = y
    stats = np.zeros(module.n_statistics(n_classes))
    module.add_rows(node_y, w, stats)
    return Xb, node_y, w, np.arange(n, dtype=np.uint64), stats


@pytest.mark.parametrize("name, module", CRITERIA, ids=IDS)
@pytest.mark.slow
def test_the_node_functions_agree_on_a_nodes_weight_and_its_partition(name, module):
    n_classes = 3
    Xb, node_y, w, samples, stats = _node(module, n_classes)
    weight = module.total_weight(stats)
    assert weight == pytest.approx(w.sum())
    node_weight, splittable, _ = module.node_summary(stats, module.importance_centre(stats, weight))
    assert node_weight == weight and splittable
    left, right = np.zeros_like(stats), np.zeros_like(stats)
    bins = Xb[:, 0].copy()
    i = module.partition(Xb, samples, node_y, w, 0, len(w), 0, 4, -1, np.zeros(0, np.uint64), left, right)
    assert i == int((bins <= 4).sum()) and (Xb[samples[:i].astype(np.int64), 0] <= 4).all()
    assert module.total_weight(left) == pytest.approx(w[:i].sum())  # the weights moved with their rows
    assert left + right == pytest.approx(stats)
    leaf_values = module.new_leaf_values(1, n_classes)
    code, n_rows = module.write_leaf(stats, node_weight, leaf_values, 0)
    assert (code, n_rows) == (-1, 1)  # an impure (or regression) leaf: row 0 of the leaf table


def _children_terms(module, Xb, y, w, f, split_b, missing_code, bits):
    """The sum of the children's importance terms of a split of the whole node, or None when a child is empty.

    A split's impurity decrease is its children's terms less the node's (the contract), so the best split
    is the one of the largest sum.
    """
    node_y, w_node, samples = y.copy(), w.copy(), np.arange(len(w), dtype=np.uint64)  # partition moves them
    stats = np.zeros(module.n_statistics(2))
    module.add_rows(node_y, w_node, stats)
    centre = module.importance_centre(stats, module.total_weight(stats))
    left, right = np.zeros_like(stats), np.zeros_like(stats)
    module.partition(Xb, samples, node_y, w_node, 0, len(w), f, split_b, missing_code, bits, left, right)
    if module.total_weight(left) <= 0 or module.total_weight(right) <= 0:
        return None
    return module.node_summary(left, centre)[2] + module.node_summary(right, centre)[2]


@pytest.mark.parametrize("name, module", CRITERIA, ids=IDS)
@pytest.mark.slow
def test_the_grower_splits_where_the_criterion_says_the_impurity_falls_most(name, module):
    # the searches (best_threshold, best_subset) reach the grower compiled in: a stump's root is the split
    # of the largest children's terms, over every feature, threshold and side of the missing values
    Xb, node_y, w, _, _ = _node(module, 2, seed=1)
    y = np.asarray(node_y, dtype=np.int64 if name == "gini" else np.float64)
    missing = np.array([-1, 9], dtype=np.int64)
    stump = grow(Xb, y, w, n_classes=2, max_depth=1, n_bins=np.array([9, 10]), missing_bin=missing)
    f, b = int(stump.feature[0]), int(stump.split_bin[0])
    empty = np.zeros(0, np.uint64)
    found = _children_terms(module, Xb, y, w, f, b, missing[f] if stump.missing_left[0] else -1, empty)
    candidates = [
        _children_terms(module, Xb, y, w, g, c, code, empty)
        for g in (0, 1)
        for c in range(9)
        for code in (-1, missing[g])
    ]
    assert found == pytest.approx(max(t for t in candidates if t is not None))
    # one categorical column: the best subset is at least as good as every threshold of the codes
    codes = Xb[:, :1].copy()
    subset = grow(codes, y, w, n_classes=2, max_depth=1, categorical=[1])
    assert subset.category[0] == 0
    found = _children_terms(module, codes, y, w, 0, 0, -1, subset.category_bits[0])
    thresholds = [_children_terms(module, codes, y, w, 0, c, -1, empty) for c in range(8)]
    assert found >= max(t for t in thresholds if t is not None) - 1e-9


def test_the_grower_compiles_one_skeleton_per_registered_criterion():
    assert set(grower.GROWERS) == set(contract.CRITERIA)
    assert grower.GROW_GINI is grower.GROWERS["gini"]


def test_the_criterion_is_named_or_read_from_the_labels_dtype():
    rng = np.random.RandomState(0)
    Xb = rng.randint(0, 8, size=(60, 3)).astype(np.uint8)
    classes = rng.randint(0, 2, 60)
    assert contract.criterion_for(classes) == "gini"
    assert contract.criterion_for(classes.astype(np.float64)) == "squared_error"
    by_dtype = grow(Xb, classes)
    named = grow(Xb, classes, criterion="gini")
    assert all(np.array_equal(a, b) for a, b in zip(by_dtype, named))
    with pytest.raises(ValueError, match="the squared_error criterion does not grow on labels of dtype int64"):
        grow(Xb, classes, criterion="squared_error")
    with pytest.raises(ValueError, match="unknown split criterion 'entropy'"):
        grow(Xb, classes, criterion="entropy")
