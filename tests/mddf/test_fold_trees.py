"""What the fold models of a forest keep for new rows (``fold_trees``)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from mddf import CascadeForestRegressor, MDDFClassifier


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(400, 8, n_informative=5, n_classes=3, random_state=0)
    return X.astype(np.float32), y


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
def test_a_share_of_each_fold_model_keeps_n_estimators_trees_a_forest_and_grows_the_same_layers(data, tree_method):
    X, y = data
    common = dict(n_estimators=10, n_folds=3, max_layers=3, random_state=0, tree_method=tree_method)
    every = MDDFClassifier(fold_trees="all", **common).fit(X, y)
    share = MDDFClassifier(fold_trees="share", **common).fit(X, y)
    # the training rows' out-of-fold class vectors come from every tree grown: the same layers
    assert [h["oof_accuracy"] for h in every.train_history_] == [h["oof_accuracy"] for h in share.train_history_]
    for a, b in zip(every.oof_features_, share.oof_features_):
        assert np.array_equal(a, b)
    for block in share.layers_:
        assert [[forest.n_trees for forest in models] for models in block.models_] == [[4, 3, 3]] * 4
    assert all(b.nbytes < a.nbytes for a, b in zip(every.layers_, share.layers_))
    # new rows get the mean of 10 trees a forest: close to, not equal to, the mean of the 30
    p_every, p_share = every.predict_proba(X), share.predict_proba(X)
    assert not np.array_equal(p_every, p_share) and np.abs(p_every - p_share).mean() < 0.1


def test_the_first_trees_of_each_fold_model_are_kept(data):
    X, y = data
    common = dict(n_estimators=6, n_folds=3, max_layers=1, random_state=0)
    every = MDDFClassifier(fold_trees="all", **common).fit(X, y)
    share = MDDFClassifier(fold_trees="share", **common).fit(X, y)
    for models_every, models_share in zip(every.layers_[0].models_, share.layers_[0].models_):
        for a, b in zip(models_every, models_share):
            codes = a.binner.transform(X)
            assert np.array_equal(a.route(codes, stop=b.n_trees), b.route(codes))


def test_fewer_trees_than_folds_keep_one_tree_each(data):
    X, y = data
    model = MDDFClassifier(fold_trees="share", n_estimators=2, n_folds=3, max_layers=1, random_state=0).fit(X, y)
    assert [forest.n_trees for forest in model.layers_[0].models_[0]] == [1, 1, 1]


def test_the_regression_cascade_takes_it_too():
    X, y = make_regression(300, 6, noise=5.0, random_state=0)
    common = dict(n_estimators=9, n_folds=3, max_layers=2, random_state=0)
    every = CascadeForestRegressor(fold_trees="all", **common).fit(X, y)
    share = CascadeForestRegressor(fold_trees="share", **common).fit(X, y)
    assert [h["oof_mse"] for h in every.train_history_] == [h["oof_mse"] for h in share.train_history_]
    assert [forest.n_trees for forest in share.layers_[0].models_[0]] == [3, 3, 3]
    assert not np.array_equal(every.predict(X), share.predict(X))
