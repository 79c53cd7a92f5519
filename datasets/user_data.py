"""A user's own table (``--data PATH --target COLUMN``) as a dataset the harness runs on.

Every subcommand reads a CSV file (any separator, compressed or not) or a Parquet file (needs pyarrow)
with :mod:`.table_files` and turns it into the :class:`mddf.datasets.Dataset` the runners and figures
consume:

- **Reading**: ``--sep`` (sniffed by default), ``--decimal`` (``,`` for numbers such as ``3,14``), ``--drop
  COLS`` and ``--na-values``; a header naming a column twice, or a separator finding one column where the header
  holds another, is refused. Warnings (``extra["warnings"]``) name the text columns that hold numbers, proposing
  ``--decimal ,`` for numbers with a decimal comma and ``--na-values`` for a few other cells such as ``?``
  (:func:`~.table_files.number_hints`); a text or integer column with a different value in every row looks like an
  identifier: it is kept, with a warning proposing ``--drop``.
- **Columns**: numeric and boolean columns stay numbers; text (and Parquet ``category``) columns become
  categories, stored as their codes with ``categorical_mask`` set; empty cells (and ``NA``, ``NaN``,
  ``null``, ...) become NaN. Dates and times (Parquet types, or ISO 8601 text such as ``2024-01-31``)
  and nested values are refused rather than guessed at: convert them to numbers or drop them (the message
  names ``--drop COL``); so is a number beyond float32's range (:data:`FLOAT32_MAX`, such as ``1e300``, or
  ``inf``), which the learners cannot read.
- **Target and task** (:func:`resolve_task`): the ``--target`` column must exist (else the nearest name is
  proposed) and have no empty cell, and the file more than one row. Comma-separated names of several columns are
  several targets (``several_targets``, which only ``mddf benchmark`` takes): numbers a multi-output regression,
  columns of two values each a multi-label classification (:func:`several_targets`).
  ``--task auto`` makes text and boolean labels a classification and non-integer numbers a regression;
  integers are classes unless there are more than :data:`MAX_CLASSES` distinct values or fewer than
  :data:`MIN_ROWS_PER_CLASS` rows per value on average, which stops and asks for ``--task``.
- **Split**: a ``--test PATH`` file (same columns) is the fixed test split; otherwise each seed draws
  its own 70/30 split (stratified for a classification; :func:`seeded_split`).
- **Provenance**: the file's sha256 is part of the dataset (``extra["user_data"]``) and names it in
  results, tables and figures; a worker re-reading a file whose hash changed fails, naming it.

Every problem with the input raises :class:`UserDataError` with a one-line message, which the command
line prints as ``mddf: error: <message>`` before exiting with status 2.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .base import Dataset
from .table_files import (
    UserDataError,
    check_separator,
    decimal_commas,
    drop_option,
    identifier_columns,
    kind,
    near_match,
    number_hints,
    read_table,
    sniff_separator,
    stem,
)

#: Share of the rows each seed's split tests on when no ``--test`` file is given.
TEST_FRACTION = 0.3
#: ``--task auto``: an integer target with more distinct values than this is not taken for classes.
MAX_CLASSES = 30
#: ``--task auto``: nor one with fewer rows per distinct value than this, on average.
MIN_ROWS_PER_CLASS = 5
TASKS = ("auto", "classification", "regression")
#: The largest magnitude a feature may hold: the learners read float32 (a larger value is refused, naming its column).
FLOAT32_MAX = float(np.finfo(np.float32).max)

_SOURCES: dict[str, UserDataSource] = {}
_SOURCES_LOCK = threading.Lock()

__all__ = ["UserDataError", "UserDataSource", "load_source", "seeded_split", "source_for"]


@dataclass(frozen=True)
class UserDataSource:
    """Where a user dataset comes from: plain values, so it travels to worker processes."""

    name: str  #: the dataset's name in results, tables and file names (the file's stem)
    path: str  #: absolute path of the data file
    target: str  #: name of the label column
    sha256: str  #: hash of the data file when the command started
    test_path: str | None = None  #: the fixed test file (``--test``), else None
    test_sha256: str | None = None
    sep: str | None = None  #: the separator of a text file (sniffed when the source is made), None for Parquet
    drop: tuple = ()  #: columns left out (``--drop``)
    na_values: tuple = ()  #: extra missing-value markers (``--na-values``)
    task: str = "auto"  #: ``--task``; the loaded dataset's ``extra["task"]`` holds the resolved one
    decimal: str = "."  #: the decimal mark of a text file's numbers (``--decimal``)
    several_targets: bool = False  #: ``target`` names several columns, comma-separated

    @property
    def targets(self) -> list:
        """The target columns: ``target``, or its comma-separated names."""
        return [name.strip() for name in self.target.split(",")] if self.several_targets else [self.target]

    @property
    def slug(self) -> str:
        """``<stem>-<first 8 hex digits of the sha256>``: the default output folder's name, one per file content."""
        return f"{self.name}-{self.sha256[:8]}"

    def reading(self) -> dict:
        """How the file is read: what, besides its bytes, decides the data a run sees (binding); ``decimal`` only
        when it is not ``.``."""
        reading = {
            "target": self.target,
            "sep": self.sep,
            "drop": list(self.drop),
            "na_values": list(self.na_values),
            "task": self.task,
            "test_file": self.test_path is not None,
        }
        if self.decimal != ".":  # the records of files read before --decimal existed stay bound to theirs
            reading["decimal"] = self.decimal
        return reading

    def describe(self) -> str:
        """``my.csv (sha256 ab12...)``, plus the test file when there is one."""
        text = f"{self.path} (sha256 {self.sha256})"
        if self.test_path:
            text += f"; test file {self.test_path} (sha256 {self.test_sha256})"
        return text

    def as_dict(self) -> dict:
        return asdict(self)


def file_sha256(path) -> str:
    """sha256 of a file's bytes, read block by block so that a large file is never held in memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _existing_file(path, option: str) -> Path:
    path = Path(path).expanduser()
    if not path.exists():
        raise UserDataError(f"{option} {path}: no such file")
    if not path.is_file():
        raise UserDataError(f"{option} {path}: not a file")
    return path.resolve()


def _dataset_name(path: Path) -> str:
    """The file's stem (``beps`` for ``beps.csv.gz``); a built-in dataset's name gets a suffix, so the two never mix."""
    from mddf.datasets import list_datasets

    name = stem(path) or "data"
    builtin = {n.lower() for n in list_datasets()}
    suffix = path.name[len(name) :].lstrip(".").split(".")[0]
    return f"{name}_{suffix or 'data'}" if name.lower() in builtin else name


def source_for(
    path, target: str, test_path=None, *, sep=None, drop=(), na_values=(), task="auto", decimal=".",
    several_targets=False,
) -> UserDataSource:  # fmt: skip
    """Check that the files exist, hash them and find the separator (checked against each file's header); the
    source of :func:`load_source`. ``several_targets``: ``target`` may name several columns, comma-separated."""
    data = _existing_file(path, "--data")
    test = _existing_file(test_path, "--test") if test_path is not None else None
    if not target:
        raise UserDataError("--data needs --target COLUMN, the name of the label column")
    if task not in TASKS:
        raise UserDataError(f"--task must be one of {', '.join(TASKS)}, got {task!r}")
    several_targets = several_targets and "," in target
    names = [name.strip() for name in target.split(",")] if several_targets else [target]
    if len(names) > 1 and (not all(names) or len(set(names)) < len(names)):
        raise UserDataError(f"--target {target!r}: name two or more different columns, separated by commas")
    if test is not None and len(names) > 1:
        raise UserDataError(f"--test is not supported with several targets (--target {target}) yet")
    for name in set(names) & set(drop):
        raise UserDataError(f"--drop names the target column {name!r}")
    if sep is not None and sep == decimal:
        raise UserDataError(f"--decimal {decimal!r} is also the separator (--sep): give the file's own, often ';'")
    given = sep is not None
    if kind(data) == "csv" and sep is None:
        sep = sniff_separator(data, decimal)
    for file in (data, test) if kind(data) == "csv" else ():
        if file is not None:
            check_separator(file, sep, given=given)
    tested = {} if test is None else {"test_path": str(test), "test_sha256": file_sha256(test)}
    sep = None if kind(data) == "parquet" else sep
    reading = dict(sep=sep, drop=tuple(drop), na_values=tuple(na_values), task=task, decimal=decimal)
    reading.update(several_targets=several_targets)
    return UserDataSource(_dataset_name(data), str(data), str(target), file_sha256(data), **tested, **reading)


def _is_iso_dates(values) -> bool:
    import pandas as pd

    text = values.dropna().astype(str)
    if text.empty or not text.str.match(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?").all():
        return False
    try:
        pd.to_datetime(text, format="ISO8601")
    except (ValueError, TypeError):
        return False
    return True


def tidy_features(frame, file_name: str):
    """Numeric columns as float, text columns as pandas ``category``; other kinds refused.

    Returns
    -------
    DataFrame with the same columns.
    """
    import pandas as pd
    from pandas.api import types

    out = {}
    for column in frame.columns:
        values = frame[column]
        where = f"column {column!r} of {file_name}"
        if types.is_bool_dtype(values):
            out[column] = values.astype("float64")
        elif types.is_numeric_dtype(values) and not types.is_complex_dtype(values):
            out[column] = values.astype("float64")
            beyond = out[column][np.abs(out[column]) > FLOAT32_MAX]
            if len(beyond):  # the learners read float32: such a value would be infinite, or refused
                raise UserDataError(
                    f"{where} holds {beyond.iloc[0]:g}, beyond the largest float32 number ({FLOAT32_MAX:.3g}) the "
                    "learners read: rescale it (its logarithm, or another unit) or leave it out with "
                    + drop_option(column)
                )
        elif isinstance(values.dtype, pd.CategoricalDtype):
            out[column] = values
        elif types.is_datetime64_any_dtype(values) or types.is_timedelta64_dtype(values):
            raise UserDataError(
                f"{where} holds dates or times; convert it to numbers or leave it out with {drop_option(column)}"
            )
        elif types.is_object_dtype(values) or types.is_string_dtype(values):
            present = values.dropna()
            if not all(isinstance(v, str) for v in present):
                kinds = sorted({type(v).__name__ for v in present if not isinstance(v, str)})
                raise UserDataError(
                    f"{where} holds {', '.join(kinds)} values, neither numbers nor categories; convert it or leave it "
                    f"out with {drop_option(column)}"
                )
            if _is_iso_dates(values):
                raise UserDataError(
                    f"{where} holds dates (e.g. {present.iloc[0]!r}), neither numbers nor categories; "
                    f"convert it to numbers or leave it out with {drop_option(column)}"
                )
            out[column] = values.astype("category")
        else:
            raise UserDataError(
                f"{where} has type {values.dtype}, neither numeric nor categorical; convert it or leave it out with "
                f"{drop_option(column)}"
            )
    return pd.DataFrame(out, index=frame.index)


def _target_column(frame, target: str, file_name: str):
    if target not in frame.columns:
        shown = ", ".join(map(str, list(frame.columns)[:10])) + (", ..." if frame.shape[1] > 10 else "")
        several = [name.strip() for name in target.split(",")]
        if len(several) > 1 and all(name in frame.columns for name in several):
            raise UserDataError(
                f"--target {target!r} names {len(several)} columns of {file_name}, and this subcommand takes one "
                f"target: give one of {', '.join(map(repr, several))} (mddf benchmark fits several targets at once)"
            )
        raise UserDataError(
            f"--target {target!r} is not a column of {file_name} (columns: {shown})" + near_match(target, frame.columns)
        )
    y = frame[target]
    if len(y) == 0:
        raise UserDataError(f"{file_name} has a header but no rows")
    if y.isna().any():
        raise UserDataError(
            f"--target column {target!r} of {file_name} has {int(y.isna().sum())} empty cell(s); "
            "give every row a target value or remove those rows"
        )
    return y


def resolve_task(y, task: str, target: str, file_name: str) -> str:
    """``"classification"`` or ``"regression"`` for target values ``y`` under ``--task`` (see the module docstring)."""
    from pandas.api import types

    numeric = types.is_numeric_dtype(y) and not types.is_bool_dtype(y)
    where = f"--target column {target!r} of {file_name}"
    if not numeric and task != "classification":  # numbers as text, which would be read as a class per value
        text = y.dropna().astype(str).str.strip()
        if len(text) and decimal_commas(text).all():
            raise UserDataError(
                f"{where} holds numbers written with a decimal comma (e.g. {text.iloc[0]!r}), read as text: pass "
                "--decimal , to read them as numbers"
            )
    if task == "regression":
        if not numeric:
            raise UserDataError(f"{where} holds text; --task regression needs numbers")
        return "regression"
    integral = numeric and bool(np.all(np.mod(y.to_numpy(dtype=np.float64), 1) == 0))
    if task == "classification":
        if numeric and not integral:
            raise UserDataError(f"{where} holds non-integer numbers; --task classification needs class labels")
        return "classification"
    if not numeric:
        return "classification"
    if not integral:
        return "regression"
    distinct = int(y.nunique())
    if distinct > MAX_CLASSES or len(y) / distinct < MIN_ROWS_PER_CLASS:
        why = (
            f"too many to be classes (at most {MAX_CLASSES}, with {MIN_ROWS_PER_CLASS} rows each on average)"
            if distinct > MAX_CLASSES
            else f"too few rows per value to take them for classes (at least {MIN_ROWS_PER_CLASS} on average)"
        )
        raise UserDataError(
            f"{where} holds {distinct} distinct integer values ({len(y) / distinct:.1f} rows per value), {why}: "
            "pass --task regression to predict it as a number, or --task classification to keep each value a class"
        )
    return "classification"


def several_targets(columns, names, task: str, file_name: str):
    """``(task, y, positive)`` of several target ``columns``: all numbers, a multi-output regression
    (``"multioutput"``, ``y`` float64 ``(n, k)``, ``positive`` None); all of two values, a multi-label classification
    (``"multilabel"``, ``y`` int64 0/1, 1 the second of a column's sorted values, ``positive[name]`` its text); a mix
    is a :class:`UserDataError` naming each column's kind."""
    tasks = [resolve_task(column, task, name, file_name) for column, name in zip(columns, names)]
    if set(tasks) == {"regression"}:
        return "multioutput", np.column_stack([column.to_numpy(dtype=np.float64) for column in columns]), None
    labels = [_labels(column, "classification") for column in columns]
    if set(tasks) == {"classification"} and all(values.nunique() == 2 for values in labels):
        second = [np.sort(values.unique())[1] for values in labels]
        y = np.column_stack([(values == one).to_numpy(dtype=np.int64) for values, one in zip(labels, second)])
        return "multilabel", y, {name: str(one) for name, one in zip(names, second)}
    kinds = ", ".join(f"{n}: {t} of {c.nunique()} values" for n, t, c in zip(names, tasks, columns))
    raise UserDataError(
        f"--target {','.join(names)}: several targets must all be numbers (a multi-output regression) or all yes/no "
        f"columns of two values (a multi-label classification); found {kinds}"
    )


def _labels(y, task: str):
    """Class labels (integers, else text) or, for a regression, the targets as float64."""
    from pandas.api import types

    if task == "regression":
        return y.astype("float64")
    if types.is_float_dtype(y):
        y = y.astype("int64")
    return y.astype(str) if not types.is_integer_dtype(y) else y


def _read(source: UserDataSource, path: str, file_name: str):
    """The file's frame with ``--drop`` applied (each dropped column must exist)."""
    frame = read_table(path, sep=source.sep, na_values=source.na_values, decimal=source.decimal)
    missing = [c for c in source.drop if c not in frame.columns]
    if missing:
        shown = ", ".join(map(str, list(frame.columns)[:10])) + (", ..." if frame.shape[1] > 10 else "")
        hints = "".join(near_match(c, frame.columns) for c in missing)
        raise UserDataError(
            f"--drop {', '.join(map(repr, missing))}: not a column of {file_name} (columns: {shown})" + hints
        )
    return frame.drop(columns=list(source.drop))


def load_source(source: UserDataSource, *, check_hash: bool = True) -> Dataset:
    """Read, check and encode a user dataset: the ``--test`` file is its test split, else every row is in
    ``X_train`` (:func:`seeded_split` draws a split per seed).

    ``check_hash`` fails if a file's hash differs from the source's (it changed since the command started).
    """
    import pandas as pd
    from pandas.api import types

    files = [(source.path, source.sha256)] + ([(source.test_path, source.test_sha256)] if source.test_path else [])
    if check_hash:
        for path, expected in files:
            actual = file_sha256(_existing_file(path, "--data"))
            if actual != expected:
                raise UserDataError(f"{path} changed while the command ran (sha256 {actual}, was {expected})")
    main_name = Path(source.path).name
    frame = _read(source, source.path, main_name)
    names = source.targets
    targets = [_target_column(frame, name, main_name) for name in names]
    if len(frame) == 1:  # the checks of its kind of target would blame its one value
        raise UserDataError(f"{main_name} has a single row (besides its header): too few to learn from and test on")
    if len(names) > 1:
        task, y, positive = several_targets(targets, names, source.task, main_name)
    else:
        task = resolve_task(targets[0], source.task, source.target, main_name)
        y = _labels(targets[0], task)
    X = tidy_features(frame.drop(columns=names), main_name)
    if X.shape[1] == 0:
        raise UserDataError(f"{main_name} has no column besides the target {source.target!r}")
    hints = number_hints(X, main_name, source.decimal)
    warnings = list(hints.values()) + [
        f"column {name!r} of {main_name} has a different value in every row, like an identifier; it is used as a "
        f"feature (leave it out with {drop_option(name)})"
        for name in identifier_columns(X)
        if name not in hints
    ]
    X_test = y_test = None
    if source.test_path:
        test_name = Path(source.test_path).name
        test_frame = _read(source, source.test_path, test_name)
        y_test = _labels(_target_column(test_frame, source.target, test_name), task)
        missing = [c for c in X.columns if c not in test_frame.columns]
        extra = [c for c in test_frame.columns if c not in X.columns and c != source.target]
        if missing or extra:
            found = [f"{what} {', '.join(map(repr, c))}" for what, c in (("missing", missing), ("extra", extra)) if c]
            raise UserDataError(f"--test {test_name} must have the columns of {main_name}: " + "; ".join(found))
        X_test = tidy_features(test_frame[list(X.columns)], test_name)
        if task != "regression" and not (types.is_integer_dtype(y) and types.is_integer_dtype(y_test)):
            y, y_test = y.astype(str), y_test.astype(str)  # labels compared as text
    X_train_codes, X_test_codes, mask = _encode(X, X_test)
    if len(names) > 1:
        classes, y_train_out, y_test_out = np.array([], dtype=object) if positive is None else np.arange(2), y, None
    elif task == "regression":
        classes = np.array([], dtype=object)
        y_train_out = y.to_numpy(dtype=np.float64)
        y_test_out = None if y_test is None else y_test.to_numpy(dtype=np.float64)
    else:
        all_labels = y if y_test is None else pd.concat([y, y_test])
        classes = np.unique(all_labels.to_numpy())
        if len(np.unique(y.to_numpy())) < 2:
            raise UserDataError(
                f"--target column {source.target!r} of {main_name} has a single class ({y.iloc[0]!r}); "
                "a classifier needs at least two"
            )
        y_train_out = np.searchsorted(classes, y.to_numpy()).astype(np.int64)
        y_test_out = None if y_test is None else np.searchsorted(classes, y_test.to_numpy()).astype(np.int64)
    if source.test_path:
        split = f"fixed test file {Path(source.test_path).name}"
    else:
        stratified = "stratified " if task == "classification" else ""
        split = f"no test file: {stratified}{100 - 100 * TEST_FRACTION:g}/{100 * TEST_FRACTION:g} split of the rows"
        split += " drawn with each run's seed"
    categories = {str(c): [str(v) for v in X[c].cat.categories] for c, coded in zip(X.columns, mask) if coded}
    extra = {"user_data": source.as_dict(), "task": task, "warnings": warnings, "categories": categories}
    extra["test_fraction"] = None if source.test_path else TEST_FRACTION
    if len(names) > 1:  # several targets: their names, and the value each multi-label column's 1 stands for
        extra.update(targets=names, positive=positive)
    arrays = dict(X_train=X_train_codes, y_train=y_train_out, X_test=X_test_codes, y_test=y_test_out)
    description = f"user data {main_name}, target column{'s' * (len(names) > 1)} {', '.join(map(repr, names))}"
    described = dict(feature_names=[str(c) for c in X.columns], classes=classes, categorical_mask=mask)
    described.update(source_url=source.path, split=split, description=description, extra=extra)
    return Dataset(name=source.name, **arrays, **described)


def _encode(X, X_test):
    """float32 arrays (category codes, NaN for empty cells) with the categories of both files."""
    import pandas as pd

    def codes(values, categories=None):  # the codes of text values among ``categories``, NaN where empty
        values = values.astype(str).where(values.notna()).astype(pd.CategoricalDtype(categories))
        return values, np.where(values.cat.codes < 0, np.nan, values.cat.codes).astype(np.float32)

    mask = np.array([isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns], dtype=bool)
    train_cols, test_cols = [], []
    for column, is_category in zip(X.columns, mask):
        a = X[column]
        b = None if X_test is None else X_test[column]
        if is_category:
            seen = list(a.cat.categories)
            if b is not None:
                if not isinstance(b.dtype, pd.CategoricalDtype):
                    b = codes(b)[0]
                seen += [v for v in b.cat.categories if v not in set(seen)]
            categories = sorted(set(map(str, seen)))
            train_cols.append(codes(a, categories)[1])
            if b is not None:
                test_cols.append(codes(b, categories)[1])
        else:
            train_cols.append(a.to_numpy(dtype=np.float32, na_value=np.nan))
            if b is not None:
                if isinstance(b.dtype, pd.CategoricalDtype):
                    raise UserDataError(f"column {column!r} is numeric in the data file but holds text in --test")
                test_cols.append(b.to_numpy(dtype=np.float32, na_value=np.nan))
    X_train = np.ascontiguousarray(np.column_stack(train_cols))
    X_test_out = None if X_test is None else np.ascontiguousarray(np.column_stack(test_cols))
    return X_train, X_test_out, mask


def seeded_split(dataset: Dataset, seed: int) -> Dataset:
    """``dataset`` with a stratified test split drawn with ``seed`` (a dataset with a test split as is); its
    ``extra["rows"]`` holds ``{"train": ..., "test": ...}``, the positions of its rows among the file's (sorted)."""
    if dataset.has_test_split or not dataset.extra.get("test_fraction"):
        return dataset
    from dataclasses import replace

    from sklearn.model_selection import train_test_split

    fraction = float(dataset.extra["test_fraction"])
    index = np.arange(len(dataset.y_train))
    classify = dataset.extra.get("task") != "regression"
    try:
        if not classify:
            raise ValueError("a regression target is split at random")
        train, test = train_test_split(index, test_size=fraction, stratify=dataset.y_train, random_state=seed)
    except ValueError:  # a class too small to stratify, or a regression
        train, test = train_test_split(index, test_size=fraction, random_state=seed)
    train, test = np.sort(train), np.sort(test)
    split = f"{'stratified ' if classify else ''}{100 - 100 * fraction:g}/{100 * fraction:g} split of the rows"
    X, y = dataset.X_train, dataset.y_train
    return replace(
        dataset,
        X_train=X[train],
        y_train=y[train],
        X_test=X[test],
        y_test=y[test],
        split=f"{split}, random_state={seed}",
        extra={**dataset.extra, "rows": {"train": train, "test": test}},
    )


def register(source: UserDataSource) -> None:
    """Make ``source.name`` loadable by name in this process (:func:`registered`)."""
    with _SOURCES_LOCK:
        _SOURCES[source.name] = source


def registered(name: str) -> UserDataSource | None:
    """The user data source registered under ``name`` in this process, else None."""
    with _SOURCES_LOCK:
        return _SOURCES.get(name)


def register_all(sources: dict | None) -> None:
    """Register the sources a worker process received as plain dicts (``{name: as_dict()}``)."""
    for value in (sources or {}).values():
        register(value if isinstance(value, UserDataSource) else UserDataSource(**value))


def class_shares(dataset: Dataset) -> list[tuple]:
    """``[(label, share of the rows)]`` of a classification's classes, the largest first (ties by label)."""
    counts = np.bincount(np.asarray(dataset.y, dtype=np.int64), minlength=dataset.n_classes)
    order = sorted(range(len(counts)), key=lambda k: (-counts[k], k))
    return [(dataset.classes[k], counts[k] / counts.sum()) for k in order]


def percent(share: float) -> str:
    """A share as a percentage, ``"97%"``: a whole number from 1 to 99, with one decimal below and above (a share
    of 0.004 is not shown as 0)."""
    value = 100 * share
    return f"{value:.0f}%" if 1 <= value <= 99 else f"{value:.1f}%"


def summary(dataset: Dataset, split: str | None = None) -> str:
    """One line on what was read: rows, features (naming the categorical ones), the classes and their shares of the
    rows, the largest first (the first 10; or a regression target's mean and range), and ``split`` (default: the
    dataset's own description of its split)."""
    categorical = [n for n, c in zip(dataset.feature_names, dataset.categorical_mask) if c]
    rows = len(dataset.y_train) + (0 if dataset.y_test is None else len(dataset.y_test))
    names, positive = dataset.extra.get("targets"), dataset.extra.get("positive")
    if names and positive is None:
        target = f", a multi-output regression of {len(names)} targets: {', '.join(names)}"
    elif names:
        shares = ", ".join(f"{n} {positive[n]!r} {percent(share)}" for n, share in zip(names, dataset.y.mean(axis=0)))
        target = f", a multi-label classification of {len(names)} targets: {shares}"
    elif dataset.extra.get("task") == "regression":
        y = dataset.y
        target = f", a regression target (mean {np.mean(y):.4g}, range {np.min(y):.4g} to {np.max(y):.4g})"
    else:
        shares = class_shares(dataset)
        shown = ", ".join(f"{label} {percent(share)}" for label, share in shares[:10])
        target = f", {dataset.n_classes} classes: {shown}" + (", ..." if dataset.n_classes > 10 else "")
    return (
        f"{rows} rows, {len(dataset.feature_names)} features"
        + (f" (categorical: {', '.join(categorical)})" if categorical else " (all numeric)")
        + target
        + f"; {split or dataset.split}"
    )


def provenance_line(dataset_or_source) -> str | None:
    """What the provenance blocks print for a user dataset (file and sha256), else None."""
    if isinstance(dataset_or_source, UserDataSource):
        return dataset_or_source.describe()
    info = (getattr(dataset_or_source, "extra", None) or {}).get("user_data")
    return UserDataSource(**info).describe() if info else None
