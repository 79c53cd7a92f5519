"""The CatBoost member (mddf/blocks/catboost_member.py): "catboost_es" (CatBoost's data-independent defaults pinned,
one thread, stopped early on a tenth of each fold model's rows), given every category column of the layer's input as
its cat_features (whatever their number of levels), bit-identical for a seed, explained by CatBoost's own SHAP
values, stored and read back, in both cascades and with several targets; without catboost, naming it is a one-line
error that says how to install it."""

import sys

import catboost
import numpy as np
import pandas as pd
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.blocks.catboost_member import MISSING_CODE, CatBoostMember, CatBoostOnCodes
from mddf.blocks.classifier import ForestBlock
from mddf.blocks.member import as_member, member_class
from mddf.blocks.regressor import RegressionForestBlock
from mddf.forests import CATBOOST_PARAMS, make_catboost
from mddf.forests.boosting import EARLY_STOPPING_ROUNDS

SMALL = dict(n_estimators=6, max_layers=2, n_tolerant_layers=2, min_error_reduction=0.0, random_state=0, n_jobs=1)


def _block_data(n=400, seed=0):
    """Four numeric columns and a column of six category codes (5% missing everywhere); three classes."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 5).astype(np.float32)
    X[:, 4] = rng.randint(0, 6, n)
    y = (X[:, 0] > 0.5).astype(int) + np.isin(X[:, 4], (1, 4))
    X[rng.rand(n, 5) < 0.05] = np.nan
    return X, y


def _fit_block(X, y, seed=0, categories=None, n_jobs=1):
    block = ForestBlock(("rf", "catboost_es"), 5, None, 3, "kfold", "resample", n_jobs, "hist")
    block.categories = categories
    oof = block.fit(X, y, np.full(len(y), 1 / len(y)), len(np.unique(y)), np.random.RandomState(seed))
    return block, oof


def _frame(n=500, levels=300, seed=0):
    """Two numeric columns and a city of ``levels`` levels (more than a binned tree splits into subsets) whose
    codes carry the label, 5% of each column missing."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    X["city"] = pd.Categorical(rng.choice([f"c{i}" for i in range(levels)], n))
    X = X.mask(rng.random(X.shape) < 0.05)
    signal = X.a.fillna(0) + (X.city.cat.codes % 3 == 0)
    return X, (signal > 0.5).astype(int).to_numpy(), signal.to_numpy() + X.b.fillna(0).to_numpy()


# ---------------------------------------------------------------- settings, and catboost missing
def test_the_member_pins_catboosts_data_independent_defaults_with_a_fifth_of_its_rounds_and_stops_early():
    model = make_catboost(random_state=3)
    params = model.get_params()
    assert {k: params[k] for k in CATBOOST_PARAMS} == CATBOOST_PARAMS
    assert params["iterations"] == 200 and params["depth"] == 6 and params["thread_count"] == 1
    assert params["early_stopping_rounds"] == EARLY_STOPPING_ROUNDS and params["random_seed"] == 3
    assert type(model).__name__ == "CatBoostClassifier"
    assert type(make_catboost(task="regression")).__name__ == "CatBoostRegressor"
    with pytest.raises(ValueError, match="unknown CatBoost member 'catboost'"):
        make_catboost(kind="catboost")


def test_the_named_kind_and_catboost_instances_are_the_catboost_member():
    assert member_class("catboost_es") is CatBoostMember
    assert member_class(catboost.CatBoostClassifier()) is CatBoostMember
    assert member_class(catboost.CatBoostRegressor()) is CatBoostMember


def test_without_catboost_naming_the_member_is_a_one_line_error_that_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "catboost", None)  # None in sys.modules: import catboost fails
    with pytest.raises(ImportError, match=r"forest_types\[1\] \('catboost_es'\): .* pip install catboost") as error:
        as_member("catboost_es", position=1)
    assert "\n" not in str(error.value)
    X, y, _ = _frame(n=60)
    with pytest.raises(ImportError, match="pip install catboost"):
        MDDFClassifier(forest_types=("rf", "catboost_es"), **SMALL).fit(X, y)


# ---------------------------------------------------------------- a block's fold models
def test_each_fold_model_stops_on_held_out_rows_before_its_round_cap():
    X, y = _block_data()
    noisy = np.random.RandomState(1).rand(len(y)) < 0.2
    y[noisy] = np.random.RandomState(2).randint(0, 3, noisy.sum())  # noise the later rounds would learn
    block, oof = _fit_block(X, y, categories=np.array([False] * 4 + [True]))
    for model in block.models_[1]:
        assert model.estimator.estimator.tree_count_ < CATBOOST_PARAMS["iterations"]
        assert model.estimator.estimator.get_cat_feature_indices() == [4]
    assert (oof[:, 1].argmax(axis=1) == y).mean() > 0.7
    importances = block.members()[1].importances(block.models_[1][0], X.shape[1])
    assert importances.shape == (5,) and np.isclose(importances.sum(), 1.0)


def test_a_fold_of_few_rows_fits_every_round_without_stopping():
    X, y = _block_data(n=60)
    block, _ = _fit_block(X, y)  # 40 distinct rows a fold: none to spare
    assert all(model.estimator.estimator.tree_count_ == CATBOOST_PARAMS["iterations"] for model in block.models_[1])


@pytest.mark.slow
def test_a_seed_gives_the_same_bits_for_any_n_jobs():
    X, y = _block_data()
    block, oof = _fit_block(X, y, categories=np.array([False] * 4 + [True]))
    again, oof_again = _fit_block(X, y, categories=np.array([False] * 4 + [True]), n_jobs=2)
    np.testing.assert_array_equal(oof_again, oof)
    np.testing.assert_array_equal(again.predict_proba(X), block.predict_proba(X))


def test_category_codes_reach_catboost_as_integers_and_a_missing_one_as_a_level_of_its_own():
    X = np.array([[0.5, 2.0], [np.nan, np.nan], [1.5, 0.0]], dtype=np.float32)
    wrapped = CatBoostOnCodes(make_catboost(), np.array([False, True]))
    pool = wrapped.pool(X)
    assert pool.get_cat_feature_indices() == [1]
    frame = pd.DataFrame(X, columns=["0", "1"])
    frame["1"] = np.array([2, MISSING_CODE, 0], dtype=np.int64)
    assert catboost.Pool(frame, cat_features=[1]).get_cat_feature_indices() == [1]


# ---------------------------------------------------------------- in the cascades
def test_a_cascade_gives_every_category_column_whatever_its_levels_and_explain_adds_up():
    X, y, _ = _frame()
    clf = MDDFClassifier(forest_types=("rf", "catboost_es"), **SMALL).fit(X, y)
    first = clf.layers_[0].models_[1][0].estimator.estimator
    assert first.get_cat_feature_indices() == [2]  # the 300-level city, beyond the forests' category subsets
    later = [m.estimator.estimator.get_cat_feature_indices() for block in clf.layers_[1:] for m in block.models_[1]]
    assert all(indices == [2] for indices in later)  # the later layers' input begins with x too
    explanation = clf.explain(X.iloc[:25])
    expected = clf.predict_proba(X.iloc[:25])
    assert np.abs(explanation.base_values + explanation.values.sum(axis=1) - expected).max() < 1e-6


@pytest.mark.slow
def test_three_classes_and_regression_are_explained_by_catboosts_shap_values():
    X, y = _block_data()
    block, _ = _fit_block(X, y, categories=np.array([False] * 4 + [True]))
    member = block.members()[1]
    for model in block.models_[1]:
        base, values = member.attributions(model, X, None, True, False, 3)
        assert np.abs(base + values.sum(axis=1) - member.predict(model, X, None, True)).max() < 1e-9
    target = np.nan_to_num(X[:, 0]) * 3 + np.isin(X[:, 4], (1, 4))
    regression = RegressionForestBlock(("rf", "catboost_es"), 4, None, 1.0, 2, 1)
    regression.fit(X, target, np.ones(len(y)), np.random.RandomState(0))
    member = regression.members()[1]
    for model in regression.models_[1]:
        base, values = member.attributions(model, X, None, True, False, 1)
        assert np.abs((base + values.sum(axis=1))[:, 0] - member.predict(model, X, None, True)).max() < 1e-9


@pytest.mark.slow
def test_several_targets_are_one_multi_rmse_model_and_the_regressor_stores_and_reads_it_back(tmp_path):
    X, _, signal = _frame()
    Y = np.c_[signal, -2 * signal]
    reg = CascadeForestRegressor(forest_types=("rf", "catboost_es"), model_dir=str(tmp_path / "m"), **SMALL).fit(X, Y)
    assert reg.predict(X).shape == (len(X), 2) and reg.score(X, Y) > 0.5
    model = reg.layers_[0].models_[1][0]
    model = reg.layers_[0].store.loaded(model)
    assert model.estimator.loss_function == "MultiRMSE"
    in_memory = CascadeForestRegressor(forest_types=("rf", "catboost_es"), **SMALL).fit(X, Y)
    np.testing.assert_array_equal(in_memory.predict(X), reg.predict(X))


def test_a_monotone_constraint_is_refused_in_one_line_naming_the_member():
    X, _, signal = _frame()
    X = X.drop(columns="city")
    with pytest.raises(ValueError, match="monotonic_cst is honoured by the members .* not 'catboost_es'"):
        CascadeForestRegressor(forest_types=("rf", "catboost_es"), monotonic_cst=[1, 0], **SMALL).fit(X, signal)
