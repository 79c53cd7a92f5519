"""The benchmark on a user's table, as a new user runs it: the practitioner protocol, results bound to their data,
regression, honest times and notices on stderr."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from provenance_files import read_csv_rows

from mddf.datasets.user_data import register, source_for
from mddf.experiments import cli, executor
from mddf.experiments.executor import execute
from mddf.experiments.methods import default_registry
from mddf.experiments.runner import run_one
from mddf.experiments.store import ResultStore

FAST = ["--quick", "--n-jobs", "1", "--quiet", "--isolation", "inline"]


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def labelled(path, n=90, seed=0, flip=False, sep=","):
    """A table whose label ('yes'/'no') follows x1; ``flip`` swaps the labels (an edited file)."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    y = np.where((x1 > 0) != flip, "yes", "no")
    pd.DataFrame({"x1": x1, "x2": x2, "y": y}).to_csv(path, index=False, sep=sep)
    return path


def benchmark(data, *options, out=None):
    argv = ["benchmark", "--data", str(data), "--target", "y", *options, *FAST]
    return cli.main(argv + (["--out", str(out)] if out else []))


@pytest.mark.slow
def test_the_default_methods_give_a_baseline_row_every_metric_a_significance_rule_and_a_figure(tmp_path, capsys):
    data = labelled(tmp_path / "signal.csv")
    assert benchmark(data, "--folds", "2", "--seeds", "1", out=tmp_path / "out") == 0
    md = capsys.readouterr().out
    lines = md.splitlines()
    assert lines[0] == "### signal.csv: accuracy (%), practitioner protocol, 2-fold cross-validation x 1 seed(s)"
    assert "| Method | accuracy (%) | Δ to best | balanced accuracy (%) | ROC AUC | log-loss |" in lines[2]
    methods = {line.split(" | ")[0].strip("|* ★≈") for line in lines[4:] if line.startswith("| ")}
    expected = {"mdDF", "Baseline", "HGB-es", "LightGBM-es", "XGBoost-es", "RF-400"}
    if _has("catboost"):  # "CatBoost when installed" (the bench extra)
        expected.add("CatBoost-es")
    assert methods == expected
    baseline = next(line for line in lines if line.startswith("| Baseline |"))
    assert baseline.split(" | ")[3] == "50.00 ± 0.00"  # one class always: a balanced accuracy of 1/2
    assert "Winner (★): the best mean, marked only when its paired difference to every other method exceeds 2" in md
    assert (tmp_path / "out" / "figure.png").stat().st_size > 0
    records = read(tmp_path / "out" / "results.jsonl")
    hgb = next(r for r in records if r["method"] == "HGB-es")
    assert hgb["early_stopping"]["validation_rows"] == 5 and hgb["early_stopping"]["patience"] == 20


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_a_clear_lead_is_marked_as_the_winner(tmp_path, capsys):
    data = labelled(tmp_path / "signal.csv", n=120)
    assert benchmark(data, "--methods", "RF-400", "--folds", "5", "--seeds", "1", out=tmp_path / "out") == 0
    md = capsys.readouterr().out
    assert "| **RF-400** ★ | **" in md
    assert "signal: RF-400 is best on accuracy, by more than 2 standard errors over every other method." in md
    rows = {r["method"]: r for r in read_csv_rows(tmp_path / "out" / "table.csv")}
    assert rows["RF-400"]["winner"] == "1" and rows["Baseline"]["within 2 se of best"] == "0"


def test_an_edited_file_never_resumes_the_old_results(tmp_path, capsys):
    data, out = labelled(tmp_path / "pima.csv"), tmp_path / "out"
    options = ["--methods", "RF-400", "--folds", "2", "--seeds", "1"]
    assert benchmark(data, *options, out=out) == 0
    first = read(out / "results.jsonl")
    labelled(data, flip=True)  # the labels swapped: the old accuracies are wrong for this file
    capsys.readouterr()
    assert benchmark(data, *options, out=out) == 0
    err = capsys.readouterr().err
    assert f"{out / 'results.jsonl'} held 4 result(s) of other data or settings (pima: data sha256 " in err
    second = read(out / "results.jsonl")
    assert len(second) == 4 and {r["data_sha256"] for r in second}.isdisjoint({r["data_sha256"] for r in first})
    (old,) = (out / "old").iterdir()
    assert read(old / "results.jsonl") == first and (old / "table.md").is_file() and (old / "figure.png").is_file()
    # the same command again resumes every run of the edited file
    capsys.readouterr()
    loud = ["--quick", "--n-jobs", "1", "--isolation", "inline", "--out", str(out)]
    assert cli.main(["benchmark", "--data", str(data), "--target", "y", *options, *loud]) == 0
    assert "resuming: 4 of 4 runs already finished" in capsys.readouterr().err
    assert read(out / "results.jsonl") == second


def test_an_out_holding_another_tables_results_moves_them_and_their_tables_aside_and_says_where(tmp_path, capsys):
    out = tmp_path / "out"
    options = ["--methods", "RF-400", "--folds", "2", "--seeds", "1"]
    assert benchmark(labelled(tmp_path / "eu.csv", seed=1), *options, out=out) == 0
    first, table = read(out / "results.jsonl"), (out / "table.md").read_text()
    capsys.readouterr()
    assert benchmark(labelled(tmp_path / "my.csv"), *options, out=out) == 0
    (old,) = (out / "old").iterdir()
    assert capsys.readouterr().err.startswith(
        f"{out / 'results.jsonl'} held 4 result(s) of other data or settings (other tables: eu); moved results.jsonl, "
        f"table.md, table.csv, figure.png to {old}/ and kept the 0 record(s) that match\n"
    )
    assert read(old / "results.jsonl") == first and (old / "table.md").read_text() == table
    assert {r["dataset"] for r in read(out / "results.jsonl")} == {"my"} and "my.csv" in (out / "table.md").read_text()


def test_a_file_read_with_other_options_is_other_settings(tmp_path, capsys):
    data, out = labelled(tmp_path / "my.csv"), tmp_path / "out"
    options = ["--methods", "RF-400", "--folds", "2", "--seeds", "1"]
    assert benchmark(data, *options, out=out) == 0
    assert benchmark(data, *options, "--drop", "x2", out=out) == 0
    assert "other settings of Baseline, RF-400" in capsys.readouterr().err


def test_two_files_of_one_stem_never_share_a_default_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    csv, tsv = labelled(tmp_path / "pima.csv"), labelled(tmp_path / "pima.tsv", seed=1, sep="\t")
    for data in (csv, tsv):
        assert benchmark(data, "--methods", "RF-400", "--folds", "2", "--seeds", "1") == 0
    folders = sorted((tmp_path / "results").iterdir())
    assert len(folders) == 2 and all(f.name.startswith("pima-") for f in folders)
    files = [{r["data_source"]["path"] for r in read(folder / "results.jsonl")} for folder in folders]
    assert sorted(files, key=str) == sorted([{str(csv)}, {str(tsv)}], key=str)  # one file per folder


def test_a_regression_target_gets_r2_against_its_peers(tmp_path, capsys):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 3))
    frame = pd.DataFrame(x, columns=["a", "b", "c"]).assign(price=2 * x[:, 0] + rng.normal(scale=0.3, size=80))
    frame.to_csv(tmp_path / "prices.csv", index=False)
    argv = ["benchmark", "--data", str(tmp_path / "prices.csv"), "--target", "price", "--folds", "2", "--seeds", "1"]
    assert cli.main([*argv, "--out", str(tmp_path / "out"), *FAST]) == 0
    md = capsys.readouterr().out
    assert md.startswith("### prices.csv: R², practitioner protocol, 2-fold cross-validation x 1 seed(s)")
    assert "| Method | R² | Δ to best | RMSE |" in md
    records = read(tmp_path / "out" / "results.jsonl")
    assert {r["task"] for r in records} == {"regression"}
    by_method = {r["method"]: r for r in records}
    assert {"mdDF", "Baseline", "HGB-es", "XGBoost-es", "RF-400"} <= set(by_method)
    assert by_method["mdDF"]["params"]["target"] == "residual"  # CascadeForestRegressor's
    assert abs(by_method["Baseline"]["r2"]) < 0.2 and by_method["RF-400"]["r2"] > 0.5


def test_an_integer_target_with_many_values_asks_for_the_task(tmp_path, capsys):
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.normal(size=100), "y": rng.integers(0, 66, 100)}).to_csv(tmp_path / "int.csv", index=False)
    out = tmp_path / "out"
    assert benchmark(tmp_path / "int.csv", out=out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pass --task regression to predict it as a number" in err
    assert not out.exists()
    assert (
        benchmark(
            tmp_path / "int.csv", "--task", "regression", "--methods", "RF-400", "--folds", "2", "--seeds", "1", out=out
        )
        == 0
    )


def test_each_record_splits_selection_and_final_fit_and_measures_compilation_apart():
    mlp = run_one("iris", "MLP", 0, profile="quick", n_jobs=1)
    assert mlp["selection_seconds"] > 0 and mlp["train_seconds"] > 0
    assert mlp["total_seconds"] == pytest.approx(mlp["selection_seconds"] + mlp["train_seconds"])
    assert mlp.get("compile_seconds") is None  # nothing to compile
    cascade = run_one("iris", "mdDF", 0, profile="quick", n_jobs=1)
    assert cascade["compile_seconds"] is not None and cascade["compile_seconds"] >= 0
    assert cascade["selection_seconds"] == 0 and cascade["total_seconds"] == cascade["train_seconds"]


def test_a_class_absent_from_the_training_rows_is_predicted_by_none_and_costs_its_log_loss(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=61), "y": ["a"] * 30 + ["b"] * 30 + ["c"]})
    frame.to_csv(tmp_path / "rare.csv", index=False)
    source = source_for(tmp_path / "rare.csv", "y")
    register(source)
    user = {source.name: source.as_dict()}
    for seed in range(10):  # a seed whose split puts the single 'c' row among the test rows
        record = run_one("rare", "XGBoost-es", seed, profile="quick", n_jobs=1, user_data=user)
        if record.get("n_train_classes") == 2:
            break
    assert record["status"] == "ok" and record["n_classes"] == 3
    assert np.isfinite(record["log_loss"]) and record["log_loss"] > 1  # -log(1e-15) / 18 test rows at least


def test_the_openmp_notice_goes_to_stderr(tmp_path, monkeypatch, capsys):
    # (the workers' setting itself: tests/scripts/test_run_uci.py)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.setattr(executor, "_busy_cores", lambda: 1000.0)
    execute([], ResultStore(tmp_path / "results.jsonl"), isolation="process", n_jobs=1)
    captured = capsys.readouterr()
    assert "OMP_WAIT_POLICY=PASSIVE" in captured.err and captured.out == ""


def test_the_warm_up_fit_leaves_the_timed_fit_unchanged():
    from dataclasses import replace

    registry = default_registry()
    cold = default_registry()
    cold.register(replace(registry.get("mdDF"), warm_up=None), replace=True)
    warm_record = run_one("wine", "mdDF", 1, profile="quick", n_jobs=1, registry=registry)
    cold_record = run_one("wine", "mdDF", 1, profile="quick", n_jobs=1, registry=cold)
    assert warm_record["compile_seconds"] is not None and "compile_seconds" not in cold_record
    for key in ("accuracy", "log_loss", "n_layers"):
        assert warm_record[key] == cold_record[key], key
    untimed = [
        [{k: v for k, v in h.items() if k != "fit_seconds"} for h in r["cascade"]["history"]]
        for r in (warm_record, cold_record)
    ]
    assert untimed[0] == untimed[1]  # every layer's margins, weights and accuracies, bit for bit


def test_an_imbalanced_target_is_ranked_by_roc_auc_and_a_line_says_when_nothing_beats_the_baseline(tmp_path, capsys):
    rng = np.random.default_rng(0)
    y = np.where(np.arange(200) % 33 == 0, "no", "yes")  # 'no' holds 7 of the 200 rows, which x does not predict
    pd.DataFrame({"x": rng.normal(size=200), "y": y}).to_csv(tmp_path / "rare.csv", index=False)
    argv = ["benchmark", "--data", str(tmp_path / "rare.csv"), "--target", "y", "--methods", "Baseline,RF-400"]
    options = ["--folds", "5", "--seeds", "1", "--quick", "--n-jobs", "1", "--isolation", "inline"]
    assert cli.main([*argv, *options, "--out", str(tmp_path / "a")]) == 0
    captured = capsys.readouterr()
    assert "2 classes: yes 96%, no 4%; practitioner protocol" in captured.err
    assert (
        "rare: ranked by ROC AUC, as its smallest class, 'no', holds 4% of the rows (--metric accuracy "
        "ranks by accuracy)\n" in captured.err
    )
    assert "rare / RF-400 / seed 0 / fold 0: ROC AUC 0." in captured.err  # the progress lines show it
    assert captured.out.startswith("### rare.csv: ROC AUC, practitioner protocol")
    baseline = next(line for line in captured.out.splitlines() if line.split(" | ")[0].strip("|* ★") == "Baseline")
    assert baseline.split(" | ")[1].replace("*", "") == "0.5000 ± 0.0000"  # the class shares: no ranking at all
    assert "No method beats Baseline by more than 2 standard errors on ROC AUC." in captured.out
    rows = {r["method"]: r for r in read_csv_rows(tmp_path / "a" / "table.csv")}
    if float(rows["RF-400"]["roc_auc"]) > 0.5:  # ranked above the baseline: its log-loss is said if worse
        worse = float(rows["RF-400"]["log_loss"]) > float(rows["Baseline"]["log_loss"])
        assert worse == ("RF-400, ranked best on ROC AUC, has a worse log-loss than Baseline" in captured.out)
    assert cli.main([*argv, *options, "--out", str(tmp_path / "b"), "--metric", "accuracy"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("### rare.csv: accuracy (%)") and "ranked by" not in captured.err


@pytest.mark.parametrize(
    "counts, metric",
    [
        ((80, 20), "accuracy"),  # 20% of the rows: not under it
        ((81, 19), "roc_auc"),
        ((40, 40, 20), "accuracy"),  # three classes: 20% is 60% of an even share
        ((45, 42, 13), "roc_auc"),  # 13% is under 40% of 33%
        ((10,) * 10, "accuracy"),  # ten even classes of 10% each
    ],
)
def test_the_imbalance_rule_counts_the_smallest_class_against_an_even_share(counts, metric):
    from mddf.datasets.base import Dataset
    from mddf.experiments.planning import ranking_metric

    y = np.repeat(np.arange(len(counts)), counts)
    classes = np.array([f"c{k}" for k in range(len(counts))])
    ds = Dataset("t", np.zeros((len(y), 1)), y, None, None, ["x"], classes, extra={"task": "classification"})
    said = []
    assert ranking_metric(ds, None, said.append) == metric
    assert len(said) == (metric == "roc_auc")
    assert ranking_metric(ds, "log_loss", said.append) == "log_loss"
    if metric == "roc_auc":  # a fixed test file without every class has no ROC AUC: balanced accuracy ranks
        tested = Dataset("t", *(np.zeros((len(y), 1)), y), np.zeros((2, 1)), np.zeros(2, int), ["x"], classes)
        assert ranking_metric(tested, None, said.append) == "balanced_accuracy"
        assert said[-1].startswith("t: ranked by balanced accuracy, as its smallest class, 'c")


def test_the_benchmark_imports_matplotlib_only_to_draw_its_figure():
    code = "import sys; import mddf.experiments.benchmark; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
