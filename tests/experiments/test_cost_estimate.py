"""The time a sweep will take, said before it starts (mddf.experiments.cost_estimate), and the cheaper settings."""

import math

import pytest

from mddf.experiments.cli import run_command
from mddf.experiments.cost_estimate import (
    ADVICE_SECONDS,
    CHEAPER_DESIGNS,
    COEFFICIENTS,
    FIRST_USE,
    SUITE_SCORES,
    TableSize,
    announce,
    cheaper,
    describe,
    duration,
    estimate,
    run_seconds,
)
from mddf.experiments.runbook import Task
from mddf.experiments.store import ResultStore

METHODS = ("mdDF", "Baseline", "HGB-es", "XGBoost-es", "RF-400")


def sweep(rows, columns=10, classes=2, seeds=(0, 1), folds=5, methods=METHODS, protocol="practitioner", kinds=None):
    """The practitioner protocol's runs on a table of that shape (no data: only its size)."""
    task = "regression" if classes == 0 else "classification"
    kinds = kinds or ("regression" if classes == 0 else "numeric",)
    sizes = {"t": TableSize(rows, rows, columns, classes, task, 1, kinds)}
    tasks = [
        Task("t", m, s, f, 1.0, "paper", False, protocol, folds) for s in seeds for f in range(folds) for m in methods
    ]
    return tasks, sizes


def test_a_runs_seconds_are_the_models_line_at_the_rows_it_trains_on():
    a, b, c, d = COEFFICIENTS[("mdDF", "classification")][:4]
    expected = math.exp(a + b * math.log(8_000) + c * math.log(12) + d * math.log(3 - 1))
    assert run_seconds("mdDF", "classification", 8_000, 12, 3) == pytest.approx(expected)
    # below the fewest rows it was measured on, the line does not go down: a run has its fixed costs
    fewest = COEFFICIENTS[("mdDF", "classification")][6]
    assert run_seconds("mdDF", "classification", fewest // 4, 12, 3) == run_seconds(
        "mdDF", "classification", fewest, 12, 3
    )
    assert run_seconds("DeepBoost", "classification", 8_000, 12, 3) is None  # a method of the papers' protocol
    assert run_seconds("DeepBoost", "paper", 8_000, 12, 2) > 0


def test_the_estimate_sums_the_runs_over_the_workers_beside_the_commands_own_seconds():
    tasks, sizes = sweep(5_000)
    one, two = estimate(tasks, sizes, workers=1), estimate(tasks, sizes, workers=2)
    by_hand = sum(run_seconds(t.method, "classification", 5_000 * 4 / 5, 10, 2) for t in tasks)
    fixed = one.seconds - by_hand
    assert one.runs == 50 and 0 < fixed < 10 and two.seconds == pytest.approx(by_hand / 2 + fixed)


def test_the_first_use_compilation_is_counted_when_numbas_cache_lacks_the_tables_kinds_and_not_when_it_holds_them():
    tasks, sizes = sweep(5_000, kinds=("numeric", "categorical", "missing"))
    warm, cold = (
        estimate(tasks, sizes),
        estimate(tasks, sizes, cold=("numeric", "categorical", "missing", "regression")),
    )
    assert warm.compile == 0 and warm.cold == () and "compilation" not in describe(warm)
    compiled = FIRST_USE["numeric"] + FIRST_USE["categorical"] + FIRST_USE["missing"]  # not the regression's
    assert cold.cold == ("numeric", "categorical", "missing") and cold.compile == pytest.approx(compiled)
    assert cold.seconds == pytest.approx(warm.seconds + compiled)
    assert describe(cold).endswith(f"with numba's first compilation (numeric, categorical, missing input): "
                                   f"{duration(compiled)}")  # fmt: skip
    # numeric code compiled, categories not yet: the categorical builder alone
    assert estimate(tasks, sizes, cold=("categorical",)).compile == pytest.approx(FIRST_USE["categorical"])
    # a regression compiles its builder and, in a new cache, the code every kind shares (the numeric kind's)
    regression, sizes = sweep(5_000, classes=0)
    assert estimate(regression, sizes, cold=("numeric", "regression")).cold == ("numeric", "regression")
    # methods that run no tree code of mddf compile nothing
    boosters, sizes = sweep(5_000, methods=("HGB-es", "RF-400"))
    assert estimate(boosters, sizes, cold=tuple(FIRST_USE)).compile == 0


def test_the_kinds_of_a_loaded_table_are_those_whose_tree_builders_it_compiles():
    from types import SimpleNamespace

    import numpy as np

    X = np.zeros((50, 3))
    plain = SimpleNamespace(y=np.zeros(50), y_train=np.zeros(50), X_train=X, n_classes=2, categorical_mask=None)
    assert TableSize.of(plain, "classification").kinds == ("numeric",)
    X[3, 1] = np.nan
    mixed = SimpleNamespace(**{**vars(plain), "X_train": X, "categorical_mask": np.array([True, False, False])})
    assert TableSize.of(mixed, "regression").kinds == ("regression", "categorical", "missing")


def test_several_targets_count_as_one_target_model_each():
    from types import SimpleNamespace

    import numpy as np

    table = SimpleNamespace(y=np.zeros((500, 3)), y_train=np.zeros((500, 3)), X_train=np.zeros((500, 8)), n_classes=2)
    assert TableSize.of(table, "multilabel") == TableSize(500, 500, 8, 2, "classification", 3)
    assert TableSize.of(table, "multioutput") == TableSize(500, 500, 8, 0, "regression", 3, ("regression",))
    tasks, sizes = sweep(500, columns=8, classes=0)
    several = {"t": TableSize.of(table, "multioutput")}
    runs = lambda est: sum(est.by_method.values())  # noqa: E731
    assert runs(estimate(tasks, several)) == pytest.approx(3 * runs(estimate(tasks, sizes)))


def test_the_estimate_line_names_the_time_the_runs_the_largest_method_and_the_models_error_on_its_tables():
    tasks, sizes = sweep(5_000)
    line = describe(estimate(tasks, sizes))
    median, worst = COEFFICIENTS[("mdDF", "classification")][4:6]
    assert line.startswith("estimated time: about ") and " for 50 runs on 1 worker(s) (mdDF: " in line
    assert f"(mdDF's: within {median:.1f}x on half its tables, {worst:.1f}x at worst)" in line


def test_runs_without_a_measured_model_are_named_not_counted():
    tasks, sizes = sweep(5_000, methods=("mdDF", "DeepBoost"), seeds=(0,))
    assert describe(estimate(tasks, sizes)).endswith("; not counted: DeepBoost (5 runs)")
    opt_in, sizes = sweep(5_000, methods=("mdDF-hgb-auto",), seeds=(0,), protocol="paper")
    assert describe(estimate(opt_in, sizes)) == "no estimate of the time: no measured model of mdDF-hgb-auto"


def test_the_papers_protocol_is_estimated_from_its_own_records_selection_included():
    paper, sizes = sweep(5_000, methods=("mdDF", "RF", "XGBoost", "MLP", "DeepBoost"), seeds=(0,), protocol="paper")
    paper = [t for t in paper if t.fold == 0]  # the papers' split: one run a method
    est = estimate(paper, sizes)
    assert est.runs == 5 and not est.unmodelled and {group for _, group in est.by_method} == {"paper"}
    # a method of both protocols has a line of each: PAPER_CONFIG is not the practitioner's default
    assert COEFFICIENTS[("mdDF", "paper")] != COEFFICIENTS[("mdDF", "classification")]
    (line,) = [c for m, c in COEFFICIENTS.items() if m == ("DeepBoost", "paper")]
    assert line[4:6] == (None, None) and "one table measured" in describe(estimate(paper[-1:], sizes))


def test_a_sweep_of_a_few_minutes_gets_no_advice():
    tasks, sizes = sweep(5_000)
    assert estimate(tasks, sizes).seconds < ADVICE_SECONDS and cheaper(tasks, sizes) == []


def test_a_sweep_over_ten_minutes_names_the_cheaper_settings_with_their_time_and_their_price_on_the_suite(
    tmp_path, monkeypatch
):
    from mddf.experiments import cost_estimate

    monkeypatch.setattr(cost_estimate, "uncompiled_kinds", lambda: [])  # numba's cache holds every kind
    tasks, sizes = sweep(300_000)  # a faked shape: nothing is read or fitted
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


def test_the_readmes_first_command_says_an_estimate_that_counts_every_one_of_its_runs(tmp_path, monkeypatch, capsys):
    from mddf.experiments import benchmark, cli, cost_estimate

    found = []
    monkeypatch.setattr(cost_estimate, "uncompiled_kinds", lambda: list(FIRST_USE))  # a first use after the install
    monkeypatch.setattr(cost_estimate, "estimate", lambda *a, **k: found.append(estimate(*a, **k)) or found[-1])
    monkeypatch.setattr(benchmark, "run_from_args", lambda *args: 1)  # the plan and its estimate, no run
    cli.main(["benchmark", "--out", str(tmp_path)])  # `python scripts/run_uci.py`: its defaults
    said = capsys.readouterr().err
    assert found[0].runs > 20 and not found[0].unmodelled and found[0].cold  # the four bundled datasets' runs
    assert f"estimated time: about {duration(found[0].seconds)} for {found[0].runs} runs" in said
    assert "not counted" not in said and "with numba's first compilation (numeric" in said
