"""Readers for the file formats of the benchmarks: UCI text tables, LIBSVM (svmlight), IDX, zip members.

Each reader takes the raw bytes of one file plus a ``label`` (the file's
``<dataset>/<file>`` name, used in messages) and either returns arrays or
raises :class:`~mddf.datasets.errors.CorruptFileError` naming the file and what is
wrong with it. Nothing is returned from a truncated or malformed file.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .errors import ChecksumError, CorruptFileError

# IDX type codes (third magic byte) -> big-endian numpy dtype (LeCun's IDX description).
_IDX_DTYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_bytes(path, label: str, *, name: str | None = None) -> bytes:
    """Content of a file, decompressed when its name ends in ``.gz`` or ``.bz2``.

    ``name`` (default: the path's name) decides the compression, for files
    stored under a temporary name. A truncated or damaged compressed stream
    raises :class:`CorruptFileError` instead of returning the part that could
    be decompressed.
    """
    path = Path(path)
    raw = path.read_bytes()
    suffix = Path(name or path.name).suffix.lower()
    try:
        if suffix == ".gz":
            return gzip.decompress(raw)
        if suffix == ".bz2":
            return bz2.decompress(raw)
    except (EOFError, OSError, zlib.error, ValueError) as exc:
        raise CorruptFileError(
            f"{label} ({path}) is truncated or not a valid {suffix[1:]} file: {exc}. Delete it and download it again."
        ) from exc
    return raw


def check_payload_sha256(payload: bytes, expected: str | None, label: str) -> None:
    """Verify the sha256 of a file's decompressed content (used when the compressed wrapping varies)."""
    if expected is None:
        return
    actual = sha256_bytes(payload)
    if actual != expected:
        raise ChecksumError(
            f"decompressed content of {label} has sha256 {actual}, expected {expected}: "
            "the file is not the published dataset (corrupt or a different version)",
            file=label,
            expected=expected,
            actual=actual,
        )


def parse_idx(data: bytes, label: str, *, expected_ndim: int) -> np.ndarray:
    """Array stored in IDX format (MNIST's layout: images magic 2051, labels magic 2049).

    The header is two zero bytes, a type code, the number of dimensions, then
    one big-endian uint32 per dimension. The payload must have exactly the
    size the header announces: shorter means truncated, longer means a
    different file.
    """
    if len(data) < 4:
        raise CorruptFileError(f"{label} is truncated: {len(data)} bytes, shorter than an IDX header")
    zero1, zero2, type_code, ndim = data[:4]
    if zero1 or zero2 or type_code not in _IDX_DTYPES:
        magic = int.from_bytes(data[:4], "big")
        raise CorruptFileError(f"{label} is not an IDX file (magic number {magic})")
    if ndim != expected_ndim:
        raise CorruptFileError(
            f"{label} holds a {ndim}-dimensional IDX array, expected {expected_ndim} dimensions "
            f"(magic {int.from_bytes(data[:4], 'big')})"
        )
    header = 4 + 4 * ndim
    if len(data) < header:
        raise CorruptFileError(f"{label} is truncated inside its IDX header")
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    dtype = _IDX_DTYPES[type_code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    got = len(data) - header
    if got < expected:
        raise CorruptFileError(
            f"{label} is truncated: its IDX header announces shape {shape} "
            f"({expected} bytes of data) but only {got} bytes follow"
        )
    if got > expected:
        raise CorruptFileError(
            f"{label} has {got - expected} bytes after the {expected} bytes its IDX header announces"
        )
    array = np.frombuffer(data, dtype=dtype, count=expected // dtype.itemsize, offset=header)
    return array.reshape(shape).astype(dtype.newbyteorder("="), copy=False)


def _decode(data: bytes, label: str) -> str:
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise CorruptFileError(f"{label} is not a plain-text table (non-ASCII byte at offset {exc.start})") from exc


def parse_text_table(
    data: bytes, label: str, *, n_columns: int, sep: str | None = None, comment: str | None = None
) -> np.ndarray:
    """Rows of a delimited text file as a 2-D array of strings.

    Parameters
    ----------
    data : bytes
    label : str
        File name used in error messages.
    n_columns : int
        Every non-blank row must have exactly this many fields.
    sep : str or None
        Field separator; ``None`` splits on runs of whitespace. Fields are
        stripped of surrounding spaces (Adult separates with ``", "``).
    comment : str or None
        Lines starting with this prefix are skipped (adult.test's first line).

    Returns
    -------
    ndarray of str, shape (n_rows, n_columns)
    """
    rows = []
    for lineno, line in enumerate(_decode(data, label).splitlines(), start=1):
        if not line.strip() or (comment is not None and line.startswith(comment)):
            continue
        fields = line.split(sep)
        if len(fields) != n_columns:
            raise CorruptFileError(
                f"{label}, line {lineno}: {len(fields)} fields, expected {n_columns} (line starts {line[:60]!r})"
            )
        rows.append([f.strip() for f in fields] if sep is not None else fields)
    if not rows:
        raise CorruptFileError(f"{label} contains no data rows")
    return np.array(rows, dtype=str)


def parse_numeric_table(data: bytes, label: str, *, n_columns: int, sep: str | None = None) -> np.ndarray:
    """A purely numeric text table (whitespace- or ``sep``-separated) as float64.

    Uses numpy's C reader, which rejects rows whose column count changes and
    fields that are not numbers; its message (with the row number) is kept.
    """
    try:
        table = np.loadtxt(io.BytesIO(data), dtype=np.float64, delimiter=sep, ndmin=2)
    except ValueError as exc:
        raise CorruptFileError(f"{label} is not a numeric table of {n_columns} columns: {exc}") from exc
    if table.shape[0] == 0:
        raise CorruptFileError(f"{label} contains no data rows")
    if table.shape[1] != n_columns:
        raise CorruptFileError(f"{label} has {table.shape[1]} columns, expected {n_columns}")
    return table


def column_to_float(column: np.ndarray, label: str, name: str, *, missing: str | None = None) -> np.ndarray:
    """Convert a string column to float64; ``missing`` marks missing values, which become NaN."""
    column = np.asarray(column)
    is_missing = column == missing if missing is not None else np.zeros(column.shape, dtype=bool)
    out = np.full(column.shape, np.nan)
    try:
        out[~is_missing] = column[~is_missing].astype(np.float64)
    except ValueError:
        for i, value in enumerate(column):
            if is_missing[i]:
                continue
            try:
                float(value)
            except ValueError:
                raise CorruptFileError(
                    f"{label}, data row {i + 1}: column {name!r} holds {str(value)!r}, not a number"
                ) from None
        raise
    return out


_LIBSVM_SPACE_AFTER_COLON = re.compile(rb":[ \t]+")


def parse_svmlight(data: bytes, label: str, *, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense ``(X, y)`` from LIBSVM/svmlight text with 1-based feature indices.

    LIBSVM's ``protein`` files write some values with a space after the colon
    (``63: .50``), which the svmlight grammar does not allow; the space is
    removed before handing the text to :func:`sklearn.datasets.load_svmlight_file`.
    """
    from sklearn.datasets import load_svmlight_file

    data = _LIBSVM_SPACE_AFTER_COLON.sub(b":", data)
    try:
        X, y = load_svmlight_file(io.BytesIO(data), n_features=n_features, zero_based=False, dtype=np.float32)
    except ValueError as exc:
        raise CorruptFileError(f"{label} is not a valid LIBSVM file with {n_features} features: {exc}") from exc
    if X.shape[0] == 0:
        raise CorruptFileError(f"{label} contains no data rows")
    return X.toarray(), y


def read_zip_members(path, label: str, suffixes: dict) -> dict:
    """Bytes of the zip members whose paths end with the given suffixes.

    Parameters
    ----------
    path : path-like
    label : str
    suffixes : dict
        ``role -> path suffix`` (e.g. ``"train/X_train.txt"``); exactly one
        member (outside ``__MACOSX/``) must match each suffix.

    Returns
    -------
    dict role -> bytes
    """
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if not n.startswith("__MACOSX")]
            out = {}
            for role, suffix in suffixes.items():
                matches = [n for n in names if n == suffix or n.endswith("/" + suffix)]
                if len(matches) != 1:
                    raise CorruptFileError(
                        f"{label} ({path}) should contain exactly one member ending in {suffix!r}, found {len(matches)}"
                    )
                out[role] = archive.read(matches[0])
            return out
    except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
        raise CorruptFileError(
            f"{label} ({path}) is truncated or not a valid zip file: {exc}. Delete it and download it again."
        ) from exc
