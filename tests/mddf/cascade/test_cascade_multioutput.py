"""CascadeForestRegressor with a 2-D y (several targets): multi-output trees, every output passed on, (n, K) out."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_regression
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.multioutput import MultiOutputRegressor

from mddf import CascadeForestRegressor, PairFeatures
from mddf.cascade.base import begin_growth
from mddf.cascade.multioutput import UNSUPPORTED
from mddf.cascade.replay import Visits

FAST = dict(n_estimators=10, max_layers=3, forest_types=("rf", "crf"), pair_features=None, random_state=0)
N_OUTPUTS = 3


@pytest.fixture(scope="module")
def data():
    X, Y = make_regression(300, n_features=6, n_targets=N_OUTPUTS, n_informative=4, noise=5.0, random_state=0)
    return X[:200], Y[:200], X[200:], Y[200:]


@pytest.fixture(scope="module")
def fitted(data):
    X, Y, _, _ = data
    return CascadeForestRegressor(n_tolerant_layers=3, **FAST).fit(X, Y)


@pytest.mark.slow
def test_predict_returns_one_column_per_target_and_score_is_their_mean_r2(fitted, data):
    _, _, Xt, Yt = data
    predicted = fitted.predict(Xt)
    assert predicted.shape == (100, N_OUTPUTS)
    assert fitted.score(Xt, Yt) == pytest.approx(r2_score(Yt, predicted))  # uniform average over the targets
    assert r2_score(Yt, predicted, multioutput="raw_values").min() > 0.3  # every target is learnt
    stages = list(fitted.staged_predict(Xt))
    assert len(stages) == fitted.n_layers_ and all(s.shape == (100, N_OUTPUTS) for s in stages)
    assert np.array_equal(stages[-1], predicted)


@pytest.mark.slow
def test_every_member_passes_every_outputs_prediction_on(fitted, data):
    X, _, Xt, _ = data
    assert fitted.n_layers_ >= 2
    n_passed = 2 * N_OUTPUTS  # two members, three outputs each
    assert fitted.layers_[1].n_features_in_ == X.shape[1] + n_passed
    assert fitted.oof_features_[0].shape == (200, n_passed)
    names = fitted.get_feature_names_out(layer=1)
    assert list(names[:2]) == ["layer1_rf0_output0_prediction", "layer1_rf0_output1_prediction"]
    assert fitted.transform(Xt, layer=1).shape == (100, n_passed) == (100, len(names))
    record = fitted.train_history_[0]
    assert {"oof_mse", "oof_r2"} <= set(record) and len(record["forest_oof_mse"]) == 2


@pytest.mark.slow
def test_one_layer_on_a_repeated_target_is_the_one_target_model(data):
    # the squared error summed over (y, y) is exactly twice that of y (a power of two: no rounding moves), so every
    # split, draw and leaf is the one-target tree's: a layer-1 model of [y, y] predicts the one-target model twice
    X, Y, Xt, _ = data
    settings = dict(FAST, max_layers=1, forest_types=("rf", "crf", "et"))
    one = CascadeForestRegressor(**settings).fit(X, Y[:, 0]).predict(Xt)
    both = CascadeForestRegressor(**settings).fit(X, np.column_stack([Y[:, 0], Y[:, 0]])).predict(Xt)
    assert np.array_equal(both[:, 0], one)
    assert np.array_equal(both[:, 1], one)


@pytest.mark.slow
def test_xgboost_members_fit_every_target_and_the_model_pickles(data, tmp_path):
    X, Y, Xt, _ = data
    model = CascadeForestRegressor(**dict(FAST, forest_types=("rf", "gbdt"), max_layers=2, model_dir=tmp_path / "m"))
    predicted = model.fit(X, Y).predict(Xt)
    assert predicted.shape == (100, N_OUTPUTS)
    assert np.array_equal(pickle.loads(pickle.dumps(model)).predict(Xt), predicted)
    assert np.array_equal(model.to_memory().predict(Xt), predicted)
    stored = model.explain(Xt[:20], background="tree_path_dependent")  # its models read back from model_dir
    assert np.array_equal(model.to_memory().explain(Xt[:20], background="tree_path_dependent").values, stored.values)


@pytest.mark.slow
def test_lightgbm_members_fit_one_regressor_a_target_each_the_one_target_members_model(data, tmp_path):
    # LightGBM fits one target: each fold model is one regressor a target, on the same rows, seed and held-out rows,
    # so a layer-1 member of [y, y] predicts the one-target member twice; instances of LGBMRegressor too
    import lightgbm

    X, Y, Xt, _ = data
    for kind in ("lgbm", "lgbm_es", lightgbm.LGBMRegressor(n_estimators=20, verbose=-1)):
        settings = dict(FAST, max_layers=1, forest_types=(kind,))
        one = CascadeForestRegressor(**settings).fit(X, Y[:, 0]).predict(Xt)
        both = CascadeForestRegressor(**settings).fit(X, np.column_stack([Y[:, 0], Y[:, 0]])).predict(Xt)
        assert np.array_equal(both[:, 0], one) and np.array_equal(both[:, 1], one)
    model = CascadeForestRegressor(**dict(FAST, forest_types=("rf", "lgbm_es"), model_dir=tmp_path / "m")).fit(X, Y)
    predicted = model.predict(Xt)
    assert predicted.shape == (100, N_OUTPUTS)
    assert np.array_equal(pickle.loads(pickle.dumps(model)).predict(Xt), predicted)
    assert np.array_equal(model.to_memory().predict(Xt), predicted)
    fold_model = model.layers_[0].models_[1][0]  # read back from model_dir
    assert [type(e).__name__ for e in fold_model.estimator.estimators] == ["LGBMRegressor"] * N_OUTPUTS


@pytest.mark.slow
def test_a_multi_output_regressor_instance_is_a_member(data):
    X, Y, Xt, _ = data
    model = CascadeForestRegressor(**dict(FAST, forest_types=("rf", Ridge()), max_layers=2, validation_fraction=0.25))
    assert model.fit(X, Y).predict(Xt).shape == (100, N_OUTPUTS)
    assert "val_r2" in model.train_history_[0]


@pytest.mark.parametrize(
    "bad, message",
    [
        (lambda Y: Y[:, :1], r"y has shape \(200, 1\), a 2-D y with a single column; pass y.ravel\(\)"),
        (lambda Y: np.where(np.arange(200)[:, None] == 3, np.nan, Y), "Input y contains NaN"),
        (lambda Y: Y[:, :, None], r"expected \(n_samples,\) or \(n_samples, n_outputs\)"),
    ],
    ids=["one column", "nan", "3-d"],
)
def test_a_bad_target_gets_a_one_line_error(data, bad, message):
    X, Y, _, _ = data
    with pytest.raises(ValueError, match=message) as error:
        CascadeForestRegressor(**FAST).fit(X, bad(Y))
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "setting, message",
    [
        (dict(predictor="xgboost"), r"a 2-D y \(several targets\) is not supported with predictor='xgboost' yet"),
        (dict(monotonic_cst=[1, 0, 0, 0, 0, 0]), "not supported with monotonic_cst=.* yet; set monotonic_cst=None"),
        (dict(target_statistics="columns"), "target_statistics='columns' yet; set target_statistics=None"),
        (dict(member_weights="loss"), "member_weights='loss' yet; set member_weights='equal'"),
        (dict(pair_features=PairFeatures()), "not supported with a PairFeatures search yet; set pair_features=None"),
        (
            dict(forest_types=("rf", HistGradientBoostingRegressor())),
            r"forest_types\[1\] \(HistGradientBoostingRegressor\) does not fit several targets",
        ),
    ],
    ids=[
        "predictor",
        "monotone",
        "target statistics",
        "member weights",
        "pair search",
        "one-target instance",
    ],
)
def test_what_several_targets_do_not_support_yet_is_refused_in_one_line(data, setting, message):
    X, Y, _, _ = data
    assert set(UNSUPPORTED) == {"predictor", "monotonic_cst", "target_statistics", "member_weights"}
    with pytest.raises(ValueError, match=message) as error:
        CascadeForestRegressor(**dict(FAST, **setting)).fit(X, Y)
    assert "\n" not in str(error.value)


@pytest.mark.slow
def test_the_default_model_fits_several_targets_without_the_pair_search(data):
    X, Y, Xt, _ = data
    model = CascadeForestRegressor(n_estimators=10, max_layers=2, random_state=0).fit(X, Y)
    assert model.pair_features_ is None and model.predict(Xt).shape == (100, N_OUTPUTS)
    explained = model.explain(Xt)
    assert explained.values.shape == (100, X.shape[1], N_OUTPUTS)
    assert np.abs(explained.base_values + explained.values.sum(axis=1) - model.predict(Xt)).max() < 1e-6


# ------------------------------------------------------------------ the final mixture by ensemble selection
@pytest.mark.slow
def test_ensemble_selection_mixes_every_targets_predictions_by_one_weight_a_member(data):
    # the library's loss is the squared error averaged over the targets: the selected mixture's is the lowest of it
    X, Y, Xt, _ = data
    settings = dict(FAST, n_tolerant_layers=3)
    model = CascadeForestRegressor(**settings, final_mixture="selection")
    growth = begin_growth(model, X, Y)
    for t in range(1, model.max_layers + 1):
        if growth.grow(t):
            break
    state, fitted = growth.state, growth.finish()
    weights, members = fitted.selection_weights, state.oof_members[: len(fitted.layers)]
    assert weights.shape == (len(fitted.layers), 2) and weights.min() >= 0 and weights.sum() == pytest.approx(1.0)
    assert members[0].shape == (len(Y), 2, N_OUTPUTS)
    mixed = sum(weights[t, j] * layer[:, j] for t, layer in enumerate(members) for j in range(2))
    mse = lambda prediction: np.mean((prediction - Y) ** 2)  # noqa: E731
    assert mse(mixed) <= min(mse(layer[:, j]) for layer in members for j in range(2))
    assert mse(mixed) <= min(mse(layer.mean(axis=1)) for layer in members)
    # prediction: the same mixture of the members' predictions of new rows; the layers are the default's
    model.fit(X, Y)
    default = CascadeForestRegressor(**settings).fit(X, Y)
    assert np.array_equal(model.transform(Xt, layer=1), default.transform(Xt, layer=1))
    visits = list(model.fitted_cascade_.replay(model._validated(Xt), Visits()))
    manual = sum(model.selection_weights_[v.t - 1, j] * v.members.value[:, j] for v in visits for j in range(2))
    assert model.predict(Xt).shape == (100, N_OUTPUTS)
    assert np.allclose(model.predict(Xt), manual, rtol=1e-12, atol=1e-9)


# ------------------------------------------------------------------ explain(): one attribution set per target
EXPLAINED = {
    "residual": dict(),
    "target y": dict(target="y"),
    "gbdt member": dict(forest_types=("rf", "gbdt")),
    "early-stopped member": dict(forest_types=("rf", "gbdt_es")),
    "ensemble selection": dict(final_mixture="selection"),
    "lightgbm member": dict(forest_types=("rf", "lgbm_es")),
}


@pytest.mark.slow
@pytest.mark.parametrize("settings", list(EXPLAINED), ids=list(EXPLAINED))
def test_explain_gives_one_set_of_attributions_per_target_that_adds_up_to_its_prediction(data, settings):
    X, Y, Xt, _ = data
    model = CascadeForestRegressor(n_tolerant_layers=3, **dict(FAST, **EXPLAINED[settings])).fit(X, Y)
    assert model.n_layers_ >= 2  # the second layer reads every target's predictions: their attributions are shared
    predicted = model.predict(Xt)
    for fast in (False, True):
        for background in (None, "tree_path_dependent"):
            explained = model.explain(Xt, fast=fast, background=background)
            assert explained.values.shape == (100, X.shape[1], N_OUTPUTS)
            assert explained.base_values.shape == (100, N_OUTPUTS)
            assert list(explained.output_names) == [f"output{k}" for k in range(N_OUTPUTS)]
            for k in range(N_OUTPUTS):  # each target's base and values add up to its own prediction
                found = explained.base_values[:, k] + explained.values[:, :, k].sum(axis=1)
                assert np.abs(found - predicted[:, k]).max() < 1e-6
    centred = model.explain(X[:40], background=X[:40]).values  # centred on those rows: each column's mean is 0
    assert np.abs(centred.mean(axis=0)).max() < 1e-9 * np.abs(centred).max()


@pytest.mark.slow
def test_each_targets_attributions_are_the_one_target_models_on_a_repeated_target(data):
    # a layer-1 model of [y, y] is the one-target model twice (see above): so is each target's explanation
    X, Y, Xt, _ = data
    settings = dict(FAST, max_layers=1)
    one = CascadeForestRegressor(**settings).fit(X, Y[:, 0])
    both = CascadeForestRegressor(**settings).fit(X, np.column_stack([Y[:, 0], Y[:, 0]]))
    for background in (None, "tree_path_dependent"):
        single, double = one.explain(Xt, background=background), both.explain(Xt, background=background)
        for k in range(2):
            assert np.allclose(double.values[:, :, k], single.values, rtol=0, atol=1e-12)
            assert np.allclose(double.base_values[:, k], single.base_values, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_each_target_is_credited_mostly_to_the_columns_it_reads():
    # target 0 reads columns 0 and 1, target 1 columns 2 and 3, none column 4. A multi-output tree's split serves
    # every target (its leaves' other targets move too) and each target's model also reads the other's predictions,
    # so the other columns get some of a target's attributions, but less than any column it reads
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    Y = np.column_stack([X[:, 0] + 2 * X[:, 1], X[:, 2] * X[:, 3] - X[:, 3]])
    model = CascadeForestRegressor(n_tolerant_layers=3, **FAST).fit(X, Y)
    assert model.n_layers_ >= 2
    strength = np.abs(model.explain(X[:100]).values).mean(axis=0)  # (columns, targets)
    for k, read in enumerate([[0, 1], [2, 3]]):
        others = [j for j in range(5) if j not in read]
        assert strength[read, k].min() > strength[others, k].max()
        assert strength[read, k].sum() > 2 * strength[others, k].sum()


def test_a_wrapped_one_target_regressor_is_accepted_as_a_member(data):
    X, Y, _, _ = data
    wrapped = MultiOutputRegressor(Ridge())
    model = CascadeForestRegressor(**dict(FAST, forest_types=(wrapped,), max_layers=1)).fit(X, Y)
    assert model.predict(X[:5]).shape == (5, N_OUTPUTS)
