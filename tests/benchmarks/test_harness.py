"""The study harness: units and their records, metrics, train/test and cross-validation on DataFrames with
categories and missing values, resume on the same data and settings only (mddf.experiments' binding), refused and
failed units, the default table, interleaved timing pairs, and the two ways a study runs from the repository
root."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from provenance_files import read_provenance
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from study_helpers import read_records

from benchmarks import harness
from benchmarks.data import registry
from benchmarks.harness import CrossValidation, Data, Dataset, Study, TrainTest, interleave, paired_ratios
from mddf.experiments.metrics import CHECKED_ROWS
from mddf.experiments.store import BINDING_FIELDS, content_sha256, settings_sha256

ROOT = Path(__file__).resolve().parents[2]


def _arrays(ctx):
    rng = np.random.RandomState(0)
    X = rng.standard_normal((120, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(120) > 0).astype(int)
    return Data(X[:80], y[:80], X[80:], y[80:])


def _frame(ctx):
    """A DataFrame with a category column and missing values; the label depends on both columns."""
    rng = np.random.RandomState(1)
    n = 90
    colour = pd.Categorical(rng.choice(["red", "green", "blue"], n))
    size = rng.standard_normal(n)
    y = np.where((colour == "red") | (size > 0.5), "yes", "no")
    size[::9] = np.nan
    return Data(pd.DataFrame({"colour": colour, "size": size}, index=np.arange(100, 100 + n)), y)


def _regression(ctx):
    rng = np.random.RandomState(2)
    X = rng.standard_normal((60, 2))
    return Data(X, 2 * X[:, 0] + 0.1 * rng.standard_normal(60))


def _tree(ctx):
    return DecisionTreeClassifier(max_depth=3, random_state=ctx.seed)


def _study(**changes):
    declared = dict(
        datasets=[Dataset("toy", _arrays)],
        methods={"tree": _tree, "majority": lambda ctx: DummyClassifier()},
        protocol=TrainTest(seeds=(0, 1)),
    )
    return Study("toy", "A toy study.", **{**declared, **changes})


def test_a_train_test_study_records_each_unit_with_its_metrics_times_and_provenance(tmp_path, capsys):
    out = tmp_path / "toy"
    assert _study().main(["--out", str(out), "--n-jobs", "1"]) == 0
    records = read_records(out)
    assert [(r["dataset"], r["method"], r["seed"]) for r in records] == [
        ("toy", "tree", 0),
        ("toy", "majority", 0),
        ("toy", "tree", 1),
        ("toy", "majority", 1),
    ]  # seeds outermost
    for r in records:
        assert r["status"] == "ok" and r["key"] == f"toy|{r['method']}|seed={r['seed']}|round=0"
        assert set(harness.CLASSIFICATION) <= set(r) and r["fit_s"] >= 0 and r["predict_s"] >= 0
        assert (r["n_train"], r["n_test"]) == (80, 40) and r["config"] == {"quick": False, "protocol": "train/test"}
        assert r["versions"]["python"] and r["machine"] and r["finished_at"]
    majority = next(r for r in records if r["method"] == "majority")
    assert majority["balanced_accuracy"] == 0.5 and majority["log_loss"] > 0.5
    table = (out / "table.md").read_text()
    assert read_provenance(table)["command"] == f"python -m benchmarks.toy --out {out} --n-jobs 1"
    for heading in ("accuracy (%)", "balanced_accuracy (%)", "log_loss,"):
        assert heading in table
    assert "| mean rank | 1.00 | 2.00 |" in table  # the tree beats the majority on both metrics that are higher-better
    assert "| median fit s |" in table and "| median predict s |" in table
    captured = capsys.readouterr()
    assert "[4/4] toy / majority / seed 1: accuracy" in captured.err and "| toy |" in captured.out


class _CountingTree(DecisionTreeClassifier):
    """A tree that counts the rows each of its prediction methods is asked for (over every instance)."""

    asked: dict = {}

    def predict(self, X, check_input=True):
        self.asked["predict"] = self.asked.get("predict", 0) + len(X)
        return super().predict(X, check_input)

    def predict_proba(self, X, check_input=True):
        self.asked["predict_proba"] = self.asked.get("predict_proba", 0) + len(X)
        return super().predict_proba(X, check_input)


def test_a_unit_predicts_its_held_out_rows_once_for_labels_and_probabilities(tmp_path, monkeypatch):
    monkeypatch.setattr(_CountingTree, "asked", {})
    study = _study(methods={"tree": lambda ctx: _CountingTree(max_depth=3, random_state=0)})
    assert study.main(["--out", str(tmp_path / "toy"), "--n-jobs", "1", "--quiet"]) == 0
    records = read_records(tmp_path / "toy")
    assert len(records) == 2 and all(r["log_loss"] > 0 for r in records)
    # each seed's 40 held-out rows: one pass for both, and predict only on the rows that check its labels
    assert _CountingTree.asked == {"predict_proba": 2 * 40, "predict": 2 * min(40, CHECKED_ROWS)}


class _RowRecorder(BaseEstimator, ClassifierMixin):
    """A tree on the codes of a DataFrame that records the row labels it is fitted on and asked about."""

    seen: list = []

    def fit(self, X, y):
        self.seen.append(("fit", set(X.index)))
        self.tree_ = DecisionTreeClassifier(random_state=0).fit(X[["size"]].fillna(0), y)
        self.classes_ = self.tree_.classes_
        return self

    def predict(self, X):
        self.seen.append(("predict", set(X.index)))
        return self.tree_.predict(X[["size"]].fillna(0))

    def predict_proba(self, X):
        return self.tree_.predict_proba(X[["size"]].fillna(0))


@pytest.mark.slow
def test_repeated_cross_validation_gives_one_record_per_repeat_and_fold_on_held_out_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(_RowRecorder, "seen", [])
    study = _study(
        datasets=[Dataset("frame", _frame), Dataset("numbers", _regression, task="regression")],
        methods={
            "recorder": lambda ctx: _RowRecorder(),
            "hgb": lambda ctx: HistGradientBoostingClassifier(max_iter=5, categorical_features="from_dtype"),
            "rf": registry("RF", n_trees=5),
            "tree": lambda ctx: DecisionTreeRegressor(max_depth=2, random_state=ctx.seed),
            "mean": lambda ctx: DummyRegressor(),
        },
        protocol=CrossValidation(n_folds=3, repeats=2),
        applies=lambda method, dataset, options: (method in ("tree", "mean")) == (dataset == "numbers"),
    )
    out = tmp_path / "cv"
    assert study.main(["--out", str(out), "--quiet"]) == 0
    records = read_records(out)
    classification = [r for r in records if r["dataset"] == "frame"]
    assert len(classification) == 3 * 2 * 3 and len(records) == len(classification) + 2 * 2 * 3
    assert {(r["method"], r["repeat"], r["fold"]) for r in classification} == {
        (m, r, f) for m in ("recorder", "hgb", "rf") for r in (0, 1) for f in (0, 1, 2)
    }
    assert all(set(harness.CLASSIFICATION) <= set(r) and r["n_test"] == 30 for r in classification)
    assert all({"r2", "rmse"} <= set(r) and "accuracy" not in r for r in records if r["dataset"] == "numbers")
    assert (
        next(r for r in records if r["method"] == "tree")["r2"]
        > 0.6
        > next(r for r in records if r["method"] == "mean")["r2"]
    )
    assert records[0]["key"] == "frame|recorder|repeat=0|fold=0" and records[0]["config"]["folds"] == 3
    # every repeat's held-out folds partition the rows, and no fold is fitted on a row it is scored on
    fitted = [rows for what, rows in _RowRecorder.seen if what == "fit"]
    predicted = [rows for what, rows in _RowRecorder.seen if what == "predict"]
    assert all(not (f & p) for f, p in zip(fitted, predicted))
    assert set().union(*predicted[:3]) == set(range(100, 190)) == set().union(*predicted[3:])
    assert predicted[:3] != predicted[3:]  # each repeat shuffles with its own seed
    table = (out / "table.md").read_text()
    assert "mean ± std over repeats (each the mean of its folds)" in table and "r2, mean" in table


def test_the_method_registrys_methods_get_a_dataframes_categories_as_codes_with_their_mask_declared():
    study = _study(datasets=[Dataset("frame", _frame)])
    args = study.parse(["--quick"])
    ctx = study.context(args, harness.Unit("frame", "tree", 0))
    for name in ("HGB", "RF"):
        model = registry(name)(ctx)
        assert model[0].func.__name__ == "ordinal_codes"
    assert registry("HGB")(ctx)[-1].categorical_features.tolist() == [True, False]
    data = _frame(ctx)
    model = registry("HGB")(ctx).fit(data.X_train, data.y_train)
    assert model.score(data.X_train, data.y_train) > 0.7


def test_a_rerun_resumes_only_the_units_missing_with_the_same_settings(tmp_path, capsys):
    out = tmp_path / "toy"
    study = _study(
        options=lambda parser: parser.add_argument("--depth", type=int, default=3),
        settings=lambda options: {"depth": options.depth},
    )
    assert study.main(["--out", str(out)]) == 0
    records = read_records(out)
    capsys.readouterr()
    assert study.main(["--out", str(out)]) == 0  # every unit done: nothing run, nothing appended
    assert read_records(out) == records and "seed" not in capsys.readouterr().err
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # the last unit lost
    assert study.main(["--out", str(out), "--seeds", "0,1"]) == 0
    assert "[1/1] toy / majority / seed 1" in capsys.readouterr().err
    assert study.main(["--out", str(out), "--depth", "2"]) == 0  # other settings: every unit again
    again = read_records(out)
    assert len(again) == 2 * len(records) and {r["config"]["depth"] for r in again} == {2, 3}
    assert "Pending" not in (out / "table.md").read_text()


def test_a_methods_records_are_bound_to_its_learner_settings_and_fitted_again_when_they_change(tmp_path):
    out = tmp_path / "toy"
    depth = {"tree": "max_depth=3"}
    study = _study(learner_settings=lambda method: depth.get(method))
    assert study.main(["--out", str(out), "--quiet"]) == 0
    first = read_records(out)
    assert {r["method"]: r.get("learner") for r in first} == {"tree": "max_depth=3", "majority": None}
    assert study.main(["--out", str(out), "--quiet"]) == 0 and read_records(out) == first  # the same: nothing
    depth["tree"] = "max_depth=2"  # the tree's default changed: its units again, the other method's not
    assert study.recorded(["--out", str(out)]).pending[0].method == "tree"
    assert study.main(["--out", str(out), "--quiet"]) == 0
    again = read_records(out)
    assert [r["method"] for r in again[len(first) :]] == ["tree", "tree"] and again[-1]["learner"] == "max_depth=2"


def test_records_are_bound_to_their_rows_and_settings_and_the_old_harness_records_are_fitted_again(tmp_path):
    out, shift = tmp_path / "toy", {"x": 0.0}

    def rows(ctx):
        data = _arrays(ctx)
        return Data(data.X_train + shift["x"], data.y_train, data.X_test, data.y_test)

    study = _study(datasets=[Dataset("toy", rows)])
    assert study.main(["--out", str(out), "--seeds", "0", "--quiet"]) == 0
    first = read_records(out)
    assert (
        list(first[0])[:10] == list(harness.study.COMMON_FIELDS)
        and first[0]["fold"] is None
        and first[0]["error"] is None
    )
    assert len({r["data_sha256"] for r in first}) == 1 and first[0]["data_sha256"] == content_sha256(
        *(getattr(rows(None), f) for f in ("X_train", "y_train", "X_test", "y_test"))
    )
    assert first[0]["settings_sha256"] == settings_sha256({"config": first[0]["config"]})
    old = [{k: v for k, v in r.items() if k not in BINDING_FIELDS} for r in first]  # as the old harness wrote them
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    assert study.recorded(["--out", str(out), "--seeds", "0"]).records == []  # never read as this run's
    assert study.main(["--out", str(out), "--seeds", "0", "--quiet"]) == 0
    assert len(read_records(out)) == 4 and "Pending" not in (out / "table.md").read_text()
    shift["x"] = 1.0  # other rows: every unit again
    assert study.main(["--out", str(out), "--seeds", "0", "--quiet"]) == 0
    again = read_records(out)
    assert len(again) == 6 and again[-1]["data_sha256"] != again[2]["data_sha256"]


def test_data_that_does_not_load_fails_each_of_its_units_and_is_tried_once_a_run(tmp_path):
    tried = []

    def missing(ctx):
        tried.append(ctx.method)
        raise FileNotFoundError("no toy.data")

    study, out = _study(datasets=[Dataset("toy", missing)]), tmp_path / "toy"
    assert study.main(["--out", str(out), "--seeds", "0", "--quiet"]) == 1
    records = read_records(out)
    assert [(r["status"], r["error"], r["data_sha256"]) for r in records] == 2 * [
        ("failed", "FileNotFoundError: no toy.data", None)
    ]
    assert len(tried) == 1
    assert len(study.recorded(["--out", str(out), "--seeds", "0"]).pending) == 2  # unbound: nothing to table


def test_refused_and_failed_units_are_recorded_listed_not_retried_unless_asked_and_a_failure_sets_the_status(
    tmp_path, capsys
):
    def refuses(ctx):
        raise ValueError("too few rows of a class")

    def crashes(ctx):
        raise RuntimeError("out of memory")

    out = tmp_path / "toy"
    study = _study(methods={"tree": _tree, "refuses": refuses, "crashes": crashes}, protocol=TrainTest())
    assert study.main(["--out", str(out)]) == 1
    statuses = {r["method"]: (r["status"], r.get("error")) for r in read_records(out)}
    assert statuses == {
        "tree": ("ok", None),
        "refuses": ("refused", "too few rows of a class"),
        "crashes": ("failed", "RuntimeError: out of memory"),
    }
    table = (out / "table.md").read_text()
    assert "- toy / refuses / seed 0: refused, too few rows of a class" in table
    assert "| toy |" in table and "crashes" in table
    assert study.main(["--out", str(out), "--methods", "tree,refuses"]) == 0  # a refusal alone is not a failure
    assert len(read_records(out)) == 3  # not retried
    assert study.main(["--out", str(out), "--methods", "refuses", "--retry-failed"]) == 0
    assert [r["method"] for r in read_records(out)] == ["tree", "refuses", "crashes", "refuses"]


def test_report_only_fits_nothing_and_lists_what_is_pending(tmp_path):
    out = tmp_path / "toy"
    study = _study()
    assert study.main(["--out", str(out), "--seeds", "0", "--quiet"]) == 0
    records = read_records(out)
    assert study.main(["--out", str(out), "--seeds", "0,1", "--report-only", "--quiet"]) == 0
    assert read_records(out) == records
    table = (out / "table.md").read_text()
    assert "Pending (not fitted yet, so left out of the tables above):" in table
    assert "- toy: tree (seeds 1); majority (seeds 1)" in table


def test_a_report_over_records_whose_data_no_longer_loads_says_so_even_when_quiet(tmp_path, capsys):
    out, loads = tmp_path / "toy", {"ok": True}

    def sometimes(ctx):
        if not loads["ok"]:
            raise FileNotFoundError("set MDDF_DATA")
        return _arrays(ctx)

    study = _study(datasets=[Dataset("toy", sometimes)])
    assert study.main(["--out", str(out), "--seeds", "0", "--quiet"]) == 0
    capsys.readouterr()
    loads["ok"] = False
    assert study.main(["--out", str(out), "--seeds", "0", "--report-only", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "toy: the records of toy are not read: its data did not load (set MDDF_DATA)" in err
    assert len(read_records(out)) == 2  # nothing lost: the records are there for a run with the data


def test_recorded_reads_the_results_of_the_same_settings_without_fitting_or_writing(tmp_path):
    out = tmp_path / "toy"
    study = _study(
        options=lambda parser: parser.add_argument("--depth", type=int, default=3),
        settings=lambda options: {"depth": options.depth},
    )
    assert study.main(["--out", str(out), "--seeds", "0", "--quiet"]) == 0
    files = sorted(p.name for p in out.iterdir())
    results = study.recorded(["--out", str(out), "--seeds", "0,1"])
    assert sorted((r["method"], r["seed"]) for r in results.records) == [("majority", 0), ("tree", 0)]
    assert sorted((u.method, u.seed) for u in results.pending) == [("majority", 1), ("tree", 1)]
    assert study.recorded(["--out", str(out), "--seeds", "0", "--depth", "2"]).records == []  # other settings
    assert sorted(p.name for p in out.iterdir()) == files and len(read_records(out)) == 2


def test_quiet_prints_nothing_and_unknown_names_are_errors_that_list_the_known_ones(tmp_path, capsys):
    assert _study().main(["--out", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    with pytest.raises(SystemExit):
        _study().main(["--methods", "tree,svm", "--out", str(tmp_path)])
    assert "unknown method(s) svm; known: tree, majority" in capsys.readouterr().err


def test_rounds_rotate_the_methods_and_a_skip_hook_leaves_units_unrecorded(tmp_path):
    study = _study(
        methods={"a": _tree, "b": _tree, "c": _tree},
        skip=lambda ctx, done: "too large" if ctx.method == "c" and ctx.round == 1 else None,
    )
    out = tmp_path / "rounds"
    assert study.main(["--out", str(out), "--seeds", "0", "--rounds", "2", "--quiet"]) == 0
    assert [(r["method"], r["round"]) for r in read_records(out)] == [("a", 0), ("b", 0), ("c", 0), ("b", 1), ("a", 1)]
    assert "- toy / c / seed 0 / round 1: too large" in (out / "table.md").read_text()


def test_interleave_alternates_the_calls_round_by_round_and_pairs_their_times():
    order = []
    ticks = iter(range(100))
    calls = {"old": lambda: order.append("old") or 1, "new": lambda: order.append("new") or 2}
    seconds, values = interleave(calls, rounds=3, clock=lambda: next(ticks))
    assert order == ["old", "new", "new", "old", "old", "new"] and values == {"old": 1, "new": 2}
    assert seconds == {"old": [1, 1, 1], "new": [1, 1, 1]}
    assert paired_ratios({"a": [2.0, 6.0], "b": [1.0, 2.0]}, "a", "b") == [2.0, 3.0]
    order.clear()
    interleave(calls, offset=1)
    assert order == ["new", "old"]


@pytest.mark.parametrize("command", [["-m", "benchmarks.datasets"], ["benchmarks/datasets.py"]])
@pytest.mark.slow
def test_a_study_runs_from_the_repository_root_as_a_module_and_as_a_file(command, tmp_path):
    done = subprocess.run(
        [sys.executable, *command, "--quick", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "| iris |" in done.stdout and (tmp_path / "table.md").is_file()


def test_mean_ranks_average_each_methods_rank_over_the_datasets_where_two_or_more_have_a_score():
    records = [
        {"dataset": "a", "method": "x", "accuracy": 0.9},
        {"dataset": "a", "method": "x", "accuracy": 0.7},  # mean 0.8: ties with y
        {"dataset": "a", "method": "y", "accuracy": 0.8},
        {"dataset": "a", "method": "z", "accuracy": 0.5},
        {"dataset": "b", "method": "x", "accuracy": 0.1},
        {"dataset": "b", "method": "z", "accuracy": 0.6},
        {"dataset": "c", "method": "y", "accuracy": 0.9},  # alone on c: not ranked
        {"dataset": "c", "method": "x"},  # no score: left out
    ]
    ranks = harness.mean_ranks(records, ["x", "y", "z"], ["a", "b", "c"])
    assert ranks == {"x": (1.5 + 2) / 2, "y": 1.5, "z": (3 + 1) / 2}


def test_in_fresh_process_returns_what_the_function_returns_in_a_process_of_its_own():
    import os

    assert harness.in_fresh_process(os.getpid) != os.getpid()


def test_mean_std_is_the_mean_and_sample_std_with_zero_for_one_value():
    assert harness.mean_std([0.9, 0.8], scale=100) == "85.00 ± 7.07"
    assert harness.mean_std([0.5], 4) == "0.5000 ± 0.0000"
    assert harness.mean_std([]) == ""


def test_number_formats_floats_and_shows_none_and_nan_as_missing():
    assert harness.report.number(0.12345) == "0.1235"
    assert harness.report.number(2.5, 1, signed=True) == "+2.5"
    assert harness.report.number(None) == "—" and harness.report.number(float("nan"), missing="-") == "-"
    assert harness.report.number(3) == "3" and harness.report.number("7 (2 fits read back)") == "7 (2 fits read back)"
