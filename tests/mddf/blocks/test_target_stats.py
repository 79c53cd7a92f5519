"""Target statistics of categorical columns (and their pairs), computed per fold from its training rows only and
cross-fitted for those rows: no row reads its own target, a level reads one value within a part, unseen levels and
missing values get the prior, one statistic per class (one for two classes, the target itself for regression), and
the block's fold models apply their own at prediction."""

import numpy as np
import pytest

from mddf.blocks.classifier import ForestBlock
from mddf.blocks.regressor import RegressionForestBlock
from mddf.blocks.target_stats import (
    INNER_FOLDS,
    PRIOR_WEIGHT,
    FoldStatistics,
    StatisticsSpec,
    fold_input,
    target_matrix,
)


def table(n=200, seed=0):
    """Column 0: a category of 5 levels that carries the label; column 1: one of 3 levels; column 2: numbers."""
    rng = np.random.RandomState(seed)
    X = np.c_[rng.randint(5, size=n), rng.randint(3, size=n), rng.randn(n)].astype(np.float32)
    y = (X[:, 0] >= 3).astype(int)
    return X, y


def _parts(n, seed):
    """The part of each of ``n`` training rows in the split drawn from ``seed`` (a naive reading of the module)."""
    return np.random.RandomState(seed).permutation(n) % min(INNER_FOLDS, n)


def test_a_level_of_one_row_gets_a_prior_never_its_own_label():
    rng = np.random.RandomState(1)
    X = np.arange(60, dtype=np.float32)[:, None]  # one row per level: its statistic could only be its own label
    y = rng.randint(2, size=60)
    spec = StatisticsSpec.of("columns", [0])
    train = np.arange(40)
    stats, X_fold = fold_input(spec, X, spec.levels(X), target_matrix(y, 2), train, seed=3)
    assert stats.prior[0] == pytest.approx(y[train].mean())
    np.testing.assert_array_equal(X_fold[40:, 1], np.float32(stats.prior[0]))  # held-out rows: the fold's prior
    parts = _parts(len(train), 3)
    for k, row in enumerate(train):  # a training row: the prior of the rows of the other parts
        assert X_fold[row, 1] == pytest.approx(y[train[parts != parts[k]]].mean(), rel=1e-6)


def test_a_training_row_reads_the_rows_of_the_other_parts_and_one_value_a_level_within_its_part():
    rng = np.random.RandomState(2)
    X = rng.randint(4, size=(200, 1)).astype(np.float32)
    y = rng.randn(200)
    spec = StatisticsSpec.of("columns", [0])
    train = np.arange(0, 200, 2)
    stats, X_fold = fold_input(spec, X, spec.levels(X), target_matrix(y, None), train, seed=7)
    parts = _parts(len(train), 7)
    for k, row in enumerate(train):
        others = train[parts != parts[k]]
        same = others[X[others, 0] == X[row, 0]]
        expected = (y[same].sum() + PRIOR_WEIGHT * y[others].mean()) / (len(same) + PRIOR_WEIGHT)
        assert X_fold[row, 1] == pytest.approx(expected, rel=1e-5)
    for part in range(INNER_FOLDS):  # no row-to-row noise: a level reads one value in a part, as new rows do
        rows = train[parts == part]
        for level in range(4):
            assert len(np.unique(X_fold[rows[X[rows, 0] == level], 1])) == 1
    p = y[train].mean()
    for r in np.arange(1, 200, 2):  # held-out rows: every training row of their level
        same = train[X[train, 0] == X[r, 0]]
        assert X_fold[r, 1] == pytest.approx((y[same].sum() + p) / (len(same) + 1), rel=1e-5)


def test_a_lone_training_row_has_no_other_row_to_read_and_gets_a_missing_statistic():
    X = np.array([[0], [0], [1]], dtype=np.float32)
    spec = StatisticsSpec.of("columns", [0])
    _, X_fold = fold_input(spec, X, spec.levels(X), target_matrix(np.array([1, 0, 1]), 2), np.array([0]), seed=0)
    assert np.isnan(X_fold[0, 1]) and X_fold[1, 1] == np.float32((1 + 1) / 2)


def test_unseen_levels_and_missing_values_get_the_prior():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.float32)
    y = np.array([0, 1, 1, 1])
    spec = StatisticsSpec.of("pairs", [0, 1])
    stats = FoldStatistics(spec, spec.levels(X), target_matrix(y, 2), np.arange(4))
    new = np.array([[5, 0], [np.nan, 1], [0, np.nan], [1, 1]], dtype=np.float32)
    out = stats.transform(spec.levels(new))
    assert out.shape == (4, 3)  # column 0, column 1, the pair
    p = np.float32(0.75)
    assert out[0, 0] == p and out[0, 2] == p  # an unseen level, and a pair with an unseen side
    assert out[1, 0] == p and out[1, 2] == p and out[2, 1] == p and out[2, 2] == p  # missing values
    assert out[0, 1] == np.float32((1 + 0.75) / 3)  # level 0 of column 1 seen twice, target sum 1
    assert out[3, 2] == np.float32((1 + 0.75) / 2)  # the pair (1, 1) seen once


@pytest.mark.parametrize("n_classes, width", [(2, 1), (4, 4), (None, 1)])
def test_one_statistic_per_class_one_for_two_classes_the_target_for_regression(n_classes, width):
    X, _ = table()
    y = np.arange(len(X)) % (n_classes or 3)
    spec = StatisticsSpec.of("pairs", [0, 1])
    stats, X_fold = fold_input(spec, X, spec.levels(X), target_matrix(y, n_classes), np.arange(100), seed=0)
    assert len(spec.sources) == 3 and stats.width == 3 * width and X_fold.shape == (len(X), 3 + 3 * width)
    if n_classes and n_classes > 2:  # each row's statistics of one source are class shares summing to 1
        np.testing.assert_allclose(X_fold[:, 3 : 3 + width].sum(axis=1), 1.0, rtol=1e-6)


def test_no_kind_or_no_categorical_column_computes_nothing_and_an_unknown_kind_is_named():
    assert StatisticsSpec.of(None, [0, 1]) is None and StatisticsSpec.of("pairs", []) is None
    with pytest.raises(ValueError, match="target_statistics must be None, 'columns' or 'pairs', got 'all'"):
        StatisticsSpec.of("all", [0])


def test_each_fold_model_applies_its_own_statistics_at_prediction():
    X, y = table(300)
    spec = StatisticsSpec.of("columns", [0, 1])
    block = ForestBlock(("rf", "crf"), 10, None, 3, "kfold", "sample_weight", 1, target_statistics=spec)
    oof = block.fit(X, y, np.full(len(y), 1 / len(y)), 2, np.random.RandomState(0))
    assert oof.shape == (300, 2, 2) and len(block.statistics_) == 3
    level_values = {float(stats.tables[1][1][0, 0]) for stats in block.statistics_}
    assert len(level_values) == 3  # one table per fold, from its own training rows
    assert block.importances_.shape == (3,) and block.importances_[0] > block.importances_[2]
    proba = block.predict_proba(X)
    assert proba.shape == (300, 2, 2) and (proba.argmax(axis=2) == y[:, None]).mean() > 0.95
    again = ForestBlock(("rf", "crf"), 10, None, 3, "kfold", "sample_weight", 1, target_statistics=spec)
    np.testing.assert_array_equal(again.fit(X, y, np.full(len(y), 1 / len(y)), 2, np.random.RandomState(0)), oof)


def test_the_regression_block_reads_statistics_of_its_target_and_refits_keep_one_set():
    X, y = table(300)
    target = y + 0.1 * X[:, 2]
    spec = StatisticsSpec.of("columns", [0])
    block = RegressionForestBlock(("rf",), 10, None, 0.5, 3, 1, fold_trees="refit", target_statistics=spec)
    oof = block.fit(X, target, np.ones(len(y)), np.random.RandomState(0))
    assert oof.shape == (300, 1) and len(block.statistics_) == 1 and len(block.models_[0]) == 1
    assert block.statistics_[0].prior[0] == pytest.approx(target.mean())  # the refit: every training row
    assert np.corrcoef(block.predict(X)[:, 0], target)[0, 1] > 0.9


def test_out_of_bag_class_vectors_are_refused_in_one_line():
    X, y = table()
    spec = StatisticsSpec.of("columns", [0])
    block = ForestBlock(("rf",), 10, None, 3, "oob", "sample_weight", 1, target_statistics=spec)
    with pytest.raises(ValueError, match="target_statistics needs class_vectors='kfold'"):
        block.fit(X, y, np.full(len(y), 1 / len(y)), 2, np.random.RandomState(0))
