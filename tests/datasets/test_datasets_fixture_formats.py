"""Datasets whose real files are not on this machine load through the real loaders from fixture files.

The fixtures are written in the publishers' exact formats and file names into
a temporary data_home. Pinned files (HAR's zip, MNIST's .gz) get the
fixture's hash registered through :func:`mddf.datasets.override_sources`; LIBSVM
files, which have no published hash, go through trust-on-first-use.
"""

from __future__ import annotations

import warnings

import dataset_file_writers as writers
import numpy as np
import pytest

from mddf.datasets import ChecksumError, UnpinnedHashWarning, load_dataset, override_sources


def _load(name, home, cache, **options):
    return load_dataset(name, data_home=home, cache_dir=cache, download=False, verbose=0, **options)


@pytest.fixture
def dirs(tmp_path):
    return tmp_path / "home", tmp_path / "cache"


def test_protein_libsvm_files_with_their_spacing_quirk(dirs):
    home, cache = dirs
    X_train, y_train = writers.protein_like(30, seed=0)
    X_test, y_test = writers.protein_like(9, seed=1)
    writers.write_bz2(home / "protein" / "protein.bz2", writers.libsvm_protein_text(X_train, y_train))
    writers.write_bz2(home / "protein" / "protein.t.bz2", writers.libsvm_protein_text(X_test, y_test))
    assert ": .25" in writers.libsvm_protein_text(X_train, y_train)  # the quirk is in the fixture

    with pytest.warns(UnpinnedHashWarning) as record:
        ds = _load("protein", home, cache)
    assert sorted(str(w.message).split(":")[0] for w in record) == ["protein/protein.bz2", "protein/protein.t.bz2"]
    assert ds.X_train.shape == (30, 357) and ds.X_test.shape == (9, 357)
    assert np.array_equal(ds.X_train, X_train.astype(np.float32))
    assert np.array_equal(ds.X_test, X_test.astype(np.float32))
    assert ds.classes.tolist() == [0, 1, 2] and np.array_equal(ds.classes[ds.y_train], y_train)
    assert ds.extra["files"]["protein/protein.bz2"]["verified"] == "trust-on-first-use"


def test_trust_on_first_use_records_then_enforces_the_hash(dirs):
    home, cache = dirs
    X, y = writers.protein_like(12, seed=0)
    train = writers.write_bz2(home / "protein" / "protein.bz2", writers.libsvm_protein_text(X, y))
    writers.write_bz2(home / "protein" / "protein.t.bz2", writers.libsvm_protein_text(X[:6], y[:6]))

    with pytest.warns(UnpinnedHashWarning) as record:
        _load("protein", home, cache)
    assert len(record) == 2  # one warning per unpinned file
    trust_file = cache / "protein" / "protein.bz2.sha256"
    assert trust_file.read_text().split()[0] == writers.sha256_of(train)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a verified later use warns no more
        _load("protein", home, cache)

    writers.write_bz2(train, writers.libsvm_protein_text(X[::-1], y[::-1]))  # a different file
    with pytest.raises(ChecksumError) as info:
        _load("protein", home, cache)
    message = str(info.value)
    assert "protein/protein.bz2" in message and str(trust_file) in message
    assert info.value.expected == trust_file.read_text().split()[0]
    assert info.value.actual == writers.sha256_of(train)


def test_sensit_with_a_pinned_fixture_hash(dirs):
    home, cache = dirs
    X_train, y_train = writers.sensit_like(24, seed=0)
    X_test, y_test = writers.sensit_like(9, seed=1)
    a = writers.write_bz2(home / "sensit" / "acoustic_scale.bz2", writers.libsvm_text(X_train, y_train))
    b = writers.write_bz2(home / "sensit" / "acoustic_scale.t.bz2", writers.libsvm_text(X_test, y_test))
    pins = {"sensit/acoustic_scale.bz2": writers.sha256_of(a), "sensit/acoustic_scale.t.bz2": writers.sha256_of(b)}
    with override_sources(sha256=pins), warnings.catch_warnings():
        warnings.simplefilter("error")  # pinned: no trust-on-first-use warning
        ds = _load("sensit", home, cache)
    assert ds.X_train.shape == (24, 50) and ds.X_test.shape == (9, 50)
    assert np.allclose(ds.X_train, X_train, atol=1e-6) and np.allclose(ds.X_test, X_test, atol=1e-6)
    assert ds.classes.tolist() == [1, 2, 3]
    assert ds.extra["files"]["sensit/acoustic_scale.bz2"]["verified"] == "sha256"
    other_cache = cache.parent / "other-cache"
    with override_sources(sha256={"sensit/acoustic_scale.bz2": "0" * 64}), pytest.raises(ChecksumError):
        _load("sensit", home, other_cache)
    assert not (other_cache / "sensit" / "acoustic_scale.bz2.sha256").exists()


def test_har_zip_layout(dirs):
    home, cache = dirs
    zip_path = home / "har" / "UCI HAR Dataset.zip"
    written = writers.write_har_zip(zip_path, n_train=12, n_test=6)
    with override_sources(sha256={"har/UCI HAR Dataset.zip": writers.sha256_of(zip_path)}):
        ds = _load("har", home, cache)
    assert ds.X_train.shape == (12, 561) and ds.X_test.shape == (6, 561)
    assert np.allclose(ds.X_train, written["X_train"], atol=1e-6)
    assert np.allclose(ds.X_test, written["X_test"], atol=1e-6)
    assert ds.classes.tolist() == [1, 2, 3, 4, 5, 6]
    assert np.array_equal(ds.classes[ds.y_test], written["y_test"])
    assert ds.feature_names == written["features"]
    assert ds.extra["class_names"]["6"] == "LAYING"


def test_har_fixture_is_rejected_without_the_override(dirs):
    """The registry pins the published zip's sha256; a different zip never loads silently."""
    home, cache = dirs
    zip_path = home / "har" / "UCI HAR Dataset.zip"
    writers.write_har_zip(zip_path)
    with pytest.raises(ChecksumError) as info:
        _load("har", home, cache)
    assert "2045e435c955214b38145fb5fa00776c72814f01b203fec405152dac7d5bfeb0" in str(info.value)
    assert writers.sha256_of(zip_path) in str(info.value)


@pytest.fixture
def mnist_home(dirs):
    home, cache = dirs
    written = writers.write_mnist_files(home / "mnist", n_train=40, n_test=20)
    pins = {f"mnist/{p.name}": writers.sha256_of(p) for p in (home / "mnist").iterdir()}
    with override_sources(sha256=pins):
        yield home, cache, written


def test_mnist_full_split_from_idx_files(mnist_home):
    home, cache, written = mnist_home
    ds = _load("mnist", home, cache)
    assert ds.X_train.shape == (40, 784) and ds.X_test.shape == (20, 784)
    assert np.array_equal(ds.X_train, written["train_images"].reshape(40, -1).astype(np.float32))
    assert np.array_equal(ds.y_test, written["test_labels"])
    train_only = _load("mnist", home, cache, mnist_split="train")
    assert train_only.X_train.shape == (40, 784) and train_only.X_test is None


def test_ocr_uses_train_then_test_rows_by_default(mnist_home):
    home, cache, written = mnist_home
    ds = _load("ocr49", home, cache)
    labels = np.concatenate([written["train_labels"], written["test_labels"]])
    images = np.concatenate([written["train_images"], written["test_images"]]).reshape(60, -1)
    keep = np.isin(labels, [4, 9])
    assert np.array_equal(ds.X_train, images[keep].astype(np.float32))
    assert np.array_equal(ds.classes[ds.y_train], labels[keep])
    assert ds.X_test is None and "mnist_split='all'" in ds.description
    test_only = _load("ocr49", home, cache, mnist_split="test")
    assert len(test_only.y_train) == np.isin(written["test_labels"], [4, 9]).sum()
