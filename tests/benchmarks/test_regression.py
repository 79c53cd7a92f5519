"""The regression study: every method on the regression datasets, resumable; the selection of the cascade's
configuration by CV on the training rows."""

import importlib.util

import numpy as np
import pytest
from provenance_files import read_provenance
from study_helpers import read_records

from benchmarks import regression
from benchmarks.harness import Data, Unit

LIGHTGBM = importlib.util.find_spec("lightgbm") is not None
METHODS = [m for m in regression.METHODS if m != "LightGBM" or LIGHTGBM]


@pytest.mark.slow
def test_quick_run_fits_every_method_on_every_dataset_and_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(regression, "california_cached", lambda: False)  # never downloaded here
    out = tmp_path / "regression"
    argv = ["--quick", "--in-process", "--n-jobs", "1", "--out", str(out)]
    assert regression.main(argv) == 0
    assert "California housing is not in scikit-learn's data folder: it is left out" in capsys.readouterr().err
    records = read_records(out)
    numeric = [m for m in METHODS if m not in regression.CATEGORY_METHODS]  # the default datasets are numeric
    assert {(r["dataset"], r["method"]) for r in records} == {
        (d, m) for d in ("diabetes", "friedman1", "friedman3") for m in numeric
    }
    assert all(r["r2"] > 0.1 and r["rmse"] > 0 for r in records)  # 300 noisy rows, 20-tree forests
    cascade = [r for r in records if r["method"] == "CascadeForest"]
    assert all(r["params"] == regression.QUICK_CASCADE and 1 <= r["layers"] <= 2 for r in cascade)
    table = (out / "table.md").read_text()
    assert "| friedman1 |" in table and "Test R^2" in table
    assert read_provenance(table)["command"] == "python -m benchmarks.regression " + " ".join(argv)
    capsys.readouterr()
    assert regression.main(argv) == 0  # a rerun finds every fit done and appends nothing
    assert len(read_records(out)) == len(records) and "seed" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_fit_runs_in_a_fresh_process_and_a_cascade_with_a_predictor_records_what_predicted(tmp_path):
    out = tmp_path / "fresh"
    params = '{"predictor": "hgb", "predictor_input": "auto"}'
    argv = ["--quick", "--datasets", "diabetes", "--methods", "CascadeForest", "--seeds", "1", "--params", params]
    assert regression.main([*argv, "--n-jobs", "1", "--out", str(out)]) == 0
    (record,) = read_records(out)
    assert record["method"] == "CascadeForest" and record["seed"] == 1 and record["r2"] > 0.2
    assert record["predictor_input"] in {"cascade", "blend", "stacked", "raw"} and 0 <= record["predictor_weight"] <= 1
    assert set(record["predictor_input_scores"]) == {"cascade", "stacked", "blend", "raw"}  # as the runner records


def test_unknown_datasets_are_named(capsys):
    with pytest.raises(SystemExit):
        regression.main(["--datasets", "boston"])
    assert "unknown dataset(s) boston" in capsys.readouterr().err


def test_california_housing_is_split_by_the_seed_when_it_is_cached(monkeypatch):
    import sklearn.datasets

    rng = np.random.RandomState(0)
    X, y = rng.rand(400, 8), rng.rand(400)
    calls = []

    def fake_fetch(return_X_y=False, download_if_missing=True):
        calls.append(download_if_missing)
        return (X, y) if return_X_y else None

    monkeypatch.setattr(sklearn.datasets, "fetch_california_housing", fake_fetch)
    assert regression.california_cached()
    X_train, y_train, X_test, y_test = regression.make_data("california", 3, n_rows=200)
    assert X_train.shape == (200, 8) and X_test.shape == (100, 8)  # a quarter held out, the rest capped
    assert not set(map(bytes, X_train)) & set(map(bytes, X_test))
    assert calls == [False, False]  # never downloads

    def missing(return_X_y=False, download_if_missing=True):
        raise OSError("Data not found and `download_if_missing` is False")

    monkeypatch.setattr(sklearn.datasets, "fetch_california_housing", missing)
    assert not regression.california_cached()


@pytest.mark.slow
def test_select_cross_validates_the_candidates_on_the_training_rows_and_resumes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "select"
    argv = ["--select", "--quick", "--in-process", "--datasets", "diabetes,friedman3", "--n-jobs", "1"]
    argv += ["--methods", "rf2-crf2,rf2-crf2 residual,HistGradientBoosting", "--out", str(out)]
    real = regression.make_data

    def unusable_test_rows(dataset, seed, n_rows=regression.N_ROWS):
        X_train, y_train, X_test, y_test = real(dataset, seed, n_rows)
        return X_train, y_train, np.full_like(X_test, np.nan), np.full_like(y_test, np.nan)

    monkeypatch.setattr(regression, "make_data", unusable_test_rows)
    assert regression.main(argv) == 0
    records = read_records(out)
    names = ["rf2-crf2", "rf2-crf2 residual", regression.SELECTION_REFERENCE]
    assert sorted((r["dataset"], r["method"], r["fold"]) for r in records) == sorted(
        (d, m, f) for d in ("diabetes", "friedman3") for m in names for f in range(3)
    )
    assert all(np.isfinite(r["r2"]) for r in records)  # scored without the (NaN) test rows
    cascade = [r for r in records if r["method"] != regression.SELECTION_REFERENCE]
    assert all(r["params"]["predictor"] == "hgb" and np.isfinite(r["r2_predictor"]) for r in cascade)
    text = (out / "selection.md").read_text()
    assert "| rf2-crf2 residual + hgb |" in text and "| HistGradientBoosting |" in text
    means = {
        name: np.mean([r[key] for r in records if r["method"] == method])
        for method in names[:2]
        for name, key in ((method, "r2"), (f"{method} + hgb", "r2_predictor"))
    }
    chosen = max(means, key=means.get)  # one repeat and equal folds: the mean over folds and datasets decides
    assert f"Chosen: {chosen} (" in text
    capsys.readouterr()
    assert regression.main(argv) == 0  # a rerun finds every fold done and fits nothing
    assert len(read_records(out)) == len(records) and "fold" not in capsys.readouterr().err
    assert regression.chosen_params("rf2-crf2 residual + hgb") == {
        **regression.CANDIDATES["rf2-crf2 residual"],
        "predictor": "hgb",
    }


@pytest.mark.slow
def test_tables_with_categories_give_the_categories_to_the_cascade_and_codes_to_the_random_forests(tmp_path):
    out = tmp_path / "categories"
    argv = ["--quick", "--in-process", "--datasets", "mixed_regression,diabetes", "--n-jobs", "1"]
    assert regression.main([*argv, "--out", str(out)]) == 0
    fitted = {(r["dataset"], r["method"]) for r in read_records(out)}
    named = set(regression.CATEGORY_METHODS)
    assert fitted == {("mixed_regression", m) for m in METHODS if m != "CascadeForest"} | {
        ("diabetes", m) for m in METHODS if m not in named
    }
    X_train, y_train, X_test, _ = regression.make_data("mixed_regression", 0, n_rows=300)
    assert X_train.shape == (300, 10) and X_test.shape == (300, 10) and y_train.dtype == np.float64
    assert (X_train.dtypes == "category").sum() == 4
    args = regression.STUDY.parse(["--quick", "--datasets", "mixed_regression"])
    ctx = regression.STUDY.context(args, Unit("mixed_regression", "RF400", 0))
    forest = regression.METHODS["RF400"](ctx)
    assert forest[0].func.__name__ == "ordinal_codes"  # missing categories and values as NaN codes
    for method, splits in (("CascadeForest-subset", "subset"), ("CascadeForest-ordinal", "ordinal")):
        assert regression.METHODS[method](ctx).get_params()["categorical_splits"] == splits
    assert "CascadeForest-subset layers kept per seed: mixed_regression:" in (out / "table.md").read_text()
    assert isinstance(regression.dataset("mixed_regression").load(ctx), Data)


def test_adult_age_reads_age_from_the_other_columns_on_the_standard_split(shared_data, monkeypatch):
    monkeypatch.setenv("MDDF_DATA", str(shared_data))
    X_train, y_train, X_test, y_test = regression.make_data("adult_age", 0)
    assert X_train.shape == (32_561, 13) and X_test.shape == (16_281, 13)
    assert "age" not in X_train.columns and (X_train.dtypes == "category").sum() == 8
    assert 17 <= y_train.min() and y_train.max() <= 90 and y_test.dtype == np.float64
