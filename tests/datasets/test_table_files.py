"""Reading a user's file: the separator sniffed or given, compression, a header naming a column twice refused."""

import gzip

import pandas as pd
import pytest

from mddf.datasets.table_files import (
    UserDataError,
    check_header,
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
