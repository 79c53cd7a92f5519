"""The per-node functions of the tree code are compiled without reference counting, and allocate nothing."""

import numpy as np
import pytest
from numba.core.errors import TypingError

from mddf.trees import gini, nodes, splitting, squared_error
from mddf.trees._kernel import kernel

# called once per (node, candidate feature) or per node: each counted array argument was an atomic
# increment and decrement, more than the search of a small node costs
SEARCHES = ("best_threshold", "best_subset", "split_score")
PER_NODE = [
    *(getattr(criterion, name) for criterion in (gini, squared_error) for name in SEARCHES),
    splitting.randint,
    splitting.random_subset,
    splitting.present_codes,
    nodes._foldable,
]


@pytest.mark.parametrize("function", PER_NODE, ids=lambda f: f"{f.py_func.__module__}.{f.__name__}")
def test_the_per_node_functions_do_not_count_references(function):
    assert function.targetoptions["_nrt"] is False


@pytest.mark.parametrize("criterion", [gini, squared_error], ids=lambda m: m.__name__)
def test_the_searches_called_per_candidate_feature_are_inlined_into_the_grower(criterion):
    # the grower calls them for every (node, candidate feature): inlined by LLVM, the call passes no arrays
    for name in ("best_threshold", "split_score"):
        assert getattr(criterion, name).targetoptions["forceinline"] is True


def test_a_kernel_cannot_allocate_so_it_never_owns_what_it_is_given():
    @kernel
    def allocates(n):
        return np.empty(n)

    with pytest.raises(TypingError):
        allocates(3)


def test_a_kernel_writes_into_the_callers_arrays():
    @kernel
    def add_one(values):
        for i in range(len(values)):
            values[i] += 1.0

    values = np.zeros(4)
    add_one(values)
    add_one(values[1:3])
    np.testing.assert_array_equal(values, [1.0, 2.0, 2.0, 1.0])
