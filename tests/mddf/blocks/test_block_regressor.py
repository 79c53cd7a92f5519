"""The regression forest block: out-of-fold predictions and fold-averaged prediction."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.tree import DecisionTreeRegressor

from mddf.blocks.members import FoldModel, fit_member
from mddf.blocks.regressor import RegressionForestBlock
from mddf.forests import make_regression_forest, resolve_max_features
from mddf.storage import ModelStore, StoredModel


def _noise(n=300, d=5, seed=0):
    # unique random points with random targets: a model that saw a row memorises its target, a model
    # that did not can only guess
    rng = np.random.RandomState(seed)
    return rng.rand(n, d).astype(np.float32), rng.standard_normal(n)


def _fit(block, X, y, w=None, seed=0):
    return block.fit(X, y, np.ones(len(y)) if w is None else w, np.random.RandomState(seed))


@pytest.mark.parametrize("kind", ["rf", "crf", "et"])
def test_training_predictions_never_come_from_a_model_that_saw_the_row(kind):
    X, y = _noise()
    block = RegressionForestBlock((kind,), 20, None, 1.0, 3, 1)
    oof = _fit(block, X, y)[:, 0]
    assert abs(np.corrcoef(oof, y)[0, 1]) < 0.2  # honest: no better than a guess
    assert np.corrcoef(block.predict(X)[:, 0], y)[0, 1] > 0.6  # the fold models saw two thirds of the rows


def test_out_of_fold_predictions_are_the_held_out_fold_models_and_new_rows_get_their_mean():
    X, y = _noise(n=120)
    block = RegressionForestBlock(("rf", "crf"), 10, None, 1.0, 3, 1)
    oof = _fit(block, X, y, seed=1)
    per_fold = np.stack([[forest.predict(X) for forest in fold] for fold in block.forests_])  # (k, forests, n)
    matches = np.isclose(per_fold, oof.T[None])
    assert np.all(matches.sum(axis=0) >= 1)
    assert block.predict(X) == pytest.approx(per_fold.mean(axis=0).T)


def test_shapes_depth_limit_and_importances():
    X, y = _noise(n=200)
    block = RegressionForestBlock(("rf", "rf", "crf", "crf"), 6, 3, "sqrt", 3, 2)
    oof = _fit(block, X, y)
    assert oof.shape == (200, 4) and block.predict(X[:7]).shape == (7, 4)
    assert len(block.forests_) == 3 and all(len(fold) == 4 for fold in block.forests_)
    assert max(forest.depths.max() for fold in block.forests_ for forest in fold) == 3
    assert block.importances_.shape == (5,) and np.all(block.importances_ >= 0) and block.nbytes > 0


def test_results_do_not_depend_on_n_jobs():
    X, y = _noise(n=150)
    X[np.random.RandomState(3).rand(*X.shape) < 0.1] = np.nan
    results = []
    for n_jobs in (1, 2):
        block = RegressionForestBlock(("rf", "crf", "et"), 8, None, 1.0, 3, n_jobs)
        results.append((_fit(block, X, y), block.predict(X)))
    for a, b in zip(*results):
        assert np.array_equal(a, b)


def test_rows_of_weight_zero_never_reach_a_tree_but_get_predictions():
    X, y = _noise(n=150)
    w = np.ones(150)
    w[:50] = 0.0
    y_bad = y.copy()
    y_bad[:50] = 1e6  # the zero-weight rows' targets would dominate any leaf they reached
    block = RegressionForestBlock(("rf", "crf"), 10, None, 1.0, 3, 1)
    oof = _fit(block, X, y_bad, w)
    assert np.all(np.abs(oof) < 10) and np.all(np.abs(block.predict(X)) < 10)


def test_a_fold_without_positive_weights_and_unknown_kinds_are_errors():
    X, y = _noise(n=30)
    w = np.zeros(30)
    w[0] = 1.0  # with 3 folds, two folds train without row 0
    with pytest.raises(ValueError, match="has sample weight 0"):
        _fit(RegressionForestBlock(("rf",), 2, None, 1.0, 3, 1), X, y, w)
    with pytest.raises(ValueError, match="unknown kind 'xgb'"):
        _fit(RegressionForestBlock(("xgb",), 2, None, 1.0, 3, 1), X, y)
    with pytest.raises(ValueError, match="unknown forest type 'gbdt'"):
        make_regression_forest("gbdt", 3, None, 1.0, 0)  # "gbdt" is a member, not a forest


def test_forest_kinds_and_max_features():
    rf, crf, et = (make_regression_forest(kind, 3, 5, 0.5, 0) for kind in ("rf", "crf", "et"))
    assert rf.max_features == 0.5 and rf.bootstrap and rf.max_depth == 5
    assert crf.max_features == 1 and not crf.bootstrap
    assert et.max_features == 0.5 and not et.bootstrap
    assert [resolve_max_features(m, 10) for m in (None, 1.0, 0.25, 3, 30, "sqrt", "log2")] == [10, 10, 2, 3, 10, 3, 3]
    assert resolve_max_features(0.01, 10) == 1


# ---------------------------------------------------------------- members other than the forests
class SeenSpy(RegressorMixin, BaseEstimator):
    """Predicts 1 for a row it was trained on and 0 for any other; records its seed and its weights."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self.seen_ = {row.tobytes() for row in np.asarray(X)}
        self.sample_weight_ = sample_weight
        return self

    def predict(self, X):
        return np.array([row.tobytes() in self.seen_ for row in np.asarray(X)], dtype=float)


#: A member of each kind that memorises its training rows.
MEMORISING = {"gbdt": "gbdt", "instance": KNeighborsRegressor(n_neighbors=1)}


@pytest.mark.parametrize("member", sorted(MEMORISING))
def test_members_are_cross_fitted_and_new_rows_get_the_mean_of_their_fold_models(member):
    X, y = _noise()
    block = RegressionForestBlock(("rf", MEMORISING[member]), 10, None, 1.0, 3, 1)
    oof = _fit(block, X, y)
    assert oof.shape == (300, 2)
    assert abs(np.corrcoef(oof[:, 1], y)[0, 1]) < 0.2  # honest: no better than a guess
    assert all(isinstance(model, FoldModel) for model in block.models_[1]) and len(block.models_[1]) == 3
    per_fold = np.stack([model.predict(X) for model in block.models_[1]])
    assert np.all(np.isclose(per_fold, oof[:, 1]).sum(axis=0) >= 1)  # each row's value is one fold model's
    assert block.predict(X)[:, 1] == pytest.approx(per_fold.mean(axis=0))
    assert np.corrcoef(block.predict(X)[:, 1], y)[0, 1] > 0.6  # the fold models saw two thirds of the rows


def test_no_row_gets_a_value_from_a_member_that_was_trained_on_it():
    X, y = _noise(n=150)
    oof = _fit(RegressionForestBlock((SeenSpy(),), 3, None, 1.0, 3, 1), X, y)
    assert np.all(oof[:, 0] == 0.0)


def test_gbdt_is_a_pinned_seeded_xgboost_regressor():
    pytest.importorskip("xgboost")
    X, y = _noise(n=120)
    block = RegressionForestBlock(("gbdt",), 3, None, 1.0, 3, 1)
    _fit(block, X, y)
    estimators = [model.estimator for model in block.models_[0]]
    assert all(type(e).__name__ == "XGBRegressor" for e in estimators)
    params = estimators[0].get_params()
    assert (params["n_estimators"], params["learning_rate"], params["max_depth"], params["n_jobs"]) == (100, 0.3, 6, 1)
    assert len({e.random_state for e in estimators}) == 3  # one seed per fold model, from the block's


def test_an_instance_is_cloned_per_fold_and_seeded_from_the_block():
    X, y = _noise(n=120)
    template = DecisionTreeRegressor(random_state=1)
    block = RegressionForestBlock((template,), 3, None, 1.0, 3, 1)
    first = _fit(block, X, y, seed=0)
    seeds = [model.estimator.random_state for model in block.models_[0]]
    assert len(set(seeds)) == 3 and 1 not in seeds
    assert not hasattr(template, "tree_")  # the template is never fitted
    again = RegressionForestBlock((DecisionTreeRegressor(random_state=2),), 3, None, 1.0, 3, 1)
    np.testing.assert_array_equal(_fit(again, X, y, seed=0), first)  # its own seed is replaced


def test_results_with_members_do_not_depend_on_n_jobs():
    pytest.importorskip("xgboost")
    X, y = _noise(n=150)
    X[np.random.RandomState(3).rand(*X.shape) < 0.1] = np.nan
    results = []
    for n_jobs in (1, 2):
        block = RegressionForestBlock(("rf", "gbdt", DecisionTreeRegressor()), 8, None, 1.0, 3, n_jobs)
        results.append((_fit(block, X, y), block.predict(X)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_members_in_a_model_store_predict_the_same_bits(tmp_path):
    pytest.importorskip("xgboost")
    X, y = _noise(n=150)
    kinds = ("rf", "gbdt", Ridge())
    memory = RegressionForestBlock(kinds, 5, None, 1.0, 3, 1)
    disk = RegressionForestBlock(kinds, 5, None, 1.0, 3, 1, store=ModelStore.claim(str(tmp_path)), name="layer-001")
    np.testing.assert_array_equal(_fit(disk, X, y), _fit(memory, X, y))
    assert all(isinstance(model, StoredModel) for models in disk.models_ for model in models)
    np.testing.assert_array_equal(disk.predict(X), memory.predict(X))
    np.testing.assert_array_equal(disk.importances_, memory.importances_)


def test_sample_weights_reach_the_members_and_zero_weight_rows_never_do():
    X, y = _noise(n=120)
    w = np.random.RandomState(0).rand(120) + 0.5
    w[:30] = 0.0
    block = RegressionForestBlock((SeenSpy(),), 3, None, 1.0, 3, 1)
    _fit(block, X, y, w)
    for model in block.models_[0]:
        seen = model.estimator.seen_
        assert not any(X[i].tobytes() in seen for i in range(30))
        assert len(model.estimator.sample_weight_) == len(seen) and np.all(model.estimator.sample_weight_ >= 0.5)
    _fit(block, X, y)
    assert all(model.estimator.sample_weight_ is None for model in block.models_[0])  # equal weights: none


def test_a_member_without_sample_weight_gets_a_weighted_resample_with_a_warning():
    X, y = _noise(n=120)
    w = np.random.RandomState(0).rand(120) + 0.5
    block = RegressionForestBlock(("rf", KNeighborsRegressor()), 3, None, 1.0, 3, 1)
    with pytest.warns(
        UserWarning, match="KNeighborsRegressor.fit takes no sample_weight; it receives its sample weights"
    ):
        _fit(block, X, y, w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # equal weights reach nobody: no warning
        _fit(block, X, y)


def test_member_errors_name_the_member():
    X, y = _noise(n=60)
    with pytest.raises(TypeError, match=r"forest_types\[1\]: LogisticRegression is not a regressor"):
        _fit(RegressionForestBlock(("rf", LogisticRegression()), 2, None, 1.0, 3, 1), X, y)
    with pytest.raises(TypeError, match="is a class"):
        _fit(RegressionForestBlock((Ridge,), 2, None, 1.0, 3, 1), X, y)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"forest_types\[0\]: Ridge does not accept missing values"):
        _fit(RegressionForestBlock((Ridge(),), 2, None, 1.0, 3, 1), X_nan, y)
    block = RegressionForestBlock((Ridge(),), 2, None, 1.0, 3, 1)
    _fit(block, X, y)
    with pytest.raises(ValueError, match="Ridge does not accept missing values"):
        block.predict(X_nan)
    model = fit_member(LinearRegression(), X, y, None, where="forest_types[2]")
    model.estimator.predict = lambda X: np.ones((len(X), 2))
    with pytest.raises(ValueError, match=r"^forest_types\[2\] \(LinearRegression\): predict returned shape \(60, 2\)"):
        model.predict(X)
    model.estimator.predict = lambda X: np.full(len(X), np.nan)
    with pytest.raises(ValueError, match=r"non-finite values \(NaN or infinity\) in 60 of 60 rows"):
        model.predict(X)


def test_member_importances_are_on_the_forests_scale():
    X, y = _noise(n=150)
    y = 3.0 * X[:, 0] + 0.1 * y
    # a fully grown tree's variance decreases sum to the variance of its targets: a member's normalised
    # feature_importances_ are scaled by that variance, so they read as the forests' importances do
    model = fit_member(DecisionTreeRegressor(), X, y, None, random_state=0)
    unnormalised = model.estimator.tree_.compute_feature_importances(normalize=False)
    assert model.importances == pytest.approx(unnormalised)
    tree_block = RegressionForestBlock((DecisionTreeRegressor(),), 5, None, 1.0, 3, 1)
    _fit(tree_block, X, y)
    expected = np.mean(
        [m.estimator.tree_.compute_feature_importances(normalize=False) for m in tree_block.models_[0]], 0
    )
    assert tree_block.importances_ == pytest.approx(expected)
    forest = RegressionForestBlock(("rf",), 20, None, 1.0, 3, 1)
    _fit(forest, X, y)
    assert tree_block.importances_.sum() == pytest.approx(forest.importances_.sum(), rel=0.25)
    assert np.argmax(tree_block.importances_) == 0 == np.argmax(forest.importances_)
    knn = RegressionForestBlock((KNeighborsRegressor(),), 5, None, 1.0, 3, 1)
    _fit(knn, X, y)
    assert np.array_equal(knn.importances_, np.zeros(5))  # no feature_importances_: left out
