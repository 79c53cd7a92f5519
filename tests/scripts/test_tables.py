"""Table 2-style tables: bold best per group, average-rank row, published numbers alongside; and the plain
Markdown and CSV tables and the cells every benchmark writes."""

import csv
import io

import pytest
from provenance_files import read_csv_rows

from mddf.datasets import published as paper_results
from mddf.experiments.methods import default_registry
from mddf.experiments.paper_tables import write_tables
from mddf.experiments.tables import (
    RANK_NOTE,
    Cell,
    build_table,
    csv_text,
    markdown_table,
    method_notes,
    plus_minus,
    summarize,
    to_csv,
    to_markdown,
    write_rows,
)


def rec(dataset, method, acc, seed=0, status="ok", **kw):
    r = {
        "key": f"{dataset}|{method}|seed={seed}|fold=None|fraction=1|profile=paper",
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "fraction": 1.0,
        "profile": "paper",
        "status": status,
        **kw,
    }
    if acc is not None:
        r["accuracy"] = acc
    return r


def test_summarize_averages_seeds_and_keeps_the_last_record_of_a_run():
    records = [
        rec("adult", "RF", 0.80, seed=0, status="error"),
        rec("adult", "RF", 0.85, seed=0),  # the retry of seed 0 replaces the failure
        rec("adult", "RF", 0.87, seed=1),
        rec("yeast", "RF", None, seed=0, status="error"),
    ]
    cells = summarize(records)
    assert cells[("adult", "RF")].mean == pytest.approx(86.0)
    assert cells[("adult", "RF")].std == pytest.approx(1.4142136, rel=1e-6)  # sample std of 85, 87
    assert cells[("adult", "RF")].n == 2
    assert cells[("yeast", "RF")].text == "error"


def test_markdown_bolds_the_best_of_each_group_and_ends_with_the_rank_row():
    cells = {
        ("adult", "RF"): Cell(85.0),
        ("adult", "mdDF"): Cell(86.0),
        ("yeast", "RF"): Cell(62.0),
        ("yeast", "mdDF"): Cell(61.0),
    }
    table = build_table("t", ["adult", "yeast"], ["RF", "mdDF"], cells, paper=paper_results.mddf_paper_columns())
    md = to_markdown(table)
    lines = md.splitlines()
    header = next(row for row in lines if row.startswith("| Dataset"))
    assert header.startswith("| Dataset | RF | mdDF | MLP [paper Table 2] | RF [paper Table 2]")
    adult = next(row for row in lines if row.startswith("| adult"))
    assert adult.startswith("| adult | 85.000 | **86.000** | 80.597 | 85.818 | 85.904 | 86.276 | **86.560** |")
    yeast = next(row for row in lines if row.startswith("| yeast"))
    assert yeast.startswith("| yeast | **62.000** | 61.000 |")
    rank = lines[lines.index(yeast) + 1]
    # ours: RF ranks 2 then 1, mdDF 1 then 2; paper: MLP (5+4)/2, RF (4+3)/2, XGBoost (3+5)/2, gcForest 2, mdDF 1
    assert rank == "| Avg. rank | 1.500 | 1.500 | 4.500 | 3.500 | 4.000 | 2.000 | 1.000 |"


def test_ties_are_all_bold_and_share_the_rank():
    cells = {("iris", "A"): Cell(90.0), ("iris", "B"): Cell(90.0), ("iris", "C"): Cell(80.0)}
    table = build_table("t", ["iris"], ["A", "B", "C"], cells)
    md = to_markdown(table)
    assert "| iris | **90.000** | **90.000** | 80.000 |" in md
    assert "| Avg. rank | 1.500 | 1.500 | 3.000 |" in md


def test_recomputed_paper_ranks_over_the_eight_datasets():
    paper = paper_results.mddf_paper_columns()
    table = build_table("t", list(paper_results.MDDF_TABLE2), [], {}, paper=paper)
    ranks = table.average_ranks("paper")
    assert [round(ranks[f"{m} [paper Table 2]"][0], 3) for m in ("MLP", "RF", "XGBoost", "gcForest", "mdDF")] == [
        3.75,
        4.0,
        3.875,
        2.375,
        1.0,
    ]


def test_deepboost_errors_are_shown_as_accuracies_with_their_std():
    cols = paper_results.deepboost_paper_columns()
    std = paper_results.deepboost_paper_std()
    assert cols["DeepBoost [paper T2]"]["breastcancer"] == pytest.approx(97.57)
    assert std["DeepBoost [paper T2]"]["breastcancer"] == pytest.approx(0.797)
    assert cols["AdaBoost-H1 [paper T1]"]["ionosphere"] == pytest.approx(89.86)
    assert set(cols["LogReg [paper T3]"]) == {"breastcancer", "ionosphere", "german", "diabetes", "ocr17", "ocr49"}


def test_not_applicable_skipped_and_missing_cells_are_labelled_a_method_that_does_not_apply_with_why():
    cells = {("iris", "RF"): Cell(95.0)}
    table = build_table(
        "t",
        ["iris", "har"],
        ["RF", "DeepBoost", "MLP"],
        cells,
        not_applicable={("iris", "DeepBoost"): "binary only"},
        skipped={"har": "har/x.zip is missing"},
    )
    md = to_markdown(table)
    assert "| iris | **95.000** | binary only | - |" in md
    assert "| har | skipped | skipped | skipped |" in md
    assert "- har: skipped, har/x.zip is missing" in md


def test_csv_has_mean_std_n_per_column_the_best_method_and_the_rank_row():
    cells = {("adult", "RF"): Cell(85.0, 0.5, 3), ("adult", "mdDF"): Cell(86.0, 0.25, 3)}
    table = build_table("t", ["adult"], ["RF", "mdDF"], cells, extra={"k": {"adult": "6"}})
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert rows[0] == ["dataset", "RF", "RF std", "RF n", "mdDF", "mdDF std", "mdDF n", "k", "best (ours)"]
    assert rows[1] == ["adult", "85.0", "0.5", "3", "86.0", "0.25", "3", "6", "mdDF"]
    assert rows[2][0] == "Avg. rank" and rows[2][1] == "2.0" and rows[2][4] == "1.0"
    assert rows[2][3] == rows[2][6] == "1"  # the "n" column of the rank row: datasets the average covers


def test_a_method_without_a_result_is_left_out_of_that_datasets_ranking():
    # C does not apply to two-class data: it has no rank on "pair", and A and B are ranked among themselves
    cells = {
        ("tri", "A"): Cell(90.0),
        ("tri", "B"): Cell(80.0),
        ("tri", "C"): Cell(70.0),
        ("pair", "A"): Cell(70.0),
        ("pair", "B"): Cell(80.0),
        ("solo", "A"): Cell(50.0),  # only one result: the dataset is not ranked
    }
    table = build_table(
        "t", ["tri", "pair", "solo"], ["A", "B", "C"], cells, not_applicable={("pair", "C"): "binary only"}
    )
    assert table.ranks("ours") == {"A": {"tri": 1.0, "pair": 2.0}, "B": {"tri": 2.0, "pair": 1.0}, "C": {"tri": 3.0}}
    # each mean is over the datasets where the method has a rank, not over a rank given to a method that does not apply
    assert table.average_ranks("ours") == {"A": (1.5, 2), "B": (1.5, 2), "C": (3.0, 1)}
    md = to_markdown(table)
    assert "| pair | 70.000 | **80.000** | binary only |" in md
    assert "| Avg. rank | 1.500 | 1.500 | 3.000 |" in md
    assert "| Datasets ranked | 2 | 2 | 1 |" in md
    assert md.rstrip().endswith("- " + RANK_NOTE)
    assert "left out of that dataset's ranking" in RANK_NOTE and "'Datasets ranked'" in RANK_NOTE
    rank = list(csv.reader(io.StringIO(to_csv(table))))[-1]
    assert rank[:10] == ["Avg. rank", "1.5", "", "2", "1.5", "", "2", "3.0", "", "1"]


def test_method_notes_describe_only_the_methods_with_a_result():
    cells = {("iris", "RF"): Cell(95.0), ("iris", "MLP"): Cell(text="error")}
    table = build_table("t", ["iris"], ["RF", "XGBoost", "MLP"], cells)
    assert table.ran() == ["RF"]
    notes = method_notes(
        table,
        [
            (("RF", "XGBoost"), "400·k trees for {methods}."),
            (("MLP",), "MLP: the adam solver."),
            (("LightGBM",), "LightGBM: defaults."),
        ],
    )
    assert notes == ["400·k trees for RF."]
    table.columns[1].cells["iris"] = Cell(94.0)
    assert method_notes(table, [(("RF", "XGBoost", "MLP"), "{methods}.")]) == ["RF and XGBoost."]


def test_runner_tables_describe_the_methods_that_ran_and_rank_without_not_applicable(tmp_path):
    records = [
        rec("iris", "mdDF", 0.94, seed=0),
        rec("pair", "mdDF", 0.85, seed=0),
        rec("iris", "RF", 0.95, seed=0),
        rec("iris", "ExtraTrees", 0.96, seed=0),
        rec("pair", "RF", 0.80, seed=0),
        rec("pair", "ExtraTrees", 0.70, seed=0),
        rec("pair", "DeepBoost", 0.90, seed=0),
    ]
    write_tables(
        records,
        tmp_path,
        ["iris", "pair"],
        ["mdDF", "RF", "DeepBoost", "ExtraTrees"],
        [0],
        "paper",
        {"iris": 3, "pair": 2},
        {},
        {},
        default_registry(),
    )
    table = (tmp_path / "table.md").read_text()
    # DeepBoost does not apply to three classes: the cell says why on iris, ranked on pair only
    assert "| iris | **95.000** | 94.000 | binary only |" in table
    assert "n/a" not in table
    assert "| Avg. rank | 2.000 | 2.000 | 1.000 |" in table and "| Datasets ranked | 2 | 2 | 1 |" in table
    # the notes describe RF (it ran), not XGBoost or MLP (not in the table)
    assert "400·k trees / boosting rounds for RF, with k" in table
    assert "XGBoost" not in table and "MLP" not in table and "adam" not in table
    peers = (tmp_path / "peers.md").read_text()
    assert "for RF and ExtraTrees, with k" in peers and "ExtraTrees: scikit-learn's ExtraTreesClassifier." in peers
    assert "LightGBM" not in peers and "HGB" not in peers and "XGBoost" not in peers
    assert "No published numbers for ExtraTrees" in peers
    assert "left out of that dataset's ranking" in peers


# ----------------------------------------------------------------------------- plain tables and cells


def test_markdown_table_has_a_header_an_alignment_row_and_one_line_per_row():
    lines = markdown_table(["dataset", "RF", "n"], [["iris", "95.00 ± 1.00", 3], ["wine", "", 0]])
    assert lines == [
        "| dataset | RF | n |",
        "|---|---|---|",
        "| iris | 95.00 ± 1.00 | 3 |",
        "| wine |  | 0 |",
    ]
    assert markdown_table(["a", "b"], [], [":---", "---:"])[1] == "|:---|---:|"
    with pytest.raises(ValueError, match="1 alignments for 2 columns"):
        markdown_table(["a", "b"], [], [":---"])


def test_plus_minus_shows_the_mean_bold_or_signed_and_the_spread_when_there_is_one():
    assert plus_minus(86.5, None, 3, bold=True) == "**86.500**"
    assert plus_minus(0.25, 0.1, signed=True) == "+0.25 ± 0.10" and plus_minus(-1.0, float("nan")) == "-1.00"


def test_csv_rows_have_every_column_of_old_and_new_records(tmp_path):
    """Records written by an older version lack the newer keys: the CSV still has every column, empty
    where a record has no value."""
    path = write_rows([{"error": 0.1}, {"error": 0.2, "fits_read_back": 4}], tmp_path / "t.csv", {"command": "x"})
    assert path.read_text().startswith("# command: x\nerror,fits_read_back\n")
    assert read_csv_rows(path) == [{"error": "0.1", "fits_read_back": ""}, {"error": "0.2", "fits_read_back": "4"}]
    assert csv_text([{"a": 1, "b": None, "c": 3}], ["b", "a"]) == "b,a\n,1\n"
