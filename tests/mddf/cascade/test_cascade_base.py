"""The shared skeletons of the cascades and the blocks declare the hooks a task fills in, and read nothing else; the
growth engine reaches a task's policy through a narrow seam (a growth spec of the parameters it reads) and returns
the fitted cascade the estimator holds."""

import ast
import inspect
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.blocks.base import BlockBase
from mddf.blocks.classifier import ForestBlock
from mddf.blocks.regressor import RegressionForestBlock
from mddf.cascade import growth as growth_module
from mddf.cascade.base import CascadeBase, begin_growth
from mddf.cascade.margin_policy import MarginPolicy
from mddf.cascade.policy import ENGINE_SEAM, TaskPolicy
from mddf.cascade.residual_policy import ResidualPolicy
from mddf.cascade.selection import final_mixture_of

#: What a task's policy provides beyond what TaskPolicy gives both tasks: the seam's task-specific members, the
#: predictor's template and the task's link (how the steps after the layers fit, read and score a predictor: the
#: steps get the link, not the policy).
POLICY_CONTRACT = {
    "measure",
    "check_forest_types",
    "new_state",
    "block",
    "fit_block",
    "add_layer",
    "log_layer",
    "predictor_template",
    "link",
    "head",
}


def _all_but(base, missing):
    """A subclass of ``base`` that fills in every abstract hook but ``missing``."""
    namespace = {name: None for name in base.__abstractmethods__ if name != missing}
    return type(f"Without{missing}", (base,), namespace)


@pytest.mark.parametrize("policy", [MarginPolicy, ResidualPolicy])
def test_both_policies_give_what_the_engine_asks_and_read_a_snapshot_of_the_parameters(policy):
    assert all(hasattr(policy, name) and not hasattr(TaskPolicy, name) for name in POLICY_CONTRACT)
    assert not hasattr(policy, "replay")  # the policies only train: the fitted cascade predicts
    X, y = make_classification(60, 4, random_state=0)
    estimator = MDDFClassifier(n_estimators=2) if policy is MarginPolicy else CascadeForestRegressor(n_estimators=2)
    estimator.fit(X, y)
    made = estimator._policy()
    assert isinstance(made, policy) and all(hasattr(made, name) for name in ENGINE_SEAM)
    # the parameters as given, but final_mixture="auto" read as the mixture it asks for
    resolved = {**estimator.get_params(deep=False), "final_mixture": final_mixture_of(estimator.get_params())}
    assert vars(made.params) == resolved
    assert not any(value is estimator for value in vars(made).values())  # the policy holds no estimator
    assert not hasattr(CascadeBase, "_fit_layer") and not hasattr(CascadeBase, "_add_layer")  # the engine's now


def _policy_members_used(module):
    """The attributes of ``policy`` or ``self.policy`` that ``module``'s source reads."""
    used = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Attribute):
            value = node.value
            if (isinstance(value, ast.Name) and value.id == "policy") or (
                isinstance(value, ast.Attribute) and value.attr == "policy"
            ):
                used.add(node.attr)
    return used


def test_the_engine_calls_the_policy_through_at_most_ten_named_members():
    assert len(ENGINE_SEAM) <= 10
    used = _policy_members_used(growth_module)
    assert used <= set(ENGINE_SEAM), sorted(used - set(ENGINE_SEAM))
    assert {"training_rows", "fit_layer", "add_layer", "finish"} <= used  # the check reads the engine's calls
    assert "cascade" not in {
        node.id for node in ast.walk(ast.parse(inspect.getsource(growth_module))) if isinstance(node, ast.Name)
    }


class _Watched:
    """Records, for every attribute a fit writes on the estimator, the functions of mddf on the way (innermost
    first)."""

    def __setattr__(self, name, value):
        frames = [f.function for f in inspect.stack()[1:12] if "mddf" in f.filename.replace("tests", "")]
        self.__dict__.setdefault("_writers", {})[name] = frames
        super().__setattr__(name, value)


class _WatchedClassifier(_Watched, MDDFClassifier):
    pass


class _WatchedRegressor(_Watched, CascadeForestRegressor):
    pass


@pytest.mark.parametrize("cls", [_WatchedClassifier, _WatchedRegressor])
def test_only_the_estimator_writes_its_fitted_attributes(cls):
    X, y = make_classification(80, 5, random_state=0)
    model = cls(n_estimators=2, max_layers=2, random_state=0, pair_features="auto", predictor="forest")
    model.__dict__.pop("_writers", None)  # the parameters, set in __init__
    model.fit(X, y)
    writers = model.__dict__["_writers"]
    assert {"layers_", "alphas_" if cls is _WatchedClassifier else "layers_", "feature_importances_"} <= set(writers)
    assert {"n_features_in_", "predictor_", "pair_features_", "fitted_cascade_"} <= set(writers)
    for name, frames in writers.items():
        assert {"set_fitted", "_validate_training_data"} & set(frames), (name, frames)


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
    growth = begin_growth(model, X, y)
    growth.fit_layer(1)
    assert (growth.state.binned_x is not None) is binned


def test_the_seams_types_are_in_one_module_the_engine_reads_a_growth_spec_and_no_policy_imports_the_engine():
    from dataclasses import fields

    from mddf.cascade import margin_policy, policy, residual_policy, seam

    for module in (margin_policy, residual_policy, policy):
        tree = ast.parse(inspect.getsource(module))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "growth" not in imported, module.__name__
    assert {"ENGINE_SEAM", "GrowthSpec", "Columns", "TrainingRows", "FittedLayer", "LayerOutcome"} <= set(vars(seam))
    assert "params" not in ENGINE_SEAM and "spec" in ENGINE_SEAM
    spec = MDDFClassifier(max_layers=4, probe_trees=0.5)._policy().spec
    assert isinstance(spec, seam.GrowthSpec) and len(fields(spec)) == 8
    assert (spec.max_layers, spec.probe_trees) == (4, 0.5)
