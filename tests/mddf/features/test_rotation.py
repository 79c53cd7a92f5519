"""PCAFeatures: the principal components of the numeric columns, appended to the input."""

import pickle

import numpy as np
import pandas as pd
import pytest
from estimator_checks_table import expected_failed_checks
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf import MDDFClassifier, PCAFeatures


@parametrize_with_checks(
    [PCAFeatures(), PCAFeatures(log=False, n_components=1)],
    expected_failed_checks=expected_failed_checks,
    xfail_strict=True,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def ratio_frame(n=600, seed=0):
    """Amount and instalment move together; the label is their ratio (a rate), a direction across the two."""
    rng = np.random.default_rng(seed)
    amount = np.exp(rng.uniform(np.log(1_000), np.log(40_000), n))
    rate = rng.uniform(0.02, 0.06, n)
    colour = pd.Categorical(rng.choice(["red", "green"], size=n))
    X = pd.DataFrame({"amount": amount, "colour": colour, "instalment": amount * rate})
    return X, (rate > 0.04).astype(int), rate


def test_appends_one_component_per_numeric_column_and_keeps_the_columns_and_their_dtypes():
    X, _, _ = ratio_frame()
    out = PCAFeatures().fit_transform(X)
    assert list(out.columns) == ["amount", "colour", "instalment", "pc0", "pc1"]
    assert isinstance(out["colour"].dtype, pd.CategoricalDtype)
    pd.testing.assert_frame_equal(out[X.columns], X)
    assert out["pc0"].dtype == np.float32 and np.isfinite(out[["pc0", "pc1"]].to_numpy()).all()


def test_the_log_component_of_least_variance_follows_the_ratio_of_two_columns_that_move_together():
    X, _, rate = ratio_frame()
    rotation = PCAFeatures().fit(X)
    assert list(rotation.columns_) == [0, 2]  # the category column is passed through, not rotated

    def correlation(out, name):
        return abs(np.corrcoef(out[name], np.log(rate))[0, 1])

    # log(instalment) - log(amount) is log(rate), up to the columns' scales
    assert correlation(rotation.transform(X), "pc1") > 0.99
    plain = PCAFeatures(log=False).fit_transform(X)  # without the log map, no component follows it closely
    assert max(correlation(plain, "pc0"), correlation(plain, "pc1")) < 0.8


def test_a_missing_value_counts_as_its_columns_mean_and_infinite_values_are_refused():
    X = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 6.0], [4.0, 8.0]])
    rotation = PCAFeatures().fit(X)
    out = rotation.transform(X)
    assert out.shape == (4, 4) and np.isfinite(out[:, 2:]).all()
    np.testing.assert_array_equal(out[:, :2], X)
    with pytest.raises(ValueError, match="infinity|infinite"):
        rotation.transform(np.array([[1.0, np.inf]]))
    frame = pd.DataFrame({"a": [1.0, np.inf, 2.0], "b": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="infinite values"):
        PCAFeatures().fit(frame)


def test_n_components_keeps_those_of_largest_variance():
    X, _, _ = ratio_frame()
    full = PCAFeatures().fit_transform(X)
    first = PCAFeatures(n_components=1).fit_transform(X)
    assert list(first.columns) == ["amount", "colour", "instalment", "pc0"]
    np.testing.assert_allclose(first["pc0"], full["pc0"])


def test_a_frame_without_numeric_columns_or_with_a_component_name_taken_is_refused():
    with pytest.raises(ValueError, match="no numeric column"):
        PCAFeatures().fit(pd.DataFrame({"c": pd.Categorical(["a", "b", "a"])}))
    X = pd.DataFrame({"pc0": [1.0, 2.0, 4.0], "b": [3.0, 1.0, 2.0]})
    with pytest.raises(ValueError, match=r"already has columns named \['pc0'\]"):
        PCAFeatures().fit_transform(X)


def test_a_transform_checks_the_columns_it_was_fitted_on():
    X, _, _ = ratio_frame()
    rotation = PCAFeatures().fit(X)
    with pytest.raises(ValueError, match="feature names"):
        rotation.transform(X[["instalment", "colour", "amount"]])


def test_in_front_of_the_cascade_it_finds_a_ratio_the_cascade_alone_cannot_and_pickles():
    X, y, _ = ratio_frame(n=400)
    X_test, y_test, _ = ratio_frame(n=1000, seed=1)
    params = {"n_estimators": 8, "max_layers": 2, "random_state": 0}
    alone = MDDFClassifier(**params).fit(X, y)
    rotated = make_pipeline(PCAFeatures(), MDDFClassifier(**params)).fit(X, y)
    assert rotated.score(X_test, y_test) > 0.97 and alone.score(X_test, y_test) < 0.95
    assert rotated[-1].is_categorical_.tolist() == [False, True, False, False, False]  # still a category
    again = pickle.loads(pickle.dumps(rotated))
    np.testing.assert_array_equal(again.predict_proba(X_test), rotated.predict_proba(X_test))
    assert list(rotated[:-1].get_feature_names_out()) == ["amount", "colour", "instalment", "pc0", "pc1"]


def test_declared_categorical_columns_are_passed_through_not_rotated():
    X, _, _ = ratio_frame()
    codes = np.column_stack([X["amount"], X["colour"].cat.codes, X["instalment"]]).astype(float)
    for declared in ([False, True, False], [1]):
        rotation = PCAFeatures(categorical_features=declared).fit(codes)
        assert list(rotation.columns_) == [0, 2] and rotation.pca_.n_components_ == 2
        out = rotation.transform(codes)
        np.testing.assert_array_equal(out[:, :3], codes)
        np.testing.assert_allclose(out[:, 3:], PCAFeatures().fit_transform(X)[["pc0", "pc1"]], rtol=1e-6)
    assert list(PCAFeatures().fit(codes).columns_) == [0, 1, 2]  # an array declares none by itself
    assert list(PCAFeatures(categorical_features=[0]).fit(X).columns_) == [2]  # adds to a frame's own


def test_a_categorical_features_of_the_wrong_size_or_range_is_named():
    X = np.ones((4, 3)) * np.arange(4)[:, None]
    with pytest.raises(ValueError, match=r"one entry per feature \(3\), got 2"):
        PCAFeatures(categorical_features=[True, False]).fit(X)
    with pytest.raises(ValueError, match=r"index\(es\) \[3\] out of range: X has 3 features"):
        PCAFeatures(categorical_features=[3]).fit(X)
    with pytest.raises(ValueError, match="no numeric column"):
        PCAFeatures(categorical_features=[0, 1, 2]).fit(X)


def test_fewer_than_two_rows_and_duplicate_names_are_refused_by_name():
    import pandas as pd

    with pytest.raises(
        ValueError, match="PCAFeatures needs at least 2 rows to find directions across columns, got n_samples=1"
    ):
        PCAFeatures().fit(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"PCAFeatures: X has duplicate column names: 'a' \(2 times\)"):
        PCAFeatures().fit(pd.DataFrame(np.ones((4, 2)), columns=["a", "a"]))
