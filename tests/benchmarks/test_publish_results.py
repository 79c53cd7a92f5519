"""publish_results (scripts/publish_results.py): Tables 2 and 3 against the paper from runner records."""

import json

import pytest
from provenance_files import read_csv_rows, read_provenance

from benchmarks.publish_results import main


def record(dataset, method, seed, accuracy, **extra):
    return {
        "key": f"{dataset}|{method}|seed={seed}",
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "accuracy": accuracy,
        "status": "ok",
        "profile": "paper",
        "fraction": 1.0,
        "train_seconds": 2.0,
        "n_layers": 3,
        **extra,
    }


def test_tables_compare_every_cell_with_the_paper_and_list_the_tuned_choices(tmp_path, monkeypatch):
    search = {"selection_score": 0.95, "n_layer_fits": 40, "seconds": 12.0}
    chosen = {"margin_mean": 0.9, "margin_tradeoff": 0.05, "max_depth_factor": 8}
    records = [record("letter", "mdDF", s, a) for s, a in enumerate((0.970, 0.972, 0.974))]
    records += [record("letter", "mdDF-tuned", 0, 0.975, selected_params=chosen, search=search)]
    records += [record("letter", "mdDF_NP", 0, 0.969)]
    records += [record("yeast", "mdDF", 0, 0.62), record("letter", "RF", 0, 0.966)]  # RF has no yeast cell
    results = tmp_path / "sweep" / "results.jsonl"
    results.parent.mkdir()
    results.write_text("".join(json.dumps(r) + "\n" for r in records))
    data_home = tmp_path / "no-data"
    data_home.mkdir()
    out = tmp_path / "published"
    monkeypatch.delenv("MDDF_DATA", raising=False)
    monkeypatch.setenv("MDDF_CACHE", str(tmp_path / "cache"))
    assert main(["--results", str(results), "--out", str(out), "--data-home", str(data_home)]) == 0
    markdown = (out / "table2.md").read_text()
    assert read_provenance(markdown)["command"].startswith("python scripts/publish_results.py --results")
    assert "| letter | mdDF | 97.20 ± 0.20 | 3 | 97.50 | -0.30 | -2.6 |" in markdown
    assert "| letter | 0 | 0.9 | 0.05 | 8 | 95.00 | 97.50 |" in markdown
    for method in ("gcForest", "XGBoost", "MLP"):
        assert f"- **{method}**: no finished run in these records." in markdown
    assert "- **RF**: no finished run on yeast." in markdown
    assert "- **mdDF-tuned**: no finished run on yeast." in markdown
    assert "**mdDF**:" not in markdown.split("## Cells not run yet")[1].split("##")[0]
    # every dataset of the paper's Table 1 is either in the table or named as not run, with its files;
    # a dataset with results is not named, although its files are not in this data_home
    for name in ("adult", "protein", "har", "sensit", "satimage", "mnist"):
        assert f"- **{name}**: not run; its files could not be obtained" in markdown
    for name in ("yeast", "letter"):
        assert f"- **{name}**: not run" not in markdown
    rows = read_csv_rows(out / "table2.csv")
    assert [(r["dataset"], r["method"], r["paper"]) for r in rows] == [
        ("yeast", "mdDF", "63.34"),
        ("letter", "mdDF", "97.5"),
        ("letter", "mdDF-tuned", "97.5"),
        ("letter", "RF", "96.575"),
    ]
    assert float(rows[1]["diff_se"]) == pytest.approx(-0.3 / (0.2 / 3**0.5), abs=1e-4)
    assert "| letter | mdDF_NP | 96.90 | 1 | 96.97 |" in (out / "table3.md").read_text()
    assert (out / "sweep.jsonl").read_text() == results.read_text()


def test_a_missing_results_file_is_a_usage_error(tmp_path, capsys):
    assert main(["--results", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path)]) == 2
    assert "no results file" in capsys.readouterr().err
