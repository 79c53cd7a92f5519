"""A block under probe: its forests' first trees first, then the rest, and the block is the one fitted at once."""

import os

import numpy as np
import pytest

from mddf.blocks.classifier import ForestBlock
from mddf.blocks.regressor import RegressionForestBlock
from mddf.storage import ModelStore


def _data(n=240, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 6).astype(np.float32)
    y = (X[:, 0] + 0.3 * rng.rand(n) > 0.65).astype(np.int64) + (X[:, 1] > 0.5)
    D = rng.rand(n)
    return X, y, D / D.sum()


BLOCKS = {
    "kfold": dict(forest_types=("rf", "crf"), class_vectors="kfold"),
    "oob": dict(forest_types=("rf", "crf"), class_vectors="oob"),
    "refit": dict(forest_types=("rf", "crf"), class_vectors="kfold", fold_trees="refit"),
    "share": dict(forest_types=("rf", "crf"), class_vectors="kfold", fold_trees="share"),
    "gbdt member": dict(forest_types=("rf", "gbdt"), class_vectors="kfold"),
}


def _block(probe_trees=None, store=None, **settings):
    settings = dict(settings)
    return ForestBlock(
        settings.pop("forest_types"),
        12,
        None,
        3,
        settings.pop("class_vectors"),
        "resample",
        2,
        store=store,
        name="layer-002",
        probe_trees=probe_trees,
        **settings,
    )


@pytest.mark.parametrize("name", list(BLOCKS))
def test_a_finished_probe_is_the_block_fitted_at_once(name):
    X, y, D = _data()
    at_once = _block(**BLOCKS[name])
    outputs = at_once.fit(X, y, D, 3, np.random.RandomState(4))
    probed = _block(probe_trees=6, **BLOCKS[name])
    probe_outputs = probed.fit(X, y, D, 3, np.random.RandomState(4))
    assert probed.probe_.trees == (3, 6)
    assert np.array_equal(probed.probe_.outputs, probe_outputs)
    assert probed.probe_.first.shape == probe_outputs.shape
    assert not np.array_equal(probe_outputs[:, 0], outputs[:, 0])  # the forests' outputs are those of 6 trees
    assert np.array_equal(probed.finish(), outputs)
    assert probed.probe_ is None
    assert np.array_equal(probed.predict_proba(X), at_once.predict_proba(X))
    assert probed.nbytes == at_once.nbytes


def test_a_boosted_member_grows_a_share_of_its_rounds_and_other_members_are_fitted_in_full():
    from sklearn.linear_model import LogisticRegression

    X, y, D = _data()
    settings = dict(forest_types=("rf", "gbdt", LogisticRegression()), class_vectors="kfold")
    probed = _block(probe_trees=6, **settings)
    probe_outputs = probed.fit(X, y, D, 3, np.random.RandomState(4))
    first = probed.probe_.first
    assert not np.array_equal(first[:, 0], probe_outputs[:, 0])  # 3 and 6 of the forest's 12 trees
    assert not np.array_equal(first[:, 1], probe_outputs[:, 1])  # 25 and 50 of XGBoost's 100 rounds
    assert np.array_equal(first[:, 2], probe_outputs[:, 2])  # fitted in full
    at_once = _block(**settings)
    assert np.array_equal(probed.finish(), at_once.fit(X, y, D, 3, np.random.RandomState(4)))
    assert probed.models_[1][0].estimator.get_params() == at_once.models_[1][0].estimator.get_params()


def test_a_probe_holds_no_model_until_finished():
    X, y, D = _data()
    probed = _block(probe_trees=6, **BLOCKS["kfold"])
    probed.fit(X, y, D, 3, np.random.RandomState(4))
    assert probed.nbytes == 0
    assert not hasattr(probed, "models_")


def test_finish_needs_a_probe():
    X, y, D = _data()
    block = _block(**BLOCKS["kfold"])
    block.fit(X, y, D, 3, np.random.RandomState(4))
    with pytest.raises(ValueError, match="finish\\(\\) follows a fit under probe"):
        block.finish()


def test_a_probe_of_as_many_trees_as_the_forests_is_no_probe():
    X, y, D = _data()
    block = _block(probe_trees=12, **BLOCKS["kfold"])
    block.fit(X, y, D, 3, np.random.RandomState(4))
    assert block.probe_ is None and len(block.models_) == 2


def test_a_stored_probe_writes_its_models_only_when_finished(tmp_path):
    X, y, D = _data()
    store = ModelStore.claim(str(tmp_path / "models"))
    probed = _block(probe_trees=6, store=store, **BLOCKS["gbdt member"])
    probed.fit(X, y, D, 3, np.random.RandomState(4))
    assert not os.path.exists(tmp_path / "models" / "layer-002")
    probed.finish()
    at_once = _block(**BLOCKS["gbdt member"])
    at_once.fit(X, y, D, 3, np.random.RandomState(4))
    assert sorted(os.listdir(tmp_path / "models" / "layer-002"))
    assert np.array_equal(probed.predict_proba(X), at_once.predict_proba(X))


@pytest.mark.parametrize("forest_types", [("rf", "crf"), ("rf", "gbdt")])
def test_a_finished_regression_probe_is_the_block_fitted_at_once(forest_types):
    X, _, _ = _data()
    y = 3 * X[:, 0] + np.random.RandomState(1).randn(len(X))
    weight = np.ones(len(X))
    at_once = RegressionForestBlock(forest_types, 12, None, 1.0, 3, 2)
    outputs = at_once.fit(X, y, weight, np.random.RandomState(2))
    probed = RegressionForestBlock(forest_types, 12, None, 1.0, 3, 2, probe_trees=6)
    probe_outputs = probed.fit(X, y, weight, np.random.RandomState(2))
    assert probe_outputs.shape == outputs.shape == probed.probe_.first.shape
    assert np.array_equal(probed.finish(), outputs)
    assert np.array_equal(probed.predict(X), at_once.predict(X))
