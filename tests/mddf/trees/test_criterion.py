"""Every registered split criterion keeps the contract the grower compiles against, and the grower uses the registry."""

import types

import numpy as np
import pytest
from tree_helpers import grow

from mddf.trees import criterion as contract
from mddf.trees import gini, grower
from mddf.trees.splitting import CATEGORY_WORDS, CONSTANT

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
    """A node of 40 rows on two features (one with missing values in bin 9), as the grower holds it."""
    rng = np.random.RandomState(seed)
    n = 40
    Xb = np.column_stack([rng.randint(0, 9, n), rng.randint(0, 10, n)]).astype(np.uint8)  # bin 9: missing
    y = rng.randint(0, n_classes, n) if "i" in module.LABEL_KINDS else rng.normal(size=n)
    w = rng.randint(1, 4, n).astype(np.float64)
    node_y = module.new_labels(n)
    node_y[:] = y
    stats = np.zeros(module.n_statistics(n_classes))
    module.add_rows(node_y, w, stats)
    return Xb, node_y, w, np.arange(n, dtype=np.uint64), stats


@pytest.mark.parametrize("name, module", CRITERIA, ids=IDS)
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


@pytest.mark.parametrize("name, module", CRITERIA, ids=IDS)
def test_the_searches_find_the_highest_score_that_split_score_gives(name, module):
    n_classes = 3
    Xb, node_y, w, samples, stats = _node(module, n_classes, seed=1)
    node_weight = module.total_weight(stats)
    buf = module.new_buffers(len(stats), len(w))
    missing_bins = np.array([-1, 9], dtype=np.int64)
    empty = np.zeros(0, np.uint64)

    def score(f, b, missing_code=-1, bits=empty):
        args = (Xb, node_y, w, samples, 0, len(w), f, b, missing_code, bits, stats, node_weight)
        return module.split_score(buf.left, *args)

    for f, n_bins in ((0, 9), (1, 10)):
        best = module.best_threshold(
            buf, Xb, node_y, w, samples, 0, len(w), f, n_bins, stats, node_weight, missing_bins
        )
        sides = (-1, 9) if f == 1 else (-1,)  # missing rows right, or left
        scores = [score(f, b, m) for b in range(n_bins - 1) for m in sides]
        assert best.score == pytest.approx(max(scores))
        assert score(f, best.bin, 9 if best.side == 1 else -1) == pytest.approx(best.score)
    present, bits = np.zeros(CATEGORY_WORDS, np.uint64), np.zeros(CATEGORY_WORDS, np.uint64)
    subset = module.best_subset(buf, Xb, node_y, w, samples, 0, len(w), 0, stats, node_weight, 32, 1, present, bits)
    assert subset >= max(score(0, b) for b in range(8)) - 1e-9  # a threshold is one of the subsets
    assert score(0, 0, bits=bits) == pytest.approx(subset)
    constant = np.zeros_like(Xb)
    found = module.best_threshold(buf, constant, node_y, w, samples, 0, len(w), 0, 9, stats, node_weight, None)
    assert (found.score, found.side) == (-1.0, CONSTANT)


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
