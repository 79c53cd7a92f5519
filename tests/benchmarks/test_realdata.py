"""The real-data suite's loader, on a synthetic folder: a gzip CSV per table and a manifest that describes them."""

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from study_helpers import read_records

from benchmarks import realdata, realdata_tables
from benchmarks.harness import CrossValidation, Study

CSV = """colour,size,weight,label
red,1.5,10,yes
blue,,12,no
,2.5,11,yes
green,0.5,,no
red,3.0,9,yes
blue,1.0,13,no
"""


def _entry(name, **changes):
    entry = {
        "name": name,
        "file": f"{name}.csv.gz",
        "task": "classification",
        "target": "label",
        "rows": 6,
        "features": 3,
        "n_categorical": 1,
        "n_missing_cells": 3,
        "classes": {"yes": 3, "no": 3},
        "notes": [],
    }
    return {**entry, **changes}


@pytest.fixture
def suite(tmp_path):
    """A folder with a classification table and a regression table, and their manifest."""
    folder = tmp_path / "realdata"
    folder.mkdir()
    (folder / "tiny.csv.gz").write_bytes(gzip.compress(CSV.encode()))
    regression = "x,group,target\n" + "".join(f"{i},{'ab'[i % 2]},{2.0 * i}\n" for i in range(8))
    (folder / "line.csv.gz").write_bytes(gzip.compress(regression.encode()))
    line = _entry("line", task="regression", target="target", rows=8, features=2, n_missing_cells=0)
    del line["classes"]
    (folder / "manifest.json").write_text(json.dumps([_entry("tiny"), line]))
    return folder


def test_a_table_is_read_with_its_text_columns_as_categories_and_its_target_apart(suite):
    table = realdata.load_table("tiny", suite)
    assert table.task == "classification" and table.meta["target"] == "label"
    assert list(table.X.columns) == ["colour", "size", "weight"]
    assert isinstance(table.X["colour"].dtype, pd.CategoricalDtype)
    assert sorted(table.X["colour"].cat.categories) == ["blue", "green", "red"]
    assert table.X["size"].dtype == np.float64 and int(table.X.isna().sum().sum()) == 3
    assert table.y.tolist() == ["yes", "no", "yes", "no", "yes", "no"]
    line = realdata.load_table("line", suite)
    assert line.task == "regression" and line.y.dtype == np.float64 and line.y[3] == 6.0
    assert realdata.names(path=suite) == ["tiny", "line"] and realdata.names("regression", suite) == ["line"]


def test_the_folder_comes_from_the_environment_else_beside_the_repository(suite, monkeypatch, tmp_path):
    monkeypatch.setenv(realdata.ENV, str(suite))
    assert realdata.home() == suite and realdata.load_table("line").X.shape == (8, 2)
    monkeypatch.delenv(realdata.ENV)
    monkeypatch.setattr(realdata_tables, "ROOT", tmp_path / "repository")  # where the folders are found
    (tmp_path / "shared").symlink_to(suite.parent, target_is_directory=True)
    assert realdata.home() == tmp_path / "shared" / "realdata"
    with pytest.raises(realdata.RealDataError, match=f"no real-data suite at .*set \\${realdata.ENV}"):
        realdata.home(tmp_path / "nowhere")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"rows": 7}, "rows 6 \\(the manifest says 7\\)"),
        ({"n_categorical": 2}, "n_categorical 1 \\(the manifest says 2\\)"),
        ({"n_missing_cells": 0}, "n_missing_cells 3 \\(the manifest says 0\\)"),
        ({"classes": {"yes": 4, "no": 2}}, "classes"),
        ({"target": "weight"}, "the last column is 'label', not the target 'weight'"),
    ],
)
def test_a_table_that_differs_from_its_manifest_is_refused_naming_the_file(suite, changes, message):
    (suite / "manifest.json").write_text(json.dumps([_entry("tiny", **changes)]))
    with pytest.raises(realdata.RealDataError, match=message) as error:
        realdata.load_table("tiny", suite)
    assert "tiny.csv.gz" in str(error.value)


def test_an_incomplete_manifest_or_an_unknown_table_is_refused(suite):
    with pytest.raises(realdata.RealDataError, match="no table 'wine'.*known: tiny, line"):
        realdata.load_table("wine", suite)
    entry = _entry("tiny")
    del entry["target"]
    (suite / "manifest.json").write_text(json.dumps([entry]))
    with pytest.raises(realdata.RealDataError, match="the entry 'tiny' lacks target"):
        realdata.manifest(suite)
    (suite / "manifest.json").write_text(json.dumps([_entry("tiny", task="ranking")]))
    with pytest.raises(realdata.RealDataError, match="unknown task 'ranking'"):
        realdata.manifest(suite)


def test_the_tables_are_cross_validated_by_a_study_on_the_harness(suite, tmp_path):
    def build(ctx):
        from sklearn.dummy import DummyClassifier, DummyRegressor

        return DummyClassifier() if ctx.task == "classification" else DummyRegressor()

    study = Study(
        "realdata_trial",
        "A study of the suite.",
        datasets=realdata.datasets(path=suite),
        methods={"dummy": build},
        protocol=CrossValidation(n_folds=2, repeats=1),
    )
    assert study.main(["--out", str(tmp_path / "out"), "--quiet"]) == 0
    records = read_records(tmp_path / "out")
    assert [(r["dataset"], r["fold"], r["suite"]) for r in records] == [
        ("tiny", 0, "realdata"),
        ("tiny", 1, "realdata"),
        ("line", 0, "realdata"),
        ("line", 1, "realdata"),
    ]
    assert "log_loss" in records[0] and "rmse" in records[-1]
    assert [d.name for d in realdata.datasets("classification", suite)] == ["tiny"]


@pytest.fixture
def suites(suite, tmp_path, monkeypatch):
    """Today's suite (tiny, line) and a broad suite of one table (wide), each named by its environment variable."""
    broad = tmp_path / "broad"
    broad.mkdir()
    (broad / "wide.csv.gz").write_bytes(gzip.compress(CSV.encode()))
    (broad / "manifest.json").write_text(json.dumps([_entry("wide")]))
    monkeypatch.setenv(realdata.ENV, str(suite))
    monkeypatch.setenv(realdata.ENV_BROAD, str(broad))
    return suite, broad


def test_the_suite_argument_selects_the_twenty_the_broad_suite_or_both(suites):
    assert realdata.names() == ["tiny", "line"] and realdata.names(suite="broad") == ["wide"]
    assert realdata.names(suite="all") == ["tiny", "line", "wide"]
    assert realdata.names("classification", suite="all") == ["tiny", "wide"]
    assert realdata.load_table("wide", suite="all").X.shape == (6, 3)
    with pytest.raises(realdata.RealDataError, match="no table 'wide'.*known: tiny, line"):
        realdata.load_table("wide")  # the twenty's suite alone does not hold it
    with pytest.raises(
        realdata.RealDataError, match="no real-data suite 'wider'; known: realdata, broad, more, all, grown"
    ):
        realdata.names(suite="wider")
    with pytest.raises(realdata.RealDataError, match="read from \\$MDDF_REALDATA and \\$MDDF_REALDATA_BROAD"):
        realdata.manifest(suites[1], suite="all")


def test_each_table_of_all_is_bound_to_its_own_suites_digest(suites, tmp_path):
    alone = realdata.digest()
    found = realdata.datasets(suite="all")
    assert [(d.name, d.fields["suite"]) for d in found] == [
        ("tiny", "realdata"),
        ("line", "realdata"),
        ("wide", "broad"),
    ]
    assert [d.digest(None) for d in found] == [alone, alone, realdata.digest(suite="broad")]
    assert realdata.digest(suite="broad") != alone and realdata.digest(suite="all") not in (
        alone,
        realdata.digest(suite="broad"),
    )
    assert [d.name for d in realdata.datasets("regression", suite="all")] == ["line"]
    assert found[2].load(None).X_train.shape == (6, 3)
    (suites[1] / "manifest.json").write_text(json.dumps([_entry("wide"), _entry("tiny")]))
    with pytest.raises(realdata.RealDataError, match="more than one of the suites' manifests names the table tiny"):
        realdata.datasets(suite="all")


def test_the_broad_suite_is_read_beside_the_repository_when_its_variable_is_unset(suites, monkeypatch, tmp_path):
    monkeypatch.delenv(realdata.ENV_BROAD)
    monkeypatch.setattr(realdata_tables, "ROOT", tmp_path / "repository")  # where the folders are found
    (tmp_path / "realdata-broad").symlink_to(suites[1], target_is_directory=True)
    assert realdata.home(suite="broad") == tmp_path / "realdata-broad"
    assert realdata.names(suite="broad") == ["wide"]
    with pytest.raises(realdata.RealDataError, match="set \\$MDDF_REALDATA_BROAD .*--rebuild .* --suite broad$"):
        realdata.home(tmp_path / "nowhere", suite="broad")


@pytest.fixture
def grown(suites, tmp_path, monkeypatch):
    """The twenty's suite (tiny, line), a broad suite (wide) and the suite ``more`` of one table (rare), each named by
    its environment variable."""
    more = tmp_path / "more"
    more.mkdir()
    (more / "rare.csv.gz").write_bytes(gzip.compress(CSV.encode()))
    (more / "manifest.json").write_text(json.dumps([_entry("rare")]))
    monkeypatch.setenv(realdata.ENV_MORE, str(more))
    return (*suites, more)


def test_grown_adds_the_suite_more_and_all_keeps_the_44s_meaning_and_digest(grown, monkeypatch, tmp_path):
    import hashlib

    assert realdata.names(suite="more") == ["rare"]
    assert realdata.names(suite="grown") == ["tiny", "line", "wide", "rare"]
    assert realdata.names(suite="all") == ["tiny", "line", "wide"]  # not the third suite's
    assert realdata.load_table("rare", suite="grown").X.shape == (6, 3)
    with pytest.raises(realdata.RealDataError, match="no table 'rare'.*known: tiny, line, wide"):
        realdata.load_table("rare", suite="all")
    each = {name: realdata.digest(suite=name) for name in ("realdata", "broad", "more")}
    assert realdata.digest(suite="all") == hashlib.sha256((each["realdata"] + each["broad"]).encode()).hexdigest()
    assert realdata.digest(suite="grown") == hashlib.sha256("".join(each.values()).encode()).hexdigest()
    found = realdata.datasets(suite="grown")
    assert [(d.name, d.fields["suite"]) for d in found][-1] == ("rare", "more")
    assert [d.digest(None) for d in found] == [each["realdata"]] * 2 + [each["broad"], each["more"]]
    with pytest.raises(
        realdata.RealDataError, match="read from \\$MDDF_REALDATA, \\$MDDF_REALDATA_BROAD and \\$MDDF_REALDATA_MORE"
    ):
        realdata.manifest(grown[2], suite="grown")
    (grown[2] / "manifest.json").write_text(json.dumps([_entry("rare"), _entry("wide")]))
    with pytest.raises(realdata.RealDataError, match="names the table wide"):
        realdata.datasets(suite="grown")
    assert realdata.names(suite="all") == ["tiny", "line", "wide"]  # read without the third suite
    monkeypatch.setenv(realdata.ENV_MORE, str(tmp_path / "nowhere"))
    assert realdata.names(suite="all") == ["tiny", "line", "wide"]
    with pytest.raises(realdata.RealDataError, match="set \\$MDDF_REALDATA_MORE .*--rebuild .* --suite more$"):
        realdata.names(suite="grown")


def test_the_suite_more_is_read_beside_the_repository_when_its_variable_is_unset(grown, monkeypatch, tmp_path):
    monkeypatch.delenv(realdata.ENV_MORE)
    monkeypatch.setattr(realdata_tables, "ROOT", tmp_path / "repository")  # where the folders are found
    (tmp_path / "realdata-more").symlink_to(grown[2], target_is_directory=True)
    assert realdata.home(suite="more") == tmp_path / "realdata-more"
    assert realdata.names(suite="more") == ["rare"]
