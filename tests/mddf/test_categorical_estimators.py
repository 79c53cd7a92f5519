"""Categorical DataFrame columns in all five estimators (``categorical_features``)."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils._param_validation import InvalidParameterError

from mddf import MDDFClassifier
from mddf.baselines import AdaBoostClassifier, DeepBoostClassifier, GCForestClassifier, QuadBoostClassifier

pd = pytest.importorskip("pandas")

ESTIMATORS = {
    "mdDF": lambda: MDDFClassifier(n_estimators=10, max_layers=2, n_folds=2, random_state=0),
    "mdDF-exact": lambda: MDDFClassifier(n_estimators=10, max_layers=2, n_folds=2, tree_method="exact", random_state=0),
    "gcForest": lambda: GCForestClassifier(n_estimators=10, max_layers=2, n_folds=2, random_state=0),
    "DeepBoost": lambda: DeepBoostClassifier(n_iter=20, max_depth=2),
    "AdaBoost": lambda: AdaBoostClassifier(n_iter=30),
    "QuadBoost": lambda: QuadBoostClassifier(n_iter=60, random_state=0),
}
params = pytest.mark.parametrize("make", list(ESTIMATORS.values()), ids=list(ESTIMATORS))


def data(n=120, seed=0):
    """y depends only on the category column "color" (green against the rest; green's code is in the
    middle, so a single threshold does not separate it); "shape" is a string column of noise."""
    rng = np.random.RandomState(seed)
    color = rng.choice(["blue", "green", "red"], size=n)
    X = pd.DataFrame(
        {
            "noise": rng.normal(size=n),
            "color": pd.Categorical(color),
            "shape": rng.choice(["round", "square"], size=n),
            "level": rng.randint(0, 5, size=n),
        }
    )
    y = np.where(color == "green", "yes", "no")
    return X, y


def allows_nan(est):
    return est.__sklearn_tags__().input_tags.allow_nan


@params
def test_dataframe_with_category_and_string_columns(make):
    X, y = data()
    est = make().fit(X, y)
    np.testing.assert_array_equal(est.is_categorical_, [False, True, True, False])
    assert est.categories_[1].tolist() == ["blue", "green", "red"]
    assert est.categories_[2].tolist() == ["round", "square"]
    assert est.feature_names_in_.tolist() == ["noise", "color", "shape", "level"]
    assert est.n_features_in_ == 4
    X_test, y_test = data(60, seed=1)
    proba = est.predict_proba(X_test)
    assert proba.shape == (60, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    # the informative category is learned: y is a function of it (majority class: about 2/3)
    assert np.mean(est.predict(X_test) == y_test) >= 0.9


@params
def test_other_methods_take_the_dataframe(make):
    X, y = data()
    est = make().fit(X, y)
    np.testing.assert_array_equal(list(est.staged_predict(X))[-1], est.predict(X))
    if hasattr(est, "staged_predict_proba"):
        np.testing.assert_array_equal(list(est.staged_predict_proba(X))[-1], est.predict_proba(X))
    if hasattr(est, "decision_function"):
        assert est.decision_function(X).shape == (len(X),)
    if hasattr(est, "transform"):
        features = est.transform(X)
        assert features.dtype == np.float32 and len(features) == len(X)


def split_as_codes(est):
    """``est`` splitting categories at thresholds of their codes (a no-op for estimators that always do)."""
    return est.set_params(categorical_splits="ordinal") if "categorical_splits" in est.get_params() else est


@params
def test_codes_give_the_same_model_as_numpy_codes(make):
    # split as codes, the encoded DataFrame and the same codes as a numeric array grow identical models
    X, y = data()
    codes = X.assign(color=X["color"].cat.codes, shape=(X["shape"] == "square").astype(int)).to_numpy(dtype=float)
    from_frame = split_as_codes(make()).fit(X, y).predict_proba(X)
    from_array = split_as_codes(make()).fit(codes, y).predict_proba(codes)
    np.testing.assert_array_equal(from_frame, from_array)


@params
def test_unseen_category_at_predict(make):
    X, y = data()
    est = make().fit(X, y)
    new = X.iloc[:3].copy()
    new["shape"] = ["triangle", "round", "square"]  # unseen -> missing (NaN code)
    if allows_nan(est):
        assert est.predict(new).shape == (3,)
    else:
        with pytest.raises(ValueError, match="Input X contains NaN"):
            est.predict(new)


@params
def test_missing_category_at_fit(make):
    X, y = data()
    X.loc[0, "color"] = np.nan
    est = make()
    if allows_nan(est):
        assert est.fit(X, y).predict(X).shape == (len(X),)
    else:
        with pytest.raises(ValueError, match="Input X contains NaN"):
            est.fit(X, y)


@params
def test_feature_names_are_checked(make):
    X, y = data()
    est = make().fit(X, y)
    with pytest.raises(ValueError, match="feature names should match"):
        est.predict(X[["color", "noise", "shape", "level"]])
    with pytest.raises(ValueError, match="has 3 features"):
        est.predict(X.iloc[:, :3])


@params
def test_declared_columns_and_errors(make):
    X, y = data()
    by_name = make().set_params(categorical_features=["color", "shape"]).fit(X, y)
    np.testing.assert_array_equal(by_name.predict_proba(X), make().fit(X, y).predict_proba(X))
    with pytest.raises(ValueError, match="'color', 'shape' of X hold strings"):
        make().set_params(categorical_features=None).fit(X, y)
    with pytest.raises(ValueError, match=r"names \['colour'\] are not columns"):
        make().set_params(categorical_features=["colour", "shape"]).fit(X, y)
    with pytest.raises(InvalidParameterError, match="categorical_features"):
        make().set_params(categorical_features="auto").fit(X, y)


@params
def test_numpy_input_is_not_categorical(make):
    X, y = data()
    codes = X.assign(color=X["color"].cat.codes, shape=(X["shape"] == "square").astype(int)).to_numpy(dtype=float)
    est = split_as_codes(make()).fit(codes, y)  # split as codes, declared columns grow the same model
    assert est.is_categorical_ is None and est.categories_ is None
    # declared columns of a numeric array are re-coded by their sorted values
    declared = clone(est).set_params(categorical_features=[1, 2]).fit(codes, y)
    assert declared.categories_[1].tolist() == [0.0, 1.0, 2.0]
    np.testing.assert_array_equal(declared.predict_proba(codes), est.predict_proba(codes))


@params
def test_pickle(make):
    X, y = data()
    est = make().fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))
    assert again.categories_[1].tolist() == est.categories_[1].tolist()


@params
def test_pipeline_and_grid_search(make):
    X, y = data()
    pipe = Pipeline([("identity", FunctionTransformer()), ("clf", make())])
    search = GridSearchCV(pipe, {"clf__categorical_features": ["from_dtype", ["color", "shape"]]}, cv=2).fit(X, y)
    assert search.best_estimator_[-1].feature_names_in_.tolist() == list(X.columns)
    assert search.score(X, y) >= 0.9
