"""Early-stopped boosting: each library stops on held-out training rows, classes absent from a fold included."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor, RandomForestClassifier
from xgboost import XGBClassifier, XGBRegressor

from mddf.experiments.early_stopped import EarlyStopped
from mddf.experiments.protocols import holdout


def noisy_classes(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(scale=1.5, size=n) > 0).astype(int)
    return X, y


def models():
    out = [
        ("hgb", HistGradientBoostingClassifier(max_iter=500, random_state=0)),
        ("xgboost", XGBClassifier(n_estimators=500, n_jobs=1, random_state=0)),
    ]
    import lightgbm

    out.append(("lightgbm", lightgbm.LGBMClassifier(n_estimators=500, n_jobs=1, verbose=-1, random_state=0)))
    return out


def test_each_library_stops_well_before_its_cap_on_noisy_data():
    X, y = noisy_classes()
    for name, model in models():
        stopped = EarlyStopped(model, patience=5, random_state=0).fit(X, y)
        assert 1 <= stopped.n_rounds_ < 100, name
        assert stopped.n_validation_ == 30  # 10% of 300 rows
        assert stopped.predict(X).shape == (300,) and stopped.predict_proba(X).shape == (300, 2)
        assert set(stopped.predict(X)) <= {0, 1}


def test_the_validation_rows_are_stratified_and_seeded():
    X, y = noisy_classes()
    fit, val = holdout(np.arange(len(y)), test_size=0.1, random_state=3, stratify=y)
    assert len(val) == 30 and abs(y[val].mean() - y.mean()) < 0.05
    again = holdout(np.arange(len(y)), test_size=0.1, random_state=3, stratify=y)
    assert np.array_equal(val, again[1]) and not set(fit) & set(val)


def test_a_class_too_small_to_stratify_falls_back_to_a_random_split():
    X, y = noisy_classes(60)
    y[0] = 2  # a class with a single row
    fit, val = holdout(np.arange(len(y)), test_size=0.1, random_state=0, stratify=y)
    assert len(val) == 6 and len(fit) == 54


@pytest.mark.parametrize("name", ["hgb", "xgboost", "lightgbm"])
def test_labels_that_are_not_consecutive_are_encoded_and_given_back(name):
    # a training fold without class 1 of 0, 1, 2: XGBoost needs labels 0..k-1
    model = dict(models())[name]
    X, y = noisy_classes()
    y = np.where(y == 1, 2, 0)
    stopped = EarlyStopped(clone(model), random_state=0).fit(X, y)
    assert stopped.classes_.tolist() == [0, 2]
    assert set(np.unique(stopped.predict(X))) <= {0, 2}


def test_regressors_stop_too():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + rng.normal(scale=2.0, size=200)
    for model in (HistGradientBoostingRegressor(max_iter=500), XGBRegressor(n_estimators=500, n_jobs=1)):
        stopped = EarlyStopped(model, patience=5, random_state=0).fit(X, y)
        assert stopped.n_rounds_ < 100 and stopped.predict(X).dtype.kind == "f"
        assert not hasattr(stopped, "predict_proba") and not hasattr(stopped, "classes_")


def test_only_the_three_boosting_libraries_are_wrapped():
    X, y = noisy_classes(40)
    with pytest.raises(TypeError, match="not RandomForestClassifier"):
        EarlyStopped(RandomForestClassifier()).fit(X, y)


def test_catboost_stops_early_and_reads_the_declared_category_codes_as_categories():
    catboost = pytest.importorskip("catboost", reason="catboost is an optional peer (the bench extra)")
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 3))
    X[:, 2] = rng.integers(0, 6, 400).astype(float)  # a category column of codes, some missing
    X[rng.random(400) < 0.1, 2] = np.nan
    signal = 2 * np.isin(X[:, 2], [1, 4]) + X[:, 0] + rng.normal(scale=1.5, size=400)
    y = np.where(signal > 1, "yes", "no")
    model = catboost.CatBoostClassifier(iterations=500, thread_count=1, verbose=0, allow_writing_files=False)
    stopped = EarlyStopped(model, patience=10, categorical_features=np.array([False, False, True]), random_state=0)
    stopped.fit(X, y)
    assert 1 <= stopped.n_rounds_ < 500 and set(stopped.predict(X)) <= {"no", "yes"}
    assert (stopped.predict(X) == y).mean() > 0.7 and stopped.predict_proba(X).shape == (400, 2)
    frame = stopped._input(X[:3])
    assert frame[2].tolist() == [str(int(v)) if v == v else "NA" for v in X[:3, 2]]  # codes as text, NaN as NA
    assert stopped.estimator_.get_cat_feature_indices() == [2]
    regressor = catboost.CatBoostRegressor(iterations=300, thread_count=1, verbose=0, allow_writing_files=False)
    values = EarlyStopped(regressor, patience=10, random_state=0).fit(X[:, :2], 2 * X[:, 0])
    assert values.predict(X[:, :2]).shape == (400,) and not hasattr(values, "classes_")


def test_rows_of_one_class_fit_no_model_and_predict_that_class():
    X, y = noisy_classes(60)
    for name, model in models():
        stopped = EarlyStopped(model, random_state=0).fit(X, np.full(60, 1))
        assert stopped.estimator_ is None and stopped.n_rounds_ == 0, name
        assert (stopped.predict(X) == 1).all() and stopped.predict_proba(X).shape == (60, 1)


def test_a_column_of_more_categories_than_hgb_takes_is_given_to_it_as_codes():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.normal(size=2000), rng.integers(0, 400, 2000), rng.integers(0, 4, 2000)]).astype(float)
    y = ((X[:, 0] > 0) ^ (X[:, 2] == 1)).astype(int)
    model = HistGradientBoostingClassifier(categorical_features=np.array([False, True, True]), random_state=0)
    stopped = EarlyStopped(model, random_state=0).fit(X, y)
    assert stopped.categories_as_codes_ == [1]
    assert list(stopped.estimator_.categorical_features) == [False, False, True]
    assert (stopped.predict(X) == y).mean() > 0.9
