"""Reading a user's table file: CSV (any separator, compressed or not) or Parquet, with its header checked.

The format is the suffix's: ``.parquet`` / ``.pq`` is Parquet (pandas with pyarrow), anything else
delimited text, compressed as pandas infers from the suffix. The separator (:func:`sniff_separator`) is
``--sep``, else tab for ``.tsv`` / ``.tab``, else the one of ``, ; \\t |`` (less the decimal mark,
``--decimal``) Python's ``csv.Sniffer`` finds in the file's start, else a comma. A separator that finds a
single column in a header holding another of them is refused, naming the other (:func:`check_separator`).
Empty cells, pandas' markers (``NA``, ``NaN``, ``null``, ...) and ``--na-values`` are missing. A header
naming a column twice is refused (:func:`check_header`): pandas would rename the copy (``y.1``) and use it as
a feature; so is a file that is not text (its start holds NUL bytes, or a tenth of bytes that are not UTF-8
text: UTF-16, a spreadsheet, random bytes). Every problem, a damaged compressed file too, raises
:class:`UserDataError`. What the columns' cells suggest (numbers written with a decimal comma, missing-value
markers, identifiers) is said by :func:`number_hints` and :func:`identifier_columns`.
"""

from __future__ import annotations

import bz2
import csv
import difflib
import gzip
import importlib.util
import io
import lzma
import shlex
import zipfile
import zlib
from collections import Counter
from pathlib import Path


class UserDataError(ValueError):
    """The user's data file cannot be used as given (the message says why, on one line)."""


#: Suffixes of compressed text files, which pandas decompresses by itself.
COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")
PARQUET = (".parquet", ".pq")
#: Separators the sniffer chooses among.
SEPARATORS = ",;\t|"
SAMPLE_BYTES = 1 << 16
#: Tables with fewer rows get no identifier warning (a few rows are easily all different).
ID_WARNING_MIN_ROWS = 20
#: A text column of numbers but for at most this many distinct other values is taken for numbers with missing-value
#: markers (:func:`number_hints`).
MAX_MARKERS = 3


def kind(path) -> str:
    """``"parquet"`` or ``"csv"`` (delimited text) by the file's suffix."""
    return "parquet" if Path(path).suffix.lower() in PARQUET else "csv"


def plain_suffix(path) -> str:
    """The suffix under any compression suffix: ``.csv`` for ``beps.csv.gz``."""
    path = Path(path)
    if path.suffix.lower() in COMPRESSED:
        return Path(path.stem).suffix.lower()
    return path.suffix.lower()


def stem(path) -> str:
    """The file's name without its suffixes of format and compression: ``beps`` for ``beps.csv.gz``."""
    path = Path(path)
    if path.suffix.lower() in COMPRESSED:
        path = Path(path.stem)
    return path.stem


def separator_option(text: str) -> str:
    """``--sep``'s value as a separator: ``tab`` / ``\\t`` is a tab; otherwise one character."""
    value = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}.get(text.lower(), text)
    if len(value) != 1:
        raise ValueError(f"--sep takes one character (or tab), got {text!r}")
    return value


def decimal_option(text: str) -> str:
    """``--decimal``'s value: the character that marks the decimals of a number, ``.`` or ``,`` (or ``comma``)."""
    value = {"comma": ",", "point": ".", "dot": "."}.get(text.lower(), text)
    if value not in (".", ","):
        raise ValueError(f"--decimal takes '.' or ',', got {text!r}")
    return value


def drop_option(column) -> str:
    """``--drop COLUMN``, the option that leaves the column out, quoted for a shell where its name needs it."""
    return f"--drop {shlex.quote(str(column))}"


def near_match(name: str, columns) -> str:
    """``; did you mean 'y '? ...``: the column whose name is nearest to ``name``, which names no column (the same name
    but for spaces at its ends or for case, else the closest spelling), or "" when none is near."""
    names = [str(c) for c in columns]
    same = [c for c in names if c.strip().casefold() == name.strip().casefold()]
    if same:
        differ = "spaces at their ends" if same[0].strip() == name.strip() else "case"
        return f"; did you mean {same[0]!r}? (the names differ in {differ})"
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
    return f"; did you mean {close[0]!r}?" if close else ""


def _text_sample(path: Path) -> str:
    """The first :data:`SAMPLE_BYTES` of a text file, decompressed, as text (undecodable bytes replaced); a sample
    holding a NUL byte, or more than a tenth of characters that are neither text nor tab or line ends, is refused."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
                if not names:
                    return ""
                with archive.open(names[0]) as handle:
                    raw = handle.read(SAMPLE_BYTES)
        elif suffix == ".zst":
            return ""  # no decompressor in the standard library: the separator defaults to a comma
        else:
            opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(suffix, open)
            with opener(path, "rb") as handle:
                raw = handle.read(SAMPLE_BYTES)
    except (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError, zlib.error) as exc:
        raise UserDataError(_damaged(path, exc)) from None
    text = raw.decode("utf-8", errors="replace")
    odd = sum(1 for c in text if c == "\ufffd" or (c < " " and c not in "\t\n\r"))
    if "\x00" in text or odd > len(text) / 10:  # a text table has none: UTF-16, a spreadsheet, random bytes
        raise UserDataError(
            f"{path.name} is not a text table: it holds NUL bytes, or bytes that are not UTF-8 text (UTF-16 text? "
            "save it as UTF-8; a spreadsheet or another binary file? export it as CSV)"
        )
    return text


def _damaged(path: Path, exc) -> str:
    """The message of a file that cannot be read or decompressed."""
    if path.suffix.lower() in COMPRESSED:
        return f"{path.name} could not be decompressed ({_first_line(exc)}): a damaged or cut {path.suffix} file?"
    return f"{path.name} could not be read: {_first_line(exc)}"


def sniff_separator(path, decimal: str = ".") -> str:
    """The separator of a delimited text file (see the module docstring); a comma when undecided (a semicolon
    when ``decimal`` is a comma)."""
    path = Path(path)
    if plain_suffix(path) in (".tsv", ".tab"):
        return "\t"
    sample = _text_sample(path)
    lines = sample.splitlines()
    if len(sample) == SAMPLE_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut
    candidates = SEPARATORS.replace(decimal, "")
    try:
        return csv.Sniffer().sniff("\n".join(lines[:200]), delimiters=candidates).delimiter
    except csv.Error:
        return candidates[0]


def check_separator(path, sep: str, *, given: bool) -> None:
    """Refuse ``sep`` when it finds a single column in the file's header and the header holds another separator
    of :data:`SEPARATORS`: the message names the one tried (``--sep`` when ``given``, else the sniffed one) and
    the one to try."""
    path = Path(path)
    names = header(path, sep)
    line = _first_text_line(path)
    others = [c for c in SEPARATORS if c != sep and c in line]
    if len(names) == 1 and others:
        tried = f"--sep {_shown(sep)}" if given else f"the separator {_shown(sep)} (sniffed)"
        other = _shown(others[0])
        raise UserDataError(f"{tried} found 1 column in {path.name}; its first line holds {other}: try --sep {other}")


def _shown(sep: str) -> str:
    """A separator as ``--sep`` takes it in a shell: ``';'``, or ``tab``."""
    return "tab" if sep == "\t" else repr(sep)


def header(path, sep: str | None) -> list[str]:
    """The column names as the file writes them (duplicates kept)."""
    path = Path(path)
    if kind(path) == "parquet":
        _need_pyarrow(path)
        import pyarrow.parquet as pq

        try:
            return list(pq.read_schema(path).names)
        except Exception as exc:  # pyarrow raises its own error types
            raise UserDataError(f"{path.name} could not be read as Parquet: {_first_line(exc)}") from None
    line = _first_text_line(path)
    return next(csv.reader(io.StringIO(line), delimiter=sep or ","), []) if line else []


def _first_text_line(path: Path) -> str:
    lines = _text_sample(path).splitlines()
    return lines[0] if lines else ""


def check_header(names, file_name: str) -> None:
    """Refuse a header that names a column twice, naming the column(s) and their positions (1-based)."""
    twice = [name for name, count in Counter(names).items() if count > 1]
    if twice:
        where = "; ".join(
            f"{name!r} at columns {_and([str(i + 1) for i, n in enumerate(names) if n == name])}" for name in twice
        )
        raise UserDataError(
            f"the header of {file_name} names a column more than once ({where}); rename or remove the copies"
        )


def _and(items) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _need_pyarrow(path: Path) -> None:
    if importlib.util.find_spec("pyarrow") is None:
        raise UserDataError(f"{path.name} is a Parquet file: reading it needs pyarrow (pip install pyarrow)")


def _first_line(exc) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def read_table(path, *, sep: str | None = None, na_values=(), decimal: str = "."):
    """The file as a DataFrame, its header checked (:func:`check_header`); ``sep`` defaults to
    :func:`sniff_separator`'s, ``na_values`` are read as missing besides empty cells and pandas' markers, and
    ``decimal`` marks the decimals of a text file's numbers."""
    try:
        import pandas as pd
    except ImportError:
        raise UserDataError("reading --data files needs pandas: pip install pandas") from None
    path = Path(path)
    parquet = kind(path) == "parquet"
    if not parquet and sep is None:
        sep = sniff_separator(path, decimal)
    check_header(header(path, sep), path.name)
    try:
        if parquet:
            frame = pd.read_parquet(path)
            if na_values:
                frame = frame.mask(frame.isin(list(na_values)))
            return frame
        return pd.read_csv(path, sep=sep, na_values=list(na_values) or None, decimal=decimal)
    except UserDataError:
        raise
    except (ValueError, OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile) as exc:
        if not parquet and path.suffix.lower() in COMPRESSED and not isinstance(exc, ValueError):
            raise UserDataError(_damaged(path, exc)) from None  # a damaged or cut compressed file
        raise UserDataError(
            f"{path.name} could not be read as {'Parquet' if parquet else 'CSV'}: {_first_line(exc)}"
        ) from None


def decimal_commas(text):
    """Which cells of the text Series ``text`` are numbers written with a decimal comma (``3,14``, ``-0,5``)."""
    return text.str.fullmatch(r"[-+]?\d*,\d+")


def number_hints(X, file_name: str, decimal: str = ".") -> dict:
    """``{column: warning}`` for the text columns of ``X`` that hold numbers: written with a decimal comma (``3,14``,
    read as text unless ``decimal`` is a comma; the warning proposes ``--decimal ,``), or numbers in at least half
    their cells but for at most :data:`MAX_MARKERS` distinct other values, such as ``?`` (it proposes
    ``--na-values`` with them)."""
    import pandas as pd

    hints = {}
    for column in X.columns:
        if not isinstance(X[column].dtype, pd.CategoricalDtype):
            continue
        text = X[column].dropna().astype(str).str.strip()
        commas = decimal_commas(text) & (decimal != ",")
        numbers = pd.to_numeric(text, errors="coerce").notna() | commas
        others = text[~numbers]
        if text.empty or numbers.sum() < len(text) / 2 or others.nunique() > MAX_MARKERS:
            continue
        markers = sorted(others.unique())
        shown = " and ".join(map(repr, markers))
        but = f" but for {len(others)} cell(s) of {shown}" if markers else ""
        mark = f"if {shown} {'marks' if len(markers) == 1 else 'mark'} missing values"
        na_values = f"--na-values '{','.join(markers)}'"
        where = f"column {column!r} of {file_name}"
        if commas.any():
            hints[str(column)] = (
                f"{where} holds numbers written with a decimal comma (e.g. {text[commas].iloc[0]!r}){but}, read as "
                "text: pass --decimal , to read them as numbers" + (f" (and {na_values}, {mark})" if markers else "")
            )
        elif markers:
            hints[str(column)] = f"{where} holds numbers{but}, read as text (categories): {mark}, pass {na_values}"
    return hints


def identifier_columns(X) -> list[str]:
    """Text or integer columns with a different value in every row, and no empty cell (likely identifiers)."""
    import numpy as np
    import pandas as pd
    from pandas.api import types

    if len(X) < ID_WARNING_MIN_ROWS:
        return []
    found = []
    for column in X.columns:
        values = X[column]
        if values.isna().any() or values.nunique() != len(values):
            continue
        text = isinstance(values.dtype, pd.CategoricalDtype) or types.is_object_dtype(values)
        integral = types.is_numeric_dtype(values) and bool(np.all(np.mod(values.to_numpy(dtype=np.float64), 1) == 0))
        if text or integral:
            found.append(str(column))
    return found
