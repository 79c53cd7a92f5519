"""The forest block (Algorithm 1): out-of-fold class vectors and fold-averaged prediction."""

import numpy as np
import pytest

from mddf.block import ForestBlock, make_forest


def _noise(n=300, d=5, s=3, seed=0):
    # unique random points with random labels: a model that saw a row memorises
    # its label, a model that did not can only guess
    rng = np.random.RandomState(seed)
    return rng.rand(n, d).astype(np.float32), rng.randint(0, s, n)


@pytest.mark.parametrize("class_vectors", ["kfold", "oob"])
def test_training_vectors_never_come_from_a_model_that_saw_the_row(class_vectors):
    X, y = _noise()
    block = ForestBlock(("rf", "crf"), 30, None, 3, class_vectors, "resample", 1)
    oof = block.fit(X, y, np.full(len(y), 1 / len(y)), 3, np.random.RandomState(0))
    oof_true = oof.mean(axis=1)[np.arange(len(y)), y].mean()
    seen_true = block.predict_proba(X).mean(axis=1)[np.arange(len(y)), y].mean()
    # leaked vectors would put ~2/3 (k-fold) or ~1 on the true class; honest ones ~1/3
    assert oof_true < 0.42
    assert seen_true > 0.6


def test_kfold_vectors_are_the_held_out_fold_models_predictions():
    X, y = _noise(n=120, s=2)
    rng = np.random.RandomState(1)
    block = ForestBlock(("rf",), 10, None, 3, "kfold", "resample", 1)
    oof = block.fit(X, y, np.full(len(y), 1 / len(y)), 2, rng)
    # every row's vector equals the prediction of exactly one fold's model
    per_fold = np.stack([fold[0].predict_proba(X) for fold in block.forests_])
    matches = np.isclose(per_fold, oof[None, :, 0, :]).all(axis=2)
    assert np.all(matches.sum(axis=0) >= 1)
    # and new rows get the mean of the fold models
    assert block.predict_proba(X)[:, 0] == pytest.approx(per_fold.mean(axis=0))


def test_shapes_and_probabilities():
    X, y = _noise(n=90, s=3)
    block = ForestBlock(("rf", "rf", "crf", "crf"), 5, 4, 3, "kfold", "sample_weight", 2)
    D = np.random.RandomState(0).dirichlet(np.ones(len(y)))
    oof = block.fit(X, y, D, 3, np.random.RandomState(0))
    assert oof.shape == (90, 4, 3)
    assert oof.sum(axis=2) == pytest.approx(np.ones((90, 4)))
    assert len(block.forests_) == 3 and all(len(f) == 4 for f in block.forests_)
    assert block.predict_proba(X[:7]).shape == (7, 4, 3)
    assert block.nbytes > 0


def test_forest_kinds_and_depth_limit():
    rf = make_forest("rf", 3, 5, 0)
    crf = make_forest("crf", 3, None, 0)
    assert rf.max_features == "sqrt" and rf.max_depth == 5
    assert crf.max_features == 1 and not crf.bootstrap
    assert make_forest("crf", 3, None, 0, oob=True).bootstrap
    with pytest.raises(ValueError, match="unknown forest type 'gbdt'"):
        make_forest("gbdt", 3, None, 0)
