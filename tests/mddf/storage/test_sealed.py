"""An estimator's pickle carries its saved-model bytes, checked whole by their digest before any of it is rebuilt
(mddf.storage.sealed); the file of those bytes is tested in test_saved.py."""

import hashlib
import json
import pickle
import pickletools
import subprocess
import sys

import numpy as np
import pytest
import xgboost

from mddf import CascadeForestRegressor, MDDFClassifier, MDDFGridSearch, ModelFileError
from mddf.storage import sealed

#: Loads the pickle ``argv[1]`` once per flip ``position:mask`` of ``argv[2:]`` (the byte at ``position`` XOR ``mask``)
#: and prints one JSON line each: the position, the mask, and the error's type and message, or "loaded" and the
#: digest of the loaded model's predictions on ``argv[1] + ".X.npy"``. A crash ends the process before its line.
FLIP_SCRIPT = """
import hashlib, json, pickle, sys
import numpy as np
data = open(sys.argv[1], "rb").read()
X = np.load(sys.argv[1] + ".X.npy")
for spec in sys.argv[2:]:
    position, mask = map(int, spec.split(":"))
    damaged = bytearray(data)
    damaged[position] ^= mask
    try:
        model = pickle.loads(bytes(damaged))
        outcome = ["loaded", hashlib.sha256(model.predict_proba(X).tobytes()).hexdigest()]
    except Exception as exc:
        outcome = [type(exc).__name__, str(exc)]
    print(json.dumps([position, mask, *outcome]), flush=True)
"""


def _data(n=80, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 4))
    return X, np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])


@pytest.fixture(scope="module")
def default_pickle(tmp_path_factory):
    """A default classifier (its layers hold an XGBoost member; calibrated) fitted on small data, pickled to a file;
    the file, its bytes, the rows and the model's predictions."""
    X, y = _data()
    model = MDDFClassifier(random_state=0).fit(X, y)
    assert model.calibration_ is not None and "gbdt" in model.forest_types
    path = tmp_path_factory.mktemp("sealed") / "model.pickle"
    data = pickle.dumps(model)
    path.write_bytes(data)
    np.save(str(path) + ".X.npy", X)
    return path, data, X, model.predict_proba(X)


def _sealed_blocks(data):
    """``(start, end)`` of every block of bytes a pickle's opcodes hold within ``data``."""
    blocks = []
    for op, arg, position in pickletools.genops(data):
        if op.name in ("SHORT_BINBYTES", "BINBYTES", "BINBYTES8"):
            start = position + {"SHORT_BINBYTES": 2, "BINBYTES": 5, "BINBYTES8": 9}[op.name]
            blocks.append((start, start + len(arg)))
    return blocks


def _sealed_block(data):
    """``(start, end)`` of the one block of bytes of a sealed pickle: the saved-model bytes."""
    blocks = _sealed_blocks(data)
    assert len(blocks) == 1
    return blocks[0]


def _payload(data):
    """The payload (the estimator's pickle) of the saved-model bytes a sealed pickle holds."""
    start, end = _sealed_block(data)
    return data[start + sealed.check(data[start:end], "test").at : end]


class _PickledByThePreviousVersion:
    """Pickles as mddf did before saved models: a call of open_sealed on the state, the class name and the SHA-256."""

    def __init__(self, model):
        self.model = model

    def __reduce__(self):
        block, name = sealed.dumps((type(self.model), self.model.__getstate__())), type(self.model).__name__.encode()
        return sealed.open_sealed, (block, name, hashlib.sha256(name + b"\0" + block).digest())


def _globals(data):
    """The ``(module, name)`` of every global a pickle's opcodes look up (protocol 4 and later)."""
    found, strings = set(), []
    for op, arg, _ in pickletools.genops(data):
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8"):
            strings.append(arg)
        elif op.name == "STACK_GLOBAL":
            found.add(tuple(strings[-2:]))
    return found


def _flip_in_fresh_processes(path, flips, n_processes):
    """The outcome of each flip ``(position, mask)``, from ``n_processes`` fresh interpreters each loading its share."""
    outcomes = {}
    for share in np.array_split(np.arange(len(flips)), n_processes):
        specs = [f"{flips[i][0]}:{flips[i][1]}" for i in share]
        done = subprocess.run(
            [sys.executable, "-c", FLIP_SCRIPT, str(path), *specs], capture_output=True, text=True, timeout=600
        )
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        assert done.returncode == 0 and len(lines) == len(specs), (
            f"the process loading flips {specs} ended with status {done.returncode} after {len(lines)} of them "
            f"(a crash at {specs[len(lines)] if len(lines) < len(specs) else None}): {done.stderr[-2000:]}"
        )
        outcomes.update({(position, mask): outcome for position, mask, *outcome in lines})
    return outcomes


def test_a_pickled_cascade_predicts_the_same_bits_its_xgboost_boosters_kept_as_model_bytes():
    X, y = _data()
    models = [
        MDDFClassifier(n_estimators=4, max_layers=2, predictor="xgboost", random_state=0).fit(X, y),
        CascadeForestRegressor(n_estimators=4, max_layers=2, forest_types=("rf", "gbdt"), random_state=0).fit(
            X, X[:, 2]
        ),
    ]
    for model in models:
        data = pickle.dumps(model)
        start, end = _sealed_block(data)
        assert data[start:end].startswith(sealed.MAGIC)  # the bytes a saved file holds
        named = _globals(_payload(data))
        assert ("mddf.storage.sealed", "booster_from_raw") in named and ("xgboost.core", "Booster") not in named
        assert _globals(data) == {("mddf.storage.sealed", "unseal")}  # all else is in the checked bytes
        restored = pickle.loads(data)
        predict = "predict_proba" if hasattr(model, "predict_proba") else "predict"
        np.testing.assert_array_equal(getattr(restored, predict)(X), getattr(model, predict)(X))


def test_a_damaged_booster_is_a_model_file_error_and_never_reaches_xgboost(default_pickle, monkeypatch):
    _, data, X, _ = default_pickle
    model = pickle.loads(data)
    booster = model.layers_[0].models_[4][0].estimator.get_booster().save_raw(raw_format="ubj")
    at = data.find(bytes(booster[40:120]))  # a stretch of the first layer's first XGBoost member, in the pickle
    assert at > 0
    damaged = bytearray(data)
    damaged[at + 7] ^= 0x20
    loaded = []
    monkeypatch.setattr(xgboost.Booster, "load_model", lambda self, raw: loaded.append(raw))
    with pytest.raises(ModelFileError, match=r"the pickled MDDFClassifier: its \d+ bytes do not match the sha256"):
        pickle.loads(bytes(damaged))
    assert loaded == []  # nothing of the state was unpickled


def test_a_grid_search_pickles_sealed_once_its_cascades_inside_the_checked_bytes():
    X, y = _data()
    search = MDDFGridSearch(
        estimator=MDDFClassifier(n_estimators=4, max_layers=2, random_state=0), param_grid={"margin_mean": [0.7, 0.9]}
    ).fit(X, y)
    data = pickle.dumps(search)
    assert _globals(data) == {("mddf.storage.sealed", "unseal")}
    start, end = _sealed_block(data)
    assert ("mddf.storage.sealed", "unseal") not in _globals(_payload(data))  # the cascades are not sealed again
    assert sealed.MAGIC not in _payload(data)
    np.testing.assert_array_equal(pickle.loads(data).predict_proba(X), search.predict_proba(X))
    damaged = bytearray(data)
    damaged[(start + end) // 2] ^= 0x01
    with pytest.raises(ModelFileError, match=r"the pickled MDDFGridSearch: its \d+ bytes do not match the sha256"):
        pickle.loads(bytes(damaged))


def test_an_intact_state_that_cannot_be_loaded_here_is_a_model_file_error_saying_why(monkeypatch):
    X, y = _data()
    data = pickle.dumps(MDDFClassifier(n_estimators=4, max_layers=1, random_state=0).fit(X, y))
    monkeypatch.delattr(sys.modules["mddf.forests.binned"], "BinnedForest")
    with pytest.raises(ModelFileError, match="the pickled MDDFClassifier: intact but cannot be loaded here: Attr.*Bin"):
        pickle.loads(data)


def test_a_pickle_of_the_previous_version_loads_and_a_damaged_one_is_a_model_file_error():
    X, y = _data()
    model = MDDFClassifier(n_estimators=4, max_layers=2, random_state=0).fit(X, y)
    data = pickle.dumps(_PickledByThePreviousVersion(model))
    assert _globals(data) == {("mddf.storage.sealed", "open_sealed")} and len(_sealed_blocks(data)) == 3
    np.testing.assert_array_equal(pickle.loads(data).predict_proba(X), model.predict_proba(X))
    (start, end), *_ = _sealed_blocks(data)
    damaged = bytearray(data)
    damaged[(start + end) // 2] ^= 0x01
    with pytest.raises(ModelFileError, match=r"the pickled MDDFClassifier: its state \(\d+ bytes\) does not match"):
        pickle.loads(bytes(damaged))


@pytest.mark.slow
def test_forty_flipped_bytes_of_the_state_are_each_a_model_file_error_in_a_fresh_process(default_pickle):
    path, data, _, _ = default_pickle
    start, end = _sealed_block(data)
    assert len(data) - (end - start) <= 64  # the outer pickle: opcodes, the length, the name of unseal
    positions = np.linspace(start, end - 1, 40).round().astype(int)  # the header's first and the payload's last byte
    flips = [(int(position), (0x01, 0x80, 0xFF, 0x10)[k % 4]) for k, position in enumerate(positions)]
    outcomes = _flip_in_fresh_processes(path, flips, n_processes=4)
    for flip, (kind, message) in outcomes.items():
        assert kind == "ModelFileError", f"flip {flip}: {kind}: {message}"
        assert message.startswith(("model file the pickled MDDF", "model file a pickled mddf model")), message
        assert "\n" not in message


@pytest.mark.slow
def test_a_flipped_byte_of_the_outer_pickle_is_an_error_or_changes_nothing(default_pickle):
    # the bytes the digest cannot cover (mddf/storage/sealed.py says so, and a saved file has none): pickle's own
    # errors, or, where nothing reads the byte, the model itself; never a crash, never another model
    path, data, _, proba = default_pickle
    start, end = _sealed_block(data)
    frame = [position for position in range(len(data)) if not start <= position < end]
    flips = [(position, mask) for position in frame for mask in (0x01, 0x80, 0xFF)]
    expected = hashlib.sha256(proba.tobytes()).hexdigest()
    for flip, (kind, detail) in _flip_in_fresh_processes(path, flips, n_processes=1).items():
        assert kind != "loaded" or detail == expected, f"flip {flip} loaded a model that predicts otherwise"
