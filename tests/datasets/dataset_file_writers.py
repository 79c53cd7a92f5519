"""Write small fixture files in exactly the layout the canonical sources serve.

Used for the datasets whose real files are not on this machine (protein,
sensit, har, MNIST's training images) and for corruption tests. Each writer
reproduces the publisher's quirks: LIBSVM protein's ``63: .50`` values and
triple spaces, bzip2 compression as served by the LIBSVM site, UCI HAR's
``%15.7e`` numbers with three-digit exponents inside 'UCI HAR Dataset/',
big-endian IDX headers inside gzip.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import zipfile
from pathlib import Path

import numpy as np


def sha256_of(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _write(path, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# ----------------------------------------------------------------------------- IDX


def idx_bytes(array: np.ndarray) -> bytes:
    """IDX encoding of a uint8 array: 0, 0, type 0x08, ndim, big-endian dims, data."""
    array = np.ascontiguousarray(array, dtype=np.uint8)
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    return header + array.tobytes()


def write_idx_gz(path, array, *, compresslevel=9) -> Path:
    return _write(path, gzip.compress(idx_bytes(array), compresslevel=compresslevel, mtime=0))


def mnist_like(n, seed):
    """``n`` random 28x28 uint8 images and labels 0-9 (every digit present when n >= 10)."""
    rng = np.random.default_rng(seed)
    labels = (np.arange(n) % 10).astype(np.uint8)
    rng.shuffle(labels)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    return images, labels


def write_mnist_files(folder, *, n_train=40, n_test=20, seed=0) -> dict:
    """The four MNIST .gz files under ``folder``; returns the arrays written."""
    folder = Path(folder)
    train_images, train_labels = mnist_like(n_train, seed)
    test_images, test_labels = mnist_like(n_test, seed + 1)
    write_idx_gz(folder / "train-images-idx3-ubyte.gz", train_images)
    write_idx_gz(folder / "train-labels-idx1-ubyte.gz", train_labels)
    write_idx_gz(folder / "t10k-images-idx3-ubyte.gz", test_images)
    write_idx_gz(folder / "t10k-labels-idx1-ubyte.gz", test_labels)
    return {
        "train_images": train_images,
        "train_labels": train_labels,
        "test_images": test_images,
        "test_labels": test_labels,
    }


# ----------------------------------------------------------------------------- LIBSVM


def _protein_value(v: float) -> str:
    # protein's files print values with two decimals and no leading zero: "1.00", " .50"
    text = f"{v:.2f}"
    return " " + text[1:] if text.startswith("0.") else text


def libsvm_protein_text(X, y) -> str:
    """LIBSVM protein style: label, then nonzeros 'index:value' separated by three spaces."""
    lines = []
    for row, label in zip(X, y):
        idx = np.flatnonzero(row)
        fields = [str(int(label))] + [f"{j + 1}:{_protein_value(row[j])}" for j in idx]
        lines.append("   ".join(fields))
    return "\n".join(lines) + "\n"


def libsvm_text(X, y) -> str:
    """Plain LIBSVM layout (SensIT acoustic_scale): 'label i:v i:v ' with a trailing space."""
    lines = []
    for row, label in zip(X, y):
        idx = np.flatnonzero(row)
        lines.append(f"{int(label)} " + "".join(f"{j + 1}:{row[j]:.6g} " for j in idx))
    return "\n".join(lines) + "\n"


def protein_like(n, seed):
    """Sparse rows with 357 features in multiples of 0.25 (exact in 2 decimals), labels 0-2."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 357)) * 0.25
    X[rng.random((n, 357)) < 0.8] = 0.0
    X[0, 356] = 0.5  # the highest index is used, so n_features cannot be inferred short
    y = np.arange(n) % 3
    return X, y


def sensit_like(n, seed):
    """Dense rows of 50 features in [-1, 1] (acoustic_scale is scaled), labels 1-3."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.uniform(-1, 1, size=(n, 50)), 6)
    y = np.arange(n) % 3 + 1
    return X, y


def write_bz2(path, text: str) -> Path:
    return _write(path, bz2.compress(text.encode("ascii")))


# ----------------------------------------------------------------------------- UCI HAR


def har_number(v: float) -> str:
    mantissa, exponent = f"{v:.7e}".split("e")
    return f"{mantissa}e{int(exponent):+04d}".rjust(15)


def har_matrix_text(X) -> str:
    return "".join(" " + " ".join(har_number(v) for v in row) + "\n" for row in X)


ACTIVITIES = ["WALKING", "WALKING_UPSTAIRS", "WALKING_DOWNSTAIRS", "SITTING", "STANDING", "LAYING"]


def write_har_zip(path, *, n_train=12, n_test=6, seed=0) -> dict:
    """'UCI HAR Dataset.zip' with the real member layout (and a __MACOSX shadow copy)."""
    rng = np.random.default_rng(seed)
    X_train = np.round(rng.uniform(-1, 1, size=(n_train, 561)), 7)
    X_test = np.round(rng.uniform(-1, 1, size=(n_test, 561)), 7)
    y_train = np.arange(n_train) % 6 + 1
    y_test = np.arange(n_test) % 6 + 1
    features = [f"tBodyAcc-feature{j}()" for j in range(1, 562)]
    root = "UCI HAR Dataset/"
    members = {
        root + "features.txt": "".join(f"{j} {name}\n" for j, name in enumerate(features, 1)),
        root + "activity_labels.txt": "".join(f"{j} {a}\n" for j, a in enumerate(ACTIVITIES, 1)),
        root + "train/X_train.txt": har_matrix_text(X_train),
        root + "train/y_train.txt": "".join(f"{v}\n" for v in y_train),
        root + "test/X_test.txt": har_matrix_text(X_test),
        root + "test/y_test.txt": "".join(f"{v}\n" for v in y_test),
        "__MACOSX/UCI HAR Dataset/train/._X_train.txt": "resource fork",
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return {"X_train": X_train, "y_train": y_train, "X_test": X_test, "y_test": y_test, "features": features}


# ----------------------------------------------------------------------------- UCI text tables

YEAST_CLASSES = ["CYT", "NUC", "MIT", "ME3", "ME2", "ME1", "EXC", "VAC", "POX", "ERL"]


def yeast_text(n_per_class=3, seed=0) -> str:
    """yeast.data layout: sequence name, 8 two-decimal features, class; runs of spaces."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n_per_class * len(YEAST_CLASSES)):
        values = "  ".join(f"{v:.2f}" for v in rng.uniform(0, 1, 8))
        lines.append(f"SEQ{i}_YEAST  {values}  {YEAST_CLASSES[i % len(YEAST_CLASSES)]}")
    return "\n".join(lines) + "\n"


def satimage_text(n, seed=0, *, drop_field_in_row=None) -> str:
    """sat.trn layout: 36 integers 0-255 then the class (1-5, 7), single spaces."""
    rng = np.random.default_rng(seed)
    classes = [1, 2, 3, 4, 5, 7]
    lines = []
    for i in range(n):
        fields = [str(v) for v in rng.integers(0, 256, 36)] + [str(classes[i % 6])]
        if i == drop_field_in_row:
            fields.pop(3)
        lines.append(" ".join(fields))
    return "\n".join(lines) + "\n"


def adult_line(label_suffix="", *, age=39, workclass="State-gov", n_fields=15) -> str:
    fields = [
        str(age),
        workclass,
        "77516",
        "Bachelors",
        "13",
        "Never-married",
        "Adm-clerical",
        "Not-in-family",
        "White",
        "Male",
        "2174",
        "0",
        "40",
        "United-States",
        "<=50K" + label_suffix,
    ]
    return ", ".join(fields[:n_fields])
