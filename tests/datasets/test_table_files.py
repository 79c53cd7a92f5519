"""Reading a user's file: the separator sniffed, given or refused, decimal commas, compression (a damaged file
refused), a header naming a column twice or holding NUL bytes refused."""

import gzip

import numpy as np
import pandas as pd
import pytest

from mddf.datasets.table_files import (
    UserDataError,
    check_header,
    check_separator,
    decimal_option,
    read_table,
    separator_option,
    sniff_separator,
    stem,
)

ROWS = [
    ["rownames", "npreg", "glu", "type"],
    ["1", "6", "148", "Yes"],
    ["2", "1", "85", "No"],
    ["3", "8", "183", "Yes"],
]


def write(path, sep, rows=ROWS, opener=open):
    with opener(path, "wt") as handle:
        handle.write("\n".join(sep.join(row) for row in rows) + "\n")
    return path


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_the_separator_is_sniffed(tmp_path, sep):
    path = write(tmp_path / "pima.csv", sep)
    assert sniff_separator(path) == sep
    frame = read_table(path)
    assert list(frame.columns) == ROWS[0] and frame["glu"].tolist() == [148, 85, 183]


def test_a_tsv_is_tab_separated_and_a_gzipped_file_is_sniffed_through_its_compression(tmp_path):
    assert sniff_separator(write(tmp_path / "pima.tsv", "\t", rows=[["a"], ["1"]])) == "\t"
    path = write(tmp_path / "pima.csv.gz", ";", opener=gzip.open)
    assert sniff_separator(path) == ";" and read_table(path).shape == (3, 4)
    assert stem(path) == "pima" and stem(tmp_path / "pima.tsv") == "pima"


def test_a_given_separator_wins_and_tab_can_be_named():
    assert separator_option("tab") == "\t" and separator_option(";") == ";"
    with pytest.raises(ValueError, match="one character"):
        separator_option(";;")


def test_a_header_naming_a_column_twice_is_refused_naming_it(tmp_path):
    path = write(tmp_path / "twice.csv", ",", rows=[["a", "y", "b", "y"], ["1", "0", "2", "1"]])
    with pytest.raises(UserDataError) as info:
        read_table(path)
    assert str(info.value) == (
        "the header of twice.csv names a column more than once ('y' at columns 2 and 4); rename or remove the copies"
    )
    check_header(["a", "b"], "fine.csv")


def test_extra_missing_value_markers(tmp_path):
    path = write(tmp_path / "q.csv", ",", rows=[["x", "y"], ["1", "a"], ["?", "b"], ["-", "a"]])
    assert read_table(path, na_values=["?", "-"])["x"].isna().tolist() == [False, True, True]
    assert not pd.api.types.is_numeric_dtype(read_table(path)["x"])  # without them, '?' makes the column text


def test_a_parquet_file_with_a_column_twice_is_refused(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table([[1, 2], [0, 1], [3, 4]], names=["a", "y", "y"]), tmp_path / "t.parquet")
    with pytest.raises(UserDataError, match="'y' at columns 2 and 3"):
        read_table(tmp_path / "t.parquet")
    pd.DataFrame({"a": [1, None], "y": ["u", "v"]}).to_parquet(tmp_path / "ok.parquet")
    assert read_table(tmp_path / "ok.parquet")["y"].tolist() == ["u", "v"]


def test_decimal_commas_are_read_as_numbers_and_the_comma_is_no_separator_candidate(tmp_path):
    rows = [["x", "colour", "y"], ["3,14", "red", "a"], ["-0,5", "blue", "b"], ["2", "red", "a"]]
    path = write(tmp_path / "eu.csv", ";", rows=rows)
    assert sniff_separator(path, decimal=",") == ";"
    frame = read_table(path, decimal=",")
    assert frame["x"].tolist() == [3.14, -0.5, 2.0]
    assert read_table(path)["x"].tolist() == ["3,14", "-0,5", "2"]  # as text without it
    assert decimal_option("comma") == "," and decimal_option(".") == "."
    with pytest.raises(ValueError, match="--decimal takes '.' or ','"):
        decimal_option(";")


@pytest.mark.parametrize("given, says", [(True, "--sep ','"), (False, "the separator ',' (sniffed)")])
def test_a_separator_finding_one_column_where_the_header_holds_another_is_refused_naming_both(tmp_path, given, says):
    path = write(tmp_path / "my.csv", ";", rows=[["x", "y"], ["1,5", "a"]])
    with pytest.raises(UserDataError) as info:
        check_separator(path, ",", given=given)
    assert str(info.value) == f"{says} found 1 column in my.csv; its first line holds ';': try --sep ';'"
    tabbed = write(tmp_path / "tabbed.csv", "\t", rows=[["x", "y"], ["1", "a"]])
    with pytest.raises(UserDataError, match="its first line holds tab: try --sep tab"):
        check_separator(tabbed, ",", given=True)
    check_separator(path, ";", given=True)
    check_separator(write(tmp_path / "one.csv", ",", rows=[["y"], ["a"]]), ",", given=False)  # one column, no other


@pytest.mark.parametrize("damage", ["corrupt", "cut"])
def test_a_damaged_gzip_file_is_an_input_error_naming_it(tmp_path, damage):
    whole = gzip.compress(b"x,y\n" + b"1,a\n2,b\n" * 5000)
    data = whole[:20] + b"\xff" * 200 + whole[220:] if damage == "corrupt" else whole[: len(whole) // 2]
    path = tmp_path / "my.csv.gz"
    path.write_bytes(data)
    with pytest.raises(UserDataError, match=r"^my.csv.gz could not be decompressed \(.+\): a damaged or cut .gz file"):
        read_table(path)


@pytest.mark.parametrize(
    "content",
    [
        "x,y\n1,a\n".encode("utf-16"),
        b"x,\x00y\n1,a\n",
        np.random.default_rng(5).bytes(20000),  # random bytes whose first line holds a '|' but no ','
        b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)) * 20,  # a spreadsheet (a zip) saved as .csv
    ],
)
def test_a_file_that_is_not_text_is_refused_as_such_before_any_separator_hint(tmp_path, content):
    path = tmp_path / "my.csv"
    path.write_bytes(content)
    for read in (
        read_table,
        lambda path: read_table(path, sep=","),
        lambda path: check_separator(path, ",", given=False),
    ):
        with pytest.raises(UserDataError) as info:
            read(path)
        assert str(info.value) == (
            "my.csv is not a text table: it holds NUL bytes, or bytes that are not UTF-8 text (UTF-16 text? save it "
            "as UTF-8; a spreadsheet or another binary file? export it as CSV)"
        )
