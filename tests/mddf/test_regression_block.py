"""The regression forest block: out-of-fold predictions and fold-averaged prediction."""

import numpy as np
import pytest

from mddf._forest_kinds import resolve_max_features
from mddf._regression_block import RegressionForestBlock, make_regression_forest


def _noise(n=300, d=5, seed=0):
    # unique random points with random targets: a model that saw a row memorises its target, a model
    # that did not can only guess
    rng = np.random.RandomState(seed)
    return rng.rand(n, d).astype(np.float32), rng.standard_normal(n)


def _fit(block, X, y, w=None, seed=0):
    return block.fit(X, y, np.ones(len(y)) if w is None else w, np.random.RandomState(seed))


@pytest.mark.parametrize("kind", ["rf", "crf", "et"])
def test_training_predictions_never_come_from_a_model_that_saw_the_row(kind):
    X, y = _noise()
    block = RegressionForestBlock((kind,), 20, None, 1.0, 3, 1)
    oof = _fit(block, X, y)[:, 0]
    assert abs(np.corrcoef(oof, y)[0, 1]) < 0.2  # honest: no better than a guess
    assert np.corrcoef(block.predict(X)[:, 0], y)[0, 1] > 0.6  # the fold models saw two thirds of the rows


def test_out_of_fold_predictions_are_the_held_out_fold_models_and_new_rows_get_their_mean():
    X, y = _noise(n=120)
    block = RegressionForestBlock(("rf", "crf"), 10, None, 1.0, 3, 1)
    oof = _fit(block, X, y, seed=1)
    per_fold = np.stack([[forest.predict(X) for forest in fold] for fold in block.forests_])  # (k, forests, n)
    matches = np.isclose(per_fold, oof.T[None])
    assert np.all(matches.sum(axis=0) >= 1)
    assert block.predict(X) == pytest.approx(per_fold.mean(axis=0).T)


def test_shapes_depth_limit_and_importances():
    X, y = _noise(n=200)
    block = RegressionForestBlock(("rf", "rf", "crf", "crf"), 6, 3, "sqrt", 3, 2)
    oof = _fit(block, X, y)
    assert oof.shape == (200, 4) and block.predict(X[:7]).shape == (7, 4)
    assert len(block.forests_) == 3 and all(len(fold) == 4 for fold in block.forests_)
    assert max(forest.depths.max() for fold in block.forests_ for forest in fold) == 3
    assert block.importances_.shape == (5,) and np.all(block.importances_ >= 0) and block.nbytes > 0


def test_results_do_not_depend_on_n_jobs():
    X, y = _noise(n=150)
    X[np.random.RandomState(3).rand(*X.shape) < 0.1] = np.nan
    results = []
    for n_jobs in (1, 2):
        block = RegressionForestBlock(("rf", "crf", "et"), 8, None, 1.0, 3, n_jobs)
        results.append((_fit(block, X, y), block.predict(X)))
    for a, b in zip(*results):
        assert np.array_equal(a, b)


def test_rows_of_weight_zero_never_reach_a_tree_but_get_predictions():
    X, y = _noise(n=150)
    w = np.ones(150)
    w[:50] = 0.0
    y_bad = y.copy()
    y_bad[:50] = 1e6  # the zero-weight rows' targets would dominate any leaf they reached
    block = RegressionForestBlock(("rf", "crf"), 10, None, 1.0, 3, 1)
    oof = _fit(block, X, y_bad, w)
    assert np.all(np.abs(oof) < 10) and np.all(np.abs(block.predict(X)) < 10)


def test_a_fold_without_positive_weights_and_unknown_kinds_are_errors():
    X, y = _noise(n=30)
    w = np.zeros(30)
    w[0] = 1.0  # with 3 folds, two folds train without row 0
    with pytest.raises(ValueError, match="has sample weight 0"):
        _fit(RegressionForestBlock(("rf",), 2, None, 1.0, 3, 1), X, y, w)
    with pytest.raises(ValueError, match="unknown forest type 'gbdt'"):
        _fit(RegressionForestBlock(("gbdt",), 2, None, 1.0, 3, 1), X, y)
    with pytest.raises(ValueError, match="unknown forest type 'gbdt'"):
        make_regression_forest("gbdt", 3, None, 1.0, 0)


def test_forest_kinds_and_max_features():
    rf, crf, et = (make_regression_forest(kind, 3, 5, 0.5, 0) for kind in ("rf", "crf", "et"))
    assert rf.max_features == 0.5 and rf.bootstrap and rf.max_depth == 5
    assert crf.max_features == 1 and not crf.bootstrap
    assert et.max_features == 0.5 and not et.bootstrap
    assert [resolve_max_features(m, 10) for m in (None, 1.0, 0.25, 3, 30, "sqrt", "log2")] == [10, 10, 2, 3, 10, 3, 3]
    assert resolve_max_features(0.01, 10) == 1
