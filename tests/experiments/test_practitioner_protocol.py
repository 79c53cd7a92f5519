"""The practitioner's protocol: repeated stratified k-fold on every row, fewer folds for a small class."""

import numpy as np
import pytest

from mddf.datasets import load_dataset
from mddf.experiments.protocols import TooFewRows, cv_run_data, cv_splits, fold_count


def test_the_requested_folds_unless_a_class_has_fewer_rows():
    y = np.array([0] * 50 + [1] * 20 + [2] * 3)
    assert fold_count(y, requested=5) == 3
    assert fold_count(y[:70], requested=5) == 5
    assert fold_count(y[:70], requested=10) == 10


def test_a_class_with_a_single_row_is_refused_by_its_label():
    y = np.array([0] * 10 + [1])
    with pytest.raises(TooFewRows, match="class 'churned' has a single row"):
        fold_count(y, labels=np.array(["stayed", "churned"]))


def test_a_regression_needs_as_many_rows_as_folds():
    assert fold_count(np.linspace(0, 1, 3), "regression", 5) == 3
    assert fold_count(np.linspace(0, 1, 100), "regression", 5) == 5


def test_each_seed_is_a_stratified_partition_of_every_row():
    y = np.array([0] * 40 + [1] * 20)
    for seed in (0, 1):
        splits = cv_splits(y, "classification", 5, seed)
        tests = np.concatenate([test for _, test in splits])
        assert sorted(tests) == list(range(60))  # every row tested once per seed
        for train, test in splits:
            assert not set(train) & set(test)
            assert (y[test] == 1).sum() == 4  # each fold holds a fifth of each class
    first, second = cv_splits(y, "classification", 5, 0), cv_splits(y, "classification", 5, 1)
    assert not np.array_equal(first[0][1], second[0][1])  # another seed, another cut


def test_a_run_pools_a_datasets_split_and_holds_out_validation_rows():
    iris = load_dataset("iris")
    run = cv_run_data(iris, seed=0, fold=2, n_folds=5, task="classification")
    assert len(run.y_test) == 30 and len(run.y_train) == 120  # all 150 rows, not the 70/30 split
    assert len(run.y_val) == 24 and len(run.y_fit) == 96 and run.refit
    assert run.description.startswith("5-fold cross-validation of all 150 rows, stratified by class")
    with pytest.raises(ValueError, match="fold must be in"):
        cv_run_data(iris, seed=0, fold=5, n_folds=5, task="classification")
