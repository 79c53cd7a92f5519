"""What a split criterion is: the functions the grower calls, and the registry of criteria by name.

A criterion is a module of numba-compiled functions that
:func:`mddf.trees.grower.grow_tree` compiles into its skeleton (one grower per
criterion, :data:`mddf.trees.grower.GROWERS`) and calls directly, with no
indirection at run time. :data:`CRITERIA` names the criteria the grower knows:
:mod:`mddf.trees.gini` (classification) and :mod:`mddf.trees.squared_error`
(regression) and :mod:`mddf.trees.squared_error_multi` (regression on several
targets, ``y`` of shape ``(n, K)``). A new criterion is a module that keeps this contract, added to
:data:`CRITERIA`; :func:`check_criterion` says what it lacks.

Terms. A tree grows on ``m`` rows of positive weight; the grower keeps their
labels ``node_y`` (of ``new_labels``'s dtype) and weights ``node_w`` in
the order of ``samples`` (the rows' indices into the bin codes ``Xb``, uint8
``(n, d)``), permuted along with them, so that a node is the positions
``start:end``. A node's *statistics* ``stats`` are a float64 vector of
``n_statistics(n_classes)`` entries that sum its rows' weighted labels (the
class weights for Gini; the weight, weighted target sum and weighted sum of
squared targets for the squared error). A split's *score* is higher for a
better split, and -1 when a child would have no weight; scores of one node are
compared with each other only. A threshold split on feature ``f`` at bin ``b``
sends left the rows of code ``<= b``, and the rows coded ``missing_code`` (the
feature's missing bin when the missing values go left, -1 for none); a
category split sends left the codes of a bitset ``bits`` of
:data:`~mddf.trees.splitting.CATEGORY_WORDS` uint64 words (an empty ``bits``:
a threshold split).

The functions, as :data:`FUNCTIONS` lists them (name, parameters, what it returns):

- ``n_statistics(n_classes)`` -> int: length of a node's statistics
  (``n_classes`` is 0 for a criterion without classes).
- ``new_labels(m, n_classes)`` -> ndarray ``(m,)`` (or ``(m, K)`` for K targets a row, ``K = n_classes``):
  room for the labels of a tree's rows.
- ``swap_labels(node_y, i, j)``: exchange the labels of rows i and j.
- ``new_buffers(n_statistics, m)`` -> namedtuple of arrays: the split
  searches' scratch space for a tree of ``m`` rows, allocated once per tree;
  its field ``left`` is the scratch space ``split_score`` is given.
- ``new_leaf_values(n_rows, n_classes)`` -> ndarray ``(n_rows, width)``: room
  for the leaf table of a tree (its rows are what the leaves predict).
- ``add_row(stats, label, weight)``: add one row's weighted label to
  ``stats``.
- ``add_rows(node_y, node_w, stats)``: add the rows' weighted labels to
  ``stats``, in row order.
- ``importance_centre(root, root_weight)`` -> float: an origin about which
  ``node_summary`` takes the importance terms (the root's statistics and weight).
- ``total_weight(stats)`` -> float: a node's weight.
- ``node_summary(stats, centre)`` -> ``(weight, splittable, term)``: a node's
  weight, whether the criterion can lower its impurity, and its importance
  term, such that a split's weighted impurity decrease is its children's
  terms less its own.
- ``write_leaf(stats, node_weight, leaf_values, n_rows)`` -> ``(code, n_rows)``:
  a leaf's entry of the tree's ``right`` array, a class ``>= 0`` or
  ``-(row + 1)`` for a row it wrote to ``leaf_values`` at ``n_rows``, and the
  new number of rows of ``leaf_values``.
- ``partition(Xb, samples, node_y, node_w, start, end, f, split_b,
  missing_code, bits, left_stats, right_stats)`` -> int: move the node's rows
  that go left first (their labels and weights with them), write each child's
  statistics, and return the position of the first row of the right child.
- ``best_threshold(buf, Xb, node_y, node_w, samples, start, end, f,
  n_bins_f, node_stats, node_weight, missing_bins)`` ->
  :data:`~mddf.trees.splitting.Candidate`: the best threshold of numeric
  feature ``f`` (``n_bins_f`` bins, ``missing_bins[f]`` its missing code, -1
  for none, ``missing_bins`` None without missing values): its score, bin and
  the side of the node's missing rows; score -1 and side
  :data:`~mddf.trees.splitting.CONSTANT` when the feature is constant in the node.
- ``split_score(scratch, Xb, node_y, node_w, samples, start, end, f,
  split_b, missing_code, bits, node_stats, node_weight)`` -> float: the score
  of the given split, the one ``partition`` makes for the same arguments.
- ``left_start(scratch)`` -> state, ``left_row(scratch, state, label,
  weight)`` -> state and ``left_score(scratch, state, node_stats,
  node_weight)`` -> float: the left child of a given split summed one row at a
  time, from no row, and its score (``split_score``'s).
- ``best_subset(buf, Xb, node_y, node_w, samples, start, end, f, node_stats,
  node_weight, max_splits, min_count, present, bits)`` -> float: the best
  subset of the categories of feature ``f``, at most ``max_splits`` of them on
  its smaller side, categories of fewer than ``min_count`` rows sent right;
  writes the codes present in the node to ``present`` and the subset to
  ``bits``, and returns its score (-1 for fewer than two categories).

- ``left_statistics(Xb, node_y, node_w, samples, start, end, f, split_b,
  missing_code, bits, left_stats)``: write to ``left_stats`` the statistics
  of the rows ``partition`` would send left, moving none.
- ``node_value(stats)`` -> float: the value a monotone constraint orders (the
  mean target; the second class's share of two classes).
- ``write_bounded_leaf(stats, node_weight, leaf_values, n_rows, lower,
  upper)`` -> ``(code, n_rows)``: ``write_leaf`` of a tree with monotone
  constraints, the leaf's value clipped into ``[lower, upper]``.
- ``stats_score(left, stats)`` -> float: the score of a split whose left
  child has the statistics ``left`` (-1 when a child has no weight).
- ``bounded_value``, ``in_order``, ``child_bounds``, ``new_table``,
  ``best_ordered_threshold``: the monotone constraints' checks and search of
  :mod:`mddf.trees.monotone`.

``add_rows``, ``partition``, ``split_score`` and ``left_statistics`` are the
loops over a node's rows that :func:`mddf.trees.loops.row_loops` compiles for
the module with its ``add_row`` and ``left_*`` functions: a criterion module
defines those and gets these with ``add_rows, partition, split_score,
left_statistics = row_loops(module)``; likewise ``bounded_value, in_order,
child_bounds = monotone_checks(module)`` and ``new_table,
best_ordered_threshold = ordered_search(module)`` (:mod:`mddf.trees.monotone`).
The searches allocate nothing and are compiled without reference counting
(:mod:`mddf.trees._kernel`). A criterion module also sets ``LABEL_KINDS``, the
numpy dtype kinds of the labels it grows on (``"iu"``: class indices; ``"f"``:
real targets), and ``LABEL_NDIM``, the dimensions of ``y`` it grows on (1, or 2 for a row of targets a
sample), which :func:`criterion_for` reads.
"""

from __future__ import annotations

import inspect
from collections import namedtuple

from . import gini, squared_error, squared_error_multi

#: One function of the contract: its name, its parameters in order, and what it returns.
Function = namedtuple("Function", ["name", "parameters", "returns"])

_SEARCH = ("Xb", "node_y", "node_w", "samples", "start", "end", "f")

#: The functions a criterion module defines (their meaning: see the module).
FUNCTIONS = (
    Function("n_statistics", ("n_classes",), "int"),
    Function("new_labels", ("m", "n_classes"), "ndarray (m,) or (m, K)"),
    Function("swap_labels", ("node_y", "i", "j"), "None"),
    Function("new_buffers", ("n_statistics", "m"), "namedtuple of arrays with a field left"),
    Function("new_leaf_values", ("n_rows", "n_classes"), "ndarray (n_rows, width)"),
    Function("add_row", ("stats", "label", "weight"), "None"),
    Function("add_rows", ("node_y", "node_w", "stats"), "None"),
    Function("importance_centre", ("root", "root_weight"), "float"),
    Function("total_weight", ("stats",), "float"),
    Function("node_summary", ("stats", "centre"), "(weight, splittable, term)"),
    Function("write_leaf", ("stats", "node_weight", "leaf_values", "n_rows"), "(code, n_rows)"),
    Function(
        "partition",
        ("Xb", "samples", "node_y", "node_w", "start", "end", "f", "split_b", "missing_code", "bits")
        + ("left_stats", "right_stats"),
        "int",
    ),
    Function(
        "best_threshold",
        ("buf", *_SEARCH, "n_bins_f", "node_stats", "node_weight", "missing_bins"),
        "Candidate",
    ),
    Function(
        "split_score",
        ("scratch", *_SEARCH, "split_b", "missing_code", "bits", "node_stats", "node_weight"),
        "float",
    ),
    Function("left_start", ("scratch",), "state"),
    Function("left_row", ("scratch", "state", "label", "weight"), "state"),
    Function("left_score", ("scratch", "state", "node_stats", "node_weight"), "float"),
    Function(
        "best_subset",
        ("buf", *_SEARCH, "node_stats", "node_weight", "max_splits", "min_count", "present", "bits"),
        "float",
    ),
    Function(
        "left_statistics",
        ("Xb", "node_y", "node_w", "samples", "start", "end", "f", "split_b", "missing_code", "bits", "left_stats"),
        "None",
    ),
    Function("node_value", ("stats",), "float"),
    Function(
        "write_bounded_leaf", ("stats", "node_weight", "leaf_values", "n_rows", "lower", "upper"), "(code, n_rows)"
    ),
    Function("stats_score", ("left", "stats"), "float"),
    Function("bounded_value", ("stats", "lower", "upper"), "float"),
    Function(
        "in_order",
        ("sign", *_SEARCH, "b", "side", "missing_bin", "stats", "scratch", "bounds"),
        "bool",
    ),
    Function("child_bounds", ("sign", "left_stats", "right_stats", "bounds", "stack_bounds", "top"), "None"),
    Function("new_table", ("n_statistics",), "ndarray"),
    Function(
        "best_ordered_threshold",
        ("sign", *_SEARCH, "missing_bin", "stats", "bounds", "table"),
        "Candidate",
    ),
)

#: The criteria the grower compiles, by name.
CRITERIA = {"gini": gini, "squared_error": squared_error, "squared_error_multi": squared_error_multi}


def check_criterion(module):
    """What ``module`` lacks of the contract: a list of problems, empty when it keeps it.

    Checks that every function of :data:`FUNCTIONS` is a numba-compiled function of as many
    parameters, and that ``LABEL_KINDS`` is a string of numpy dtype kinds.
    """
    problems = []
    for function in FUNCTIONS:
        compiled = getattr(module, function.name, None)
        if compiled is None:
            problems.append(f"{function.name} is missing")
            continue
        if not hasattr(compiled, "py_func"):
            problems.append(f"{function.name} is not compiled by numba")
            continue
        n = len(inspect.signature(compiled.py_func).parameters)
        if n != len(function.parameters):
            problems.append(f"{function.name} takes {n} parameters, not {len(function.parameters)}")
    kinds = getattr(module, "LABEL_KINDS", None)
    if not isinstance(kinds, str) or not kinds or not set(kinds) <= set("biufc"):
        problems.append(f"LABEL_KINDS is {kinds!r}, not a string of numpy dtype kinds")
    return problems


def criterion_for(y):
    """The name of the first registered criterion whose labels are of ``y``'s dtype kind."""
    for name, module in CRITERIA.items():
        if y.dtype.kind in module.LABEL_KINDS and y.ndim == module.LABEL_NDIM:
            return name
    raise ValueError(
        f"no split criterion grows on labels of dtype {y.dtype} and {y.ndim} dimensions; "
        f"the criteria: {sorted(CRITERIA)}"
    )


def check_labels(name, y):
    """Raise ``ValueError`` unless ``name`` is a registered criterion that grows on labels of ``y``'s dtype."""
    if name not in CRITERIA:
        raise ValueError(f"unknown split criterion {name!r}; expected one of {sorted(CRITERIA)}")
    if y.dtype.kind not in CRITERIA[name].LABEL_KINDS:
        raise ValueError(f"the {name} criterion does not grow on labels of dtype {y.dtype}")
    if y.ndim != CRITERIA[name].LABEL_NDIM:
        ndim = CRITERIA[name].LABEL_NDIM
        raise ValueError(f"the {name} criterion grows on labels of {ndim} dimensions, not {y.ndim}")
