"""later_layer_trees: the layers after the first grow fewer trees per forest (an int, or a share of n_estimators);
None (the default) grows n_estimators in every layer."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.utils._param_validation import InvalidParameterError

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.cascade.base import begin_growth
from mddf.cascade.probing import probe_size


def _grown(model, X, y, n_layers):
    """The blocks of the first ``n_layers`` layers, grown whatever early stopping says."""
    growth = begin_growth(model, X, y)
    for t in range(1, n_layers + 1):
        growth.add_layer(growth.fit_layer(t))
    return growth.state.layers


def _tree_counts(block):
    """The trees of each forest fold model of a block."""
    return {model.n_trees for models in block.models_ for model in models if hasattr(model, "n_trees")}


@pytest.mark.parametrize("later, expected", [(None, 12), (0.5, 6), (5, 5), (0.01, 1)])
def test_the_classifiers_later_layers_grow_the_stated_trees(later, expected):
    X, y = make_classification(120, 6, random_state=0)
    model = MDDFClassifier(n_estimators=12, forest_types=("rf", "crf"), later_layer_trees=later, random_state=0)
    first, second, third = _grown(model, X, y, 3)
    assert first.n_estimators == 12 and _tree_counts(first) == {12}
    assert second.n_estimators == third.n_estimators == expected
    assert _tree_counts(second) == _tree_counts(third) == {expected}


def test_the_regressors_later_layers_grow_the_stated_trees_and_their_probes_a_share_of_them():
    X, y = make_regression(120, 6, random_state=0)
    model = CascadeForestRegressor(
        n_estimators=40, forest_types=("rf", "crf"), later_layer_trees=0.5, pair_features=None, random_state=0
    )
    first, second = _grown(model, X, y, 2)
    assert _tree_counts(first) == {40} and _tree_counts(second) == {20}
    growth = begin_growth(model, X, y)
    assert growth.probe_size(2) == probe_size(0.25, 20) == 5  # probe_trees=0.25 of the layer's 20 trees
    fitted = model.set_params(max_layers=3).fit(X, y)
    assert [block.n_estimators for block in fitted.layers_] == [40, 20, 20][: fitted.n_layers_]


def test_the_default_grows_n_estimators_in_every_layer_and_fits_as_before():
    X, y = make_classification(120, 6, random_state=0)
    settings = dict(n_estimators=8, forest_types=("rf", "crf"), max_layers=3, random_state=0)
    default = MDDFClassifier(**settings).fit(X, y)
    same = MDDFClassifier(**settings, later_layer_trees=8).fit(X, y)
    assert all(block.n_estimators == 8 for block in default.layers_)
    np.testing.assert_array_equal(default.predict_proba(X), same.predict_proba(X))


@pytest.mark.parametrize("later", [0, 0.0, 1.5, -2, "half"])
def test_a_later_layer_trees_out_of_range_is_refused(later):
    with pytest.raises(InvalidParameterError, match="later_layer_trees"):
        MDDFClassifier(later_layer_trees=later).fit(np.random.RandomState(0).rand(30, 2), np.arange(30) % 2)
