"""The shared skeletons of the cascades and the blocks declare the hooks a task fills in, and read nothing else."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf._block_base import BlockBase
from mddf._block_classifier import ForestBlock
from mddf._block_regressor import RegressionForestBlock
from mddf._cascade_base import CascadeBase

CASCADE_HOOKS = {
    "_measure",
    "_passed_importance_attr",
    "_binned_trees",
    "_check_forest_types",
    "_training_data",
    "_new_growth",
    "_block",
    "_fit_block",
    "_add_layer",
    "_log_layer",
    "_replay",
    "_predictor_template",
    "_fit_final",
    "_predictor_output",
    "_output_rows",
    "_layer_feature_names",
}


def _all_but(base, missing):
    """A subclass of ``base`` that fills in every abstract hook but ``missing``."""
    namespace = {name: None for name in base.__abstractmethods__ if name != missing}
    return type(f"Without{missing}", (base,), namespace)


@pytest.mark.parametrize("missing", sorted(CASCADE_HOOKS))
def test_a_cascade_that_lacks_a_hook_cannot_be_made(missing):
    assert CascadeBase.__abstractmethods__ == CASCADE_HOOKS
    with pytest.raises(TypeError, match=missing):
        _all_but(CascadeBase, missing)()


@pytest.mark.parametrize("missing", ["fit", "splitter"])
def test_a_block_that_lacks_a_hook_cannot_be_made(missing):
    assert BlockBase.__abstractmethods__ == {"fit", "splitter"}
    with pytest.raises(TypeError, match=missing):
        _all_but(BlockBase, missing)(("rf",), 2, None, 2, None)


def test_both_tasks_fill_in_every_hook_and_still_clone_and_pickle():
    for cls in (MDDFClassifier, CascadeForestRegressor, ForestBlock, RegressionForestBlock):
        assert not cls.__abstractmethods__
    model = MDDFClassifier(n_estimators=2, max_layers=1, random_state=0)
    assert clone(model).get_params() == model.get_params()
    X, y = make_classification(60, 4, random_state=0)
    model.fit(X, y)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("tree_method, binned", [("hist", True), ("exact", False)])
def test_x_is_binned_once_for_every_layer_only_when_the_trees_are_binned(tree_method, binned):
    X, y = make_classification(60, 4, random_state=0)
    model = MDDFClassifier(n_estimators=2, max_layers=1, tree_method=tree_method, random_state=0)
    assert model._binned_trees is binned and CascadeForestRegressor()._binned_trees is True
    growth = model._begin_growth(X, y, None)
    model._fit_layer(growth, 1)
    assert (growth.binned_x is not None) is binned
