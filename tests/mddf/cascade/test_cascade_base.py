"""The shared skeletons of the cascades and the blocks declare the hooks a task fills in, and read nothing else."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.blocks.base import BlockBase
from mddf.blocks.classifier import ForestBlock
from mddf.blocks.regressor import RegressionForestBlock
from mddf.cascade.base import CascadeBase
from mddf.cascade.growth import CascadeGrowth
from mddf.cascade.margin_policy import MarginPolicy
from mddf.cascade.policy import TaskPolicy
from mddf.cascade.residual_policy import ResidualPolicy

#: What the growth engine asks of a task's policy, beyond what TaskPolicy gives both tasks.
POLICY_CONTRACT = {
    "measure",
    "check_forest_types",
    "training_rows",
    "new_state",
    "block",
    "fit_block",
    "add_layer",
    "log_layer",
    "replay",
    "predictor_template",
    "fit_final",
    "predictor_output",
    "output_rows",
}


def _all_but(base, missing):
    """A subclass of ``base`` that fills in every abstract hook but ``missing``."""
    namespace = {name: None for name in base.__abstractmethods__ if name != missing}
    return type(f"Without{missing}", (base,), namespace)


@pytest.mark.parametrize("policy", [MarginPolicy, ResidualPolicy])
def test_both_policies_give_what_the_engine_asks_and_the_estimators_name_theirs(policy):
    assert all(hasattr(policy, name) and not hasattr(TaskPolicy, name) for name in POLICY_CONTRACT)
    estimator = MDDFClassifier() if policy is MarginPolicy else CascadeForestRegressor()
    assert isinstance(estimator._policy(), policy) and estimator._policy().cascade is estimator
    assert not hasattr(CascadeBase, "_fit_layer") and not hasattr(CascadeBase, "_add_layer")  # the engine's now


@pytest.mark.parametrize("missing", ["fit", "splitter"])
def test_a_block_that_lacks_a_hook_cannot_be_made(missing):
    assert BlockBase.__abstractmethods__ == {"fit", "splitter"}
    with pytest.raises(TypeError, match=missing):
        _all_but(BlockBase, missing)(("rf",), 2, None, 2, None)


def test_both_tasks_fill_in_every_hook_and_still_clone_and_pickle():
    for cls in (ForestBlock, RegressionForestBlock):
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
    assert model._policy().binned_trees is binned and CascadeForestRegressor()._policy().binned_trees is True
    growth = CascadeGrowth.begin(model, model._policy(), X, y)
    growth.fit_layer(1)
    assert (growth.state.binned_x is not None) is binned
