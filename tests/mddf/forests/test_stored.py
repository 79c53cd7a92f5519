"""What a stored forest checks when it is rebuilt from bytes: its node arrays always, and a digest of its own
arrays only when nothing checked them before (a forest pickled on its own; a saved model's payload is checked
whole by its digest first: mddf.storage.sealed)."""

import pickle

import numpy as np
import pytest

import mddf
from mddf import MDDFClassifier, ModelFileError
from mddf.forests.stored import StoredForest


@pytest.fixture(scope="module")
def model():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 5))  # 5 features: 3 feature bits, codes 5 to 7 are no feature
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    return MDDFClassifier(n_estimators=4, max_layers=2, forest_types=("rf", "crf"), random_state=0).fit(X, y), X


def _counting(monkeypatch, name):
    """Calls of ``StoredForest.<name>`` from now on, counted (and run)."""
    calls = []
    method = getattr(StoredForest, name)

    def counted(self, *args):
        calls.append(self)
        return method(self, *args)

    monkeypatch.setattr(StoredForest, name, counted)
    return calls


def test_a_saved_models_forests_check_their_trees_but_take_no_digest_of_their_own(model, tmp_path, monkeypatch):
    fitted, X = model
    fitted.save(tmp_path / "model.mddf")
    n_forests = sum(len(fold_models) for layer in fitted.layers_ for fold_models in layer.models_)  # rf and crf
    hashed, checked = _counting(monkeypatch, "arrays_sha256"), _counting(monkeypatch, "check_arrays")
    loaded = mddf.load(tmp_path / "model.mddf")
    assert (len(hashed), len(checked)) == (0, n_forests) and n_forests > 0
    data = pickle.dumps(fitted)  # an estimator's pickle carries the same checked bytes (it takes the digests)
    del hashed[:], checked[:]
    copied = pickle.loads(data)
    assert (len(hashed), len(checked)) == (0, n_forests)
    for model in (loaded, copied):
        np.testing.assert_array_equal(model.predict_proba(X), fitted.predict_proba(X))


def test_a_forest_pickled_on_its_own_still_checks_its_digest(model, monkeypatch):
    forest = model[0].layers_[0].models_[0][0]
    data = bytearray(pickle.dumps(forest))
    hashed = _counting(monkeypatch, "arrays_sha256")
    pickle.loads(bytes(data))
    assert len(hashed) == 1
    at = bytes(data).find(forest.words.tobytes()[8:72])
    data[at + 3] ^= 0x01
    with pytest.raises(ModelFileError, match="its trees' arrays do not match the SHA-256 taken when it was pickled"):
        pickle.loads(bytes(data))


def _with_damaged_word(model, kind):
    """A copy of ``model`` whose first forest has one node word damaged: a plain split whose right child is past
    its tree's end (``"child"``), or whose feature is past the features (``"feature"``)."""
    from mddf.trees.nodes import EXTENDED, FEATURE_SHIFT, LEAF, LEFT_CLASS, RIGHT_CLASS

    damaged = pickle.loads(pickle.dumps(model))
    forest = damaged.layers_[0].models_[0][0]
    words = forest.words.copy()
    kind_bits = words & (LEAF | EXTENDED | LEFT_CLASS | RIGHT_CLASS)
    i = int(np.flatnonzero(kind_bits[: forest.n_words] == 0)[0])  # the first plain split
    shift = FEATURE_SHIFT + forest.feature_bits
    field_mask = words.dtype.type(((1 << (words.itemsize * 8 - shift)) - 1) << shift)
    if kind == "child":
        words[i] = (words[i] & ~field_mask) | field_mask  # the largest right-child offset
    else:
        words[i] |= words.dtype.type(((1 << forest.feature_bits) - 1) << FEATURE_SHIFT)  # the last feature code
        assert (1 << forest.feature_bits) - 1 >= forest.n_features
    forest.words = words
    return damaged


@pytest.mark.parametrize(
    "kind, problem", [("child", "a child is not after its split"), ("feature", "a split feature is not below")]
)
def test_a_saved_model_with_a_damaged_tree_is_refused_naming_the_problem(model, tmp_path, kind, problem):
    # the file's digest is taken over the damaged tree: the digest passes, the check of the trees refuses it
    _with_damaged_word(model[0], kind).save(tmp_path / "damaged.mddf")
    with pytest.raises(ModelFileError, match=f"model file {tmp_path / 'damaged.mddf'}: .*{problem}.* of tree 0") as err:
        mddf.load(tmp_path / "damaged.mddf")
    # an invalid model, not an environment that lacks something
    assert "intact (its digest matches) but not a valid model" in str(err.value)
    assert "cannot be loaded here" not in str(err.value)
