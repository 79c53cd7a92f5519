"""A user's own table (--data PATH --target COLUMN): read, typed, checked, hashed and split as documented."""

import hashlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from user_csv import write_user_csv

from mddf.datasets import user_data as ud
from mddf.experiments.protocols import split_run_data


def load(path, target="y", test=None):
    return ud.load_source(ud.source_for(path, target, test))


def test_text_columns_become_category_codes_and_empty_cells_nan(user_csv):
    ds = load(user_csv)
    frame = pd.read_csv(user_csv)
    assert ds.name == "my" and ds.feature_names == ["x1", "x2", "colour", "size"]
    assert ds.categorical_mask.tolist() == [False, False, True, False]
    assert ds.extra["categories"] == {"colour": ["blue", "green", "red"]}
    assert ds.X_train.dtype == np.float32 and ds.X_train.shape == (300, 4)
    # every empty cell is NaN, and only those
    assert np.array_equal(np.isnan(ds.X_train), frame.drop(columns="y").isna().to_numpy())
    codes = ds.X_train[:, 2]
    shown = frame["colour"].to_numpy()
    present = ~np.isnan(codes)
    assert [["blue", "green", "red"][int(c)] for c in codes[present]] == list(shown[present])
    assert ds.classes.tolist() == ["maybe", "no", "yes"]
    assert list(ds.classes[ds.y_train]) == frame["y"].tolist()


def test_the_sha256_is_the_files_and_names_it_in_provenance(user_csv):
    source = ud.source_for(user_csv, "y")
    assert source.sha256 == hashlib.sha256(user_csv.read_bytes()).hexdigest()
    line = ud.provenance_line(ud.load_source(source))
    assert str(user_csv) in line and source.sha256 in line


def test_each_seed_draws_its_own_stratified_split_and_a_test_file_is_fixed(user_csv, tmp_path):
    ds = load(user_csv)
    assert not ds.has_test_split
    a, b = ud.seeded_split(ds, 0), ud.seeded_split(ds, 1)
    assert len(a.y_test) == len(b.y_test) == 90 and len(a.y_train) == 210
    assert not np.array_equal(a.X_test, b.X_test, equal_nan=True)
    assert np.array_equal(ud.seeded_split(ds, 0).y_test, a.y_test)
    # stratified: each class's share of the test rows is its share of all rows, within a row
    for k in range(3):
        assert abs((a.y_test == k).sum() - 0.3 * (ds.y_train == k).sum()) <= 1
    # the runner's split of one run is this seed's split
    run = split_run_data(ds, seed=1)
    assert np.array_equal(run.y_test, b.y_test)

    test = write_user_csv(tmp_path / "test.csv", n_rows=40, seed=5)
    fixed = load(user_csv, test=test)
    assert fixed.has_test_split and len(fixed.y_test) == 40
    assert ud.seeded_split(fixed, 3) is fixed
    assert "fixed test file test.csv" in fixed.split


def test_a_test_file_with_a_category_unseen_in_training_gets_its_own_code(user_csv, tmp_path):
    frame = pd.read_csv(user_csv).head(20)
    frame.loc[0, "colour"] = "purple"
    frame.to_csv(tmp_path / "test.csv", index=False)
    ds = load(user_csv, test=tmp_path / "test.csv")
    assert ds.extra["categories"]["colour"] == ["blue", "green", "red"]
    categories = np.array(["blue", "green", "purple", "red"])
    codes = ds.X_test[:, 2]
    present = ~np.isnan(codes)
    assert list(categories[codes[present].astype(int)]) == list(frame["colour"][present])
    assert categories[int(codes[0])] == "purple"


def test_a_name_of_a_builtin_dataset_gets_a_suffix(tmp_path):
    path = write_user_csv(tmp_path / "iris.csv")
    assert ud.source_for(path, "y").name == "iris_csv"


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ud.UserDataError) as info:
        ud.source_for(tmp_path / "absent.csv", "y")
    assert str(info.value) == f"--data {tmp_path / 'absent.csv'}: no such file"


def test_an_unknown_target_column_lists_the_columns(user_csv):
    with pytest.raises(ud.UserDataError, match=r"--target 'label' is not a column of my.csv \(columns: x1, x2"):
        load(user_csv, target="label")


@pytest.mark.parametrize(
    "header, target, hint",
    [
        ("x1,x2,y ", "y", "; did you mean 'y '? (the names differ in spaces at their ends)"),
        ("x1,x2,y", "y ", "; did you mean 'y'? (the names differ in spaces at their ends)"),
        ("x1,x2,Label", "label", "; did you mean 'Label'? (the names differ in case)"),
        ("x1,x2,colour", "color", "; did you mean 'colour'?"),
        ("x1,x2,y", "price", ""),
    ],
)
def test_a_target_or_drop_that_names_no_column_names_the_nearest_one(tmp_path, header, target, hint):
    path = tmp_path / "near.csv"
    path.write_text(header + "\n" + "".join(f"{i},{i % 3},{'ab'[i % 2]}\n" for i in range(10)))
    with pytest.raises(ud.UserDataError) as info:
        load(path, target=target)
    assert (
        str(info.value)
        == f"--target {target!r} is not a column of near.csv (columns: {header.replace(',', ', ')})" + hint
    )
    with pytest.raises(ud.UserDataError) as info:  # the same hint for --drop
        ud.load_source(ud.source_for(path, header.split(",")[0], drop=(target,)))
    assert str(info.value).endswith(
        f"--drop {target!r}: not a column of near.csv (columns: {header.replace(',', ', ')})" + hint
    )


def test_a_target_with_one_class_is_refused(tmp_path):
    path = write_user_csv(tmp_path / "one.csv", labels=("a", "a", "a"))
    with pytest.raises(ud.UserDataError, match="has a single class \\('a'\\); a classifier needs at least two"):
        load(path)


def test_a_target_with_empty_cells_or_real_numbers_is_refused(user_csv, tmp_path):
    frame = pd.read_csv(user_csv)
    frame.loc[3, "y"] = None
    frame.to_csv(tmp_path / "gap.csv", index=False)
    with pytest.raises(ud.UserDataError, match="'y' of gap.csv has 1 empty cell"):
        load(tmp_path / "gap.csv")
    frame["y"] = np.linspace(0, 1, len(frame))
    frame.to_csv(tmp_path / "real.csv", index=False)
    with pytest.raises(ud.UserDataError, match="holds non-integer numbers; --task classification needs class labels"):
        ud.load_source(ud.source_for(tmp_path / "real.csv", "y", task="classification"))


def test_a_date_column_is_neither_numeric_nor_categorical_and_is_refused(user_csv, tmp_path):
    frame = pd.read_csv(user_csv)
    frame["when"] = [f"2024-01-{1 + i % 28:02d}" for i in range(len(frame))]
    frame.to_csv(tmp_path / "dates.csv", index=False)
    with pytest.raises(ud.UserDataError) as info:
        load(tmp_path / "dates.csv")
    assert str(info.value) == (
        "column 'when' of dates.csv holds dates (e.g. '2024-01-01'), neither numbers nor categories; convert it to "
        "numbers or leave it out with --drop when"
    )
    frame.rename(columns={"when": "sold on"}).to_csv(tmp_path / "dates.csv", index=False)
    with pytest.raises(ud.UserDataError, match="leave it out with --drop 'sold on'$"):  # quoted for a shell
        load(tmp_path / "dates.csv")


@pytest.mark.parametrize("value, shown", [(1.2e300, "1.2e+300"), (-4e38, "-4e+38"), (np.inf, "inf")])
def test_a_number_beyond_float32s_range_is_refused_naming_its_column_without_a_warning(tmp_path, value, shown):
    frame = pd.DataFrame({"a": [1.0, value, 3.0, 4.0], "b": [1, 2, 3, 4], "y": ["p", "n", "p", "n"]})
    frame.to_csv(tmp_path / "big.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pandas' "overflow encountered in cast" before
        with pytest.raises(ud.UserDataError) as info:
            load(tmp_path / "big.csv")
    assert str(info.value) == (
        f"column 'a' of big.csv holds {shown}, beyond the largest float32 number (3.4e+38) the learners read: "
        "rescale it (its logarithm, or another unit) or leave it out with --drop a"
    )
    frame.assign(a=3e38).to_csv(tmp_path / "near.csv", index=False)  # within float32's range: read as it is
    assert load(tmp_path / "near.csv").X_train[0, 0] == np.float32(3e38)


def test_a_parquet_file_without_pyarrow_names_the_missing_package(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name))
    (tmp_path / "my.parquet").write_bytes(b"PAR1")
    with pytest.raises(ud.UserDataError, match=r"my.parquet is a Parquet file: reading it needs pyarrow"):
        load(tmp_path / "my.parquet")


def test_a_test_file_with_other_columns_is_refused(user_csv, tmp_path):
    pd.read_csv(user_csv).drop(columns="size").assign(extra=1).to_csv(tmp_path / "test.csv", index=False)
    with pytest.raises(ud.UserDataError, match="must have the columns of my.csv: missing 'size'; extra 'extra'"):
        load(user_csv, test=tmp_path / "test.csv")


def test_a_file_changed_after_the_command_started_fails_the_run(user_csv):
    source = ud.source_for(user_csv, "y")
    user_csv.write_text(user_csv.read_text().replace("red", "rouge"))
    with pytest.raises(ud.UserDataError, match="changed while the command ran"):
        ud.load_source(source)


def test_typed_columns_of_a_parquet_file_are_kept_refused_or_made_categories():
    frame = pd.DataFrame(
        {
            "flag": [True, False, True],
            "count": pd.array([1, None, 3], dtype="Int64"),
            "kind": pd.Categorical(["a", None, "b"]),
            "name": pd.array(["x", "y", None], dtype="string"),
        }
    )
    tidy = ud.tidy_features(frame, "t.parquet")
    assert tidy["flag"].tolist() == [1.0, 0.0, 1.0]
    assert tidy["count"].iloc[0] == 1.0 and pd.isna(tidy["count"].iloc[1])
    assert isinstance(tidy["kind"].dtype, pd.CategoricalDtype) and isinstance(tidy["name"].dtype, pd.CategoricalDtype)
    for column, values, says in [
        ("when", pd.to_datetime(["2024-01-01", "2024-01-02", None]), "holds dates or times; .* with --drop when$"),
        ("took", pd.to_timedelta([1, 2, 3], unit="s"), "holds dates or times; .* with --drop took$"),
        ("tags", pd.Series([["a"], ["b"], None], dtype=object), "holds list values, neither .* with --drop tags$"),
    ]:
        with pytest.raises(ud.UserDataError, match=f"column '{column}' of t.parquet {says}"):
            ud.tidy_features(pd.DataFrame({column: values}), "t.parquet")


def test_an_empty_file_or_a_header_without_rows_is_refused(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ud.UserDataError, match="empty.csv could not be read as CSV: "):
        load(tmp_path / "empty.csv")
    (tmp_path / "header.csv").write_text("x,y\n")
    with pytest.raises(ud.UserDataError, match="header.csv has a header but no rows"):
        load(tmp_path / "header.csv")


def test_reading_options_reach_the_dataset(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text(
        "rownames;x;y\n" + "".join(f"{i};{'?' if i % 5 == 0 else i / 10};{'ab'[i % 2]}\n" for i in range(30))
    )
    source = ud.source_for(path, "y", drop=("rownames",), na_values=("?",))
    assert source.sep == ";" and source.reading() == {
        "target": "y",
        "sep": ";",
        "drop": ["rownames"],
        "na_values": ["?"],
        "task": "auto",
        "test_file": False,
    }
    ds = ud.load_source(source)
    assert ds.feature_names == ["x"] and np.isnan(ds.X_train[:, 0]).sum() == 6
    assert source.slug == f"semi-{source.sha256[:8]}"


def test_a_column_different_in_every_row_is_warned_about_as_an_identifier(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "rownames": np.arange(1, 41),
            "name": [f"p{i}" for i in range(40)],
            "height": rng.normal(size=40),  # real numbers all differ: not an identifier
            "y": ["a", "b"] * 20,
        }
    )
    frame.to_csv(tmp_path / "ids.csv", index=False)
    warnings = load(tmp_path / "ids.csv").extra["warnings"]
    assert warnings == [
        "column 'rownames' of ids.csv has a different value in every row, like an identifier; it is used as a "
        "feature (leave it out with --drop rownames)",
        "column 'name' of ids.csv has a different value in every row, like an identifier; it is used as a "
        "feature (leave it out with --drop name)",
    ]
    assert ud.load_source(ud.source_for(tmp_path / "ids.csv", "y", drop=("rownames", "name"))).extra["warnings"] == []


@pytest.mark.parametrize(
    "values, task, expected",
    [
        (["a", "b"] * 20, "auto", "classification"),
        ([0.5, 1.25] * 20, "auto", "regression"),
        ([0, 1, 2, 3] * 10, "auto", "classification"),  # 4 values, 10 rows each
        (list(range(40)), "classification", "classification"),  # forced
        (list(range(40)), "regression", "regression"),
    ],
)
def test_the_task_follows_the_target(values, task, expected):
    assert ud.resolve_task(pd.Series(values), task, "y", "t.csv") == expected


@pytest.mark.parametrize(
    "values, task, says",
    [
        (list(range(31)) * 5, "auto", "holds 31 distinct integer values (5.0 rows per value), too many to be classes"),
        (
            list(range(10)) * 4,
            "auto",
            "holds 10 distinct integer values (4.0 rows per value), too few rows per value to take them for classes",
        ),
        (["a", "b"] * 20, "regression", "holds text; --task regression needs numbers"),
    ],
)
def test_a_target_unfit_for_its_task_is_refused(values, task, says):
    with pytest.raises(ud.UserDataError, match=re.escape(says)):
        ud.resolve_task(pd.Series(values), task, "y", "t.csv")


@pytest.mark.parametrize("label", ["3", "x", "2.5"], ids=["integer", "text", "number"])
def test_a_file_of_one_row_is_refused_for_its_one_row_not_its_value(tmp_path, label):
    # an integer label was blamed on "1 distinct integer values", text on "a single class"
    (tmp_path / "one.csv").write_text(f"a,b,y\n1,2,{label}\n")
    with pytest.raises(ud.UserDataError) as caught:
        load(tmp_path / "one.csv", target="y")
    assert str(caught.value) == "one.csv has a single row (besides its header): too few to learn from and test on"


def test_a_target_naming_several_columns_is_refused_as_several_targets(tmp_path):
    (tmp_path / "t.csv").write_text("a,b,y\n1,2,3\n2,3,4\n")
    with pytest.raises(ud.UserDataError) as caught:
        load(tmp_path / "t.csv", target="y, a")
    assert str(caught.value) == (
        "--target 'y, a' names 2 columns of t.csv, and this subcommand takes one target: give one of 'y', 'a' "
        "(mddf benchmark fits several targets at once)"
    )
    with pytest.raises(ud.UserDataError, match=r"--target 'y,z' is not a column of t.csv"):  # z is none
        load(tmp_path / "t.csv", target="y,z")


def test_several_targets_are_read_as_one_dataset_where_they_are_taken(tmp_path):
    rows = ["a,b,p,q,s", "1,2.5,3.5,yes,hi", "2,3.5,4.5,no,lo", "3,1.5,0.5,yes,lo", "4,0.5,1.5,yes,hi"]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    numbers = ud.load_source(ud.source_for(tmp_path / "t.csv", "p,b", drop=("q", "s"), several_targets=True))
    assert numbers.extra["task"] == "multioutput" and numbers.extra["targets"] == ["p", "b"]
    assert numbers.y.tolist() == [[3.5, 2.5], [4.5, 3.5], [0.5, 1.5], [1.5, 0.5]] and numbers.feature_names == ["a"]
    assert "a multi-output regression of 2 targets: p, b" in ud.summary(numbers)
    labels = ud.load_source(ud.source_for(tmp_path / "t.csv", "q, s", drop=("p",), several_targets=True))
    assert labels.extra["task"] == "multilabel" and labels.extra["positive"] == {"q": "yes", "s": "lo"}
    assert labels.y.tolist() == [[1, 0], [0, 1], [1, 1], [1, 0]]  # 1: the second of each column's sorted values
    assert "a multi-label classification of 2 targets: q 'yes' 75%, s 'lo' 50%" in ud.summary(labels)
    with pytest.raises(ud.UserDataError, match="several targets must all be numbers .* found p: regression"):
        ud.load_source(ud.source_for(tmp_path / "t.csv", "p,q", several_targets=True))


def test_a_regression_target_is_read_as_numbers_and_split_at_random(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=50), "colour": rng.choice(["r", "g"], 50)})
    frame["price"] = frame["x"] * 3 + 0.5
    frame.to_csv(tmp_path / "prices.csv", index=False)
    ds = load(tmp_path / "prices.csv", target="price")
    assert ds.extra["task"] == "regression" and ds.y_train.dtype == np.float64 and len(ds.classes) == 0
    assert np.allclose(ds.y_train, frame["price"])
    split = ud.seeded_split(ds, 0)
    assert len(split.y_test) == 15 and split.split.startswith("70/30 split of the rows")
    assert "a regression target (mean " in ud.summary(ds)


def european(path, n=40):
    """A European CSV: ';' between columns, decimal commas, a 'colour' text column, labels 'yes'/'no'."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=n).round(3), "colour": rng.choice(["red", "blue"], n)})
    frame["y"] = np.where(frame["x"] > 0, "yes", "no")
    frame.to_csv(path, sep=";", decimal=",", index=False)
    return path


def test_decimal_commas_are_numbers_with_decimal_comma_and_a_hint_names_the_column_and_option_without(tmp_path):
    path = european(tmp_path / "eu.csv")
    ds = ud.load_source(ud.source_for(path, "y", decimal=","))
    assert ds.categorical_mask.tolist() == [False, True] and ds.extra["warnings"] == []
    assert np.allclose(ds.X_train[:, 0], pd.read_csv(path, sep=";", decimal=",")["x"])
    plain = ud.load_source(ud.source_for(path, "y"))  # read as text: a category, and one warning, no --drop proposed
    assert plain.categorical_mask.tolist() == [True, True]
    first = pd.read_csv(path, sep=";", dtype=str)["x"].iloc[0]
    assert plain.extra["warnings"] == [
        f"column 'x' of eu.csv holds numbers written with a decimal comma (e.g. {first!r}), read as text: pass "
        "--decimal , to read them as numbers"
    ]
    source = ud.source_for(path, "y", decimal=",")
    assert source.sep == ";" and source.reading()["decimal"] == ","
    assert "decimal" not in ud.source_for(path, "y").reading()  # '.': the settings of earlier records unchanged
    with pytest.raises(ud.UserDataError, match=r"--decimal ',' is also the separator \(--sep\)"):
        ud.source_for(path, "y", sep=",", decimal=",")


def test_a_target_of_decimal_comma_numbers_read_as_text_names_the_option_not_a_class_per_value(tmp_path):
    path = european(tmp_path / "eu.csv")
    frame = pd.read_csv(path, sep=";", decimal=",")
    frame["y"] = frame["x"] * 2 + 0.125  # a regression target
    frame.to_csv(path, sep=";", decimal=",", index=False)
    first = pd.read_csv(path, sep=";", dtype=str)["y"].iloc[0]
    for task in ("auto", "regression"):
        with pytest.raises(ud.UserDataError) as info:
            ud.load_source(ud.source_for(path, "y", task=task))
        assert str(info.value) == (
            f"--target column 'y' of eu.csv holds numbers written with a decimal comma (e.g. {first!r}), read as "
            "text: pass --decimal , to read them as numbers"
        )
    assert ud.load_source(ud.source_for(path, "y", decimal=",")).extra["task"] == "regression"


def test_a_wrong_separator_is_refused_naming_the_one_to_try(tmp_path):
    path = european(tmp_path / "eu.csv")
    with pytest.raises(ud.UserDataError) as info:
        ud.source_for(path, "y", sep=",")
    assert str(info.value) == "--sep ',' found 1 column in eu.csv; its first line holds ';': try --sep ';'"


def test_a_numeric_column_with_a_stray_marker_proposes_na_values_not_drop(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=40).astype(object), "y": ["a", "b"] * 20})
    frame.loc[[3, 7], "x"] = "?"
    frame.loc[5, "x"] = "-"
    frame.to_csv(tmp_path / "q.csv", index=False)
    assert load(tmp_path / "q.csv").extra["warnings"] == [
        "column 'x' of q.csv holds numbers but for 3 cell(s) of '-' and '?', read as text (categories): if '-' and "
        "'?' mark missing values, pass --na-values '-,?'"
    ]
    ds = ud.load_source(ud.source_for(tmp_path / "q.csv", "y", na_values=("?", "-")))
    assert ds.extra["warnings"] == [] and np.isnan(ds.X_train[:, 0]).sum() == 3


@pytest.mark.parametrize(
    "values, hint",
    [
        (
            ["1,5", "2", "?", "3,25"] * 5,
            "decimal comma (e.g. '1,5') but for 5 cell(s) of '?', read as text: pass "
            "--decimal , to read them as numbers (and --na-values '?', if '?' marks missing values)",
        ),
        (["red", "green", "blue", "1"] * 5, None),  # a category with a number among its values
        (["a", "b", "c", "d", "1", "2"] * 5, None),  # more than MAX_MARKERS other values
    ],
)
def test_number_hints(values, hint):
    X = pd.DataFrame({"c": pd.Categorical(values)})
    hints = ud.number_hints(X, "t.csv")
    assert (hints == {}) if hint is None else hint in hints["c"]
    if hint and "decimal comma" in hint:  # read with --decimal ',', a text column of '1,5' is no such column
        assert "decimal comma" not in ud.number_hints(X, "t.csv", decimal=",").get("c", "")


def test_the_read_line_gives_the_class_shares_largest_first(tmp_path):
    frame = pd.DataFrame({"x": np.arange(200.0), "y": ["no"] * 6 + ["yes"] * 194})
    frame.to_csv(tmp_path / "rare.csv", index=False)
    line = ud.summary(load(tmp_path / "rare.csv"))
    assert ", 2 classes: yes 97%, no 3%; " in line
    assert [ud.percent(s) for s in (0.004, 0.01, 0.5, 0.99, 0.996)] == ["0.4%", "1%", "50%", "99%", "99.6%"]
