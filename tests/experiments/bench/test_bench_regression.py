"""bench_regression.py: every method on the regression datasets, one JSON line per fit, resumable."""

import json

import numpy as np
import pytest

from mddf.experiments.bench import regression as bench_regression
from mddf.experiments.bench.fitting import lightgbm_available
from mddf.experiments.provenance import read_provenance


def test_quick_run_fits_every_method_on_every_dataset_and_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench_regression, "california_cached", lambda: False)  # never downloaded here
    out = tmp_path / "regression"
    argv = ["--quick", "--in-process", "--seeds", "0", "--n-jobs", "1", "--out", str(out)]
    assert bench_regression.main(argv) == 0
    assert "California housing is not in scikit-learn's data folder: it is left out" in capsys.readouterr().err
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    methods = [m for m in bench_regression.METHODS if m != "LightGBM" or lightgbm_available()]
    numeric = [m for m in methods if m not in bench_regression.CATEGORY_METHODS]  # the default datasets are numeric
    assert {(r["dataset"], r["method"]) for r in records} == {
        (d, m) for d in ("diabetes", "friedman1", "friedman3") for m in numeric
    }
    assert all(r["r2"] > 0.1 for r in records)  # 300 noisy rows, 20-tree forests
    cascade = [r for r in records if r["method"] == "CascadeForest"]
    assert all(r["params"] == bench_regression.QUICK_CASCADE and 1 <= r["layers"] <= 2 for r in cascade)
    table = (out / "table.md").read_text()
    assert "| friedman1 |" in table and "Test R^2" in table
    prov = read_provenance(table)
    assert prov["command"] == "python scripts/bench_regression.py " + " ".join(argv)
    assert prov["commit"] and prov["machine"] and prov["date"]
    # a rerun finds every fit done and appends nothing
    capsys.readouterr()
    assert bench_regression.main(argv) == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == len(records)
    assert "seed" not in capsys.readouterr().err


def test_a_fit_runs_in_a_fresh_process(tmp_path):
    out = tmp_path / "fresh"
    argv = ["--quick", "--datasets", "diabetes", "--seeds", "1", "--n-jobs", "1", "--out", str(out)]
    methods = ["CascadeForest"]
    bench_regression.METHODS, saved = tuple(methods), bench_regression.METHODS
    try:
        assert bench_regression.main(argv) == 0
    finally:
        bench_regression.METHODS = saved
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["method"] == "CascadeForest" and record["seed"] == 1 and record["r2"] > 0.2


def test_a_cascade_with_a_predictor_records_what_predicted(tmp_path):
    out = tmp_path / "auto"
    params = '{"predictor": "hgb", "predictor_input": "auto"}'
    argv = ["--quick", "--in-process", "--datasets", "diabetes", "--seeds", "0", "--n-jobs", "1", "--params", params]
    assert bench_regression.main([*argv, "--out", str(out)]) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    (cascade,) = [r for r in records if r["method"] == "CascadeForest"]
    assert cascade["predictor_input"] in {"cascade", "blend", "stacked", "raw"}
    assert 0.0 <= cascade["predictor_weight"] <= 1.0
    assert set(cascade["predictor_input_scores"]) == {"cascade", "stacked", "blend", "raw"}  # as the runner records
    assert all("predictor_input" not in r for r in records if r is not cascade)


def test_help_lists_quick_and_unknown_datasets_are_named(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_regression.main(["--help"])
    assert exit_info.value.code == 0
    assert "--quick" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench_regression.main(["--datasets", "boston"])
    assert "unknown dataset 'boston'" in capsys.readouterr().err


def test_california_housing_is_split_by_the_seed_when_it_is_cached(monkeypatch):
    import sklearn.datasets

    rng = np.random.RandomState(0)
    X, y = rng.rand(400, 8), rng.rand(400)
    calls = []

    def fake_fetch(return_X_y=False, download_if_missing=True):
        calls.append(download_if_missing)
        return (X, y) if return_X_y else None

    monkeypatch.setattr(sklearn.datasets, "fetch_california_housing", fake_fetch)
    assert bench_regression.california_cached()
    X_train, y_train, X_test, y_test = bench_regression.make_data("california", 3, n_rows=200)
    assert X_train.shape == (200, 8) and X_test.shape == (100, 8)  # a quarter held out, the rest capped
    assert not set(map(bytes, X_train)) & set(map(bytes, X_test))
    assert calls == [False, False]  # never downloads

    def missing(return_X_y=False, download_if_missing=True):
        raise OSError("Data not found and `download_if_missing` is False")

    monkeypatch.setattr(sklearn.datasets, "fetch_california_housing", missing)
    assert not bench_regression.california_cached()


def test_select_cross_validates_the_candidates_on_the_training_rows_and_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench_regression, "california_cached", lambda: False)
    out = tmp_path / "select"
    candidates = "rf2-crf2,rf2-crf2 residual"
    argv = ["--select", "--quick", "--in-process", "--datasets", "diabetes,friedman3", "--seeds", "0"]
    argv += ["--candidates", candidates, "--n-jobs", "1", "--out", str(out)]
    test_rows = []
    real_make_data = bench_regression.make_data

    def spy(dataset, seed, n_rows=bench_regression.N_ROWS):
        X_train, y_train, X_test, y_test = real_make_data(dataset, seed, n_rows)
        test_rows.append(X_test)
        return X_train, y_train, np.full_like(X_test, np.nan), np.full_like(y_test, np.nan)  # unusable test rows

    monkeypatch.setattr(bench_regression, "make_data", spy)
    assert bench_regression.main(argv) == 0
    records = [json.loads(line) for line in (out / "selection.jsonl").read_text().splitlines()]
    names = ["rf2-crf2", "rf2-crf2 residual", bench_regression.SELECTION_REFERENCE]
    assert sorted((r["dataset"], r["method"], r["seed"], r["fold"]) for r in records) == sorted(
        (d, m, s, f) for d in ("diabetes", "friedman3") for m in names for s in (0,) for f in range(3)
    )
    assert all(np.isfinite(r["cv_r2"]) for r in records)  # scored without the (NaN) test rows
    cascade = [r for r in records if r["method"] != bench_regression.SELECTION_REFERENCE]
    assert all(r["params"]["predictor"] == "hgb" and np.isfinite(r["cv_r2_predictor"]) for r in cascade)
    text = (out / "selection.md").read_text()
    assert "| rf2-crf2 residual + hgb |" in text and "| HistGradientBoosting |" in text
    chosen, table = bench_regression.select(records, ["diabetes", "friedman3"], [0])
    assert chosen in {"rf2-crf2", "rf2-crf2 + hgb", "rf2-crf2 residual", "rf2-crf2 residual + hgb"}
    assert f"Chosen: {chosen}" in text and table in text
    scores = bench_regression.selection_scores(records)
    means = {n: np.mean([scores[(n, d, s)] for d in ("diabetes", "friedman3") for s in (0,)]) for n, _, _ in scores}
    assert chosen == max((n for n in means if n != "HistGradientBoosting"), key=means.get)
    # a rerun finds every fold done and fits nothing
    capsys.readouterr()
    assert bench_regression.main(argv) == 0
    assert len((out / "selection.jsonl").read_text().splitlines()) == len(records)
    assert "fold" not in capsys.readouterr().err
    # an interrupted selection resumes with the missing folds only
    lines = (out / "selection.jsonl").read_text().splitlines()
    (out / "selection.jsonl").write_text("\n".join(lines[:-2]) + "\n")
    assert bench_regression.main(argv) == 0
    resumed = capsys.readouterr().err
    assert resumed.count("fold") == 2 and len((out / "selection.jsonl").read_text().splitlines()) == len(records)
    assert bench_regression.chosen_params("rf2-crf2 residual + hgb") == {
        **bench_regression.CANDIDATES["rf2-crf2 residual"],
        "predictor": "hgb",
    }


def test_tables_with_categories_give_the_categories_to_the_cascade_and_codes_to_the_random_forests(tmp_path):
    out = tmp_path / "categories"
    argv = ["--quick", "--in-process", "--datasets", "mixed_regression,diabetes", "--seeds", "0", "--n-jobs", "1"]
    assert bench_regression.main([*argv, "--out", str(out)]) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    fitted = {(r["dataset"], r["method"]) for r in records}
    methods = [m for m in bench_regression.METHODS if m != "LightGBM" or lightgbm_available()]
    # the cascade with each categorical_splits named runs on the table with categories, the defaults on numeric data
    named = set(bench_regression.CATEGORY_METHODS)
    assert fitted == {("mixed_regression", m) for m in methods if m != "CascadeForest"} | {
        ("diabetes", m) for m in methods if m not in named
    }
    ordinal = [r for r in records if r["method"] == "CascadeForest-ordinal"]
    assert ordinal and all(r["params"] == bench_regression.QUICK_CASCADE for r in ordinal)
    X_train, y_train, X_test, _ = bench_regression.make_data("mixed_regression", 0, n_rows=300)
    assert X_train.shape == (300, 10) and X_test.shape == (300, 10) and y_train.dtype == np.float64
    assert (X_train.dtypes == "category").sum() == 4
    (codes,) = bench_regression._for_method("RF400", X_train)
    assert codes.dtype == np.float64 and np.isnan(codes).any()  # missing categories and values as NaN
    assert bench_regression._for_method("CascadeForest-subset", X_train)[0] is X_train
    for method, splits in (("CascadeForest-subset", "subset"), ("CascadeForest-ordinal", "ordinal")):
        params = bench_regression.build(method, 0, 1, {"max_layers": 2}).get_params()
        assert params["categorical_splits"] == splits and params["max_layers"] == 2
    table = (out / "table.md").read_text()
    assert "CascadeForest-subset layers kept per seed: mixed_regression:" in table


def test_the_table_leaves_out_the_methods_that_ran_on_none_of_its_datasets():
    def record(method, r2, seed):
        return {"dataset": "adult_age", "method": method, "seed": seed, "r2": r2, "fit_s": 1.0, "layers": 3}

    records = [record("CascadeForest-subset", 0.48, s) for s in (0, 1)] + [record("RF400", 0.44, 0)]
    text = bench_regression.table(records, ["CascadeForest", "CascadeForest-subset", "RF400"])
    assert "| dataset | CascadeForest-subset | RF400 |" in text and "| CascadeForest |" not in text
    assert "| adult_age | 0.4800 ± 0.0000 | 0.4400 ± 0.0000 |" in text


def test_adult_age_reads_age_from_the_other_columns_on_the_standard_split(shared_data, monkeypatch):
    monkeypatch.setenv("MDDF_DATA", str(shared_data))
    X_train, y_train, X_test, y_test = bench_regression.make_data("adult_age", 0)
    assert X_train.shape == (32_561, 13) and X_test.shape == (16_281, 13)
    assert "age" not in X_train.columns and (X_train.dtypes == "category").sum() == 8
    assert 17 <= y_train.min() and y_train.max() <= 90 and y_test.dtype == np.float64
