"""Dataset-specific assembly: from verified local files to the arrays of the standard split.

One ``build_*`` function per file layout. Each receives ``files`` (role ->
:class:`~mddf.datasets.fetch.LocalFile`) and the dataset's options, and returns a
:class:`Arrays` with the raw labels; :mod:`mddf.datasets.loader` encodes labels,
casts to float32 and caches the result. Builders raise
:class:`~mddf.datasets.errors.CorruptFileError` on anything unexpected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import train_test_split

from . import parsers
from .errors import CorruptFileError


@dataclass
class Arrays:
    """What a builder returns: the split with original labels, plus metadata."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    feature_names: list
    categorical_mask: np.ndarray | None = None
    extra: dict = field(default_factory=dict)
    split: str | None = None  # overrides the registry's split text (option-dependent splits)
    notes: str = ""  # appended to the registry's description (which rows, which preprocessing)


def _table(files, role, **kwargs):
    f = files[role]
    return parsers.parse_text_table(parsers.read_bytes(f.path, f.label), f.label, **kwargs), f.label


def _numeric(files, role, **kwargs):
    f = files[role]
    return parsers.parse_numeric_table(parsers.read_bytes(f.path, f.label), f.label, **kwargs)


# --------------------------------------------------------------------------- UCI text tables

ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
]
ADULT_CATEGORICAL = [
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
]


def build_adult(files, *, missing):
    """Adult: 6 continuous + 8 categorical columns, categorical ones as ordinal codes.

    Codes index ``extra["categories"][column]``, the sorted distinct values of
    that column in adult.data (the training file). ``missing="category"`` keeps
    ``'?'`` as a category of its own (code 0, since ``'?'`` sorts first);
    ``missing="nan"`` leaves ``'?'`` out of the mapping and encodes it as NaN.
    A test value never seen in training would become NaN and be counted in
    ``extra["unseen_test_values"]`` (the canonical files have none).
    """
    train, _ = _table(files, "train", n_columns=15, sep=",")
    test, test_label = _table(files, "test", n_columns=15, sep=",", comment="|")
    # adult.test writes its labels with a trailing '.', e.g. '>50K.'
    y_test = np.char.rstrip(test[:, 14], ".")
    X_train = np.empty((len(train), 14), dtype=np.float32)
    X_test = np.empty((len(test), 14), dtype=np.float32)
    categories, unseen = {}, {}
    for j, name in enumerate(ADULT_COLUMNS):
        if name not in ADULT_CATEGORICAL:
            X_train[:, j] = parsers.column_to_float(train[:, j], files["train"].label, name)
            X_test[:, j] = parsers.column_to_float(test[:, j], test_label, name)
            continue
        values = train[:, j]
        cats = np.unique(values if missing == "category" else values[values != "?"])
        categories[name] = cats.tolist()
        for X, col, part in ((X_train, train[:, j], "train"), (X_test, test[:, j], "test")):
            pos = np.minimum(np.searchsorted(cats, col), len(cats) - 1)
            known = cats[pos] == col
            X[:, j] = np.where(known, pos, np.nan)
            n_unknown = int(np.sum(~known & (col != "?")))
            if part == "test" and n_unknown:
                unseen[name] = n_unknown
    mask = np.array([c in ADULT_CATEGORICAL for c in ADULT_COLUMNS])
    return Arrays(
        X_train,
        train[:, 14],
        X_test,
        y_test,
        list(ADULT_COLUMNS),
        mask,
        extra={
            "categories": categories,
            "missing": missing,
            "unseen_test_values": unseen,
            "rows_with_missing": {
                "train": int(np.sum(np.any(train == "?", axis=1))),
                "test": int(np.sum(np.any(test == "?", axis=1))),
            },
        },
        notes=(
            "Categorical columns are ordinal codes into extra['categories'] (sorted values of adult.data); "
            + ("'?' (missing) is its own category." if missing == "category" else "'?' (missing) is NaN.")
            + " Test labels lose their trailing '.'."
        ),
    )


YEAST_COLUMNS = ["mcg", "gvh", "alm", "mit", "erl", "pox", "vac", "nuc"]


def build_yeast(files):
    """Yeast: drop the sequence-name column, then a seeded stratified 70/30 split."""
    table, label = _table(files, "all", n_columns=10)
    X = np.column_stack([parsers.column_to_float(table[:, j], label, n) for j, n in enumerate(YEAST_COLUMNS, start=1)])
    y = table[:, 9]
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=0.7, stratify=y, random_state=0)
    return Arrays(X_train, y_train, X_test, y_test, list(YEAST_COLUMNS))


LETTER_COLUMNS = [
    "x-box",
    "y-box",
    "width",
    "high",
    "onpix",
    "x-bar",
    "y-bar",
    "x2bar",
    "y2bar",
    "xybar",
    "x2ybr",
    "xy2br",
    "x-ege",
    "xegvy",
    "y-ege",
    "yegvx",
]
LETTER_N_TRAIN = 16000


def build_letter(files):
    """Letter: class in column 0; first 16000 rows train, the rest (4000) test."""
    table, label = _table(files, "all", n_columns=17, sep=",")
    if len(table) <= LETTER_N_TRAIN:
        raise CorruptFileError(f"{label} has {len(table)} rows; the standard split needs more than {LETTER_N_TRAIN}")
    X = np.column_stack([parsers.column_to_float(table[:, j], label, n) for j, n in enumerate(LETTER_COLUMNS, start=1)])
    y = table[:, 0]
    return Arrays(X[:LETTER_N_TRAIN], y[:LETTER_N_TRAIN], X[LETTER_N_TRAIN:], y[LETTER_N_TRAIN:], list(LETTER_COLUMNS))


def build_satimage(files):
    """Statlog Landsat: 36 integer features (9 pixels x 4 bands) then the class, sat.trn / sat.tst."""
    names = [f"pixel{p}_band{b}" for p in range(1, 10) for b in range(1, 5)]
    train = _numeric(files, "train", n_columns=37)
    test = _numeric(files, "test", n_columns=37)
    return Arrays(train[:, :36], train[:, 36].astype(np.int64), test[:, :36], test[:, 36].astype(np.int64), names)


BREASTCANCER_COLUMNS = [
    "clump_thickness",
    "uniformity_of_cell_size",
    "uniformity_of_cell_shape",
    "marginal_adhesion",
    "single_epithelial_cell_size",
    "bare_nuclei",
    "bland_chromatin",
    "normal_nucleoli",
    "mitoses",
]


def build_breastcancer(files, *, missing):
    """Breast Cancer Wisconsin (Original): drop the sample id, keep all 699 rows.

    The 16 ``'?'`` of bare_nuclei are filled according to ``missing``:
    ``"median"`` (default) the median of the observed bare_nuclei values
    (label-free, so no class information leaks into the folds), ``"nan"``
    leaves NaN, a number fills that constant. ``extra["missing_rows"]`` lists
    the affected rows so a user can drop them instead.
    """
    table, label = _table(files, "all", n_columns=11, sep=",")
    X = np.column_stack(
        [
            parsers.column_to_float(table[:, j], label, n, missing="?")
            for j, n in enumerate(BREASTCANCER_COLUMNS, start=1)
        ]
    )
    nan_rows, nan_cols = np.nonzero(np.isnan(X))
    if missing == "median":
        fill = np.nanmedian(X, axis=0)
        X[nan_rows, nan_cols] = fill[nan_cols]
        how = "filled with the column median of the observed values"
    elif missing == "nan":
        how = "left as NaN"
    else:
        X[nan_rows, nan_cols] = float(missing)
        how = f"filled with {float(missing):g}"
    return Arrays(
        X,
        parsers.column_to_float(table[:, 10], label, "class").astype(np.int64),
        None,
        None,
        list(BREASTCANCER_COLUMNS),
        extra={
            "missing": missing,
            "missing_rows": np.unique(nan_rows).tolist(),
            "class_meaning": {"2": "benign", "4": "malignant"},
        },
        notes=f"All 699 rows kept; the {len(nan_rows)} missing bare_nuclei values ('?') are {how}.",
    )


def build_ionosphere(files):
    """Ionosphere: 34 continuous features then the class g(ood)/b(ad)."""
    table, label = _table(files, "all", n_columns=35, sep=",")
    names = [f"a{j:02d}" for j in range(1, 35)]
    X = np.column_stack([parsers.column_to_float(table[:, j], label, n) for j, n in enumerate(names)])
    return Arrays(X, table[:, 34], None, None, names, extra={"class_meaning": {"g": "good", "b": "bad"}})


def build_german(files):
    """Statlog German credit, numeric version: 24 integer attributes then class 1 (good) / 2 (bad)."""
    table = _numeric(files, "all", n_columns=25)
    return Arrays(
        table[:, :24],
        table[:, 24].astype(np.int64),
        None,
        None,
        [f"a{j:02d}" for j in range(1, 25)],
        extra={"class_meaning": {"1": "good", "2": "bad"}},
    )


DIABETES_COLUMNS = [
    "pregnancies",
    "plasma_glucose",
    "diastolic_blood_pressure",
    "triceps_skin_fold",
    "serum_insulin",
    "bmi",
    "diabetes_pedigree",
    "age",
]


def build_diabetes(files):
    """Pima Indians diabetes: 8 numeric features then class 0/1 (zeros that encode missing are kept)."""
    table = _numeric(files, "all", n_columns=9, sep=",")
    return Arrays(
        table[:, :8],
        table[:, 8].astype(np.int64),
        None,
        None,
        list(DIABETES_COLUMNS),
        extra={"class_meaning": {"0": "negative", "1": "tested positive for diabetes"}},
    )


# --------------------------------------------------------------------------- LIBSVM


def build_libsvm(files, *, n_features):
    """A LIBSVM train/test pair (protein, SensIT acoustic) as dense float32 arrays."""
    out = []
    for role in ("train", "test"):
        f = files[role]
        X, y = parsers.parse_svmlight(parsers.read_bytes(f.path, f.label), f.label, n_features=n_features)
        if not np.all(y == np.round(y)):
            raise CorruptFileError(f"{f.label} has non-integer class labels")
        out += [X, y.astype(np.int64)]
    return Arrays(*out, [f"f{j}" for j in range(1, n_features + 1)])


# --------------------------------------------------------------------------- UCI HAR

HAR_MEMBERS = {
    "X_train": "train/X_train.txt",
    "y_train": "train/y_train.txt",
    "X_test": "test/X_test.txt",
    "y_test": "test/y_test.txt",
    "features": "features.txt",
    "activities": "activity_labels.txt",
}


def build_har(files):
    """UCI HAR: the 561-feature vectors of ``train/`` and ``test/`` inside 'UCI HAR Dataset.zip'.

    Feature names come from ``features.txt`` verbatim (the file repeats some
    names, e.g. the bandsEnergy ones); activity names from
    ``activity_labels.txt`` go to ``extra["class_names"]``.
    """
    f = files["zip"]
    members = parsers.read_zip_members(f.path, f.label, HAR_MEMBERS)
    where = {k: f"{f.label}:{v}" for k, v in HAR_MEMBERS.items()}
    features = parsers.parse_text_table(members["features"], where["features"], n_columns=2)
    if len(features) != 561:
        raise CorruptFileError(f"{where['features']} lists {len(features)} features, expected 561")
    parts = {}
    for part in ("train", "test"):
        X = parsers.parse_numeric_table(members[f"X_{part}"], where[f"X_{part}"], n_columns=561)
        y = parsers.parse_numeric_table(members[f"y_{part}"], where[f"y_{part}"], n_columns=1)[:, 0]
        if len(X) != len(y):
            raise CorruptFileError(
                f"{f.label}: {where[f'X_{part}']} has {len(X)} rows but {where[f'y_{part}']} has {len(y)}"
            )
        parts[part] = (X, y.astype(np.int64))
    activities = parsers.parse_text_table(members["activities"], where["activities"], n_columns=2)
    return Arrays(
        *parts["train"],
        *parts["test"],
        features[:, 1].tolist(),
        extra={"class_names": {str(int(k)): v for k, v in activities}},
    )


# --------------------------------------------------------------------------- IDX (MNIST layout)

MNIST_SPLITS = ("all", "train", "test")


def idx_roles(mnist_split):
    """File roles an IDX dataset needs for a given ``mnist_split``."""
    parts = ("train", "test") if mnist_split == "all" else (mnist_split,)
    return tuple(f"{p}_{kind}" for p in parts for kind in ("images", "labels"))


def _read_idx_part(files, part):
    images_f, labels_f = files[f"{part}_images"], files[f"{part}_labels"]
    arrays = []
    for f, ndim in ((images_f, 3), (labels_f, 1)):
        payload = parsers.read_bytes(f.path, f.label)
        parsers.check_payload_sha256(payload, f.payload_sha256, f.label)
        arrays.append(parsers.parse_idx(payload, f.label, expected_ndim=ndim))
    images, labels = arrays
    if len(images) != len(labels):
        raise CorruptFileError(
            f"{images_f.label} holds {len(images)} images but {labels_f.label} holds {len(labels)} labels"
        )
    return images.reshape(len(images), -1), labels.astype(np.int64)


def _pixel_names(n):
    return [f"pixel{i}" for i in range(n)]


def build_idx(files, *, mnist_split="all"):
    """MNIST-layout IDX files: the standard split, or one part alone (``mnist_split``)."""
    if mnist_split == "all":
        X_train, y_train = _read_idx_part(files, "train")
        X_test, y_test = _read_idx_part(files, "test")
        return Arrays(X_train, y_train, X_test, y_test, _pixel_names(X_train.shape[1]))
    X, y = _read_idx_part(files, mnist_split)
    rows = "t10k-* (test" if mnist_split == "test" else "train-* (training"
    return Arrays(
        X,
        y,
        None,
        None,
        _pixel_names(X.shape[1]),
        split=f"only the {len(X)} rows of {rows} split), all in X_train; no test split",
        notes=f"Loaded with mnist_split={mnist_split!r}: the {rows} split) alone.",
    )


def build_ocr(files, *, digits, mnist_split="all"):
    """Two-digit MNIST subsets of the DeepBoost paper ("ocr17-mnist", "ocr49-mnist"), no split.

    ``mnist_split="all"`` uses all 70000 MNIST rows (train then test), as the
    paper does; ``"test"`` (or ``"train"``) only that part.
    """
    parts = ("train", "test") if mnist_split == "all" else (mnist_split,)
    X_parts, y_parts, origin = [], [], []
    for part in parts:
        X, y = _read_idx_part(files, part)
        keep = np.isin(y, digits)
        X_parts.append(X[keep])
        y_parts.append(y[keep])
        origin.append(f"{int(keep.sum())} of the {len(y)} MNIST {part} rows")
    X, y = np.concatenate(X_parts), np.concatenate(y_parts)
    return Arrays(
        X,
        y,
        None,
        None,
        _pixel_names(X.shape[1]),
        extra={"digits": list(digits), "mnist_split": mnist_split},
        notes=(
            f"Digits {digits[0]} vs {digits[1]} from MNIST (mnist_split={mnist_split!r}): "
            + " + ".join(origin)
            + f" = {len(y)} rows, raw pixel values 0-255."
        ),
    )
