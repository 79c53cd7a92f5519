"""The download path, exercised against a static HTTP server on 127.0.0.1 (no internet needed)."""

from __future__ import annotations

import sys
import warnings

import dataset_file_writers as writers
import numpy as np
import pytest

from mddf.datasets import (
    ChecksumError,
    DownloadError,
    MissingFileError,
    UnpinnedHashWarning,
    load_dataset,
    override_sources,
)
from mddf.datasets.fetch import fetch_file, resolve_cache_dir, resolve_data_home
from mddf.datasets.registry import REGISTRY


def _serve_yeast(root):
    path = root / "yeast" / "yeast.data"
    path.parent.mkdir(parents=True)
    path.write_text(writers.yeast_text(n_per_class=4))
    return path


def test_download_verifies_caches_and_is_reused(http_server, tmp_path):
    base, root, requests = http_server
    served = _serve_yeast(root)
    cache = tmp_path / "cache"
    with override_sources(base_urls={"uci": base}, sha256={"yeast/yeast.data": writers.sha256_of(served)}):
        ds = load_dataset("yeast", data_home=tmp_path / "empty", cache_dir=cache, verbose=0)
        assert requests == ["/yeast/yeast.data"]
        cached = cache / "yeast" / "yeast.data"
        assert cached.read_bytes() == served.read_bytes()
        assert ds.extra["files"]["yeast/yeast.data"] == {
            "path": str(cached),
            "sha256": writers.sha256_of(served),
            "verified": "sha256",
        }
        assert ds.X_train.shape == (28, 8) and ds.X_test.shape == (12, 8) and ds.n_classes == 10

        again = load_dataset("yeast", data_home=tmp_path / "empty", cache_dir=cache, verbose=0)
        assert requests == ["/yeast/yeast.data"]  # neither the file nor the arrays were fetched again
        assert np.array_equal(again.X_train, ds.X_train)

        for entry in (cache / "parsed").iterdir():  # without parsed arrays the cached file is still reused
            entry.unlink()
        local = fetch_file(REGISTRY["yeast"].files["all"], data_home=None, cache_dir=cache)
        assert local.path == cached and requests == ["/yeast/yeast.data"]
        assert load_dataset("yeast", cache_dir=cache, verbose=0).X_train.shape == (28, 8)
        assert requests == ["/yeast/yeast.data"]
    assert sorted(p.name for p in (cache / "yeast").iterdir()) == ["yeast.data"]  # no temporary files left


def test_downloaded_file_with_the_wrong_hash_is_not_kept(http_server, tmp_path):
    base, root, requests = http_server
    served = _serve_yeast(root)
    cache = tmp_path / "cache"
    with override_sources(base_urls={"uci": base}):  # the registry's pin is the real file's hash
        with pytest.raises(ChecksumError) as info:
            load_dataset("yeast", cache_dir=cache, verbose=0)
    message = str(info.value)
    assert "yeast/yeast.data" in message and f"{base}/yeast/yeast.data" in message
    assert REGISTRY["yeast"].files["all"].sha256 in message and writers.sha256_of(served) in message
    assert info.value.actual == writers.sha256_of(served)
    assert list((cache / "yeast").iterdir()) == []  # nothing kept, not even a partial file


def test_mirrors_are_tried_in_order(http_server, tmp_path):
    base, root, requests = http_server
    served = _serve_yeast(root)
    with override_sources(
        base_urls={"uci": (f"{base}/missing-mirror/", base)}, sha256={"yeast/yeast.data": writers.sha256_of(served)}
    ):
        ds = load_dataset("yeast", cache_dir=tmp_path / "cache", verbose=0)
    assert requests == ["/missing-mirror/yeast/yeast.data", "/yeast/yeast.data"]
    assert ds.X_train.shape == (28, 8)


def test_failed_download_names_every_url_and_the_file(http_server, tmp_path):
    base, _, requests = http_server
    with override_sources(base_urls={"uci": base}):
        with pytest.raises(DownloadError) as info:
            load_dataset("ionosphere", cache_dir=tmp_path / "cache", verbose=0)
    message = str(info.value)
    assert "ionosphere/ionosphere.data is missing" in message
    assert f"{base}/ionosphere/ionosphere.data: HTTPError: 404" in message
    assert requests == ["/ionosphere/ionosphere.data"]
    assert "download=True" not in message  # downloading was on: suggesting it would mislead


def test_missing_file_with_downloads_disabled_suggests_allowing_them(tmp_path):
    with pytest.raises(MissingFileError, match=r"downloading is disabled \(download=False\)") as info:
        load_dataset("yeast", data_home=tmp_path / "empty", cache_dir=tmp_path / "cache", download=False)
    assert str(info.value).rstrip().endswith("or allow downloading (download=True).")


def test_no_request_when_downloads_are_disabled(http_server, tmp_path):
    base, root, requests = http_server
    _serve_yeast(root)
    with override_sources(base_urls={"uci": base}), pytest.raises(MissingFileError):
        load_dataset("yeast", cache_dir=tmp_path / "cache", download=False)
    assert requests == []


def test_trust_on_first_use_download_records_the_hash_next_to_the_file(http_server, tmp_path):
    base, root, requests = http_server
    X, y = writers.protein_like(15, seed=0)
    for name in ("protein.bz2", "protein.t.bz2"):
        writers.write_bz2(root / name, writers.libsvm_protein_text(X, y))
    cache = tmp_path / "cache"
    with override_sources(base_urls={"libsvm": base}):
        with pytest.warns(UnpinnedHashWarning, match="trusted on first use"):
            ds = load_dataset("protein", cache_dir=cache, verbose=0)
        assert sorted(requests) == ["/protein.bz2", "/protein.t.bz2"]
        record = cache / "protein" / "protein.bz2.sha256"
        assert record.read_text().split()[0] == writers.sha256_of(root / "protein.bz2")
        assert ds.X_train.shape == (15, 357)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            load_dataset("protein", cache_dir=cache, verbose=0)
        assert len(requests) == 2


def test_truncated_download_of_an_unpinned_file_is_neither_kept_nor_trusted(http_server, tmp_path):
    base, root, _ = http_server
    X, y = writers.protein_like(30, seed=0)
    for name in ("protein.bz2", "protein.t.bz2"):
        path = writers.write_bz2(root / name, writers.libsvm_protein_text(X, y))
        path.write_bytes(path.read_bytes()[:-40])
    cache = tmp_path / "cache"
    with override_sources(base_urls={"libsvm": base}), pytest.raises(DownloadError, match="not a valid bz2"):
        load_dataset("protein", cache_dir=cache, verbose=0)
    assert list((cache / "protein").iterdir()) == []


def test_payload_checked_download(http_server, tmp_path):
    """Fashion-MNIST downloads are checked on their decompressed content before they are kept."""
    base, root, _ = http_server
    images, labels = writers.mnist_like(10, seed=0)
    writers.write_idx_gz(root / "t10k-images-idx3-ubyte.gz", images)
    writers.write_idx_gz(root / "t10k-labels-idx1-ubyte.gz", labels)
    cache = tmp_path / "cache"
    with override_sources(base_urls={"fashion-mnist": base}), pytest.raises(ChecksumError) as info:
        load_dataset("fashion-mnist", cache_dir=cache, verbose=0, mnist_split="test")
    assert "decompressed content" in str(info.value)
    assert not (cache / "fashion-mnist" / "t10k-images-idx3-ubyte.gz").exists()


def test_progress_lines_are_printed_only_when_verbose(http_server, tmp_path, capsys):
    base, root, _ = http_server
    served = _serve_yeast(root)
    with override_sources(base_urls={"uci": base}, sha256={"yeast/yeast.data": writers.sha256_of(served)}):
        load_dataset("yeast", cache_dir=tmp_path / "quiet", verbose=0)
        assert capsys.readouterr().err == ""
        load_dataset("yeast", cache_dir=tmp_path / "loud", verbose=1)
        err = capsys.readouterr().err
    assert "downloading" in err and "parsing yeast" in err
    assert "\r" not in err  # standard error is not a terminal here: lines, no progress bar


def test_progress_bar_is_drawn_on_a_terminal(http_server, tmp_path, capsys, monkeypatch):
    base, root, _ = http_server
    served = _serve_yeast(root)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    with override_sources(base_urls={"uci": base}, sha256={"yeast/yeast.data": writers.sha256_of(served)}):
        load_dataset("yeast", cache_dir=tmp_path / "tty", verbose=1)
    assert "\r" in capsys.readouterr().err


def test_override_sources_rejects_unknown_sources_and_restores_on_exit(tmp_path):
    from mddf.datasets.fetch import urls_for

    rf = REGISTRY["yeast"].files["all"]
    original = urls_for(rf)
    with pytest.raises(ValueError, match="unknown sources"):
        with override_sources(base_urls={"ucl": "http://x/"}):
            pass
    with pytest.raises(ValueError, match="64 hex digits"):
        with override_sources(sha256={"yeast/yeast.data": "md5:abc"}):
            pass
    with override_sources(base_urls={"uci": "http://127.0.0.1:1"}):
        assert urls_for(rf) == ["http://127.0.0.1:1/yeast/yeast.data"]
    assert urls_for(rf) == original


def test_where_files_are_looked_for(tmp_path, monkeypatch):
    monkeypatch.setenv("MDDF_DATA", str(tmp_path / "env-data"))
    monkeypatch.setenv("MDDF_CACHE", str(tmp_path / "env-cache"))
    assert resolve_data_home(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_data_home() == tmp_path / "env-data"
    assert resolve_cache_dir() == tmp_path / "env-cache"
    assert resolve_cache_dir(tmp_path / "c") == tmp_path / "c"
    monkeypatch.delenv("MDDF_DATA")
    monkeypatch.delenv("MDDF_CACHE")
    assert resolve_data_home() is None
    assert "mddf" in str(resolve_cache_dir())  # the per-user cache (pooch.os_cache)

    # an explicit data_home wins over the cache: a copy there is used
    served = tmp_path / "arg" / "yeast" / "yeast.data"
    served.parent.mkdir(parents=True)
    served.write_text(writers.yeast_text())
    with override_sources(sha256={"yeast/yeast.data": writers.sha256_of(served)}):
        local = fetch_file(
            REGISTRY["yeast"].files["all"], data_home=tmp_path / "arg", cache_dir=tmp_path / "c", download=False
        )
    assert local.path == served
