"""The time a sweep will take, said before it starts (mddf.experiments.cost_estimate), and the cheaper settings."""

import math

import pytest

from mddf.experiments.cli import run_command
from mddf.experiments.cost_estimate import (
    ADVICE_SECONDS,
    CHEAPER_DESIGNS,
    COEFFICIENTS,
    SUITE_SCORES,
    TableSize,
    announce,
    cheaper,
    describe,
    estimate,
    run_seconds,
)
from mddf.experiments.runbook import Task
from mddf.experiments.store import ResultStore

METHODS = ("mdDF", "Baseline", "HGB-es", "XGBoost-es", "RF-400")


def sweep(rows, columns=10, classes=2, seeds=(0, 1), folds=5, methods=METHODS, protocol="practitioner"):
    """The practitioner protocol's runs on a table of that shape (no data: only its size)."""
    task = "regression" if classes == 0 else "classification"
    sizes = {"t": TableSize(rows, rows, columns, classes, task)}
    tasks = [
        Task("t", m, s, f, 1.0, "paper", False, protocol, folds) for s in seeds for f in range(folds) for m in methods
    ]
    return tasks, sizes


def test_a_runs_seconds_are_the_models_line_at_the_rows_it_trains_on():
    a, b, c, d = COEFFICIENTS[("mdDF", "classification")][:4]
    # the suite's runs trained on 4/5 of a table: 8,000 training rows are a table of 10,000
    expected = math.exp(a + b * math.log(10_000) + c * math.log(12) + d * math.log(3 - 1))
    assert run_seconds("mdDF", "classification", 8_000, 12, 3) == pytest.approx(expected)
    assert run_seconds("DeepBoost", "classification", 8_000, 12, 3) is None


def test_the_estimate_sums_the_runs_over_the_workers():
    tasks, sizes = sweep(5_000)
    one, two = estimate(tasks, sizes, workers=1), estimate(tasks, sizes, workers=2)
    by_hand = sum(run_seconds(t.method, "classification", 5_000 * 4 / 5, 10, 2) for t in tasks)
    assert one.runs == 50 and one.seconds == pytest.approx(by_hand) and two.seconds == pytest.approx(by_hand / 2)


def test_several_targets_count_as_one_target_model_each():
    from types import SimpleNamespace

    import numpy as np

    table = SimpleNamespace(y=np.zeros((500, 3)), y_train=np.zeros((500, 3)), X_train=np.zeros((500, 8)), n_classes=2)
    assert TableSize.of(table, "multilabel") == TableSize(500, 500, 8, 2, "classification", 3)
    assert TableSize.of(table, "multioutput") == TableSize(500, 500, 8, 0, "regression", 3)
    tasks, sizes = sweep(500, columns=8, classes=0)
    several = {"t": TableSize.of(table, "multioutput")}
    assert estimate(tasks, several).seconds == pytest.approx(3 * estimate(tasks, sizes).seconds)


def test_the_estimate_line_names_the_time_the_runs_the_largest_method_and_the_models_error_on_the_suite():
    tasks, sizes = sweep(5_000)
    line = describe(estimate(tasks, sizes))
    median, worst = COEFFICIENTS[("mdDF", "classification")][4:]
    assert line.startswith("estimated time: about ") and " for 50 runs on 1 worker(s) (mdDF: " in line
    assert f"(mdDF's: within {median:.1f}x on half the suite's tables, {worst:.1f}x at worst)" in line


def test_runs_without_a_measured_model_are_named_not_counted():
    tasks, sizes = sweep(5_000, methods=("mdDF", "DeepBoost"), seeds=(0,))
    assert describe(estimate(tasks, sizes)).endswith("; not counted: DeepBoost (5 runs)")
    paper, sizes = sweep(5_000, methods=("mdDF", "RF"), seeds=(0,), protocol="paper")  # PAPER_CONFIG, tree budgets
    assert describe(estimate(paper, sizes)) == "no estimate of the time: no measured model of mdDF, RF"


def test_a_sweep_of_a_few_minutes_gets_no_advice():
    tasks, sizes = sweep(5_000)
    assert estimate(tasks, sizes).seconds < ADVICE_SECONDS and cheaper(tasks, sizes) == []


def test_a_sweep_over_ten_minutes_names_the_cheaper_settings_with_their_time_and_their_price_on_the_suite(tmp_path):
    tasks, sizes = sweep(100_000)  # a faked shape: nothing is read or fitted
    said = []
    announce(tasks, ResultStore(tmp_path / "results.jsonl"), sizes, 1, said.append)
    full = estimate(tasks, sizes)
    assert full.seconds > ADVICE_SECONDS and said[0] == describe(full)
    advice = said[1:]
    assert all(line.startswith("  cheaper: ") for line in advice) and len(advice) == 4
    assert advice[0].startswith("  cheaper: --seeds 1: about ")
    assert advice[1].startswith("  cheaper: --folds 3: about ")
    scores = SUITE_SCORES["classification"]
    assert advice[2].startswith("  cheaper: --methods HGB-es,RF-400,XGBoost-es: about ")
    assert f"mdDF {100 * scores['mdDF']:.4g}%, HGB-es {100 * scores['HGB-es']:.4g}%; docs/" in advice[2]
    name, parameters, fit, predict, worst = CHEAPER_DESIGNS["classification"]
    assert f"in Python, MDDFClassifier({parameters}): {fit}x the fit and {predict}x the prediction" in advice[3]
    assert f"{100 * (scores[name] - scores['mdDF']):+.2g} points of the suite's mean accuracy" in advice[3]
    # each cheaper setting's time is the model's, and below the full sweep's
    assert f"--seeds 1: about {round(full.seconds / 2 / 60)} min" in advice[0]


def test_a_regression_is_told_the_regressors_cheaper_design():
    tasks, sizes = sweep(200_000, classes=0, methods=("mdDF", "Baseline", "HGB-es"))
    (design,) = [line for line in cheaper(tasks, sizes) if line.startswith("in Python")]
    assert design.startswith("in Python, CascadeForestRegressor(n_estimators=50): ") and "R²" in design


def test_runs_already_done_are_not_estimated_again(tmp_path):
    tasks, sizes = sweep(5_000, seeds=(0,), methods=("HGB-es",))
    store = ResultStore(tmp_path / "results.jsonl")
    for task in tasks:
        store.append({"key": task.key, "status": "ok"})
    said = []
    announce(tasks, store, sizes, 1, said.append)
    assert said == []


def test_the_benchmark_says_its_estimate_before_its_first_run(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("x,y,label\n" + "".join(f"{i},{i % 7},{'ab'[i % 3 == 0]}\n" for i in range(60)))
    argv = ["--data", str(table), "--target", "label", "--methods", "Baseline", "--folds", "2", "--seeds", "1"]
    code = run_command("benchmark", [*argv, "--isolation", "inline", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    (line,) = [i for i, text in enumerate(err) if text.startswith("estimated time: about ")]
    assert "for 2 runs on 1 worker(s) (Baseline: " in err[line]
    assert line < min(i for i, text in enumerate(err) if text.startswith("t / Baseline"))
