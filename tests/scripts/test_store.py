"""The JSON-lines results file survives interruptions and keeps the last record of a run."""

import json

import numpy as np
import pytest

from mddf.experiments.store import ResultStore, run_key


def test_append_then_read_back_with_numpy_values_and_nan(tmp_path):
    store = ResultStore(tmp_path / "sub" / "results.jsonl")
    store.append({"key": "a", "status": "ok", "accuracy": np.float32(0.5), "n": np.int64(3), "x": float("nan")})
    (rec,) = store.records()
    assert rec == {"key": "a", "status": "ok", "accuracy": 0.5, "n": 3, "x": None}


def test_a_line_cut_short_by_a_crash_is_ignored_then_removed_once_by_the_next_run(tmp_path):
    import warnings

    path = tmp_path / "results.jsonl"
    store = ResultStore(path)
    store.append({"key": "a", "status": "ok"})
    with path.open("a") as fh:
        fh.write('{"key": "b", "sta')  # a write cut short (a full disk, a killed process)
    with pytest.warns(UserWarning, match="incomplete record"):
        assert [r["key"] for r in store.records()] == ["a"]
    with pytest.warns(UserWarning, match=r"removed an incomplete last record \(17 bytes"):
        store.append({"key": "c", "status": "ok"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # repaired: no warning at any later read
        assert [r["key"] for r in store.records()] == ["a", "c"]
        assert store.repair() == 0
    assert json.loads(path.read_text().splitlines()[-1]) == {"key": "c", "status": "ok"}


def test_a_file_of_one_cut_record_is_emptied_by_the_repair(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"key": "b"')
    with pytest.warns(UserWarning, match="removed an incomplete last record"):
        assert ResultStore(path).repair() == len('{"key": "b"')
    assert path.read_bytes() == b""


def test_the_latest_record_of_a_run_wins(tmp_path):
    store = ResultStore(tmp_path / "r.jsonl")
    store.append({"key": "a", "status": "error"})
    store.append({"key": "a", "status": "ok"})
    store.append({"key": "b", "status": "ok"})
    store.append({"key": "b", "status": "error"})
    store.append({"key": "c", "status": "skipped"})
    assert {key: r["status"] for key, r in store.latest().items()} == {"a": "ok", "b": "error", "c": "skipped"}


def test_run_keys_distinguish_every_dimension_of_a_run():
    keys = {
        run_key("d", "m", 0),
        run_key("d", "m", 1),
        run_key("d", "m", 0, fold=2),
        run_key("d", "m", 0, fraction=0.1),
        run_key("d", "m", 0, profile="quick"),
        run_key("e", "m", 0),
    }
    assert len(keys) == 6


@pytest.mark.parametrize(
    "line, problem",
    [
        (b"42", "JSON but not a record"),
        (b"null", "JSON but not a record"),
        (b"[1, 2]", "JSON but not a record"),
        (b'"text"', "JSON but not a record"),
        (b'{"key": "b", "status": "ok", "note": "caf\xe9"}', "not UTF-8"),
    ],
)
def test_a_line_that_is_not_a_record_is_skipped_with_a_warning_naming_file_and_line(tmp_path, line, problem):
    path = tmp_path / "results.jsonl"
    store = ResultStore(path)
    store.append({"key": "a", "status": "ok"})
    with path.open("ab") as fh:
        fh.write(line + b"\n")
    store.append({"key": "c", "status": "ok"})
    with pytest.warns(UserWarning, match=rf"results\.jsonl:2: ignoring .*{problem}"):
        assert set(store.latest()) == {"a", "c"}
