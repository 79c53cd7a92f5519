"""subsample and deepboost_folds: the evaluation protocols built on the loaders."""

from __future__ import annotations

import numpy as np
import pytest

from mddf.datasets import list_datasets, load_dataset
from mddf.experiments.protocols import deepboost_folds, mask_completely_at_random, subsample


@pytest.fixture(scope="module")
def wine():
    return load_dataset("wine")


def test_subsample_keeps_every_class_even_at_tiny_fractions(wine):
    for fraction in (0.01, 0.1, 0.5):
        small = subsample(wine, fraction, random_state=0)
        assert set(np.unique(small.y_train)) == set(np.unique(wine.y_train))
        expected = [max(1, round(fraction * n)) for n in np.bincount(wine.y_train)]
        assert np.bincount(small.y_train).tolist() == expected


def test_subsample_is_reproducible_and_seed_dependent(wine):
    a = subsample(wine, 0.3, random_state=7)
    b = subsample(wine, 0.3, random_state=7)
    c = subsample(wine, 0.3, random_state=8)
    assert np.array_equal(a.X_train, b.X_train) and np.array_equal(a.y_train, b.y_train)
    assert not np.array_equal(a.X_train, c.X_train)


def test_subsample_takes_training_rows_and_keeps_the_test_split(wine):
    small = subsample(wine, 0.5, random_state=0)
    rows = {r.tobytes() for r in wine.X_train}
    assert all(r.tobytes() in rows for r in small.X_train)
    assert small.X_test is wine.X_test and small.y_test is wine.y_test
    assert "0.5 of the training rows" in small.split
    assert subsample(wine, 1.0, random_state=0).X_train.shape == wine.X_train.shape


@pytest.mark.parametrize("fraction", [0, -0.1, 1.5])
def test_subsample_rejects_fractions_outside_0_1(wine, fraction):
    with pytest.raises(ValueError, match="fraction must be in"):
        subsample(wine, fraction)


def test_deepboost_folds_follow_the_papers_rotation():
    y = np.repeat([0, 1], [60, 40])
    runs = deepboost_folds(y, n_folds=10, random_state=0)
    assert len(runs) == 10
    tests = [test for _, _, test in runs]
    assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(100))  # test folds partition the rows
    for i, (train, val, test) in enumerate(runs):
        assert np.array_equal(val, tests[(i + 1) % 10])  # validation = next fold (mod 10)
        assert np.array_equal(np.sort(np.concatenate([train, val, test])), np.arange(100))
        assert np.bincount(y[test]).tolist() == [6, 4]  # stratified
    again = deepboost_folds(y, n_folds=10, random_state=0)
    assert all(np.array_equal(a[2], b[2]) for a, b in zip(runs, again))
    with pytest.raises(ValueError, match="at least 3"):
        deepboost_folds(y, n_folds=2)


def test_list_datasets_groups():
    assert list_datasets("mddf") == ["adult", "yeast", "letter", "protein", "har", "sensit", "satimage", "mnist"]
    assert list_datasets("deepboost") == ["breastcancer", "ionosphere", "german", "diabetes", "ocr17", "ocr49"]
    assert list_datasets("extra") == ["fashion-mnist"]
    assert list_datasets("bundled") == ["digits", "breast_cancer", "wine", "iris"]
    assert sorted(list_datasets()) == sorted(
        sum((list_datasets(g) for g in ("mddf", "deepboost", "extra", "bundled")), [])
    )
    with pytest.raises(ValueError, match="unknown group"):
        list_datasets("uci")


def test_mask_completely_at_random_removes_the_asked_fraction_independently_of_the_values():
    X = np.arange(200_000, dtype=np.float32).reshape(-1, 10)
    masked = mask_completely_at_random(X, 0.3, random_state=0)
    missing = np.isnan(masked)
    assert masked.dtype == np.float32 and np.isnan(X).sum() == 0  # a copy
    assert abs(missing.mean() - 0.3) < 0.005
    # completely at random: the rate is the same in every column and for small and large values
    assert np.all(np.abs(missing.mean(axis=0) - 0.3) < 0.02)
    small = X < np.median(X)
    assert abs(missing[small].mean() - missing[~small].mean()) < 0.01
    np.testing.assert_array_equal(masked[~missing], X[~missing])
    np.testing.assert_array_equal(np.isnan(mask_completely_at_random(X, 0.3, random_state=0)), missing)


def test_mask_completely_at_random_keeps_existing_gaps_and_checks_the_fraction():
    X = np.array([[np.nan, 1.0], [2.0, 3.0]])
    assert np.isnan(mask_completely_at_random(X, 0.0, random_state=0)[0, 0])
    with pytest.raises(ValueError, match="fraction"):
        mask_completely_at_random(X, 1.0)
