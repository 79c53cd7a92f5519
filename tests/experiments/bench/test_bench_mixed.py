"""bench_mixed.py: seeded mixed-type generators, every method on the same DataFrames, resumable, CV on training rows."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from mddf.experiments.bench import mixed as bench_mixed
from mddf.experiments.bench.fitting import lightgbm_available
from mddf.experiments.bench.mixed import (
    ABLATIONS,
    CONFIGURATIONS,
    DEFAULT_METHODS,
    METHODS,
    cross_validate,
    reference_rank_table,
    select,
)
from mddf.experiments.bench.mixed_data import (
    QUICK_ROWS,
    categorical_frame,
    load_frames,
    mixed_categories,
    mixed_categories_regression,
    numeric_interaction,
    ordinal_codes,
)
from mddf.experiments.provenance import read_provenance


def _records(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


# ----------------------------------------------------------------------------- the data


def test_mixed_categories_is_seeded_with_category_columns_and_missing_values():
    X, y = mixed_categories(2_000, random_state=3)
    X_again, y_again = mixed_categories(2_000, random_state=3)
    pd.testing.assert_frame_equal(X, X_again)
    np.testing.assert_array_equal(y, y_again)
    assert not X.equals(mixed_categories(2_000, random_state=4)[0])
    assert X.shape == (2_000, 10) and set(np.unique(y)) == {0, 1}
    levels = {name: len(X[name].cat.categories) for name in ("cat_a", "cat_b", "cat_c", "cat_d")}
    assert levels == {"cat_a": 40, "cat_b": 12, "cat_c": 3, "cat_d": 8}
    assert all(X[f"num{j}"].dtype == np.float64 for j in range(6))
    missing = X.isna().mean()
    assert all(0.07 < missing[c] < 0.13 for c in ("num0", "num1", "num2"))
    assert all(0.03 < missing[c] < 0.07 for c in ("cat_a", "cat_b"))
    assert missing[["num3", "num4", "num5", "cat_c", "cat_d"]].sum() == 0


def test_mixed_categories_label_needs_the_category_set_and_the_threshold_jointly():
    # the label's dependence on cat_a flips sign with num0 > 0: within each category of cat_a, the
    # share of positive labels moves in opposite directions for about half of the categories
    X, y = mixed_categories(30_000, random_state=0)
    frame = pd.DataFrame({"a": X["cat_a"], "num0": X["num0"], "y": y}).dropna()
    frame["above"] = frame["num0"] > 0
    share = frame.groupby(["a", "above"], observed=True)["y"].mean().unstack()
    rises = share[True] > share[False]
    assert 17 <= rises.sum() <= 23  # the set S has 20 of the 40 categories


def test_mixed_categories_regression_has_the_same_columns_and_a_continuous_target_of_the_same_structure():
    X, y = mixed_categories_regression(30_000, random_state=0)
    X_cls, _ = mixed_categories(30_000, random_state=0)
    again, y_again = mixed_categories_regression(30_000, random_state=0)
    pd.testing.assert_frame_equal(X, again)
    np.testing.assert_array_equal(y, y_again)
    assert list(X.columns) == list(X_cls.columns) and (X.dtypes == X_cls.dtypes).all()
    # the same rows drawn: values present in both tables are equal (only the values removed differ)
    both = X.notna() & X_cls.notna()
    assert all((X[c][both[c]] == X_cls[c][both[c]]).all() for c in X.columns)
    assert y.dtype == np.float64 and len(np.unique(y)) == len(y)
    assert 8.5 < y.var() < 9.8  # var(eta) of about 8.14 plus the unit noise
    # the category set of cat_a acts through the sign of num0, as for the label of mixed_categories
    frame = pd.DataFrame({"a": X["cat_a"], "num0": X["num0"], "y": y}).dropna()
    frame["above"] = frame["num0"] > 0
    mean = frame.groupby(["a", "above"], observed=True)["y"].mean().unstack()
    assert 17 <= (mean[True] > mean[False]).sum() <= 23


def test_numeric_interaction_reads_the_grade_from_the_rate_of_the_annuity():
    X, y = numeric_interaction(5_000, random_state=1)
    pd.testing.assert_frame_equal(X, numeric_interaction(5_000, random_state=1)[0])
    assert X.shape == (5_000, 7) and all(X.dtypes == np.float64) and not X.isna().any().any()
    assert set(np.unique(y)) == {0, 1, 2, 3, 4} and set(X["term"]) == {36.0, 60.0}
    # instalment / amount rises with the rate, hence with the grade, at either term
    for term in (36.0, 60.0):
        rows = X["term"] == term
        ratio = (X["instalment"] / X["amount"])[rows].groupby(y[rows]).median()
        assert ratio.is_monotonic_increasing


def test_categorical_frame_turns_codes_into_categories_and_nan_into_missing():
    X = np.array([[0.0, 1.5], [2.0, np.nan], [np.nan, 3.0]])
    categories = {"colour": ["blue", "green", "red"]}
    frame = categorical_frame(X, ["colour", "size"], [True, False], categories, index=[7, 8, 9])
    assert list(frame.index) == [7, 8, 9]
    assert isinstance(frame["colour"].dtype, pd.CategoricalDtype)
    assert frame["colour"].tolist()[:2] == ["blue", "red"] and pd.isna(frame["colour"].iloc[2])
    assert frame["size"].dtype == np.float64 and np.isnan(frame["size"].iloc[1])
    np.testing.assert_array_equal(ordinal_codes(frame), [[0.0, 1.5], [2.0, np.nan], [np.nan, 3.0]])


def test_load_frames_gives_training_and_test_rows_disjoint_labels_and_the_same_columns():
    X_train, y_train, X_test, y_test = load_frames("mixed_categories", quick=True)
    assert (len(y_train), len(y_test)) == QUICK_ROWS
    assert not set(X_train.index) & set(X_test.index)
    pd.testing.assert_series_equal(X_train.dtypes, X_test.dtypes)
    # a dataset from the loader: columns x0, x1, ..., labels encoded 0 .. k-1, a stratified slice
    X_train, y_train, X_test, y_test = load_frames("iris", quick=True)
    assert list(X_train.columns) == ["x0", "x1", "x2", "x3"] and set(y_train) == {0, 1, 2}
    assert not set(X_train.index) & set(X_test.index)


# ----------------------------------------------------------------------------- the runs


def test_quick_run_fits_every_method_on_the_same_frames_writes_the_tables_and_resumes(tmp_path, capsys):
    out = tmp_path / "mixed"
    argv = [
        "--quick",
        "--select",
        "--cv-folds",
        "2",
        "--datasets",
        "mixed_categories",
        "--seeds",
        "0",
        "--n-jobs",
        "1",
        "--out",
        str(out),
    ]
    assert bench_mixed.main(argv) == 0
    records = _records(out)
    methods = [m for m in DEFAULT_METHODS if m != "LightGBM" or lightgbm_available()]  # no ablation unless named
    tests = [r for r in records if r["stage"] == "test"]
    cvs = [r for r in records if r["stage"] == "cv"]
    assert sorted(r["method"] for r in tests) == sorted(methods)
    assert sorted(r["method"] for r in cvs) == sorted(CONFIGURATIONS)
    assert all(0.4 < r["accuracy"] <= 1 and r["fit_s"] > 0 and r["versions"] for r in tests)
    assert all(len(r["fold_accuracies"]) == 2 and r["n_folds"] == 2 for r in cvs)
    inputs = {r["method"]: r.get("predictor_input") for r in tests}  # what the predictor read, where there is one
    assert inputs["mdDF-subset"] is None and inputs["mdDF-subset-hgbpred"] == "stacked"
    assert inputs["mdDF-subset-hgbpred-auto"] in {"cascade", "blend", "stacked", "raw"}
    auto = next(r for r in tests if r["method"] == "mdDF-subset-hgbpred-auto")
    assert set(auto["predictor_input_scores"]) == {"cascade", "stacked", "blend", "raw"}
    assert 0.0 <= auto["predictor_weight"] <= 1.0
    cv_inputs = {r["method"]: r.get("fold_predictor_inputs") for r in cvs}  # the same, per CV fold
    assert cv_inputs["mdDF-subset"] is None and cv_inputs["mdDF-subset-hgbpred"] == ["stacked", "stacked"]
    assert set(cv_inputs["mdDF-subset-hgbpred-auto"]) <= {"cascade", "blend", "stacked", "raw"}
    cv_weights = {r["method"]: r.get("fold_predictor_weights") for r in cvs}
    assert cv_weights["mdDF-subset-hgbpred"] == [1.0, 1.0]
    assert all(0.0 <= w <= 1.0 for w in cv_weights["mdDF-subset-hgbpred-auto"])
    table = (out / "table.md").read_text()
    assert "| mixed_categories |" in table and "| mean rank |" in table and "| mean CV rank |" in table
    assert "Each mdDF configuration ranked against HGB, XGBoost" in table
    assert all(f"\n| {m} | " in table for m in CONFIGURATIONS)  # a row each in the reference ranking
    recommended = [line for line in table.splitlines() if line.startswith("Recommended by 2-fold CV")]
    assert len(recommended) == 1 and any(f"**{m}**" in recommended[0] for m in CONFIGURATIONS)
    assert read_provenance(table)["command"] == "python scripts/bench_mixed.py " + " ".join(argv)
    csv = (out / "table.csv").read_text()
    assert csv.count(",True\n") == 1 and "mixed_categories,RF400," in csv
    # a rerun finds every fit done and appends nothing
    capsys.readouterr()
    assert bench_mixed.main(argv) == 0
    assert len(_records(out)) == len(records)
    assert "seed" not in capsys.readouterr().err


class _RowRecorder(DecisionTreeClassifier):
    """A tree on the ordinal codes that records the row labels it is fitted on and asked about."""

    seen: list = []

    def fit(self, X, y):
        self.seen.append(("fit", set(X.index)))
        return super().fit(ordinal_codes(X), y)

    def predict(self, X):
        self.seen.append(("predict", set(X.index)))
        return super().predict(ordinal_codes(X))


def test_the_cv_folds_hold_training_rows_only(monkeypatch):
    monkeypatch.setitem(METHODS, "recorder", lambda seed, n_jobs, quick: _RowRecorder(random_state=seed))
    monkeypatch.setattr(_RowRecorder, "seen", [])
    X_train, y_train, X_test, _ = load_frames("mixed_categories", quick=True)
    record = cross_validate("recorder", "mixed_categories", X_train, y_train, 0, 1, True, 3)
    assert record["stage"] == "cv" and len(record["fold_accuracies"]) == 3
    seen = _RowRecorder.seen
    assert [what for what, _ in seen] == ["fit", "predict"] * 3
    fitted = [rows for what, rows in seen if what == "fit"]
    predicted = [rows for what, rows in seen if what == "predict"]
    training = set(X_train.index)
    assert all(rows <= training for rows in fitted + predicted)
    assert all(not (f & p) for f, p in zip(fitted, predicted))  # a held-out fold is never fitted on
    assert set().union(*predicted) == training


def test_the_selection_does_not_change_when_the_test_labels_are_permuted(tmp_path, monkeypatch):
    def run(out):
        argv = ["--quick", "--select", "--datasets", "mixed_categories,iris", "--methods", "mdDF,mdDF-subset"]
        assert bench_mixed.main([*argv, "--seeds", "0", "--n-jobs", "1", "--out", str(out)]) == 0
        records = _records(out)
        cv = {(r["dataset"], r["method"]): r["fold_accuracies"] for r in records if r["stage"] == "cv"}
        test = {(r["dataset"], r["method"]): r["accuracy"] for r in records if r["stage"] == "test"}
        chosen = [line for line in (out / "table.md").read_text().splitlines() if line.startswith("Recommended")]
        return cv, test, chosen

    cv, test, chosen = run(tmp_path / "as-is")

    def permuted_test_labels(name, **options):
        X_train, y_train, X_test, y_test = load_frames(name, **options)
        return X_train, y_train, X_test, np.random.default_rng(0).permutation(y_test)

    monkeypatch.setattr(bench_mixed, "load_frames", permuted_test_labels)
    cv_permuted, test_permuted, chosen_permuted = run(tmp_path / "permuted")
    assert test_permuted != test  # the test rows did change
    assert cv_permuted == cv and chosen_permuted == chosen and len(chosen) == 1


def test_cv_datasets_limit_the_selection_and_its_fits_while_the_test_tables_keep_every_dataset(tmp_path, capsys):
    out = tmp_path / "mixed"
    argv = ["--quick", "--select", "--cv-folds", "2", "--datasets", "mixed_categories,iris", "--seeds", "0"]
    argv += ["--methods", "mdDF,mdDF-subset,HGB", "--cv-datasets", "iris", "--n-jobs", "1", "--out", str(out)]
    assert bench_mixed.main(argv) == 0
    records = _records(out)
    assert {(r["dataset"], r["method"]) for r in records if r["stage"] == "cv"} == {
        ("iris", "mdDF"),
        ("iris", "mdDF-subset"),
    }
    assert {r["dataset"] for r in records if r["stage"] == "test"} == {"mixed_categories", "iris"}
    table = (out / "table.md").read_text()
    assert "Recommended by 2-fold CV on the training rows (seeds 0, datasets iris): **" in table
    cv_part = table.split("CV accuracy (%) on the training rows")[1]
    assert "| iris |" in cv_part and "| mixed_categories |" not in cv_part
    assert "| mixed_categories |" in table.split("Recommended by")[0]
    with pytest.raises(SystemExit):
        bench_mixed.main([*argv[:-2], "--cv-datasets", "letter", "--out", str(out)])
    assert "--cv-datasets ['letter'] are not among --datasets" in capsys.readouterr().err


def test_report_only_fits_nothing_tables_the_records_and_lists_the_pending_fits(tmp_path):
    out = tmp_path / "mixed"
    argv = ["--quick", "--datasets", "mixed_categories", "--methods", "HGB,RF400", "--n-jobs", "1", "--out", str(out)]
    assert bench_mixed.main([*argv, "--seeds", "0"]) == 0
    records = _records(out)
    assert bench_mixed.main([*argv, "--seeds", "0,1", "--report-only"]) == 0
    assert _records(out) == records  # nothing fitted
    table = (out / "table.md").read_text()
    hgb = next(r["accuracy"] for r in records if r["method"] == "HGB")
    assert f"| {100 * hgb:.2f} ± 0.00 |" in table.split("\n| mean rank")[0]  # the seed-0 records, tabled
    assert "Pending (not fitted yet, so left out of the tables above):" in table
    assert "- mixed_categories (test): HGB (seeds 1); RF400 (seeds 1)" in table


def test_select_ranks_on_the_datasets_every_configuration_has_and_breaks_ties_by_cv_accuracy():
    def cv(dataset, method, accuracy):
        return {"dataset": dataset, "method": method, "cv_accuracy": accuracy}

    records = [cv("a", "x", 0.9), cv("a", "y", 0.8), cv("b", "x", 0.6), cv("b", "y", 0.75), cv("c", "x", 0.1)]
    # a: x first, b: y first -> both rank 1.5; y's mean CV accuracy is higher; c lacks y and does not count
    assert select(records, ["x", "y"], ["a", "b", "c"]) == ("y", {"x": 1.5, "y": 1.5})
    assert select(records, ["x", "y"], ["c"]) == (None, {})


def test_each_configuration_is_ranked_against_the_reference_learners_alone():
    def test(dataset, method, accuracy):
        return {"dataset": dataset, "method": method, "accuracy": accuracy}

    records = [
        *(test("a", m, acc) for m, acc in [("x", 0.9), ("y", 0.5), ("R", 0.8), ("S", 0.7)]),
        *(test("b", m, acc) for m, acc in [("x", 0.6), ("y", 0.95), ("R", 0.9), ("S", 0.7)]),
    ]
    rows = reference_rank_table(records, ["x", "y", "z"], ("R", "S"), ["a", "b"]).splitlines()[2:]
    # with x: x is 1st on a and 3rd on b (2.00), R 2nd and 1st (1.50); with y: y 3rd and 1st (2.00), R 1st
    # and 2nd (1.50); z has no record and gets no row
    assert rows == [
        "| x | 2.00 | R | 1.50 | no |",
        "| y | 2.00 | R | 1.50 | no |",
    ]
    # w has a record on a alone, so only a ranks it: w and R share the first place (1.50), S is 3rd; were b
    # ranked too, R would be at 1.25 there and ahead of w
    records.append(test("a", "w", 0.8))
    assert reference_rank_table(records, ["w"], ("R", "S"), ["a", "b"]).splitlines()[2:] == [
        "| w | 1.50 | R | 1.50 | tied |"
    ]


def test_unknown_methods_and_a_selection_without_configurations_are_rejected(tmp_path, capsys):
    with pytest.raises(SystemExit):
        bench_mixed.main(["--quick", "--methods", "SVM", "--out", str(tmp_path)])
    assert "unknown methods ['SVM']" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench_mixed.main(["--quick", "--select", "--methods", "HGB", "--out", str(tmp_path)])
    assert "--select needs at least one mdDF configuration" in capsys.readouterr().err


def test_the_help_lists_quick_select_and_out(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_mixed.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "--quick" in text and "--select" in text and "--out" in text


def test_ablations_run_and_are_cross_validated_when_named_but_never_selected_and_give_xgboost_the_codes(tmp_path):
    out = tmp_path / "mixed"
    methods = ",".join(["mdDF-subset-xgbpred", *ABLATIONS])
    argv = ["--quick", "--select", "--cv-folds", "2", "--datasets", "mixed_categories", "--seeds", "0"]
    assert bench_mixed.main([*argv, "--n-jobs", "1", "--methods", methods, "--out", str(out)]) == 0
    records = _records(out)
    assert sorted(r["method"] for r in records if r["stage"] == "test") == sorted(methods.split(","))
    assert sorted(r["method"] for r in records if r["stage"] == "cv") == sorted(methods.split(","))
    table = (out / "table.md").read_text()
    assert "**mdDF-subset-xgbpred** (mean CV rank 1.00)" in table  # the only candidate
    assert "| mdDF-subset-xgbpred (recommended) | mdDF-subset-gbdt-codes (ablation) |" in table
    X, y = load_frames("mixed_categories", quick=True)[:2]
    named = METHODS["mdDF-subset-xgbpred"](0, 1, True).fit(X, y)
    codes = METHODS["mdDF-subset-xgbpred-codes"](0, 1, True).fit(X, y)
    assert "c" in named.predictor_.get_params()["feature_types"]
    assert codes.predictor_.get_params()["feature_types"] is None
    gbdt = METHODS["mdDF-subset-gbdt-codes"](0, 1, True).fit(X, y)
    assert all(m.estimator.get_params()["feature_types"] is None for m in gbdt.layers_[0].models_[3])


def test_hgb_given_pca_features_runs_only_when_named_and_sees_the_categories_and_the_components():
    assert "HGB-pca" not in bench_mixed.DEFAULT_METHODS and "HGB-pca" in bench_mixed.FEATURE_REFERENCES
    X, y = load_frames("mixed_categories", quick=True)[:2]
    model = METHODS["HGB-pca"](0, 1, True).fit(X, y)
    hgb = model[-1]
    n_numeric = sum(X[c].dtype.kind == "f" for c in X.columns)
    assert hgb.n_features_in_ == X.shape[1] + n_numeric
    assert hgb.is_categorical_.sum() == sum(str(X[c].dtype) == "category" for c in X.columns) > 0
    pca = METHODS["mdDF-subset-hgbpred-pca"](0, 1, True).fit(X, y)
    assert pca[-1].n_features_in_ == X.shape[1] + n_numeric and pca[-1].predictor == "hgb"
