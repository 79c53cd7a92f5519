"""The LightGBM members (mddf/blocks/lgbm_member.py): "lgbm" (LightGBM's defaults pinned) and "lgbm_es" (stopped early
on a tenth of each fold model's rows), given the layer's category columns as LightGBM's categorical features,
bit-identical for a seed, explained by LightGBM's own contributions, stored and read back, in both cascades; without
lightgbm, naming one is a one-line error that says how to install it.
"""

import sys
import warnings

import lightgbm
import numpy as np
import pandas as pd
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.blocks.classifier import ForestBlock
from mddf.blocks.lgbm_member import LightGBMMember
from mddf.blocks.member import as_member, member_class
from mddf.blocks.regressor import RegressionForestBlock
from mddf.forests import LGBM_PARAMS, make_lgbm
from mddf.forests.boosting import EARLY_STOPPING_ROUNDS, LGBM_ES_CLASSIFIER_ROUNDS
from mddf.storage import StoredModel

SMALL = dict(n_estimators=6, max_layers=2, n_tolerant_layers=2, min_error_reduction=0.0, random_state=0, n_jobs=1)


def _table(n=400, seed=0):
    """Four numeric columns (5% missing), a five-category column (5% missing) that carries signal, a label and a
    target."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=[f"x{j}" for j in range(4)])
    X = X.mask(rng.random(X.shape) < 0.05)
    colour = pd.Series(rng.choice(["red", "green", "blue", "grey", "pink"], n))
    X["colour"] = pd.Categorical(colour.mask(rng.random(n) < 0.05))
    z = X.drop(columns="colour").fillna(0)
    signal = z.x0 * z.x1 + z.x2 + 2 * X.colour.isin(["green", "pink"])
    y = np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3]))
    return X, y, signal.to_numpy() + 0.1 * rng.normal(size=n)


def _block_data(n=400, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 5).astype(np.float32)
    X[:, 4] = rng.randint(0, 6, n)  # category codes
    y = (X[:, 0] > 0.5).astype(int) + np.isin(X[:, 4], (1, 4))
    flipped = rng.rand(n) < 0.15
    y[flipped] = rng.randint(0, 3, flipped.sum())  # noise that later rounds would learn
    X[rng.rand(n, 5) < 0.05] = np.nan
    return X, y


def _fit_block(kind, X, y, seed=0, categorical=None, n_jobs=1):
    block = ForestBlock(("rf", kind), 5, None, 3, "kfold", "resample", n_jobs, "hist")
    weight, n_classes = np.full(len(y), 1 / len(y)), len(np.unique(y))
    oof = block.fit(X, y, weight, n_classes, np.random.RandomState(seed), categorical=categorical)
    return block, oof


# ---------------------------------------------------------------- settings, and lightgbm missing
def test_the_regression_members_pin_lightgbms_defaults_and_differ_only_in_early_stopping():
    plain = make_lgbm(task="regression", kind="lgbm").get_params()
    early = make_lgbm(task="regression", kind="lgbm_es").get_params()
    assert {k: plain[k] for k in LGBM_PARAMS} == LGBM_PARAMS
    assert plain["n_estimators"] == 100 and plain["learning_rate"] == 0.1 and plain["num_leaves"] == 31
    assert plain["min_child_weight"] == 1e-3 and plain["reg_lambda"] == 0.0
    assert plain["n_jobs"] == 1 and plain["deterministic"] and plain["force_row_wise"]
    assert early["early_stopping_round"] == EARLY_STOPPING_ROUNDS and "early_stopping_round" not in plain
    assert {k for k in early if k not in plain or early[k] != plain[k]} == {"early_stopping_round"}
    assert type(make_lgbm(task="regression")).__name__ == "LGBMRegressor"
    with pytest.raises(ValueError, match="unknown LightGBM member 'lgbm_fast'"):
        make_lgbm(kind="lgbm_fast")


def test_the_classification_members_bound_the_newton_step_and_stop_before_their_round_cap():
    plain, early = make_lgbm(kind="lgbm").get_params(), make_lgbm(kind="lgbm_es").get_params()
    assert type(make_lgbm()).__name__ == "LGBMClassifier"
    assert plain["min_child_weight"] == early["min_child_weight"] == 1.0
    assert plain["reg_lambda"] == early["reg_lambda"] == 1.0
    assert plain["n_estimators"] == 100 and early["n_estimators"] == LGBM_ES_CLASSIFIER_ROUNDS == 1000
    changed = {k for k in LGBM_PARAMS if plain[k] != LGBM_PARAMS[k]}
    assert changed == {"min_child_weight", "reg_lambda"}


def _rare_class_data(n=10_000, seed=0):
    """Four uniform columns, three common classes from two of them with 10% label noise, and a fourth class of 0.2%
    of the rows in a corner of the first column: 20-row leaves of it have Hessians near its prior."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 4).astype(np.float32)
    y = (X[:, 1] > 0.5).astype(int) + (X[:, 2] > 0.6)
    y[(X[:, 0] > 0.996) & (rng.rand(n) < 0.8)] = 3
    noisy = rng.rand(n) < 0.1
    y[noisy] = rng.randint(0, 3, noisy.sum())
    return X, y


def _largest_leaf(block):
    """The largest absolute leaf value of a block's LightGBM fold models."""
    largest = 0.0
    for models in block.models_:
        for model in models:
            frame = model.estimator.booster_.trees_to_dataframe()
            largest = max(largest, float(frame.loc[frame.left_child.isna(), "value"].abs().max()))
    return largest


@pytest.mark.parametrize("kind", [pytest.param("lgbm", marks=pytest.mark.slow), "lgbm_es"])
def test_a_class_of_two_rows_a_thousand_does_not_make_the_classification_member_diverge(kind):
    # With LightGBM's own min_child_weight=1e-3 and reg_lambda=0 this block's leaves reach 56 (lgbm_es) and its
    # step keeps growing; bounded by a Hessian sum of 1 and a penalty of 1, they stay within the single digits.
    X, y = _rare_class_data()
    assert 10 <= np.bincount(y)[3] <= 0.003 * len(y)
    block = ForestBlock((kind,), 5, None, 3, "kfold", "resample", 1, "hist")
    block.fit(X, y, np.full(len(y), 1 / len(y)), 4, np.random.RandomState(0))
    assert _largest_leaf(block) < 10


def test_many_classes_with_rare_ones_stop_on_the_held_out_loss_not_the_round_cap():
    rng = np.random.RandomState(1)
    X = rng.rand(6000, 5).astype(np.float32)
    y = np.minimum((X[:, 0] * 12).astype(int), 11)
    y[(X[:, 1] > 0.997)] = 12  # a thirteenth class of 0.3% of the rows
    block = ForestBlock(("lgbm_es",), 5, None, 3, "kfold", "resample", 1, "hist")
    oof = block.fit(X, y, np.full(len(y), 1 / len(y)), 13, np.random.RandomState(0))
    rounds = [model.estimator.booster_.current_iteration() for model in block.models_[0]]
    assert max(rounds) < LGBM_ES_CLASSIFIER_ROUNDS
    assert _largest_leaf(block) < 10
    assert np.mean(oof[:, 0].argmax(axis=1) == y) > 0.9


def test_named_kinds_and_lightgbm_instances_are_the_lightgbm_member():
    assert member_class("lgbm") is LightGBMMember and member_class("lgbm_es") is LightGBMMember
    assert member_class(lightgbm.LGBMClassifier()) is LightGBMMember
    assert member_class(lightgbm.LGBMRegressor()) is LightGBMMember


@pytest.mark.parametrize("kind", ["lgbm", "lgbm_es"])
def test_without_lightgbm_naming_the_member_is_a_one_line_error_that_says_how_to_install_it(kind, monkeypatch):
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # None in sys.modules: import lightgbm fails
    with pytest.raises(ImportError, match=r"forest_types\[1\] \('lgbm.*'\): .* pip install lightgbm") as error:
        as_member(kind, position=1)
    assert "\n" not in str(error.value)
    X, y, _ = _table(n=60)
    with pytest.raises(ImportError, match="pip install lightgbm"):
        MDDFClassifier(forest_types=("rf", kind), **SMALL).fit(X, y)


# ---------------------------------------------------------------- a block's fold models
def test_the_early_stopped_member_stops_on_held_out_rows_and_the_other_fits_every_round():
    X, y = _block_data()
    stopped, _ = _fit_block("lgbm_es", X, y)
    assert all(0 < model.estimator.best_iteration_ < LGBM_ES_CLASSIFIER_ROUNDS for model in stopped.models_[1])
    plain, _ = _fit_block("lgbm", X, y)
    assert all(model.estimator.booster_.current_iteration() == 100 for model in plain.models_[1])


def test_an_early_stopped_member_of_few_rows_fits_them_all_and_every_round_as_the_other():
    X, y = _block_data(n=60)
    block, oof = _fit_block("lgbm_es", X, y)  # 40 distinct rows a fold: none to spare
    assert block.models_[1][0].estimator.get_params()["early_stopping_round"] is None
    _, plain = _fit_block("lgbm", X, y)
    np.testing.assert_array_equal(oof, plain)


@pytest.mark.parametrize("kind", ["lgbm", "lgbm_es"])
def test_a_seed_gives_the_same_bits_for_any_n_jobs_and_the_category_columns_are_categorical(kind):
    X, y = _block_data()
    categorical = np.array([False] * 4 + [True])
    block, oof = _fit_block(kind, X, y, categorical=categorical)
    again, oof_again = _fit_block(kind, X, y, categorical=categorical, n_jobs=2)
    np.testing.assert_array_equal(oof_again, oof)
    np.testing.assert_array_equal(again.predict_proba(X), block.predict_proba(X))
    assert all(model.estimator.booster_.params["categorical_column"] == [4] for model in block.models_[1])
    numeric, oof_numeric = _fit_block(kind, X, y)
    assert "categorical_column" not in numeric.models_[1][0].estimator.booster_.params
    assert not np.array_equal(oof_numeric[:, 1], oof[:, 1])  # the category column read as categories
    assert (oof[:, 1].argmax(axis=1) == y).mean() > 0.7
    importances = block.members()[1].importances(block.models_[1][0], X.shape[1])
    assert importances.shape == (5,) and np.isclose(importances.sum(), 1.0)  # normalised gains, as XGBoost's


@pytest.mark.parametrize("kind", ["lgbm", "lgbm_es"])
def test_the_fold_models_attributions_add_up_to_what_the_member_predicts(kind):
    X, y = _block_data()
    block, _ = _fit_block(kind, X, y, categorical=np.array([False] * 4 + [True]))
    member = block.members()[1]
    binary = (y > 0).astype(int)
    two, _ = _fit_block(kind, X, binary)
    for blk, width in ((block, 3), (two, 2)):
        for model in blk.models_[1]:
            base, values = member.attributions(model, X, None, True, False, width)
            assert np.abs(base + values.sum(axis=1) - member.predict(model, X, None, True)).max() < 1e-9


def test_a_regression_block_stores_its_fold_models_and_reads_them_back(tmp_path):
    from mddf.storage import ModelStore

    X, y = _block_data()
    target = np.nan_to_num(X[:, 0]) * 3 + np.isin(X[:, 4], (1, 4))
    store = ModelStore.claim(str(tmp_path / "models"))
    stored = RegressionForestBlock(("rf", "lgbm_es"), 4, None, 1.0, 2, 1, store=store, name="l1")
    stored.fit(X, target, np.ones(len(y)), np.random.RandomState(0))
    in_memory = RegressionForestBlock(("rf", "lgbm_es"), 4, None, 1.0, 2, 1)
    in_memory.fit(X, target, np.ones(len(y)), np.random.RandomState(0))
    member = stored.members()[1]
    for handle, model in zip(stored.models_[1], in_memory.models_[1]):
        assert isinstance(handle, StoredModel)
        loaded = member.load(handle.record, store.path)
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(stored.predict(X), in_memory.predict(X))


# ---------------------------------------------------------------- in the cascades
def test_the_classifier_with_the_member_predicts_explains_and_saves_bit_for_bit(tmp_path):
    import mddf

    X, y, _ = _table()
    clf = MDDFClassifier(forest_types=("rf", "crf", "lgbm_es"), **SMALL).fit(X, y)
    proba = clf.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1) and (clf.predict(X) == y).mean() > 0.8
    again = MDDFClassifier(forest_types=("rf", "crf", "lgbm_es"), **dict(SMALL, n_jobs=2)).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), proba)
    for fast in (False, True):
        explained = clf.explain(X.iloc[:50], fast=fast)
        assert np.abs(explained.base_values + explained.values.sum(axis=1) - proba[:50]).max() < 1e-6
    clf.save(tmp_path / "clf")
    np.testing.assert_array_equal(mddf.load(tmp_path / "clf").predict_proba(X), proba)


def test_the_regressor_with_the_member_fits_the_residuals_and_explains():
    X, _, target = _table()
    reg = CascadeForestRegressor(forest_types=("rf", "lgbm"), **SMALL).fit(X, target)
    assert reg.score(X, target) > 0.8
    explained = reg.explain(X.iloc[:50])
    assert np.abs(explained.base_values + explained.values.sum(axis=1) - reg.predict(X.iloc[:50])).max() < 1e-6
    again = CascadeForestRegressor(forest_types=("rf", "lgbm"), **SMALL).fit(X, target)
    np.testing.assert_array_equal(again.predict(X), reg.predict(X))


def test_lightgbm_instances_as_a_member_and_as_the_predictor_are_explained_by_their_own_treeshap():
    X, y, _ = _table(n=240)
    instance = lightgbm.LGBMClassifier(n_estimators=8, n_jobs=1, verbose=-1)
    clf = MDDFClassifier(forest_types=("rf", instance), predictor=instance, **SMALL).fit(X, y)
    assert all(type(model).__name__ == "LightGBMFoldModel" for model in clf.layers_[0].models_[1])
    explained = clf.explain(X.iloc[:40])
    assert np.abs(explained.base_values + explained.values.sum(axis=1) - clf.predict_proba(X.iloc[:40])).max() < 1e-6


@pytest.mark.parametrize("estimator", [MDDFClassifier, CascadeForestRegressor])
def test_a_fit_whose_lightgbm_members_cannot_split_on_so_few_rows_says_so(estimator):
    X, y, target = _table(n=12)
    y = (np.arange(12) % 2) if estimator is MDDFClassifier else target
    params = dict(SMALL, max_layers=1, n_folds=2)
    with pytest.warns(
        UserWarning,
        match=r"forest_types\[0\] \(LGBM\w+\): a fold model trains on 6 distinct rows, fewer "
        r"than the 40 LightGBM needs to split once \(min_child_samples=20",
    ) as caught:
        estimator(forest_types=("lgbm", "rf"), **params).fit(X, y)
    assert sum("LightGBM needs to split" in str(w.message) for w in caught) == 1  # once a layer, not a fold
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # enough rows: no warning
        X, y, target = _table(n=200)
        estimator(forest_types=("lgbm", "rf"), **params).fit(X, y if estimator is MDDFClassifier else target)
