"""The cost model's refit (benchmarks/cost_model.py) and the coefficients the package ships."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks import cost_model
from mddf.experiments import cost_estimate
from mddf.experiments.methods import default_registry


def test_the_shipped_coefficients_are_the_refit_of_the_committed_measurements(capsys):
    assert cost_model.main(["--check"]) == 0
    assert "the installed coefficients are the refit's" in capsys.readouterr().out


def test_a_log_linear_cost_is_recovered_and_each_table_left_out_is_predicted_exactly():
    rows, columns, outputs = np.array([500, 2_000, 8_000, 20_000, 900]), np.array([5, 9, 30, 12, 7]), [1, 2, 1, 5, 3]
    seconds = np.exp(-6.0 + 0.9 * np.log(rows) + 0.3 * np.log(columns) + 0.5 * np.log(outputs))
    data = pd.DataFrame(
        {"method": "m", "group": "classification", "table": list("abcde"), "rows": rows, "columns": columns}
    ).assign(outputs=outputs, seconds=seconds)
    coefficients, smallest, predicted = cost_model.refit(data)
    assert coefficients[("m", "classification")] == pytest.approx((-6.0, 0.9, 0.3, 0.5), abs=1e-4)
    assert smallest[("m", "classification")] == 500
    assert cost_model.errors(predicted)[("m", "classification")] == (1.0, 1.0)


def test_the_papers_protocol_is_a_line_in_the_rows_and_one_table_goes_in_proportion_to_them():
    data = pd.DataFrame({"method": ["m", "m", "m", "m", "one"], "group": "paper", "table": list("abcde")}).assign(
        rows=[100, 400, 1_600, 6_400, 300], columns=[4, 64, 8, 30, 9], outputs=[2, 9, 1, 1, 1]
    )
    data["seconds"] = np.exp(-3.0 + 0.8 * np.log(data["rows"]))
    data.loc[4, "seconds"] = 6.0
    coefficients, _, predicted = cost_model.refit(data)
    assert coefficients[("m", "paper")] == pytest.approx((-3.0, 0.8, 0.0, 0.0), abs=1e-4)
    assert coefficients[("one", "paper")] == pytest.approx((np.log(6.0 / 300), 1.0, 0.0, 0.0), abs=1e-4)
    assert cost_model.errors(predicted)[("one", "paper")] == (None, None)


def test_the_shipped_module_covers_every_method_of_both_protocols_and_every_kind_of_first_use():
    groups = {(m, t) for m, t in cost_estimate.COEFFICIENTS if t != "paper"}
    assert groups == set(cost_model.LEARNERS) | set(cost_model.SUITE_ONLY)
    paper = {m for m, t in cost_estimate.COEFFICIENTS if t == "paper"}
    registry = default_registry()
    assert {s.name for s in registry.select(None, ablation=False, peers=False, protocol="paper")} <= paper
    assert all(len(line) == 7 for line in cost_estimate.COEFFICIENTS.values())
    from mddf.trees.first_use import KIND_BUILDERS

    assert tuple(KIND_BUILDERS) == cost_model.FIRST_USE_KINDS  # every kind the estimate counts, the cache tells
    assert set(cost_estimate.FIRST_USE) == set(cost_model.FIRST_USE_KINDS) and min(cost_estimate.FIRST_USE.values()) > 0


def test_the_papers_records_count_each_runs_selection_fit_and_prediction_not_its_compilation(tmp_path):
    run = {"dataset": "iris", "method": "mdDF", "n_train": 105, "n_features": 4, "n_classes": 3, "status": "ok"}
    seconds = {"compile_seconds": 20.0, "selection_seconds": 1.0, "train_seconds": 2.0, "predict_seconds": 0.5}
    records = [
        {**run, "key": "a", **seconds, "train_seconds": 99.0},  # rerun below: the latest record of a key counts
        {**run, "key": "a", **seconds},
        {**run, "key": "b", **seconds, "train_seconds": 4.0},
        {**run, "key": "c", **seconds, "train_seconds": 50.0, "fraction": 0.5},  # a share of the rows: not a run
        {**run, "key": "d", **seconds, "train_seconds": 50.0, "status": "failed"},
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    (row,) = cost_model.paper_data([path]).to_dict("records")
    assert row == {"method": "mdDF", "group": "paper", "table": "iris", "rows": 105, "columns": 4, "outputs": 2,
                   "seconds": 4.5}  # fmt: skip  # the median of 3.5 and 5.5


def test_the_first_use_is_the_median_compile_cpu_of_each_kind_never_below_zero(tmp_path):
    records = [
        {"dataset": "numeric", "status": "ok", "compile_cpu": 10.0},
        {"dataset": "numeric", "status": "ok", "compile_cpu": 14.0},
        {"dataset": "numeric", "status": "failed", "compile_cpu": 99.0},
        {"dataset": "categorical", "status": "ok", "compile_cpu": 5.0},
        {"dataset": "missing", "status": "ok", "compile_cpu": -0.03},  # CPU noise around nothing compiled
        {"dataset": "regression", "status": "ok", "compile_cpu": 6.42},
        {"dataset": "weights", "status": "ok", "compile_cpu": 3.0},  # compiles no builder of its own: not a kind
    ]
    path = tmp_path / "first-use.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert cost_model.first_use(path) == {"numeric": 12.0, "categorical": 5.0, "missing": 0.0, "regression": 6.4}


def test_measuring_the_readmes_command_keeps_its_runs_shapes_and_seconds_only(tmp_path, monkeypatch):
    ran = []

    def fake_run(command, check, stdout):
        out = Path(command[command.index("--out") + 1])
        out.mkdir(parents=True)
        run = {"key": "k", "dataset": "wine", "method": "RF", "status": "ok", "n_train": 124, "accuracy": 0.9}
        lines = [{"key": "wine|dataset"}, {**run, "train_seconds": 0.8, "versions": {"numpy": "2"}}]
        (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
        ran.append(command)

    monkeypatch.setattr(cost_model.subprocess, "run", fake_run)
    said = cost_model.measure_paper(tmp_path / "paper.jsonl")
    assert ran[0][1].endswith("scripts/run_uci.py") and said.startswith("1 runs in ")
    (kept,) = [json.loads(line) for line in (tmp_path / "paper.jsonl").read_text().splitlines()]
    assert set(kept) == {*cost_model.PAPER_FIELDS, *cost_model.PAPER_SECONDS}
    assert kept["train_seconds"] == 0.8 and kept["n_train"] == 124 and kept["compile_seconds"] is None
