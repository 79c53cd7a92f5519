"""The loops over a node's rows are written once and compiled per criterion, with the criterion's per-row functions."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from mddf.trees import gini, loops, squared_error
from mddf.trees.criterion import CRITERIA

LOOPS = loops.RowLoops._fields


@pytest.mark.parametrize("name", LOOPS)
def test_every_criterion_compiles_the_same_loop_closed_over_its_own_module(name):
    compiled = {criterion: getattr(module, name) for criterion, module in CRITERIA.items()}
    assert len({id(function) for function in compiled.values()}) == len(CRITERIA)  # one compiled loop each
    assert len({function.py_func.__code__ for function in compiled.values()}) == 1  # from one source
    for criterion, function in compiled.items():
        assert [cell.cell_contents for cell in function.py_func.__closure__] == [CRITERIA[criterion]]


def test_a_split_score_counts_the_rows_partition_sends_left():
    # the score of a given split is the children's score of the statistics that partition writes for it
    rng = np.random.RandomState(3)
    n = 30
    Xb = rng.randint(0, 6, size=(n, 1)).astype(np.uint8)
    w = rng.randint(1, 4, n).astype(np.float64)
    for module, y, n_classes in ((gini, rng.randint(0, 3, n), 3), (squared_error, rng.normal(size=n), 0)):
        node_y = module.new_labels(n)
        node_y[:] = y
        stats = np.zeros(module.n_statistics(n_classes))
        module.add_rows(node_y, w, stats)
        weight = module.total_weight(stats)
        scratch = module.new_buffers(len(stats), n).left
        samples = np.arange(n, dtype=np.uint64)
        no_bits = np.zeros(0, np.uint64)
        score = module.split_score(scratch, Xb, node_y, w, samples, 0, n, 0, 2, -1, no_bits, stats, weight)
        left, right = np.zeros_like(stats), np.zeros_like(stats)
        moved_w = w.copy()
        i = module.partition(Xb, samples, node_y, moved_w, 0, n, 0, 2, -1, no_bits, left, right)
        assert i == int((Xb[:, 0] <= 2).sum())
        w_left, w_right = module.total_weight(left), module.total_weight(right)
        if module is gini:
            expected = (left**2).sum() / w_left + (right**2).sum() / w_right
        else:
            expected = left[1] ** 2 / w_left + right[1] ** 2 / w_right
        assert score == pytest.approx(expected)


def test_a_threshold_is_kept_only_when_both_children_weigh_and_it_scores_higher():
    assert loops.scored(-1.0, 0, -1, 4, 1, 9.0, 3.0, 4.0, 5.0) == (5.0, 4, 1)  # 9 / 3 + 4 / 2
    assert loops.scored(6.0, 2, 0, 4, 1, 9.0, 3.0, 4.0, 5.0) == (6.0, 2, 0)  # not better
    assert loops.scored(-1.0, 0, -1, 4, 1, 9.0, 5.0, 4.0, 5.0) == (-1.0, 0, -1)  # no weight on the right
    # the missing rows (weight 1) right, then left unless the threshold is the last: 9/3 + 6/3 = 5, 16/4 + 2/2 = 5
    tie, better = (9.0, 6.0, 16.0, 2.0), (9.0, 6.0, 25.0, 2.0)  # 25/4 + 2/2 = 7.25
    assert loops.scored_twins(-1.0, 0, -1, 7, False, 3.0, 1.0, tie, 6.0) == (5.0, 7, 0)  # a tie keeps the first
    assert loops.scored_twins(-1.0, 0, -1, 7, False, 3.0, 1.0, better, 6.0) == (7.25, 7, 1)
    assert loops.scored_twins(-1.0, 0, -1, 7, True, 3.0, 1.0, better, 6.0) == (5.0, 7, 0)  # real | missing: no twin


def test_the_sorts_are_stable():
    key = np.array([0.5, 0.2, 0.5, 0.1])
    order = np.zeros(4, np.int64)
    loops.sort_by_key(key, order, 4)
    assert order.tolist() == [3, 1, 0, 2]
    bins, first, second = np.zeros(4, np.int64), np.zeros(4), np.zeros(4)
    for n, (b, a) in enumerate([(3, 1.0), (1, 2.0), (3, 3.0), (0, 4.0)]):
        loops.insert_sorted(n, bins, first, second, b, a, 10 * a)
    assert bins.tolist() == [0, 1, 3, 3] and first.tolist() == [4.0, 2.0, 1.0, 3.0]
    assert second.tolist() == [40.0, 20.0, 10.0, 30.0]


RUN = """
import json
import numpy as np
from mddf import MDDFClassifier
from mddf.trees import gini

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
MDDFClassifier(n_estimators=2, max_layers=1, n_jobs=1, random_state=0, forest_types=("rf",)).fit(X, X[:, 0] > 0)
print(json.dumps(sum(gini.add_rows.stats.cache_misses.values())))
"""


@pytest.mark.slow
def test_a_criterions_loops_load_from_numbas_cache_in_a_fresh_process(tmp_path):
    # numba keys a closure's cache by its cells: the loops close over the criterion's module, which pickles the
    # same in every process (a compiled function would pickle with a name drawn afresh, never found again). The loops
    # are internal (compiled into the growers that call them): a fresh process's fit loads the growers, loops
    # included, from the cache, and compiles nothing
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def run():
        done = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr

    missed, compiled = run()
    assert missed == 1 and "numba is compiling mddf.trees.grower" in compiled  # compiled, and cached
    missed, compiled = run()
    assert missed == 0 and "numba is compiling" not in compiled  # loaded from the cache
