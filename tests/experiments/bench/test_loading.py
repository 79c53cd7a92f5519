"""The benchmarks' dataset loading: the standard split, and the subsets and splits the benchmarks ask for."""

import dataclasses

import numpy as np
import pytest

from mddf.datasets import load_dataset
from mddf.experiments.bench import loading
from mddf.experiments.bench.loading import train_test_arrays


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
    monkeypatch.setattr(loading, "load", lambda name, **kwargs: whole)
    with pytest.raises(ValueError, match="'iris' has no standard test split"):
        train_test_arrays("iris")
    X, y, X_test, y_test = train_test_arrays("iris", train_share=0.7)
    assert len(y) + len(y_test) == len(iris.y_train)
    assert len(y) == int(0.7 * len(iris.y_train)) and set(y_test) == set(y)
