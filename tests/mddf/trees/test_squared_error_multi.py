"""Multi-output regression trees: the squared error summed over the targets, leaves holding a vector."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor
from tree_helpers import grow

from mddf.forests import BinnedInput
from mddf.forests.growing import ForestSpec, fit_forest
from mddf.trees import criterion as contract


def _data(seed=0, n=300, d=4):
    """Bin codes and three targets: one noisy, one exact, one an interaction."""
    rng = np.random.RandomState(seed)
    Xb = rng.randint(0, 12, size=(n, d)).astype(np.uint8)
    x = Xb.astype(np.float64)
    return Xb, np.column_stack([x[:, 0] + rng.normal(size=n), -2.0 * x[:, 1], x[:, 2] * x[:, 0] / 10.0])


def test_a_2d_target_is_grown_by_the_multi_output_criterion():
    assert contract.criterion_for(np.zeros((5, 2))) == "squared_error_multi"
    assert contract.criterion_for(np.zeros(5)) == "squared_error"
    with pytest.raises(ValueError, match="grows on labels of 1 dimensions, not 2"):
        contract.check_labels("squared_error", np.zeros((5, 2)))


@pytest.mark.slow
def test_the_tree_is_scikit_learns_multi_output_tree():
    # the best split of every feature (max_features = d) and a depth limit: the splits and the leaves' vectors of
    # scikit-learn's DecisionTreeRegressor on the bin codes (its thresholds fall between the same codes)
    Xb, Y = _data()
    tree = grow(Xb, Y, n_classes=Y.shape[1], max_depth=4, max_features=Xb.shape[1])
    reference = DecisionTreeRegressor(max_depth=4, random_state=0).fit(Xb.astype(np.float64), Y)
    assert tree.leaf_values.shape[1] == 3
    leaves = np.flatnonzero(tree.feature < 0)
    assert len(leaves) == reference.get_n_leaves()
    expected = reference.tree_.compute_feature_importances(normalize=False)
    assert tree.importance == pytest.approx(expected, rel=1e-9, abs=1e-12)  # the outputs' mean variance decrease
    assert sorted(map(tuple, np.round(tree.leaf_values, 9))) == sorted(
        map(tuple, np.round(reference.tree_.value[reference.tree_.children_left < 0, :, 0], 9))
    )


@pytest.mark.slow
@pytest.mark.parametrize("random_split", [False, True, 2])
def test_one_column_grows_the_one_target_tree(random_split):
    # K = 1: the same splits, draws and leaves as the one-target criterion, for every split rule
    Xb, Y = _data(seed=2)
    one = grow(Xb, Y[:, 0], random_split=random_split, max_features=2, seed=5)
    column = grow(Xb, Y[:, :1], n_classes=1, random_split=random_split, max_features=2, seed=5)
    for name in ("feature", "split_bin", "right", "missing_left"):
        assert np.array_equal(getattr(one, name), getattr(column, name)), name
    assert np.array_equal(one.leaf_values, column.leaf_values)
    assert column.importance == pytest.approx(one.importance)


@pytest.mark.slow
def test_missing_values_and_categories_split_on_the_summed_error():
    rng = np.random.RandomState(4)
    n = 200
    Xb = rng.randint(0, 9, size=(n, 2)).astype(np.uint8)
    Xb[rng.rand(n) < 0.2, 1] = 9  # the missing bin of the second feature
    Y = np.column_stack([(Xb[:, 1] == 9) * 5.0 + rng.normal(size=n) * 0.1, (Xb[:, 1] == 9) * -3.0])
    stump = grow(Xb, Y, n_classes=2, max_depth=1, n_bins=np.array([9, 10]), missing_bin=[-1, 9])
    assert stump.feature[0] == 1  # the missing rows are what both targets tell apart
    subset = grow(Xb[:, :1] % 4, np.column_stack([(Xb[:, 0] % 4 == 2) * 1.0, (Xb[:, 0] % 4 == 2) * 2.0]), n_classes=2,
                  max_depth=1, categorical=[1])  # fmt: skip
    assert subset.category[0] == 0 and subset.leaf_values[:, 1] == pytest.approx(2 * subset.leaf_values[:, 0])


@pytest.mark.slow
def test_a_forest_of_two_d_targets_predicts_a_vector_per_row():
    Xb, Y = _data(seed=1)
    X = Xb.astype(np.float32)
    spec = ForestSpec("rf", 10, None, 1.0, 3, BinnedInput(X), Y, np.arange(250), None, np.arange(250, 300))
    forest, held_out = fit_forest(spec)
    assert forest.n_outputs == 3 and held_out.shape == (50, 3)
    assert forest.predict(X[250:]) == pytest.approx(held_out)
    one, one_out = fit_forest(ForestSpec("rf", 10, None, 1.0, 3, BinnedInput(X), Y[:, 0], np.arange(250), None,
                                         np.arange(250, 300)))  # fmt: skip
    assert one.n_outputs == 1 and one_out.shape == (50,)
