"""A forest grown in stages is the forest grown at once, and its outputs at k trees are a k-tree forest's."""

from dataclasses import FrozenInstanceError, replace

import numpy as np
import pytest

from mddf.forests import BinnedInput, ForestSpec
from mddf.forests.growing import fit_forest, fit_oob_forest, staged_forest, staged_oob_forest


def _data(n=200, d=6, classes=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, d).astype(np.float32)
    y = (X[:, 0] * classes).astype(np.int64).clip(0, classes - 1)
    return BinnedInput(X), X, y


def _same_forest(a, b, X):
    return np.array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("kind", ["rf", "crf"])
@pytest.mark.parametrize("n_kept", [None, 4])
def test_a_forest_grown_in_stages_is_the_forest_grown_at_once(kind, n_kept):
    binned, X, y = _data()
    rows, held_out = np.arange(0, 200, 2), np.arange(1, 200, 2)
    spec = ForestSpec(kind, 12, None, "sqrt", 7, binned, y, rows, None, held_out, n_classes=3, n_kept=n_kept)
    forest, output = fit_forest(spec)
    staged = staged_forest(spec).grow(3).grow(8)
    assert staged.growth.n_grown == 8
    staged_forest_, staged_output = staged.grow(12).finish()
    assert np.array_equal(output, staged_output)
    assert staged_forest_.n_trees == forest.n_trees
    assert np.array_equal(
        forest.predict_proba_binned(binned.codes, False), staged_forest_.predict_proba_binned(binned.codes, False)
    )


def test_the_outputs_at_k_trees_are_those_of_a_forest_of_k_trees():
    binned, _, y = _data()
    rows, held_out = np.arange(0, 200, 2), np.arange(1, 200, 2)
    spec = ForestSpec("rf", 20, None, "sqrt", 3, binned, y, rows, None, held_out, 3)
    staged = staged_forest(spec)
    _, five = fit_forest(replace(spec, n_estimators=5))
    assert np.array_equal(staged.grow(5).output(), five)
    assert staged.grow(5).growth.n_grown == 5  # growing to as many trees again grows none


def test_regression_outputs_are_one_value_per_row():
    binned, _, y = _data()
    target = y.astype(np.float64) + 0.5
    rows, held_out = np.arange(0, 200, 2), np.arange(1, 200, 2)
    spec = ForestSpec("rf", 10, None, 1.0, 1, binned, target, rows, None, held_out)  # n_classes None: regression
    staged = staged_forest(spec)
    assert staged.grow(4).output().shape == (100,)
    assert np.array_equal(staged.grow(10).finish()[1], fit_forest(spec)[1])


def test_a_forest_fit_is_one_frozen_spec_and_the_former_signature_makes_the_same_one():
    binned, _, y = _data()
    rows, held_out = np.arange(0, 200, 2), np.arange(1, 200, 2)
    fields = ("crf", 6, 4, "sqrt", 9, binned, y, rows, None, held_out, 3)
    spec = ForestSpec(*fields)
    with pytest.raises(FrozenInstanceError):
        spec.seed = 10
    _, output = fit_forest(spec)
    assert np.array_equal(fit_forest(*fields)[1], output)  # the fields in order, as the former signature took them
    by_name = dict(kind="crf", n_estimators=6, max_depth=4, max_features="sqrt", seed=9, X=binned, y=y)
    by_name.update(rows=rows, weight=None, predict_rows=held_out, n_classes=3)
    assert np.array_equal(staged_forest(**by_name).grow(6).finish()[1], output)
    with pytest.raises(TypeError, match="a ForestSpec alone"):
        fit_forest(spec, 3)


def test_out_of_bag_outputs_in_stages():
    binned, _, y = _data()
    args = ("rf", 15, None, "sqrt", 11, binned, y, None, 3)
    forest, proba = fit_oob_forest(*args)
    staged = staged_oob_forest(*args)
    early = staged.grow(2).output()
    assert early.shape == proba.shape
    assert np.allclose(early.sum(axis=1), 1.0)  # rows in every bag so far get 1 / n_classes
    _, staged_proba = staged.grow(15).finish()
    assert np.array_equal(proba, staged_proba)
    assert np.array_equal(fit_oob_forest("rf", 2, None, "sqrt", 11, binned, y, None, 3)[1], early)


def test_a_tree_whose_drawn_rows_all_weigh_zero_fits_its_draws_uniformly():
    # the weight on one row: a third of a random forest's bootstraps miss it, and their drawn rows carry no weight
    binned, X, y = _data()
    rows, held_out = np.arange(0, 200, 2), np.arange(1, 200, 2)
    weight = np.zeros(len(y))
    weight[0] = 1.0
    spec = ForestSpec("rf", 20, None, "sqrt", 5, binned, y, rows, weight, held_out, 3)
    forest, output = fit_forest(spec)
    assert np.all(np.isfinite(output)) and np.allclose(output.sum(axis=1), 1.0)
    assert np.any(output[:, y[0]] < 1)  # some trees learnt their draws, not row 0 alone
    uniform, _ = fit_forest(replace(spec, n_estimators=8, weight=np.ones(len(y))))
    weighted, _ = fit_forest(replace(spec, n_estimators=8, weight=np.where(y == 0, 2.0, 1.0)))
    assert not np.array_equal(uniform.predict_proba(X), weighted.predict_proba(X))  # weights still count
