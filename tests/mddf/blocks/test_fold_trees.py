"""What the fold models of a forest keep for new rows (``fold_trees``)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from mddf import CascadeForestRegressor, MDDFClassifier

#: The four forests a layer: these tests read the forests' trees (a boosted member has none to share out).
FORESTS = ("rf", "rf", "crf", "crf")


def _settings(**given):
    """What the two fits a test compares share: the four forests, three folds, seed 0, and ``given``."""
    return {"forest_types": FORESTS, "n_folds": 3, "random_state": 0, **given}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(400, 8, n_informative=5, n_classes=3, random_state=0)
    return X.astype(np.float32), y


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
@pytest.mark.slow
def test_a_share_of_each_fold_model_keeps_n_estimators_trees_a_forest_and_grows_the_same_layers(data, tree_method):
    X, y = data
    common = _settings(n_estimators=10, max_layers=3, tree_method=tree_method)
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
    common = _settings(n_estimators=6, max_layers=1)
    every = MDDFClassifier(fold_trees="all", **common).fit(X, y)
    share = MDDFClassifier(fold_trees="share", **common).fit(X, y)
    for models_every, models_share in zip(every.layers_[0].models_, share.layers_[0].models_):
        for a, b in zip(models_every, models_share):
            codes = a.binner.transform(X)
            assert np.array_equal(a.route(codes, stop=b.n_trees), b.route(codes))


def test_fewer_trees_than_folds_keep_one_tree_each(data):
    X, y = data
    model = MDDFClassifier(fold_trees="share", **_settings(n_estimators=2, max_layers=1)).fit(X, y)
    assert [forest.n_trees for forest in model.layers_[0].models_[0]] == [1, 1, 1]


def test_the_regression_cascade_takes_it_too():
    X, y = make_regression(300, 6, noise=5.0, random_state=0)
    common = _settings(n_estimators=9, max_layers=2)
    every = CascadeForestRegressor(fold_trees="all", **common).fit(X, y)
    share = CascadeForestRegressor(fold_trees="share", **common).fit(X, y)
    assert [h["oof_mse"] for h in every.train_history_] == [h["oof_mse"] for h in share.train_history_]
    assert [forest.n_trees for forest in share.layers_[0].models_[0]] == [3, 3, 3]
    assert not np.array_equal(every.predict(X), share.predict(X))


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
def test_refit_keeps_one_model_per_member_fitted_on_every_row_and_the_same_first_layer(data, tree_method):
    X, y = data
    common = _settings(n_estimators=10, max_layers=2, tree_method=tree_method)
    every = MDDFClassifier(fold_trees="all", **common).fit(X, y)
    refit = MDDFClassifier(fold_trees="refit", **common).fit(X, y)
    # the first layer's out-of-fold class vectors come from the same fold models: the refit is drawn after them
    assert np.array_equal(every.oof_features_[0], refit.oof_features_[0])
    for block in refit.layers_:
        assert [[forest.n_trees for forest in models] for models in block.models_] == [[10]] * 4
    assert refit.layers_[0].nbytes < every.layers_[0].nbytes
    # the one model saw every row: it fits the training rows better than their out-of-fold class vectors do
    first = refit.layers_[0].predict_proba(X.astype(np.float32))
    assert (first.mean(1).argmax(1) == y).mean() > (refit.oof_features_[0].argmax(1) == y).mean()


def test_refit_fits_other_members_once_on_every_row_and_leaves_oob_forests_alone(data):
    X, y = data
    model = MDDFClassifier(
        fold_trees="refit",
        class_vectors="oob",
        forest_types=("rf", "gbdt"),
        n_estimators=5,
        max_layers=1,
        random_state=0,
    ).fit(X, y)
    forest, member = model.layers_[0].models_
    assert len(forest) == 1 and len(member) == 1
    assert member[0].estimator.n_features_in_ == X.shape[1]
    assert model.predict_proba(X).shape == (len(y), 3)


def test_refit_is_reproducible_and_takes_model_dir_and_the_regression_cascade(data, tmp_path):
    X, y = data
    common = _settings(fold_trees="refit", n_estimators=6, max_layers=2)  # n_folds=3: both estimators' default
    a = MDDFClassifier(**common).fit(X, y)
    b = MDDFClassifier(model_dir=tmp_path / "models", **common).fit(X, y)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert sorted(p.name for p in (tmp_path / "models" / "layer-001").glob("m*")) == [
        f"m{j}-foldall.bin" for j in range(4)
    ]
    Xr, yr = make_regression(200, 6, random_state=0)
    regressor = CascadeForestRegressor(**common).fit(Xr, yr)
    assert [len(models) for models in regressor.layers_[0].models_] == [1] * 4
    assert regressor.score(Xr, yr) > 0.5
