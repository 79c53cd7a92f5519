"""The real-data study on a mock suite of two tiny tables: the fold protocol of the rules (stratified, repeats and
their seeds, one repeat on the large tables), the order of the run, resume bound to the suite's data, and the
paper check's rows kept in training."""

import gzip
import importlib.util
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold, StratifiedKFold
from study_helpers import read_records

from benchmarks import harness, realdata, realdata_report, realdata_rule, realdata_suite
from benchmarks.harness import CrossValidation, Data, Dataset, Study, Unit, load_data, unit_rows


def _write(folder, name, frame, task, target):
    """A gzip CSV of ``frame`` and its manifest entry, the counts read from the frame itself."""
    (folder / f"{name}.csv.gz").write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    X = frame.drop(columns=target)
    entry = {
        "name": name,
        "file": f"{name}.csv.gz",
        "task": task,
        "target": target,
        "rows": len(frame),
        "features": X.shape[1],
        "n_categorical": int(sum(not pd.api.types.is_numeric_dtype(X[c]) for c in X.columns)),
        "n_missing_cells": int(X.isna().sum().sum()),
    }
    if task == "classification":
        entry["classes"] = {str(k): int(v) for k, v in frame[target].astype(str).value_counts().items()}
    return entry


@pytest.fixture
def suite(tmp_path, monkeypatch):
    """A suite of a 60-row classification table with a category column and missing values (classes of 40 and 20
    rows) and a 30-row numeric regression table, cross-validated once (as the large tables are).

    The harness keeps the last datasets it loaded in the process, by name: other tests' tables named alike go."""
    monkeypatch.setattr(harness.units, "LOADED", {})
    rng = np.random.RandomState(0)
    folder = tmp_path / "realdata"
    folder.mkdir()
    size = rng.standard_normal(60)
    size[::7] = np.nan
    label = np.array(["a"] * 40 + ["b"] * 20)
    colour = rng.choice(["red", "green"], 60)
    classes = pd.DataFrame({"colour": colour, "size": size, "label": label})
    x = rng.standard_normal(30)
    line = pd.DataFrame({"x": x, "z": rng.standard_normal(30), "target": 3 * x})
    entries = [
        _write(folder, "line", line, "regression", "target"),
        _write(folder, "tiny", classes, "classification", "label"),
    ]
    (folder / "manifest.json").write_text(json.dumps(entries))
    monkeypatch.setenv(realdata.ENV, str(folder))
    monkeypatch.setattr(realdata_suite, "ONE_REPEAT", ("line",))
    return folder


def _run(tmp_path, *argv):
    out = tmp_path / "out"
    argv = [
        "--out",
        str(out),
        "--quiet",
        "--quick",
        "--tables",
        "line,tiny",
        "--learners",
        "Baseline",
        "--n-jobs",
        "1",
        *argv,
    ]
    assert realdata_suite.main(argv) == 0
    return out


def test_each_table_is_cross_validated_by_the_rules_folds_repeats_and_seeds(suite, tmp_path):
    args = realdata_suite.STUDY.parse(["--quiet", "--out", str(tmp_path / "out")])
    assert (args.folds, args.repeats) == (5, 3)
    units = realdata_suite.STUDY.units(args)
    tiny = [u for u in units if u.dataset == "tiny"]
    line = [u for u in units if u.dataset == "line"]
    # 5 folds x 3 repeats on the classification table, 1 repeat on the large (here: the regression) table; the
    # classifiers on the classification table only, the regressors on the regression table only
    assert {(u.seed, u.fold) for u in tiny} == {(r, f) for r in range(3) for f in range(5)}
    assert {(u.seed, u.fold) for u in line} == {(0, f) for f in range(5)}
    assert {u.method for u in tiny} >= {"mdDF-base", "mdDF-gbdt", "mdDF-cal", "HGB-es", "Baseline"}
    # the optional peers (the bench extra) take part exactly when installed
    for peer, package in (("CatBoost-es", "catboost"), ("LightGBM-es", "lightgbm")):
        assert (peer in {u.method for u in tiny}) == (importlib.util.find_spec(package) is not None)
    assert not {u.method for u in tiny} & set(realdata_suite.REGRESSORS)
    assert {u.method for u in line} >= {"CascadeForest-base", "CascadeForest-pairs3", "RF-400"}
    assert not {u.method for u in line} & set(realdata_suite.CLASSIFIERS)
    # the smallest table first; within a repeat, every learner of a fold before the next fold
    first = [u for u in units if u.seed == 0]
    assert first[0].dataset == "line" and [u.dataset for u in first].index("tiny") == len(line)
    folds = [u.fold for u in first if u.dataset == "tiny"]
    assert folds == sorted(folds)

    data = load_data(realdata_suite.STUDY.context(args, tiny[0]))
    y = np.asarray(data.y_train)
    for repeat in range(3):
        expected = list(StratifiedKFold(5, shuffle=True, random_state=repeat).split(data.X_train, y))
        for fold in range(5):
            ctx = realdata_suite.STUDY.context(args, Unit("tiny", "RF-400", repeat, 0, fold))
            X, y_fit, X_eval, y_eval = unit_rows(ctx, data)
            assert list(X_eval.index) == list(expected[fold][1]) and len(X) + len(X_eval) == 60
            assert sorted(np.unique(y_eval, return_counts=True)[1]) == [4, 8]  # stratified: 20 and 40 rows / 5
            model = ctx.build()
            assert model[-1].random_state == repeat  # every learner gets random_state = the repeat
    line_data = load_data(realdata_suite.STUDY.context(args, line[0]))
    ctx = realdata_suite.STUDY.context(args, Unit("line", "RF-400", 0, 0, 2))
    expected = list(KFold(5, shuffle=True, random_state=0).split(line_data.X_train))[2][1]
    assert list(unit_rows(ctx, line_data)[2].index) == list(expected)  # plain folds for regression


@pytest.mark.slow
def test_records_are_written_as_they_go_resumed_and_bound_to_the_suites_data(suite, tmp_path, monkeypatch):
    drawn = []

    def draw(figures, out, prov):  # what write_figures would save, noted, and closed as save_figure closes them
        import matplotlib.pyplot as plt

        drawn.append(sorted(figures))
        for figure in figures.values():
            plt.close(figure)

    monkeypatch.setattr(realdata_report, "write_figures", draw)
    out = _run(tmp_path)
    records = read_records(out)
    assert len(records) == 2 * 2  # two tables, one learner, one repeat of two folds
    tiny = [r for r in records if r["dataset"] == "tiny"]
    assert all(r["status"] == "ok" and r["task"] == "classification" and r["n_categorical"] == 1 for r in tiny)
    assert all(r["n_correct"] == round(r["accuracy"] * r["n_test"]) for r in tiny)
    line = [r for r in records if r["dataset"] == "line"]
    assert all(abs(r["sse"] - r["rmse"] ** 2 * r["n_test"]) < 1e-9 and r["fit_s"] >= 0 for r in line)
    assert all(r["data_sha256"] == realdata_suite.suite_digest(suite) for r in records)  # bound to the suite's files
    assert (out / "realdata.md").is_file() and (out / "realdata.csv").is_file()
    assert drawn[0] == [
        "realdata_cd_classification",
        "realdata_cd_regression",
        "realdata_fit_time_classification",
        "realdata_fit_time_regression",
    ]

    _run(tmp_path)
    assert len(read_records(out)) == 4  # every fit done: nothing appended
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # the last fit lost to an interruption
    _run(tmp_path)
    again = read_records(out)
    assert len(again) == 4 and again[-1]["key"] == json.loads(lines[-1])["key"]

    table = suite / "tiny.csv.gz"  # the same suite with a table changed: its records no longer count
    frame = pd.read_csv(table)
    frame.loc[0, "size"] = 99.0
    table.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    _run(tmp_path)
    assert len(read_records(out)) == 8


def test_the_check_keeps_the_rows_of_a_small_class_in_every_training_part_and_never_scores_them(tmp_path):
    rng = np.random.RandomState(3)
    X = pd.DataFrame({"x": rng.standard_normal(33)})
    y = np.array([0] * 15 + [1] * 15 + [2] * 3)  # class 2: three rows, like yeast's ERL
    data = realdata_suite.keep_small_classes(Data(X, y, X.iloc[:5], y[:5]))
    assert len(data.y_train) == 30 and list(data.y_kept) == [2, 2, 2] and data.X_test is None

    study = Study(
        "realdata_check_trial",
        "The paper check's protocol on a toy dataset.",
        datasets=[Dataset("toy", lambda ctx: realdata_suite.keep_small_classes(Data(X, y)))],
        methods={"Baseline": realdata_suite.peer("Baseline")},
        protocol=CrossValidation(n_folds=3, repeats=2),
        fit=realdata_suite.fit,
    )
    assert study.main(["--out", str(tmp_path / "check"), "--quiet"]) == 0
    records = read_records(tmp_path / "check")
    assert len(records) == 6
    assert all(r["n_kept"] == 3 and r["n_train"] == 20 + 3 and r["n_test"] == 10 for r in records)
    for repeat in range(2):  # the held-out parts of a seed cover the scored rows once
        assert sum(r["n_test"] for r in records if r["repeat"] == repeat) == 30


def test_the_learners_are_the_rules_candidates_each_setting_every_knob_and_the_references():
    for learners in (realdata_suite.CLASSIFIERS, realdata_suite.REGRESSORS):
        for params in learners.values():
            assert {"forest_types", "pair_features", "probe_trees"} <= set(params)
    assert all("calibration" in params for params in realdata_suite.CLASSIFIERS.values())
    assert realdata_suite.CLASSIFIERS["mdDF-base"] == {
        "forest_types": ("rf", "rf", "crf", "crf"),
        "pair_features": None,
        "probe_trees": None,
        "calibration": None,
    }
    # the regressor's new default as the cost page's probe rule made it
    assert realdata_suite.REGRESSORS["CascadeForest-pairs3-probes"] == {
        **realdata_suite.REGRESSORS["CascadeForest-pairs3"],
        "probe_trees": 0.25,
    }
    # the candidates, the base, and the new default as the rule fits it once chosen (its labels checked)
    assert {name for name, *_ in realdata_rule.CANDIDATES["classification"]} == set(realdata_suite.CLASSIFIERS) - {
        "mdDF-base",
        "mdDF-gbdt-cal",
    }
    assert realdata_suite.CLASSIFIERS["mdDF-gbdt-cal"] == {
        **realdata_suite.CLASSIFIERS["mdDF-gbdt"],
        "calibration": "temperature",
    }
    assert {"HGB-es", "LightGBM-es", "XGBoost-es", "CatBoost-es", "RF-400", "ExtraTrees-400", "Baseline"} == set(
        realdata_suite.PEERS
    )


def test_a_cascades_records_are_bound_to_its_full_parameters_defaults_included(monkeypatch):
    from mddf import MDDFClassifier

    before = realdata_suite.learner_settings("mdDF-pairs3")
    assert "'pair_features', PairFeatures(operations=('log_ratio', 'product', 'difference'))" in before
    assert "'random_state'" not in before and realdata_suite.learner_settings("HGB-es") is None
    defaults = MDDFClassifier.__init__.__kwdefaults__
    monkeypatch.setitem(defaults, "n_tolerant_layers", 3)  # a changed default changes the binding
    assert realdata_suite.learner_settings("mdDF-pairs3") != before


@pytest.mark.parametrize(
    ("name", "task"), [("mdDF-gbdt-pairs", "classification"), ("CascadeForest-gbdt", "regression")]
)
def test_the_boosted_member_design_puts_xgboost_beside_the_four_forests(name, task):
    from types import SimpleNamespace

    from sklearn.datasets import make_classification, make_regression

    ctx = SimpleNamespace(seed=0, n_jobs=1, quick=True, task=task)
    model = realdata_suite.METHODS[name](ctx)
    assert model.forest_types == ("rf", "rf", "crf", "crf", "gbdt")
    make = make_classification if task == "classification" else make_regression
    X, y = make(n_samples=90, n_features=5, random_state=0)
    assert model.fit(X, y).predict(X).shape == (90,)


def test_the_paper_check_cross_validates_the_papers_datasets_three_folds_five_seeds(tmp_path):
    args = realdata_suite.PAPER_CHECK.parse(["--check", "paper", "--quiet", "--out", str(tmp_path)])
    assert (args.folds, args.repeats) == (3, 5)
    assert args.dataset_names == ["letter", "satimage", "adult", "yeast", "diabetes", "friedman1", "friedman3"]
    assert args.method_names == list(realdata_suite.PAPER_LEARNERS)
    units = realdata_suite.PAPER_CHECK.units(args)
    assert {(u.seed, u.fold) for u in units} == {(s, f) for s in range(5) for f in range(3)}
    by_dataset = {d: {u.method for u in units if u.dataset == d} for d in args.dataset_names}
    assert by_dataset["adult"] == by_dataset["letter"] == {"mdDF-base"}
    assert by_dataset["friedman1"] == {"CascadeForest-base"}
    named = realdata_suite.PAPER_CHECK.parse(
        ["--check", "paper", "--quiet", "--out", str(tmp_path), "--learners", "mdDF-base,mdDF-gbdt"]
    )
    assert {u.method for u in realdata_suite.PAPER_CHECK.units(named) if u.dataset == "yeast"} == {
        "mdDF-base",
        "mdDF-gbdt",
    }


@pytest.mark.parametrize("argv", [[], ["--report-only"]])
def test_without_the_suites_files_the_study_says_so_in_one_line_and_exits_2(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.setenv(realdata.ENV, str(tmp_path / "nowhere"))
    assert realdata_suite.main([*argv, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"realdata_suite: error: no real-data suite at {tmp_path / 'nowhere'} (no manifest.json): set $MDDF_REALDATA "
        f"to its folder, or rebuild it there with python -m benchmarks.realdata --rebuild {tmp_path / 'nowhere'}\n"
    )
