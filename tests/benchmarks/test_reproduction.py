"""The reproduction report: ours against the paper, cell by cell, from the runner's records."""

import math

import pytest

from benchmarks.reproduction import (
    most_common_values,
    reproduction_rows,
    selected_values,
    unavailable_datasets,
)
from mddf.datasets import published as paper_results


def record(dataset, method, seed, accuracy, status="ok", **extra):
    return {
        "key": f"{dataset}|{method}|{seed}",
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "accuracy": accuracy,
        "status": status,
        "profile": "paper",
        "fraction": 1.0,
        "train_seconds": 10.0 + seed,
        **extra,
    }


def test_a_cell_is_the_mean_over_seeds_with_its_difference_to_the_paper_in_standard_errors():
    records = [record("letter", "mdDF", s, a) for s, a in enumerate((0.970, 0.972, 0.974))]
    (row,) = reproduction_rows(records, table=2)
    assert row["mean"] == pytest.approx(97.2)
    assert row["std"] == pytest.approx(0.2)
    assert row["se"] == pytest.approx(0.2 / math.sqrt(3))
    assert row["paper"] == paper_results.MDDF_TABLE2["letter"]["mdDF"] == 97.5
    assert row["diff"] == pytest.approx(-0.3)
    assert row["diff_se"] == pytest.approx(-0.3 / (0.2 / math.sqrt(3)))
    assert row["seeds"] == [0, 1, 2] and row["fit_seconds"] == 11.0


def test_a_methods_seconds_count_its_choice_of_hyper_parameters_with_its_final_fit():
    searched = [record("letter", "mdDF-tuned", s, 0.97, train_seconds=0.0, total_seconds=300.0 + s) for s in range(3)]
    (row,) = reproduction_rows(searched, table=2)
    assert row["fit_seconds"] == 301.0  # an earlier runner's records hold it all in train_seconds (above)


def test_the_latest_ok_record_of_a_run_counts_and_failures_and_other_profiles_do_not():
    records = [
        record("yeast", "RF", 0, 0.50),
        record("yeast", "RF", 0, 0.60),  # a rerun of the same key replaces the first
        record("yeast", "RF", 1, 0.99, status="error"),
        {**record("yeast", "RF", 2, 0.99), "profile": "quick", "key": "yeast|RF|2|quick"},
    ]
    (row,) = reproduction_rows(records, table=2)
    assert row["n_seeds"] == 1 and row["mean"] == pytest.approx(60.0)
    assert row["std"] is None and row["diff_se"] is None
    assert row["diff"] == pytest.approx(60.0 - paper_results.MDDF_TABLE2["yeast"]["RF"])


def test_tuned_mddf_is_compared_with_the_papers_mddf_and_table3_with_table3():
    records = [record("satimage", "mdDF-tuned", 0, 0.92), record("satimage", "mdDF_NP", 0, 0.90)]
    (tuned,) = reproduction_rows(records, table=2)
    assert tuned["paper"] == paper_results.MDDF_TABLE2["satimage"]["mdDF"]
    (no_preconc,) = reproduction_rows(records, table=3)
    assert no_preconc["paper"] == paper_results.MDDF_TABLE3["satimage"]["mdDF_NP"]


def test_selected_values_list_each_seeds_choice_and_its_compute():
    search = {"selection_score": 0.9, "n_layer_fits": 120, "seconds": 300.0}
    params = {"margin_mean": 0.9, "margin_tradeoff": 0.01, "max_depth_factor": 8}
    records = [
        record("adult", "mdDF-tuned", s, 0.86, selected_params=params, search=search, n_layers=5) for s in (1, 0)
    ]
    rows = selected_values(records)
    assert [r["seed"] for r in rows] == [0, 1]
    assert rows[0]["max_depth_factor"] == 8 and rows[0]["n_layer_fits"] == 120
    assert rows[0]["selection_score"] == pytest.approx(90.0)
    assert most_common_values(rows)["adult"][(0.9, 0.01, 8)] == 2


def test_unavailable_datasets_carry_the_loaders_reason():
    def loader(name):
        if name == "har":
            raise FileNotFoundError("har: files not found in /data\nsecond line")
        return object()

    assert unavailable_datasets(("adult", "har"), loader=loader) == {"har": "har: files not found in /data second line"}


def test_the_reason_names_the_missing_files_of_the_loaders_message():
    message = (
        "dataset 'protein' needs 2 missing files: protein/protein.bz2 is missing: it was looked for at /d/p (data_home)"
        " and downloading is disabled. Get it from https://x/protein.bz2. protein/protein.t.bz2 is missing: it was "
        "looked for at /d/q."
    )

    def loader(name):
        raise FileNotFoundError(message if name == "protein" else "har/UCI HAR Dataset.zip is missing: looked for")

    assert unavailable_datasets(("protein", "har"), loader=loader) == {
        "protein": "missing file(s): protein/protein.bz2, protein/protein.t.bz2",
        "har": "missing file(s): har/UCI HAR Dataset.zip",
    }
