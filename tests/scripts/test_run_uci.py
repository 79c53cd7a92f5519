"""The benchmark runner: results file, resume, failure isolation, tree budget, skipped datasets."""

import json
import os
import re
from pathlib import Path

import bench_doubles
import pytest
from runner_process import start_runner, wait_for_first_result

from mddf.experiments import executor
from mddf.experiments.cli import COMMANDS, run_script
from mddf.experiments.defaults import SUITES
from mddf.experiments.executor import execute
from mddf.experiments.methods import default_registry
from mddf.experiments.options import parse_seeds
from mddf.experiments.runbook import plan
from mddf.experiments.runner import run_one
from mddf.experiments.store import ResultStore

FAST = ["--quick", "--n-jobs", "1", "--quiet"]


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_no_arguments_means_default_suite_with_every_default_method():
    args = COMMANDS["benchmark"].parser().parse_args([])
    assert args.suite is None and args.datasets is None and args.methods is None
    # seeds: 1 under the papers' protocol, 2 under the practitioner's (the protocol follows --data)
    assert args.seeds is None and args.protocol is None and args.profile == "paper" and args.isolation == "process"
    names = [s.name for s in default_registry().select(None)]
    assert names == ["mdDF", "gcForest", "RF", "XGBoost", "MLP", "DeepBoost", "AdaBoost", "QuadBoost"]
    assert SUITES["default"].datasets == ("digits", "breast_cancer", "wine", "iris")


def test_seeds_take_a_count_or_a_list():
    assert parse_seeds("3") == [0, 1, 2]
    assert parse_seeds("4,9") == [4, 9]
    with pytest.raises(Exception, match="seeds"):
        parse_seeds("x")


@pytest.mark.slow
def test_run_writes_one_record_per_run_and_the_tables(tmp_path, capsys):
    out = tmp_path / "res"
    run_script(
        "benchmark",
        ["--datasets", "iris,wine", "--methods", "RF,MLP", "--out", str(out), "--isolation", "inline", *FAST],
    )
    records = read(out / "results.jsonl")
    assert sorted((r["dataset"], r["method"]) for r in records) == [
        ("iris", "MLP"),
        ("iris", "RF"),
        ("wine", "MLP"),
        ("wine", "RF"),
    ]
    for r in records:
        assert r["status"] == "ok"
        assert 0.5 < r["accuracy"] <= 1.0
        assert r["train_seconds"] > 0 and r["predict_seconds"] > 0 and "predict_proba_seconds" not in r
        assert r["peak_rss_mb"] > 10 and r["memory_method"]
        assert r["versions"]["scikit-learn"] and r["machine"]["n_cpus"] >= 1
        assert r["n_train"] + r["n_test"] in (150, 178)
    mlp = next(r for r in records if r["method"] == "MLP")
    # quick profile: two of the paper's architectures tried on the validation rows
    assert [c["params"]["hidden_layer_sizes"] for c in mlp["selection"]["candidates"]] == [[70, 50], [50, 30]]
    assert mlp["params"]["solver"] == "adam" and mlp["n_weights"] > 0
    rf = next(r for r in records if r["method"] == "RF")
    assert rf["n_trees"] == rf["n_trees_budget"] == 40 and rf["trees_k_source"].startswith("fallback")
    assert (out / "table.md").exists() and (out / "table.csv").exists()
    printed = capsys.readouterr().out
    assert "| iris |" in printed and "Avg. rank" in printed


def test_rerun_skips_finished_runs_and_retries_failed_ones(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.FAILING)
    out = tmp_path / "res"
    argv = ["--datasets", "iris", "--methods", "RF,Failing", "--out", str(out), "--isolation", "inline", *FAST]
    run_script("benchmark", argv, registry=registry)
    first = read(out / "results.jsonl")
    assert {r["method"]: r["status"] for r in first} == {"RF": "ok", "Failing": "error"}
    run_script("benchmark", argv, registry=registry)
    second = read(out / "results.jsonl")
    # RF was not run again; the failed run was retried (and failed again)
    assert [r["method"] for r in second[len(first) :]] == ["Failing"]
    assert second[: len(first)] == first


def test_a_failing_method_is_recorded_with_its_traceback_and_the_rest_continue(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.FAILING)
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "Failing,RF", "--out", str(out), "--isolation", "inline", *FAST],
        registry=registry,
    )
    assert code == 1  # a run failed
    records = {r["method"]: r for r in read(out / "results.jsonl")}
    assert records["Failing"]["status"] == "error"
    assert "deliberate failure for the test" in records["Failing"]["error"]
    assert "Traceback" in records["Failing"]["traceback"] and "RuntimeError" in records["Failing"]["traceback"]
    assert records["RF"]["status"] == "ok"
    table = (out / "table.md").read_text()
    assert re.search(r"\| iris \| \*\*[0-9.]+\*\* \| error \|", table)


@pytest.mark.slow
def test_a_crashing_worker_process_costs_only_its_run(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.CRASHING)
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "Crashing,RF", "--out", str(out), "--isolation", "process", *FAST],
        registry=registry,
    )
    assert code == 1  # a run failed
    records = {r["method"]: r for r in read(out / "results.jsonl")}
    assert records["Crashing"]["status"] == "error"
    assert "exited with code 3" in records["Crashing"]["error"]
    assert records["RF"]["status"] == "ok"
    # measured in its own fresh worker process
    assert records["RF"]["peak_rss_mb"] > 10 and "high-water mark" in records["RF"]["memory_method"]


def test_one_worker_runs_the_runs_one_after_another_and_a_worker_that_dies_is_replaced(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.CRASHING)
    out = tmp_path / "res"
    methods = "RF,Crashing,ExtraTrees" if "ExtraTrees" in registry.names() else "RF,Crashing"
    argv = ["--datasets", "iris", "--seeds", "2", "--methods", methods, "--out", str(out), "--isolation", "process"]
    run_script("benchmark", [*argv, *FAST], registry=registry)
    records = read(out / "results.jsonl")
    ok = [r for r in records if r["status"] == "ok"]
    crashed = [r for r in records if r["method"] == "Crashing"]
    assert len(crashed) == 2 and all(r["status"] == "error" for r in crashed)
    pids = [r["worker_pid"] for r in ok]
    assert len(ok) >= 2 and len(set(pids)) < len(ok)  # a worker ran several runs
    first_crash = next(i for i, r in enumerate(records) if r["method"] == "Crashing")
    before = {r["worker_pid"] for r in records[:first_crash] if r["status"] == "ok"}
    after = {r["worker_pid"] for r in records[first_crash:] if r["status"] == "ok"}
    assert before and after and not before & after  # the crashed worker's runs went to a new one
    assert all(r["peak_rss_mb"] > 10 for r in ok)  # each run's own peak, the high-water mark reset at its start


def _rf_sweep_on_iris(out):
    """Run RF on iris in a worker process; its record and the runner's log lines."""
    lines = []
    registry = default_registry()
    tasks = plan(["iris"], registry.select(["RF"]), [0], n_classes={"iris": 3}, profile="quick")
    execute(
        tasks, ResultStore(out / "results.jsonl"), isolation="process", n_jobs=1, registry=registry, log=lines.append
    )
    (record,) = read(out / "results.jsonl")
    return record, lines


@pytest.mark.parametrize("busy", [True, False])
@pytest.mark.slow
def test_worker_processes_start_with_the_sweeps_openmp_waiting(tmp_path, monkeypatch, busy):
    # passive waiting on a machine busy when the sweep starts, OpenMP's own otherwise
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.setattr(executor, "_busy_cores", lambda: 1000.0 if busy else 0.0)
    record, lines = _rf_sweep_on_iris(tmp_path / "res")
    assert record["status"] == "ok"
    assert record["machine"]["thread_environment"].get("OMP_WAIT_POLICY") == ("PASSIVE" if busy else None)
    assert any("OMP_WAIT_POLICY=PASSIVE" in line for line in lines) == busy
    assert "OMP_WAIT_POLICY" not in os.environ  # the runner's own environment is left as it was


@pytest.mark.slow
def test_the_users_openmp_waiting_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    monkeypatch.setattr(executor, "_busy_cores", lambda: 1000.0)
    record, lines = _rf_sweep_on_iris(tmp_path / "res")
    assert record["machine"]["thread_environment"]["OMP_WAIT_POLICY"] == "ACTIVE"
    assert not any("OMP_WAIT_POLICY=PASSIVE" in line for line in lines)


def test_an_unavailable_method_named_in_methods_stops_the_command_with_the_import_error(tmp_path, capsys):
    registry = default_registry()
    registry.register(bench_doubles.UNAVAILABLE)
    out = tmp_path / "res"
    code = run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "Missing,RF", "--out", str(out), "--isolation", "inline", *FAST],
        registry=registry,
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("run_uci.py: error: --methods: Missing is not available: cannot import ")
    assert "no_such_module_for_tests" in err and err.count("\n") == 1 and not out.exists()


def test_dataset_with_missing_files_is_skipped_with_the_loader_message(tmp_path, no_data, capsys):
    out = tmp_path / "res"
    run_script(
        "benchmark", ["--datasets", "har,iris", "--methods", "RF", "--out", str(out), "--isolation", "inline", *FAST]
    )
    records = read(out / "results.jsonl")
    har = [r for r in records if r["dataset"] == "har"]
    assert len(har) == 1 and har[0]["status"] == "skipped" and "is missing" in har[0]["message"]
    assert har[0]["versions"]["git_commit"] and har[0]["machine"]["n_cpus"] >= 1 and har[0]["finished_at"]
    assert [r["status"] for r in records if r["dataset"] == "iris"] == ["ok"]
    table = (out / "table.md").read_text()
    assert "| har | skipped |" in table and "har: skipped" in table


def test_random_forest_gets_400k_trees_from_the_mddf_run_of_the_same_seed(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.MAJORITY_AS_MDDF, replace=True)  # 5 trees x 2 forests, 3 layers
    store = ResultStore(tmp_path / "results.jsonl")
    specs = registry.select(["RF", "mdDF"])
    tasks = plan(["iris"], specs, [0, 1], n_classes={"iris": 3}, profile="quick")
    assert [t.method for t in tasks] == ["mdDF", "RF", "mdDF", "RF"]  # mdDF first, whatever the order asked
    execute(tasks, store, isolation="inline", n_jobs=1, registry=registry, progress=False)
    rf = [r for r in store.records() if r["method"] == "RF"]
    assert len(rf) == 2
    for r in rf:
        assert r["trees_k"] == 3 and r["trees_per_layer"] == 10 and r["n_trees"] == 30
        assert f"seed={r['seed']}" in r["trees_k_source"]


@pytest.mark.slow
def test_dependent_run_waits_for_mddf_in_parallel_workers(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.MAJORITY_AS_MDDF, replace=True)
    store = ResultStore(tmp_path / "results.jsonl")
    tasks = plan(["iris"], registry.select(["mdDF", "RF"]), [0], n_classes={"iris": 3}, profile="quick")
    execute(tasks, store, workers=2, isolation="process", n_jobs=1, registry=registry, progress=False)
    records = store.records()
    assert [r["method"] for r in records] == ["mdDF", "RF"]
    assert records[1]["n_trees"] == 30


def test_image_only_methods_are_planned_on_image_datasets_only():
    specs = default_registry().select(["gcForest-MGS"])
    tasks = plan(
        ["digits", "wine"],
        specs,
        [0],
        n_classes={"digits": 10, "wine": 3},
        image_shapes={"digits": (8, 8), "wine": None},
    )
    assert [t.dataset for t in tasks] == ["digits"]


def test_binary_only_methods_are_planned_on_two_class_datasets_only():
    specs = default_registry().select(["RF", "DeepBoost"])
    tasks = plan(["iris", "breast_cancer"], specs, [0], n_classes={"iris": 3, "breast_cancer": 2})
    assert [(t.dataset, t.method) for t in tasks] == [
        ("iris", "RF"),
        ("breast_cancer", "RF"),
        ("breast_cancer", "DeepBoost"),
    ]


def test_deepboost_datasets_are_planned_as_ten_fold_runs():
    tasks = plan(["german"], default_registry().select(["RF"]), [0], n_classes={"german": 2})
    assert [t.fold for t in tasks] == list(range(10))
    assert len({t.key for t in tasks}) == 10


def test_run_one_returns_an_error_record_naming_the_problem():
    wrong_fold = run_one("iris", "RF", 0, fold=3, profile="quick", n_jobs=1)
    assert wrong_fold["status"] == "error" and "fold" in wrong_fold["error"]
    unknown = run_one("iris", "NoSuchMethod", 0, profile="quick")
    assert unknown["status"] == "error" and "unknown method 'NoSuchMethod'" in unknown["error"]
    binary = run_one("iris", "DeepBoost", 0, profile="quick")
    assert binary["status"] == "error" and "two-class" in binary["error"]


def test_ablation_table_only_with_table3_methods(tmp_path):
    registry = default_registry()
    registry.register(bench_doubles.MAJORITY_AS_MDDF, replace=True)
    out = tmp_path / "res"
    run_script(
        "benchmark",
        ["--datasets", "iris", "--methods", "mdDF", "--out", str(out), "--isolation", "inline", *FAST],
        registry=registry,
    )
    assert (out / "table.md").exists() and not (out / "ablation.md").exists()


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
@pytest.mark.slow
def test_interrupted_run_keeps_finished_results_and_resumes(tmp_path, stop):
    import os
    import signal
    import time

    out = tmp_path / "res"
    results = out / "results.jsonl"
    # 16 runs, so the signal lands mid-sweep however quickly the first ones finish
    argv = ["--datasets", "iris,wine", "--methods", "RF,MLP", "--seeds", "4", "--out", str(out), *FAST]
    proc = start_runner(argv, new_session=True)
    try:
        wait_for_first_result(results, timeout=120)
        workers = _children(proc.pid)
        if stop == "SIGINT":
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the foreground group (workers lead groups of their own)
        else:
            proc.send_signal(signal.SIGTERM)  # kill / a job scheduler: the runner only
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == {"SIGINT": 130, "SIGTERM": 143}[stop]
    before = read(results)
    assert 1 <= len(before) < 16 and all(r["status"] == "ok" for r in before)
    time.sleep(1)
    assert workers and not [pid for pid in workers if _alive(pid)]  # no orphaned worker left running
    run_script("benchmark", [*argv, "--isolation", "inline"])
    after = read(results)
    assert after[: len(before)] == before
    keys = [r["key"] for r in after]
    assert len(keys) == len(set(keys)) == 16  # nothing run twice, nothing missing


def _stat(pid):
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children(parent_pid):
    """Live child processes of ``parent_pid`` (its run workers and multiprocessing's tracker)."""
    out = []
    for proc_dir in Path("/proc").glob("[0-9]*"):
        fields = _stat(proc_dir.name)
        if fields and fields[0] != "Z" and int(fields[1]) == parent_pid:
            out.append(int(proc_dir.name))
    return out


def _alive(pid):
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def test_run_one_records_layers_history_and_size_of_a_real_mddf():
    record = run_one("wine", "mdDF", 0, profile="quick", n_jobs=1)
    assert record["status"] == "ok"
    assert 1 <= record["n_layers"] <= 3 and record["trees_per_layer"] == 40  # quick: 10 trees x 4 forests
    history = record["cascade"]["history"]
    assert len(history) == record["cascade"]["n_layers_grown"] >= record["n_layers"]
    assert {"oof_accuracy", "margin_ratio", "alpha"} <= set(history[0])
    assert record["model_bytes"] > 0 and len(record["cascade"]["alphas"]) == record["n_layers"]
    assert record["params"]["forest_types"] == ["rf", "rf", "crf", "crf"]
    assert "predictor_input" not in record["cascade"]  # no predictor


def test_run_one_records_what_the_auto_predictor_input_chose():
    record = run_one("wine", "mdDF-hgb-auto", 0, profile="quick", n_jobs=1)
    assert record["status"] == "ok"
    summary = record["cascade"]
    scores = summary["predictor_input_scores"]
    assert set(scores) == {"cascade", "stacked", "blend", "raw"}
    assert scores["blend"] >= max(scores["cascade"], scores["stacked"])  # the best weight, the ends included
    weight = summary["predictor_weight"]
    if scores["raw"] > scores["blend"]:
        assert summary["predictor_input"] == "raw" and weight == 1.0
    else:
        assert summary["predictor_input"] == {0.0: "cascade", 1.0: "stacked"}.get(weight, "blend")


def test_a_long_lived_process_keeps_only_the_last_two_datasets(monkeypatch):
    from mddf.experiments import runner

    monkeypatch.setattr(runner, "_DATASET_CACHE", type(runner._DATASET_CACHE)())
    iris = runner.load("iris", cache=True)
    assert runner.load("iris", cache=True) is iris  # loaded once
    runner.load("wine", cache=True)
    runner.load("iris", cache=True)  # iris is now the most recent
    runner.load("breast_cancer", cache=True)
    assert list(runner._DATASET_CACHE) == ["iris", "breast_cancer"]  # wine, least recently used, is gone
    assert runner.load("iris", cache=True) is iris
