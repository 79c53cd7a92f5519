"""explain()'s background: by default the training rows kept at fit, whose mean prediction is the base value (on a
table of 3% positives, near 0.03), the values still adding up to the prediction and averaging to zero over the
background; a user's rows (array or DataFrame) as well; the path-dependent base of the trees on request, as it was;
the kept rows move no other draw of the fit, and a model without them says what to pass."""

import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier, MDDFGridSearch
from mddf.cascade.attribution import pairs_of
from mddf.cascade.heads import Explaining
from mddf.cascade.replay import FinalOutput

SMALL = dict(forest_types=("rf", "crf"), n_estimators=6, max_layers=3, n_tolerant_layers=3, min_error_reduction=0.0,
             random_state=0, n_jobs=1)  # fmt: skip
PATH = "tree_path_dependent"


def _rare_positives(n=2000, seed=0):
    """Five numeric columns and a label whose positives are the top 3% of a score of two of them."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    return X, (score > np.quantile(score, 0.97)).astype(int)


def _frame(n=240, seed=1):
    """Four numeric columns (5% missing), a category column, three classes and a numeric target."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=[f"x{j}" for j in range(4)])
    X = X.mask(rng.random(X.shape) < 0.05)
    X["colour"] = pd.Categorical(rng.choice(["red", "green", "blue"], n))
    signal = X.fillna(0).eval("x0 * x1 + 2 * x2") + (X.colour == "green")
    y = np.array(["low", "mid", "high"])[np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3]))]
    return X, y, signal.to_numpy()


@pytest.fixture(scope="module")
def rare():
    X, y = _rare_positives()
    return X, y, MDDFClassifier(**SMALL).fit(X, y)


@pytest.fixture(scope="module")
def frame():
    return _frame()


def _adds_up(explained, prediction, tol=1e-6):
    return np.abs(explained.base_values + explained.values.sum(axis=1) - prediction).max() < tol


def test_on_a_table_of_3_percent_positives_the_base_is_the_mean_prediction_near_0_03(rare):
    X, y, clf = rare
    kept = clf.background_
    assert kept.shape == (100, 5) and kept.dtype == np.float32
    explained = clf.explain(X[:300])
    base = explained.base_values
    assert np.all(base == base[0])  # one base for every row
    assert np.abs(base[0] - clf.predict_proba(kept).mean(axis=0)).max() < 1e-3
    assert abs(base[0, 1] - 0.03) < 0.01 and abs(base[0, 1] - clf.predict_proba(X)[:, 1].mean()) < 0.01
    proba = clf.predict_proba(X[:300])
    for c in range(2):  # every class
        assert np.abs(base[:, c] + explained.values[:, :, c].sum(axis=1) - proba[:, c]).max() < 1e-6
    path = clf.explain(X[:300], background=PATH)  # the trees' expectations: far from the mean prediction here
    assert abs(path.base_values[0, 1] - 0.03) > 3 * abs(base[0, 1] - 0.03)


def test_the_kept_rows_are_training_rows_with_the_classes_shares(rare):
    X, y, clf = rare
    kept = clf.background_
    where = [np.flatnonzero((X.astype(np.float32) == row).all(axis=1)) for row in kept]
    assert all(len(found) == 1 for found in where)  # each a training row, none twice
    assert y[np.concatenate(where)].sum() == 3  # 3% of 100 rows


def test_the_backgrounds_own_attributions_average_to_zero_per_column_and_class(rare):
    X, y, clf = rare
    values = clf.explain(clf.background_).values
    assert np.abs(values.mean(axis=0)).max() < 1e-12
    assert np.abs(values).mean() > 1e-3  # not zero row by row


CLASSIFIERS = {
    "calibrated": dict(),
    "screening": dict(screening_accuracy=0.8),  # rows leaving early keep their layer's path-dependent base
    "predictor, pairs": dict(predictor="xgboost", pair_features="auto"),
}


@pytest.mark.parametrize("settings", list(CLASSIFIERS), ids=list(CLASSIFIERS))
def test_a_user_frame_as_background_gives_its_mean_prediction_as_base_and_the_values_add_up(frame, settings):
    X, y, _ = frame
    clf = MDDFClassifier(**{**SMALL, **CLASSIFIERS[settings]}).fit(X, y)
    background = X.iloc[::3]
    if settings == "screening":  # some rows left early, with their layer's base: it is shared among their columns
        path_bases = clf.explain(X, background=PATH).base_values
        assert len(np.unique(path_bases.round(9), axis=0)) > 1
    for fast in (False, True):
        explained = clf.explain(X, background=background, fast=fast)
        assert np.abs(explained.base_values - clf.predict_proba(background).mean(axis=0)).max() < 1e-3
        assert _adds_up(explained, clf.predict_proba(X))
        on_itself = clf.explain(background, background=background, fast=fast).values
        assert np.abs(on_itself.mean(axis=0)).max() < 1e-12


def test_the_regressor_centres_on_its_kept_rows_and_on_a_users_array(frame):
    X, _, target = frame
    numeric = X.drop(columns="colour").to_numpy()
    reg = CascadeForestRegressor(**SMALL).fit(numeric, target)
    for background, rows in ((None, reg.background_), (numeric[:40], numeric[:40])):
        explained = reg.explain(numeric, background=background)
        assert np.abs(explained.base_values - reg.predict(rows).mean()).max() < 1e-3
        assert _adds_up(explained, reg.predict(numeric))
        assert np.abs(reg.explain(rows, background=background).values.mean(axis=0)).max() < 1e-12


@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_the_path_dependent_option_is_the_composed_attributions_untouched(frame, task):
    X, y, target = frame
    if task == "classifier":
        model = MDDFClassifier(**SMALL, screening_accuracy=0.8).fit(X, y)
    else:
        model = CascadeForestRegressor(**SMALL).fit(X, target)
    fitted = model.fitted_cascade_
    explaining = Explaining(fitted.columns.n_features + len(pairs_of(fitted)))
    composed = fitted.replay(model._validated(X), FinalOutput(explaining)).attributed
    explained = model.explain(X, background=PATH)
    assert np.array_equal(explained.values, composed.values)
    assert np.array_equal(explained.base_values, np.broadcast_to(composed.base, explained.base_values.shape))
    # centred on a background, the same values less their mean over it (no row screened: the base is one)
    if task == "regressor":
        background = model.explain(X[:50], background=PATH).values.mean(axis=0)
        assert np.allclose(model.explain(X, background=X[:50]).values, explained.values - background, atol=1e-12)


def test_the_kept_rows_move_no_other_draw_of_the_fit(frame):
    X, y, _ = frame
    for seed in (0, np.random.RandomState(0)):  # an int, and a generator whose state is read, not moved
        kept = MDDFClassifier(**{**SMALL, "random_state": seed}).fit(X, y)
        seed = seed if isinstance(seed, int) else np.random.RandomState(0)
        none = MDDFClassifier(**{**SMALL, "random_state": seed, "background_rows": 0}).fit(X, y)
        assert np.array_equal(kept.predict_proba(X), none.predict_proba(X))
        assert none.background_ is None and len(kept.background_) == 100
    again = MDDFClassifier(**SMALL).fit(X, y).background_
    pd.testing.assert_frame_equal(again, MDDFClassifier(**SMALL).fit(X, y).background_)


def test_the_grid_searchs_selected_model_keeps_the_rows_of_a_fit_alone(rare):
    X, y, _ = rare
    search = MDDFGridSearch(estimator=MDDFClassifier(**SMALL), param_grid={"margin_mean": [0.7, 0.9]}).fit(X, y)
    alone = MDDFClassifier(**SMALL, **search.best_params_).fit(X, y)
    assert np.array_equal(search.best_estimator_.background_, alone.background_)
    assert np.array_equal(search.best_estimator_.explain(X[:20]).values, alone.explain(X[:20]).values)


def test_a_model_without_kept_rows_says_what_to_pass_and_works_with_either(frame):
    X, y, _ = frame
    none = MDDFClassifier(**SMALL, background_rows=0).fit(X, y)
    fitted = MDDFClassifier(**SMALL).fit(X, y)
    state = {k: v for k, v in fitted.__getstate__().items() if k != "fitted_cascade_"}
    state.update(fitted.fitted_cascade_.attributes(), _predictor_model=None)  # the loose layout of b7a5885
    del state["background_"]  # as a model pickled before the rows were kept
    old = MDDFClassifier.__new__(MDDFClassifier)
    old.__setstate__(state)
    old = pickle.loads(pickle.dumps(old))
    for model in (none, old):
        with pytest.raises(ValueError, match="keeps no training rows as a background") as error:
            model.explain(X[:5])
        assert "\n" not in str(error.value) and "background='tree_path_dependent'" in str(error.value)
        assert _adds_up(model.explain(X[:5], background=PATH), model.predict_proba(X[:5]))
        assert _adds_up(model.explain(X[:5], background=X[:30]), model.predict_proba(X[:5]))


def test_a_model_pickled_before_its_trees_kept_their_weights_asks_to_be_fitted_again_first():
    saved = Path(__file__).parents[1] / "data" / "models-0.2.0.dev0-a088048.pickle"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's warning when the pickle's version differs from the running one
        saved = pickle.loads(saved.read_bytes())
    model, _ = saved["models"]["classifier"]
    assert model.background_ is None  # pickled before the rows were kept
    for background in (None, PATH):  # not "pass a background", which would not help
        with pytest.raises(ValueError, match="fit the model again"):
            model.explain(saved["X"][:5], background=background)


def test_a_bad_background_is_named(frame):
    X, y, _ = frame
    clf = MDDFClassifier(**SMALL).fit(X, y)
    with pytest.raises(ValueError, match="^background: X has 4 features"):
        clf.explain(X[:5], background=X.drop(columns="x3"))
    with pytest.raises(ValueError, match="background='path'"):
        clf.explain(X[:5], background="path")
    with pytest.raises(ValueError, match="background_rows"):
        MDDFClassifier(background_rows=-1).fit(X, y)


def test_the_kept_rows_are_the_users_columns_and_can_be_passed_back(frame):
    X, y, _ = frame
    X = X.assign(city=np.where(np.arange(len(X)) % 3 == 0, "north", "south").astype(object))  # text: a category
    clf = MDDFClassifier(**SMALL).fit(X, y)
    kept = clf.background_
    assert isinstance(kept, pd.DataFrame) and list(kept.columns) == list(X.columns)
    assert isinstance(kept.colour.dtype, pd.CategoricalDtype) and set(kept.city.dropna()) <= {"north", "south"}
    assert clf.predict_proba(kept).shape == (100, 3)  # refused before: category codes as floats
    default, passed = clf.explain(X.iloc[:20]), clf.explain(X.iloc[:20], background=kept)
    np.testing.assert_array_equal(passed.values, default.values)  # the same rows, read the same way
    np.testing.assert_array_equal(passed.base_values, default.base_values)
