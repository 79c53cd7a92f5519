"""The studies' data: the standard split and its variations, the seeded mixed-type generators, the DataFrames."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from benchmarks import data
from benchmarks.data import (
    QUICK_ROWS,
    categorical_frame,
    load_frames,
    mixed_categories,
    mixed_categories_regression,
    numeric_interaction,
    ordinal_codes,
    train_test_arrays,
)
from mddf.datasets import load_dataset


def test_the_standard_split_is_returned_as_the_loader_gives_it():
    ds = load_dataset("iris", verbose=0)
    for got, expected in zip(train_test_arrays("iris"), (ds.X_train, ds.y_train, ds.X_test, ds.y_test)):
        np.testing.assert_array_equal(got, expected)


def test_training_rows_are_subset_by_count_or_by_fraction_per_class_and_test_rows_cut():
    X, y, X_test, y_test = train_test_arrays("iris", train_rows=30, test_rows=10)
    assert X.shape == (30, 4) and np.bincount(y).tolist() == [10, 10, 10]
    assert len(X_test) == len(y_test) == 10
    assert len(train_test_arrays("iris", train_rows=10_000)[1]) == 105  # all of them
    X, y, _, y_test = train_test_arrays("iris", train_fraction=0.2)
    assert np.bincount(y).tolist() == [7, 7, 7] and len(y_test) == 45


def test_a_dataset_without_a_test_split_needs_a_train_share(monkeypatch):
    iris = load_dataset("iris", verbose=0)
    whole = dataclasses.replace(iris, X_test=None, y_test=None)
    monkeypatch.setattr(data, "load", lambda name, **kwargs: whole)
    with pytest.raises(ValueError, match="'iris' has no standard test split"):
        train_test_arrays("iris")
    X, y, X_test, y_test = train_test_arrays("iris", train_share=0.7)
    assert len(y) + len(y_test) == len(iris.y_train)
    assert len(y) == int(0.7 * len(iris.y_train)) and set(y_test) == set(y)


def test_mixed_categories_is_seeded_with_category_columns_and_missing_values():
    X, y = mixed_categories(2_000, random_state=3)
    X_again, y_again = mixed_categories(2_000, random_state=3)
    pd.testing.assert_frame_equal(X, X_again)
    np.testing.assert_array_equal(y, y_again)
    assert not X.equals(mixed_categories(2_000, random_state=4)[0])
    assert X.shape == (2_000, 10) and set(np.unique(y)) == {0, 1}
    levels = {name: len(X[name].cat.categories) for name in ("cat_a", "cat_b", "cat_c", "cat_d")}
    assert levels == {"cat_a": 40, "cat_b": 12, "cat_c": 3, "cat_d": 8}
    assert all(X[f"num{j}"].dtype == np.float64 for j in range(6))
    missing = X.isna().mean()
    assert all(0.07 < missing[c] < 0.13 for c in ("num0", "num1", "num2"))
    assert all(0.03 < missing[c] < 0.07 for c in ("cat_a", "cat_b"))
    assert missing[["num3", "num4", "num5", "cat_c", "cat_d"]].sum() == 0


def test_mixed_categories_label_needs_the_category_set_and_the_threshold_jointly():
    # the label's dependence on cat_a flips sign with num0 > 0: within each category of cat_a, the
    # share of positive labels moves in opposite directions for about half of the categories
    X, y = mixed_categories(30_000, random_state=0)
    frame = pd.DataFrame({"a": X["cat_a"], "num0": X["num0"], "y": y}).dropna()
    frame["above"] = frame["num0"] > 0
    share = frame.groupby(["a", "above"], observed=True)["y"].mean().unstack()
    rises = share[True] > share[False]
    assert 17 <= rises.sum() <= 23  # the set S has 20 of the 40 categories


@pytest.mark.slow
def test_mixed_categories_regression_has_the_same_columns_and_a_continuous_target_of_the_same_structure():
    X, y = mixed_categories_regression(30_000, random_state=0)
    X_cls, _ = mixed_categories(30_000, random_state=0)
    again, y_again = mixed_categories_regression(30_000, random_state=0)
    pd.testing.assert_frame_equal(X, again)
    np.testing.assert_array_equal(y, y_again)
    assert list(X.columns) == list(X_cls.columns) and (X.dtypes == X_cls.dtypes).all()
    # the same rows drawn: values present in both tables are equal (only the values removed differ)
    both = X.notna() & X_cls.notna()
    assert all((X[c][both[c]] == X_cls[c][both[c]]).all() for c in X.columns)
    assert y.dtype == np.float64 and len(np.unique(y)) == len(y)
    assert 8.5 < y.var() < 9.8  # var(eta) of about 8.14 plus the unit noise
    # the category set of cat_a acts through the sign of num0, as for the label of mixed_categories
    frame = pd.DataFrame({"a": X["cat_a"], "num0": X["num0"], "y": y}).dropna()
    frame["above"] = frame["num0"] > 0
    mean = frame.groupby(["a", "above"], observed=True)["y"].mean().unstack()
    assert 17 <= (mean[True] > mean[False]).sum() <= 23


def test_numeric_interaction_reads_the_grade_from_the_rate_of_the_annuity():
    X, y = numeric_interaction(5_000, random_state=1)
    pd.testing.assert_frame_equal(X, numeric_interaction(5_000, random_state=1)[0])
    assert X.shape == (5_000, 7) and all(X.dtypes == np.float64) and not X.isna().any().any()
    assert set(np.unique(y)) == {0, 1, 2, 3, 4} and set(X["term"]) == {36.0, 60.0}
    # instalment / amount rises with the rate, hence with the grade, at either term
    for term in (36.0, 60.0):
        rows = X["term"] == term
        ratio = (X["instalment"] / X["amount"])[rows].groupby(y[rows]).median()
        assert ratio.is_monotonic_increasing


def test_categorical_frame_turns_codes_into_categories_and_nan_into_missing():
    X = np.array([[0.0, 1.5], [2.0, np.nan], [np.nan, 3.0]])
    categories = {"colour": ["blue", "green", "red"]}
    frame = categorical_frame(X, ["colour", "size"], [True, False], categories, index=[7, 8, 9])
    assert list(frame.index) == [7, 8, 9]
    assert isinstance(frame["colour"].dtype, pd.CategoricalDtype)
    assert frame["colour"].tolist()[:2] == ["blue", "red"] and pd.isna(frame["colour"].iloc[2])
    assert frame["size"].dtype == np.float64 and np.isnan(frame["size"].iloc[1])
    np.testing.assert_array_equal(ordinal_codes(frame), [[0.0, 1.5], [2.0, np.nan], [np.nan, 3.0]])


def test_load_frames_gives_training_and_test_rows_disjoint_labels_and_the_same_columns():
    X_train, y_train, X_test, y_test = load_frames("mixed_categories", quick=True)
    assert (len(y_train), len(y_test)) == QUICK_ROWS
    assert not set(X_train.index) & set(X_test.index)
    pd.testing.assert_series_equal(X_train.dtypes, X_test.dtypes)
    # a dataset from the loader: columns x0, x1, ..., labels encoded 0 .. k-1, a stratified slice
    X_train, y_train, X_test, y_test = load_frames("iris", quick=True)
    assert list(X_train.columns) == ["x0", "x1", "x2", "x3"] and set(y_train) == {0, 1, 2}
    assert not set(X_train.index) & set(X_test.index)


def test_categorical_mask_finds_a_dataframes_category_columns_and_none_in_an_array():
    X = load_frames("mixed_categories", quick=True)[0]
    assert data.categorical_mask(X).tolist() == [False] * 6 + [True] * 4
    assert data.categorical_mask(np.zeros((3, 2))).tolist() == [False, False]
