"""Bad input, as a specification: saved model files that are damaged, cut short, empty, of another kind or of a newer
format, for every estimator (``save(path)`` and ``mddf.load(path)``). Each is a one-line ModelFileError naming the
file and what is wrong, raised before anything of it is unpickled; an intact file predicts the same bits."""

from __future__ import annotations

import functools
import pickle
import tempfile
from pathlib import Path

import numpy as np
import pytest
from bad_input import ALL, Cases, data, make

import mddf
from mddf import ModelFileError
from mddf.storage import sealed

CASES = Cases()


@functools.cache
def _saved(name):
    """The bytes of estimator ``name`` fitted on its problem and saved, and the model."""
    X, y = data(name)
    model = make(name).fit(X, y)
    with tempfile.TemporaryDirectory() as folder:
        model.save(Path(folder) / "model.mddf")
        return (Path(folder) / "model.mddf").read_bytes(), model


def _load_error(content, fragment):
    """Load ``content`` from a file: a one-line ModelFileError naming the file and holding ``fragment``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.mddf"
        path.write_bytes(content)
        with pytest.raises(ModelFileError) as excinfo:
            mddf.load(path)
    message = str(excinfo.value)
    assert message.startswith(f"model file {path}: ") and "\n" not in message, message
    assert fragment in message, message


@CASES.add(ALL, "error")
def flipped_byte(name):
    content, _ = _saved(name)
    for position in (0, 12, 30, len(content) // 2, len(content) - 1):  # mark, version, header, payload, last byte
        damaged = bytearray(content)
        damaged[position] ^= 0x04
        _load_error(bytes(damaged), "")
    damaged = bytearray(content)
    damaged[-1] ^= 0x04
    _load_error(bytes(damaged), "do not match the sha256 digest taken when it was saved")


@CASES.add(ALL, "error")
def truncated_file(name):
    content, _ = _saved(name)
    _load_error(content[: len(content) - 1], f"its header announces {len(content)} bytes and it holds")
    _load_error(content[:20], "truncated: its 20 bytes end inside its header")


@CASES.add(ALL, "error")
def empty_file(name):
    _load_error(b"", "empty (0 bytes): not a model saved by mddf")


@CASES.add(ALL, "error")
def a_pickle_not_a_saved_model(name):
    _load_error(pickle.dumps(_saved(name)[1]), "not a model saved by mddf: it does not begin with mddf's mark")


@CASES.add(ALL, "error")
def saved_in_a_newer_format(name):
    content, model = _saved(name)
    with pytest.MonkeyPatch.context() as newer:
        newer.setattr(sealed, "SAVED_FORMAT", 2)
        content = sealed.seal(model)
    _load_error(content, "in format 2, newer than this mddf")


@CASES.add(ALL, "result")
def intact_file(name):
    content, model = _saved(name)
    X, _ = data(name)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "model.mddf").write_bytes(content)
        loaded = mddf.load(Path(folder) / "model.mddf")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("name, case_name", CASES.matrix, ids=[f"{n}-{c}" for n, c in CASES.matrix])
def test_bad_input(name, case_name):
    CASES[case_name].run(name)
