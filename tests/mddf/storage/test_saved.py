"""A saved model is one file checked whole before any of it is loaded (mddf.storage.saved, mddf.storage.sealed):
every damaged, truncated, foreign or newer file is a one-line ModelFileError naming it; an intact one loads."""

import hashlib
import os
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest

import mddf
from mddf import MDDFClassifier, ModelFileError
from mddf.storage import sealed


def _data(n=40, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small fitted classifier saved to a file: the path, its bytes, the rows and the predictions."""
    X, y = _data()
    model = MDDFClassifier(n_estimators=2, max_layers=1, forest_types=("rf",), random_state=0).fit(X, y)
    path = tmp_path_factory.mktemp("saved") / "model.mddf"
    model.save(path)
    return path, path.read_bytes(), X, model.predict_proba(X)


def _load_bytes(tmp_path, data, name="damaged.mddf"):
    path = tmp_path / name
    path.write_bytes(data)
    return mddf.load(path)


def _one_line_error_naming(path, excinfo):
    message = str(excinfo.value)
    assert message.startswith(f"model file {path}: ") and "\n" not in message, message
    return message


def test_the_file_is_a_header_a_digest_of_the_whole_file_and_the_pickle(saved):
    path, data, X, proba = saved
    head = sealed.check(data, str(path))
    assert data.startswith(sealed.MAGIC) and head.format == sealed.SAVED_FORMAT == 1
    assert (head.mddf_version, head.algorithm, head.name) == (mddf.__version__, "sha256", "MDDFClassifier")
    assert head.size == len(data) and head.payload_size == len(data) - head.at
    digest = hashlib.sha256(data[: head.head_size] + data[head.at :]).digest()
    assert data[head.head_size : head.at] == digest  # every other byte of the file is under the digest
    np.testing.assert_array_equal(pickle.loads(data[head.at :]).predict_proba(X), proba)
    np.testing.assert_array_equal(mddf.load(str(path)).predict_proba(X), proba)


def _flip_outcomes(data, flips):
    """The type of what loading ``data`` with each flip ``(position, mask)`` raised ("loaded" if nothing)."""
    kinds = {}
    for position, mask in flips:
        damaged = bytearray(data)
        damaged[position] ^= mask
        try:
            sealed.unseal(bytes(damaged), "damaged.mddf")
            kinds[position, mask] = "loaded"
        except Exception as exc:
            kinds[position, mask] = type(exc).__name__
            assert isinstance(exc, ModelFileError) and "\n" not in str(exc), (position, mask, exc)
    return kinds


def _header_flips(data):
    """Every byte of the header and the digest, with three masks."""
    return [(p, m) for p in range(sealed.check(data, "x").at) for m in (0x01, 0x80, 0xFF)]


def test_every_flipped_byte_is_a_model_file_error_and_nothing_else(saved, tmp_path):
    path, data, _, _ = saved
    head_end = sealed.check(data, "x").at
    flips = _header_flips(data) + [(p, (0x01, 0x10, 0x80, 0xFF)[p % 4]) for p in range(head_end, len(data))]
    kinds = _flip_outcomes(data, flips)
    assert set(kinds.values()) == {"ModelFileError"}
    assert len(kinds) == 3 * head_end + len(data) - head_end > len(data)
    damaged = bytearray(data)  # and the same through a file
    damaged[-1] ^= 0x01
    with pytest.raises(ModelFileError) as excinfo:
        _load_bytes(tmp_path, bytes(damaged))
    message = _one_line_error_naming(tmp_path / "damaged.mddf", excinfo)
    assert "do not match the sha256 digest taken when it was saved" in message and "nothing of it was loaded" in message


@pytest.mark.slow
def test_flipped_bytes_of_a_default_model_are_each_a_model_file_error(tmp_path):
    # the model of issue 81's trials (XGBoost members, calibration): every header byte, the last 200 bytes and
    # 3,000 bytes between
    X, y = _data(80)
    MDDFClassifier(random_state=0).fit(X, y).save(tmp_path / "default.mddf")
    data = (tmp_path / "default.mddf").read_bytes()
    head_end = sealed.check(data, "x").at
    positions = {
        *np.linspace(head_end, len(data) - 1, 3000).round().astype(int).tolist(),
        *range(len(data) - 200, len(data)),
    }
    flips = _header_flips(data) + [(p, (0x01, 0x10, 0x80, 0xFF)[p % 4]) for p in sorted(positions)]
    assert set(_flip_outcomes(data, flips).values()) == {"ModelFileError"}


def test_flips_in_the_header_say_what_they_broke(saved):
    data = saved[1]

    def problem(position, mask):
        damaged = bytearray(data)
        damaged[position] ^= mask
        with pytest.raises(ModelFileError) as excinfo:
            sealed.unseal(bytes(damaged), "f")
        return str(excinfo.value)

    assert "not a model saved by mddf: it does not begin with mddf's mark" in problem(0, 0x01)
    assert "saved in format 3, which this mddf" in problem(len(sealed.MAGIC), 0x02)
    assert "saved by a newer mddf, or the file is damaged" in problem(len(sealed.MAGIC), 0x02)
    assert "saved in format 0, which no mddf wrote (this mddf" in problem(len(sealed.MAGIC), 0x01)
    algorithm_at = data.index(b"sha256")
    assert "its digest algorithm 'rha256' is not one this mddf knows (sha256)" in problem(algorithm_at, 0x01)
    head = sealed.check(data, "f")
    announced = head.at + (head.payload_size ^ 0x01)
    assert f"its header announces {announced} bytes and it holds {len(data)}" in problem(head.head_size - 8, 0x01)


def test_a_truncated_file_is_a_model_file_error_at_every_length(saved, tmp_path):
    path, data, _, _ = saved
    lengths = sorted({*range(1, 120), len(data) // 2, len(data) - 2, len(data) - 1})
    for n in lengths:
        with pytest.raises(ModelFileError, match=r"truncated") as excinfo:
            _load_bytes(tmp_path, data[:n])
        _one_line_error_naming(tmp_path / "damaged.mddf", excinfo)
    with pytest.raises(ModelFileError, match=f"its header announces {len(data)} bytes and it holds {len(data) + 3}"):
        _load_bytes(tmp_path, data + b"abc")


def test_an_empty_file_a_table_and_a_pickle_are_not_models(saved, tmp_path):
    _, data, _, _ = saved
    cases = {
        b"": r"empty \(0 bytes\): not a model saved by mddf",
        b"x,y\n1,2\n": r"not a model saved by mddf: it does not begin with mddf's mark",
        pickle.dumps({"model": 1}): r"it does not begin .* \(it looks like a pickle: load it with pickle.load\)",
        b"MDDFMODL" + bytes(56): "not a model saved by mddf",  # a model_dir member's file
    }
    for content, problem in cases.items():
        with pytest.raises(ModelFileError, match=problem) as excinfo:
            _load_bytes(tmp_path, content, "other.file")
        _one_line_error_naming(tmp_path / "other.file", excinfo)
    with pytest.raises(FileNotFoundError):
        mddf.load(tmp_path / "missing.mddf")


def test_a_model_saved_in_a_newer_format_names_the_version_that_saved_it(tmp_path, monkeypatch):
    X, y = _data()
    model = MDDFClassifier(n_estimators=2, max_layers=1, forest_types=("rf",), random_state=0).fit(X, y)
    with monkeypatch.context() as newer:
        newer.setattr(sealed, "SAVED_FORMAT", 2)
        newer.setattr(mddf, "__version__", "9.0")
        model.save(tmp_path / "newer.mddf")
    with pytest.raises(ModelFileError) as excinfo:
        mddf.load(tmp_path / "newer.mddf")
    message = _one_line_error_naming(tmp_path / "newer.mddf", excinfo)
    assert message.endswith(
        f"saved by mddf 9.0 in format 2, newer than this mddf ({mddf.__version__}) reads format 1: load it with a "
        "newer mddf"
    )
    other_layout = sealed.MAGIC + struct.pack("<I", 2) + b"a layout of its own"
    with pytest.raises(ModelFileError, match="saved in format 2, which this mddf .* a newer mddf, or the file is dam"):
        _load_bytes(tmp_path, other_layout)


def test_save_replaces_its_own_file_whole_and_never_another_file(saved, tmp_path, monkeypatch):
    path, data, X, proba = saved
    target = tmp_path / "model.mddf"
    target.write_bytes(data)
    other = MDDFClassifier(n_estimators=2, max_layers=1, forest_types=("rf",), random_state=1).fit(*_data(seed=1))
    other.save(target)  # an earlier saved model is replaced
    np.testing.assert_array_equal(mddf.load(target).predict_proba(X), other.predict_proba(X))
    table = tmp_path / "table.csv"
    table.write_text("x,y\n1,2\n")
    with pytest.raises(FileExistsError, match=f"{table} exists and is not a model saved by mddf: not replaced"):
        other.save(table)
    assert table.read_text() == "x,y\n1,2\n"

    def interrupted(src, dst):
        raise OSError(28, "No space left on device")

    with pytest.raises(IsADirectoryError, match=f"{tmp_path} is a folder: give the path of the file"):
        other.save(tmp_path)
    with pytest.raises(FileNotFoundError, match=f"its folder {tmp_path / 'no'} does not exist"):
        other.save(tmp_path / "no" / "model.mddf")
    target.write_bytes(data)
    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(OSError, match="No space left"):
        other.save(target)
    assert target.read_bytes() == data and sorted(p.name for p in tmp_path.iterdir()) == ["model.mddf", "table.csv"]


def test_the_user_guide_gives_the_format_version_and_mark_the_code_writes():
    guide = (Path(__file__).resolve().parents[3] / "docs" / "user_guide" / "saving.md").read_text()
    assert f"**The file format (version {sealed.SAVED_FORMAT}).**" in guide
    assert f"| 4 | the format version, uint32 ({sealed.SAVED_FORMAT}) |" in guide
    mark = sealed.MAGIC.decode("latin-1").encode("unicode_escape").decode()  # \x89MDDF\r\n\x1a\n
    assert f"| {len(sealed.MAGIC)} | the mark `{mark}`" in guide
