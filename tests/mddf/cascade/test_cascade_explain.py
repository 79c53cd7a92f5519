"""explain(): each row's prediction attributed to the input columns, through the layers.

The path-dependent attributions are the Shapley values of the one-layer cascade's value function (found here by
enumeration; centring them on a background is tests/mddf/cascade/test_background.py's), add
up to predict_proba (predict) on every row whatever the cascade's settings, leave a column the target never uses
near zero, do not depend on n_jobs, the chunks or a pickle, and bad input gets predict's errors.
"""

import pickle
import sys
from itertools import combinations
from math import factorial

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.trees.attribution import decode_tree
from mddf.trees.packing import decode_shares

SMALL = dict(n_estimators=6, max_layers=3, n_tolerant_layers=3, min_error_reduction=0.0, random_state=0, n_jobs=1)
FORESTS = ("rf", "crf")


def _table(n=240, seed=0):
    """Six numeric columns (5% missing), a three-category column, a label and a target that use both; column x5
    is noise the target never uses."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"x{j}" for j in range(6)])
    X = X.mask(rng.random(X.shape) < 0.05)
    X["colour"] = pd.Categorical(rng.choice(["red", "green", "blue"], n))
    z = X.fillna(0)
    signal = z.x0 * z.x1 + 2 * z.x2 + z.x3 + (X.colour == "green") - 0.5 * z.x4
    y = np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3]))
    return X, np.array(["low", "mid", "high"])[y], signal.to_numpy() + 0.1 * rng.normal(size=n)


@pytest.fixture(scope="module")
def table():
    return _table()


def _adds_up(explanation, prediction, tol=1e-6):
    found = explanation.base_values + explanation.values.sum(axis=1)
    return np.abs(found - prediction).max() < tol


# ------------------------------------------------------------------ the Shapley values of a one-layer cascade
def _tree_value(nodes, codes_row, known):
    """The tree's output for the row with only the columns of ``known`` known (the path-dependent expectation)."""
    node = 0
    stack, total = [(0, 1.0)], 0.0
    while stack:
        node, weight = stack.pop()
        f = nodes.feature[node]
        if f < 0:
            total = total + weight * nodes.value[node]
        elif f in known:
            left = int(codes_row[f]) <= nodes.split_bin[node]  # numeric columns, no missing value
            stack.append((node + 1 if left else nodes.right[node], weight))
        else:
            s = nodes.left_share[node]
            stack += [(node + 1, weight * s), (nodes.right[node], weight * (1 - s))]
    return total


def test_a_one_layer_cascade_gets_the_shapley_values_of_its_value_function_found_by_enumeration():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 6)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 3] > 0.8)
    clf = MDDFClassifier(forest_types=FORESTS, n_estimators=4, max_layers=1, n_folds=2, max_depth_factor=2,
                         calibration=None, random_state=0).fit(X, y)  # fmt: skip
    trees, codes = [], None
    for models in clf.layers_[0].models_:
        for forest in models:
            codes = forest.binner.transform(X[:4])
            shares = decode_shares(forest.left_shares)
            trees += [decode_tree(forest.packed, t, shares, 3) for t in range(forest.n_trees)]

    def value(row, known):  # every tree counts alike: each member's fold models hold as many trees
        return np.mean([_tree_value(nodes, codes[row], known) for nodes in trees], axis=0)

    explained = clf.explain(X[:4], background="tree_path_dependent")  # the trees' own value function
    for row in range(4):
        expected = np.zeros((6, 3))
        for i in range(6):
            others = [j for j in range(6) if j != i]
            for size in range(6):
                weight = factorial(size) * factorial(5 - size) / factorial(6)
                for subset in combinations(others, size):
                    expected[i] += weight * (value(row, {*subset, i}) - value(row, set(subset)))
        assert np.allclose(explained.values[row], expected, atol=1e-10)
        assert np.allclose(explained.base_values[row], value(row, set()), atol=1e-12)


# ------------------------------------------------------------------ additivity, whatever the settings
CLASSIFIERS = {
    "calibrated": dict(forest_types=FORESTS),
    "uncalibrated": dict(forest_types=FORESTS, calibration=None),
    "default members": dict(),  # with the XGBoost member
    "early-stopped member": dict(forest_types=("rf", "gbdt_es")),
    "pairs": dict(forest_types=FORESTS, pair_features="auto"),
    "predictor": dict(forest_types=FORESTS, predictor="xgboost"),
    "predictor forest, auto": dict(forest_types=FORESTS, predictor="forest", predictor_input="auto"),
    "per forest, additive": dict(forest_types=FORESTS, passed_features="per_forest", cumulative_margin="additive"),
    "stacking, oob": dict(forest_types=FORESTS, input_features="stacking", class_vectors="oob"),
    "screening": dict(forest_types=FORESTS, screening_accuracy=0.8),
    "exact trees": dict(forest_types=FORESTS, tree_method="exact", categorical_features=None),
}


@pytest.mark.parametrize("settings", list(CLASSIFIERS), ids=list(CLASSIFIERS))
def test_the_classifiers_attributions_add_up_to_predict_proba_on_every_row(table, settings):
    X, y, _ = table
    if settings == "exact trees":
        X = X.drop(columns="colour")
    clf = MDDFClassifier(**SMALL, **CLASSIFIERS[settings]).fit(X, y)
    proba = clf.predict_proba(X)
    for fast in (False, True):
        explained = clf.explain(X, fast=fast)
        assert explained.values.shape == (len(X), X.shape[1], 3)
        assert list(explained.feature_names) == list(X.columns)
        assert list(explained.output_names) == list(clf.classes_)
        assert _adds_up(explained, proba)


REGRESSORS = {
    "residual": dict(),
    "target y": dict(target="y"),
    "predictor": dict(predictor="xgboost"),
    "gbdt member, pairs": dict(forest_types=("rf", "gbdt"), pair_features="auto"),
}


@pytest.mark.parametrize("settings", list(REGRESSORS), ids=list(REGRESSORS))
def test_the_regressors_attributions_add_up_to_predict_on_every_row(table, settings):
    X, _, target = table
    reg = CascadeForestRegressor(**SMALL, **REGRESSORS[settings]).fit(X, target)
    for fast in (False, True):
        explained = reg.explain(X, fast=fast)
        assert explained.values.shape == (len(X), X.shape[1]) and explained.output_names is None
        assert _adds_up(explained, reg.predict(X))


@pytest.mark.parametrize(
    "estimator",
    [
        CascadeForestRegressor(**SMALL),
        MDDFClassifier(**SMALL, forest_types=FORESTS, screening_accuracy=0.9),
        MDDFClassifier(**SMALL, forest_types=FORESTS, predictor="xgboost"),
    ],
    ids=["regressor", "classifier, screening", "classifier, predictor"],
)
def test_each_layer_is_explained_on_the_features_the_prediction_passes_it_bit_for_bit(table, estimator, monkeypatch):
    # The passed features are the prediction's own, not the sums of their attributions: those differ by rounding,
    # which moves a value that sits on a split's threshold to the other side (numeric_interaction: 6 rows of 200).
    from mddf.cascade.replay import LayerRoute

    X, y, target = table
    model = estimator.fit(X, target if isinstance(estimator, CascadeForestRegressor) else y)
    seen, layer_input = [], LayerRoute.layer_input

    def recording(self, rows, passed, t):
        out = layer_input(self, rows, passed, t)
        seen.append((t, np.array(out)))
        return out

    monkeypatch.setattr(LayerRoute, "layer_input", recording)
    model.predict(X)
    predicted, seen[:] = dict(seen), []
    model.explain(X, fast=True, background="tree_path_dependent")  # the rows of X alone
    assert model.n_layers_ > 1 and {t for t, _ in seen} == set(predicted) and 2 in predicted
    assert all(np.array_equal(features, predicted[t], equal_nan=True) for t, features in seen)


def test_a_categorical_column_is_one_column_named_by_its_name_and_its_values_are_shown_as_given(table):
    X, y, _ = table
    clf = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    explained = clf.explain(X[:20])
    assert explained.feature_names[-1] == "colour"
    assert list(explained.display_data[:, -1]) == list(X.colour[:20])
    assert np.array_equal(explained.data[:, -1], X.colour.cat.codes[:20].to_numpy().astype(float))
    unseen = X[:20].copy()
    unseen["colour"] = pd.Categorical(["purple"] * 20)  # an unseen category is a missing value, as in predict
    assert _adds_up(clf.explain(unseen), clf.predict_proba(unseen))


def test_a_column_the_target_never_uses_gets_little_of_the_attributions(table):
    X, _, target = table
    reg = CascadeForestRegressor(**SMALL).fit(X, target)
    strength = np.abs(reg.explain(X).values).mean(axis=0)
    # x5 is noise, which fully grown trees on 240 rows still split now and then: the least of every column's
    assert strength[5] == strength.min() and strength[5] < 0.06 * strength.sum()


# ------------------------------------------------------------------ the same values, however they are computed
def test_the_values_do_not_depend_on_n_jobs_the_chunks_or_a_pickle(table):
    X, y, _ = table
    clf = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    once = clf.explain(X)
    assert np.array_equal(clf.explain(X).values, once.values)  # deterministic
    assert np.array_equal(clf.explain(X, chunk_rows=37).values, once.values)
    clf.set_params(n_jobs=2)
    assert np.array_equal(clf.explain(X).values, once.values)
    copy = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(copy.explain(X).values, once.values)
    assert np.array_equal(copy.explain(X).base_values, once.base_values)


def test_two_columns_that_carry_the_same_information_share_the_prediction_and_noise_gets_next_to_none():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 3))
    X[:, 1] = -X[:, 0]  # the trees may split either: together they carry the prediction
    y = (X[:, 0] > 0).astype(int)
    clf = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    values = clf.explain(X[:50]).values[:, :, 1]
    assert np.abs(values[:, 0]).mean() > 0.2 * np.abs(values[:, :2].sum(axis=1)).mean()  # neither is left out
    assert np.abs(values[:, 1]).mean() > 0.2 * np.abs(values[:, :2].sum(axis=1)).mean()
    assert np.abs(values[:, 2]).mean() < 0.05 * np.abs(values[:, :2].sum(axis=1)).mean()


def test_a_model_stored_in_model_dir_explains_as_in_memory(table, tmp_path):
    X, y, _ = table
    in_memory = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    stored = MDDFClassifier(forest_types=FORESTS, model_dir=tmp_path / "models", **SMALL).fit(X, y)
    assert np.array_equal(stored.explain(X[:30]).values, in_memory.explain(X[:30]).values)


# ------------------------------------------------------------------ what it returns, and bad input
def test_without_shap_the_result_has_the_explanations_fields(table, monkeypatch):
    X, y, _ = table
    clf = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    with_shap = clf.explain(X[:10])
    monkeypatch.setitem(sys.modules, "shap", None)  # shap not installed
    plain = clf.explain(X[:10])
    assert type(plain).__name__ == "Attributions"
    for field in ("values", "base_values", "data"):
        assert np.array_equal(getattr(plain, field), getattr(with_shap, field), equal_nan=True)
    assert plain.feature_names == list(with_shap.feature_names)


def test_many_rows_show_a_progress_bar_and_one_chunk_none(table, capsys):
    X, y, _ = table
    clf = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    clf.explain(X, chunk_rows=50, progress=True)
    assert "explain" in capsys.readouterr().err
    clf.explain(X)
    assert "explain" not in capsys.readouterr().err


def test_bad_input_gets_predicts_errors(table):
    X, y, _ = table
    with pytest.raises(NotFittedError):
        MDDFClassifier().explain(X)
    clf = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    for bad in (X.drop(columns="x3"), X.to_numpy()[:, :3]):
        with pytest.raises(ValueError) as predicted:
            clf.predict_proba(bad)
        with pytest.raises(ValueError) as explained:
            clf.explain(bad)
        assert str(explained.value) == str(predicted.value)
    with pytest.raises(ValueError, match="chunk_rows"):
        clf.explain(X, chunk_rows=0)


def test_members_and_predictors_that_cannot_be_explained_exactly_are_named(table):
    X, y, _ = table
    X = X.drop(columns="colour").fillna(0.0)
    member = MDDFClassifier(forest_types=("rf", LogisticRegression()), **SMALL).fit(X, y)
    with pytest.raises(ValueError, match=r"forest_types\[1\] \(LogisticRegression\)"):
        member.explain(X)
    predictor = MDDFClassifier(forest_types=FORESTS, predictor="hgb", **SMALL).fit(X, y)
    with pytest.raises(ValueError) as info:
        predictor.explain(X)
    assert str(info.value).startswith("predictor (HistGradientBoostingClassifier): explain() attributes exactly")
    # a predictor, not a member: "fit without this member" named neither what it was nor the way out
    assert "member" not in str(info.value) and str(info.value).endswith(
        "this predictor is none of them; fit with predictor='xgboost', 'forest' or None to explain the model"
    )
    vector = MDDFClassifier(forest_types=("rf", "gbdt_vector"), **SMALL).fit(X, y)
    with pytest.raises(ValueError, match=r"forest_types\[1\] \(XGBClassifier\): XGBoost computes no contributions"):
        vector.explain(X)


def test_a_model_whose_trees_lack_their_nodes_weights_says_to_fit_it_again(table):
    X, y, _ = table
    clf = MDDFClassifier(forest_types=FORESTS, **SMALL).fit(X, y)
    for block in clf.layers_:
        for models in block.models_:
            for i, forest in enumerate(models):  # unpickled from forests fitted before the weights were stored
                models[i] = type(forest).__new__(type(forest))
                models[i].__setstate__({name: value for name, value in vars(forest).items() if name != "left_shares"})
    assert clf.predict_proba(X).shape == (len(X), 3)
    with pytest.raises(ValueError, match="fit the model again"):
        clf.explain(X)
