"""Bad names, bad options, missing, mismatching, truncated and malformed files each give a clear error."""

from __future__ import annotations

import gzip

import dataset_file_writers as writers
import numpy as np
import pytest

from mddf.datasets import (
    ChecksumError,
    CorruptFileError,
    MissingFileError,
    load_dataset,
    override_sources,
    parsers,
)
from mddf.datasets.registry import REGISTRY


def _load(name, home, cache, **options):
    return load_dataset(name, data_home=home, cache_dir=cache, download=False, verbose=0, **options)


@pytest.fixture
def dirs(tmp_path):
    return tmp_path / "home", tmp_path / "cache"


def _pin(home, *keys):
    return override_sources(sha256={k: writers.sha256_of(home / k) for k in keys})


# ----------------------------------------------------------------------------- names and options


def test_unknown_name_lists_known_names_and_suggests_a_close_one():
    with pytest.raises(ValueError) as info:
        load_dataset("satimgae")
    message = str(info.value)
    assert "unknown dataset 'satimgae'" in message and "Did you mean 'satimage'" in message
    for name in ("adult", "mnist", "ocr17", "digits", "breastcancer"):
        assert name in message


def test_names_are_case_insensitive_and_paper_aliases_work():
    assert load_dataset("IRIS").name == "iris"
    from mddf.datasets.registry import get_spec

    assert get_spec("ocr17-mnist").name == "ocr17" and get_spec("Fashion-MNIST").name == "fashion-mnist"


def test_unknown_and_invalid_options(dirs):
    home, cache = dirs
    with pytest.raises(TypeError, match="unexpected option.*mising.*accepted: missing"):
        _load("adult", home, cache, mising="nan")
    with pytest.raises(TypeError, match="accepts no options"):
        _load("letter", home, cache, missing="nan")
    with pytest.raises(ValueError, match=r"mnist_split='validation' is not allowed; use 'all', 'train', 'test'"):
        _load("mnist", home, cache, mnist_split="validation")
    with pytest.raises(ValueError, match="or a number"):
        _load("breastcancer", home, cache, missing="mean")
    with pytest.raises(TypeError, match="accepts no options"):
        load_dataset("digits", missing="nan")


# ----------------------------------------------------------------------------- missing files


def test_missing_file_with_downloads_disabled_says_where_it_looked_and_where_to_get_it(dirs):
    home, cache = dirs
    with pytest.raises(MissingFileError) as info:
        _load("satimage", home, cache)
    message = str(info.value)
    assert "satimage/sat.trn is missing" in message and "satimage/sat.tst is missing" in message
    assert str(home / "satimage" / "sat.trn") in message and str(cache / "satimage" / "sat.trn") in message
    assert "https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/satimage/sat.trn" in message
    assert REGISTRY["satimage"].files["train"].sha256 in message
    assert "download=False" in message


def test_missing_unpinned_file_says_no_checksum_is_published(dirs):
    home, cache = dirs
    with pytest.raises(MissingFileError, match="no published checksum") as info:
        _load("sensit", home, cache)
    assert "vehicle/acoustic_scale.bz2" in str(info.value)


# ----------------------------------------------------------------------------- checksums


def test_hash_mismatch_names_file_expected_and_actual(dirs):
    home, cache = dirs
    path = home / "yeast" / "yeast.data"
    path.parent.mkdir(parents=True)
    path.write_text(writers.yeast_text())
    with pytest.raises(ChecksumError) as info:
        _load("yeast", home, cache)
    message = str(info.value)
    expected = REGISTRY["yeast"].files["all"].sha256
    assert "yeast/yeast.data" in message and str(path) in message
    assert expected in message and writers.sha256_of(path) in message
    assert (info.value.file, info.value.expected, info.value.actual) == (
        "yeast/yeast.data",
        expected,
        writers.sha256_of(path),
    )
    assert not (cache / "parsed").exists()  # nothing was parsed from it


def test_fashion_payload_mismatch_is_reported_on_the_decompressed_content(dirs):
    home, cache = dirs
    images, labels = writers.mnist_like(10, seed=0)
    writers.write_idx_gz(home / "fashion-mnist" / "t10k-images-idx3-ubyte.gz", images)
    writers.write_idx_gz(home / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz", labels)
    with pytest.raises(ChecksumError, match="decompressed content of fashion-mnist/t10k-") as info:
        _load("fashion-mnist", home, cache, mnist_split="test")
    assert info.value.expected in {f.payload_sha256 for f in REGISTRY["fashion-mnist"].files.values()}


# ----------------------------------------------------------------------------- truncated and malformed files


def test_truncated_gz_is_not_parsed(dirs):
    home, cache = dirs
    written = writers.write_mnist_files(home / "mnist", n_train=10, n_test=10)
    assert written["test_images"].shape[0] == 10
    path = home / "mnist" / "t10k-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:-200])
    with _pin(home, "mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz"):
        with pytest.raises(CorruptFileError, match=r"mnist/t10k-images-idx3-ubyte.gz .*truncated or not a valid gz"):
            _load("mnist", home, cache, mnist_split="test")


def test_short_idx_payload_is_not_parsed(dirs):
    home, cache = dirs
    writers.write_mnist_files(home / "mnist", n_train=10, n_test=10)
    path = home / "mnist" / "t10k-images-idx3-ubyte.gz"
    payload = gzip.decompress(path.read_bytes())
    path.write_bytes(gzip.compress(payload[:-28]))  # a valid gzip of an IDX file missing one image row
    with _pin(home, "mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz"):
        with pytest.raises(CorruptFileError, match=r"truncated: its IDX header announces shape \(10, 28, 28\)"):
            _load("mnist", home, cache, mnist_split="test")


def test_idx_images_and_labels_must_agree(dirs):
    home, cache = dirs
    writers.write_mnist_files(home / "mnist", n_train=10, n_test=10)
    writers.write_idx_gz(home / "mnist" / "t10k-labels-idx1-ubyte.gz", np.zeros(9, np.uint8))
    with _pin(home, "mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz"):
        with pytest.raises(CorruptFileError, match="holds 10 images but .* holds 9 labels"):
            _load("mnist", home, cache, mnist_split="test")


@pytest.mark.parametrize(
    "data, ndim, message",
    [
        (b"\x00\x00\x08\x03\x00\x00", 3, "truncated inside its IDX header"),
        (b"\x00\x00\x08\x01\x00\x00\x00\x02\x01\x02\x03", 1, "1 bytes after the 2 bytes"),
        (b"PK\x03\x04abcdefgh", 3, "not an IDX file"),
        (b"\x00\x00\x08\x01\x00\x00\x00\x01\x07", 3, "1-dimensional IDX array, expected 3"),
        (b"\x00\x00", 1, "shorter than an IDX header"),
    ],
)
def test_idx_header_errors(data, ndim, message):
    with pytest.raises(CorruptFileError, match=message):
        parsers.parse_idx(data, "x.idx", expected_ndim=ndim)


def test_idx_round_trip():
    array = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    assert np.array_equal(parsers.parse_idx(writers.idx_bytes(array), "x.idx", expected_ndim=3), array)


def test_text_table_with_a_wrong_column_count(dirs):
    home, cache = dirs
    for name, drop in (("sat.trn", 7), ("sat.tst", None)):
        path = home / "satimage" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(writers.satimage_text(20, drop_field_in_row=drop))
    with _pin(home, "satimage/sat.trn", "satimage/sat.tst"):
        with pytest.raises(CorruptFileError, match=r"satimage/sat.trn is not a numeric table of 37 columns.*row 8"):
            _load("satimage", home, cache)


def test_adult_row_with_a_missing_field(dirs):
    home, cache = dirs
    (home / "adult").mkdir(parents=True)
    (home / "adult" / "adult.data").write_text(
        "\n".join([writers.adult_line()] * 3 + [writers.adult_line(n_fields=14)]) + "\n\n"
    )
    (home / "adult" / "adult.test").write_text(
        "|1x3 Cross validator\n" + "\n".join([writers.adult_line(".")] * 3) + "\n\n"
    )
    with _pin(home, "adult/adult.data", "adult/adult.test"):
        with pytest.raises(CorruptFileError, match=r"adult/adult.data, line 4: 14 fields, expected 15"):
            _load("adult", home, cache)


def test_adult_format_quirks_from_a_fixture(dirs):
    """Comment line and trailing '.' of adult.test, '?' as a category, a test value unseen in training."""
    home, cache = dirs
    (home / "adult").mkdir(parents=True)
    train = [
        writers.adult_line(age=30),
        writers.adult_line(age=40, workclass="?"),
        writers.adult_line(age=50, workclass="Private").replace("<=50K", ">50K"),
    ]
    test = [writers.adult_line(".", age=20, workclass="Never-worked"), writers.adult_line(".", workclass="?")]
    (home / "adult" / "adult.data").write_text("\n".join(train) + "\n\n")
    (home / "adult" / "adult.test").write_text("|1x3 Cross validator\n" + "\n".join(test) + "\n\n")
    with _pin(home, "adult/adult.data", "adult/adult.test"):
        ds = _load("adult", home, cache)
        as_nan = _load("adult", home, cache, missing="nan")
    assert ds.extra["categories"]["workclass"] == ["?", "Private", "State-gov"]
    assert ds.X_train[:, 1].tolist() == [2, 0, 1]
    assert np.isnan(ds.X_test[0, 1]) and ds.X_test[1, 1] == 0
    assert ds.extra["unseen_test_values"] == {"workclass": 1}
    assert ds.classes.tolist() == ["<=50K", ">50K"] and ds.y_test.tolist() == [0, 0]
    assert as_nan.extra["categories"]["workclass"] == ["Private", "State-gov"]
    assert np.isnan(as_nan.X_train[1, 1]) and as_nan.X_train[0, 1] == 1


def test_truncated_bz2_is_not_parsed_and_not_trusted(dirs):
    home, cache = dirs
    X, y = writers.protein_like(40, seed=0)
    train = writers.write_bz2(home / "protein" / "protein.bz2", writers.libsvm_protein_text(X, y))
    writers.write_bz2(home / "protein" / "protein.t.bz2", writers.libsvm_protein_text(X, y))
    train.write_bytes(train.read_bytes()[:-50])
    with pytest.raises(CorruptFileError, match=r"protein/protein.bz2 .*truncated or not a valid bz2"):
        _load("protein", home, cache)
    assert not (cache / "protein" / "protein.bz2.sha256").exists()


def test_libsvm_feature_index_beyond_the_published_count(dirs):
    home, cache = dirs
    X, y = writers.sensit_like(6, seed=0)
    text = writers.libsvm_text(X, y).replace("\n", "51:0.5 \n", 1)
    for name in ("acoustic_scale.bz2", "acoustic_scale.t.bz2"):
        writers.write_bz2(home / "sensit" / name, text)
    with _pin(home, "sensit/acoustic_scale.bz2", "sensit/acoustic_scale.t.bz2"):
        with pytest.raises(CorruptFileError, match="sensit/acoustic_scale.bz2 is not a valid LIBSVM file with 50"):
            _load("sensit", home, cache)


def test_truncated_zip_is_not_parsed(dirs):
    home, cache = dirs
    path = home / "har" / "UCI HAR Dataset.zip"
    writers.write_har_zip(path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with _pin(home, "har/UCI HAR Dataset.zip"):
        with pytest.raises(CorruptFileError, match=r"har/UCI HAR Dataset.zip .*truncated or not a valid zip"):
            _load("har", home, cache)


def test_har_with_mismatched_rows(dirs, tmp_path):
    import zipfile

    home, cache = dirs
    path = home / "har" / "UCI HAR Dataset.zip"
    writers.write_har_zip(path, n_train=6, n_test=6)
    rewritten = tmp_path / "r.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(rewritten, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.endswith("test/y_test.txt"):
                data = b"".join(data.splitlines(keepends=True)[:-1])
            dst.writestr(item, data)
    path.write_bytes(rewritten.read_bytes())
    with _pin(home, "har/UCI HAR Dataset.zip"):
        with pytest.raises(CorruptFileError, match=r"test/X_test.txt has 6 rows but .*test/y_test.txt has 5"):
            _load("har", home, cache)


# ----------------------------------------------------------------------------- parser units


def test_svmlight_parser_accepts_protein_values_with_a_space_after_the_colon():
    X, y = parsers.parse_svmlight(b"0   21:1.00   42:1.00   63: .50\n2   1:1.00\n", "p", n_features=357)
    assert X.shape == (2, 357) and X[0, 62] == 0.5 and X[0, 20] == 1.0 and y.tolist() == [0, 2]


def test_numeric_column_with_a_stray_token():
    with pytest.raises(CorruptFileError, match=r"f.txt, data row 2: column 'a' holds 'x1', not a number"):
        parsers.column_to_float(np.array(["1", "x1"]), "f.txt", "a")


def test_non_ascii_text_file():
    with pytest.raises(CorruptFileError, match="non-ASCII byte at offset 2"):
        parsers.parse_text_table(b"1,\xff\n", "f.txt", n_columns=2, sep=",")


def test_empty_table():
    with pytest.raises(CorruptFileError, match="no data rows"):
        parsers.parse_text_table(b"\n\n", "f.txt", n_columns=2, sep=",")


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_compressed_garbage(tmp_path, suffix):
    path = tmp_path / f"x{suffix}"
    path.write_bytes(b"not compressed at all")
    with pytest.raises(CorruptFileError, match=f"not a valid {suffix[1:]}"):
        parsers.read_bytes(path, path.name)
