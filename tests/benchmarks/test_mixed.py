"""The mixed-data study: every method on the same DataFrames, resumable; the selection by CV on training rows."""

import importlib.util

import numpy as np
import pytest
from provenance_files import read_provenance
from study_helpers import read_records

from benchmarks import data, mixed
from benchmarks.data import load_frames
from benchmarks.harness import Unit

LIGHTGBM = importlib.util.find_spec("lightgbm") is not None
SMALL = ["--quick", "--datasets", "mixed_categories", "--n-jobs", "1"]


def _records(out, protocol):
    return [r for r in read_records(out) if r["config"]["protocol"] == protocol]


@pytest.mark.slow
def test_the_selection_then_the_test_comparison_with_the_recommended_configuration_and_a_resume(tmp_path, capsys):
    out = tmp_path / "mixed"
    assert mixed.main([*SMALL, "--select", "--out", str(out)]) == 0
    cvs = _records(out, "cross-validation")
    assert sorted({r["method"] for r in cvs}) == sorted(mixed.CONFIGURATIONS)  # the configurations only
    assert len(cvs) == 2 * len(mixed.CONFIGURATIONS)  # --quick: one repeat of two folds
    inputs = {r["method"]: r.get("predictor_input") for r in cvs}  # what the predictor read, where there is one
    assert inputs["mdDF-subset"] is None and inputs["mdDF-subset-hgbpred"] == "stacked"
    assert all(0.0 <= r["predictor_weight"] <= 1.0 for r in cvs if r["method"] == "mdDF-subset-hgbpred-auto")
    selection = (out / "selection.md").read_text()
    (chosen,) = [m for m in mixed.CONFIGURATIONS if f"**{m}**" in selection]
    assert f"{chosen} (recommended)" in selection
    assert "| mean CV rank |" in selection

    argv = [*SMALL, "--out", str(out)]
    assert mixed.main(argv) == 0
    tests = _records(out, "train/test")
    methods = [m for m in mixed.DEFAULT_METHODS if m != "LightGBM" or LIGHTGBM]  # no ablation unless named
    assert sorted(r["method"] for r in tests) == sorted(methods)
    assert all(0.4 < r["accuracy"] <= 1 and r["fit_s"] > 0 and r["versions"] for r in tests)
    auto = next(r for r in tests if r["method"] == "mdDF-subset-hgbpred-auto")
    assert auto["predictor_input"] in {"cascade", "blend", "stacked", "raw"}
    assert set(auto["predictor_input_scores"]) == {"cascade", "stacked", "blend", "raw"}
    table = (out / "table.md").read_text()
    assert f"recommended: {chosen}" in table and "| mean rank |" in table
    assert "Each mdDF configuration ranked against HGB, XGBoost" in table
    assert all(f"\n| {m} | " in table for m in mixed.CONFIGURATIONS)  # a row each in the reference ranking
    assert read_provenance(table)["command"] == "python -m benchmarks.mixed " + " ".join(argv)
    capsys.readouterr()
    assert mixed.main(argv) == 0  # a rerun finds every fit done and appends nothing
    assert len(read_records(out)) == len(cvs) + len(tests) and "seed" not in capsys.readouterr().err


@pytest.mark.slow
def test_the_selection_does_not_change_when_the_test_labels_are_permuted(tmp_path, monkeypatch):
    def run(out):
        argv = ["--quick", "--datasets", "mixed_categories,iris", "--methods", "mdDF,mdDF-subset", "--n-jobs", "1"]
        assert mixed.main([*argv, "--select", "--out", str(out)]) == 0
        assert mixed.main([*argv, "--out", str(out)]) == 0
        cv = {(r["dataset"], r["method"], r["fold"]): r["accuracy"] for r in _records(out, "cross-validation")}
        test = {(r["dataset"], r["method"]): r["accuracy"] for r in _records(out, "train/test")}
        chosen = [line for line in (out / "selection.md").read_text().splitlines() if line.startswith("Recommended")]
        return cv, test, chosen

    cv, test, chosen = run(tmp_path / "as-is")
    real = data.load_frames

    def permuted_test_labels(name, **options):
        X_train, y_train, X_test, y_test = real(name, **options)
        return X_train, y_train, X_test, np.random.default_rng(0).permutation(y_test)

    monkeypatch.setattr(data, "load_frames", permuted_test_labels)
    cv_permuted, test_permuted, chosen_permuted = run(tmp_path / "permuted")
    assert test_permuted != test  # the test rows did change
    assert cv_permuted == cv and chosen_permuted == chosen and chosen[0].startswith("Recommended by 1 x 2-fold CV")


def test_select_ranks_on_the_datasets_every_configuration_has_and_breaks_ties_by_cv_accuracy():
    cv = {("a", "x"): [0.9], ("a", "y"): [0.8], ("b", "x"): [0.6], ("b", "y"): [0.75], ("c", "x"): [0.1]}
    # a: x first, b: y first -> both rank 1.5; y's mean CV accuracy is higher; c lacks y and does not count
    assert mixed.select(cv, ["x", "y"], ["a", "b", "c"]) == ("y", {"x": 1.5, "y": 1.5})
    assert mixed.select(cv, ["x", "y"], ["c"]) == (None, {})


def test_each_configuration_is_ranked_against_the_reference_learners_alone():
    def test(dataset, method, accuracy):
        return {"dataset": dataset, "method": method, "accuracy": accuracy}

    records = [
        *(test("a", m, acc) for m, acc in [("x", 0.9), ("y", 0.5), ("R", 0.8), ("S", 0.7)]),
        *(test("b", m, acc) for m, acc in [("x", 0.6), ("y", 0.95), ("R", 0.9), ("S", 0.7)]),
    ]
    rows = mixed.reference_rank_table(records, ["x", "y", "z"], ("R", "S"), ["a", "b"]).splitlines()[2:]
    # with x: x is 1st on a and 3rd on b (2.00), R 2nd and 1st (1.50); with y: y 3rd and 1st (2.00), R 1st
    # and 2nd (1.50); z has no record and gets no row
    assert rows == ["| x | 2.00 | R | 1.50 | no |", "| y | 2.00 | R | 1.50 | no |"]
    records.append(test("a", "w", 0.8))  # w on a alone: w and R share the first place there
    assert mixed.reference_rank_table(records, ["w"], ("R", "S"), ["a", "b"]).splitlines()[2:] == [
        "| w | 1.50 | R | 1.50 | tied |"
    ]


def test_unknown_methods_and_a_selection_without_configurations_are_rejected(tmp_path, capsys):
    with pytest.raises(SystemExit):
        mixed.main(["--quick", "--methods", "SVM", "--out", str(tmp_path)])
    assert "unknown method(s) SVM" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mixed.main(["--quick", "--select", "--methods", "HGB", "--out", str(tmp_path)])
    assert "--select needs at least one mdDF configuration" in capsys.readouterr().err


@pytest.mark.slow
def test_ablations_are_cross_validated_when_named_but_never_recommended_and_give_xgboost_the_codes(tmp_path):
    out = tmp_path / "mixed"
    methods = ",".join(["mdDF-subset-xgbpred", *mixed.ABLATIONS])
    assert mixed.main([*SMALL, "--select", "--methods", methods, "--out", str(out)]) == 0
    assert sorted({r["method"] for r in read_records(out)}) == sorted(methods.split(","))
    selection = (out / "selection.md").read_text()
    assert "**mdDF-subset-xgbpred** (mean CV rank 1.00)" in selection  # the only candidate
    assert "| mdDF-subset-xgbpred (recommended) | mdDF-subset-gbdt-codes (ablation) |" in selection
    X, y = load_frames("mixed_categories", quick=True)[:2]
    args = mixed.STUDY.parse(["--quick"])
    ctx = mixed.STUDY.context(args, Unit("mixed_categories", "mdDF-subset-xgbpred", 0))
    named = mixed.METHODS["mdDF-subset-xgbpred"](ctx).fit(X, y)
    codes = mixed.METHODS["mdDF-subset-xgbpred-codes"](ctx).fit(X, y)
    assert "c" in named.predictor_.get_params()["feature_types"]
    assert codes.predictor_.get_params()["feature_types"] is None
    gbdt = mixed.METHODS["mdDF-subset-gbdt-codes"](ctx).fit(X, y)
    assert all(m.estimator.get_params()["feature_types"] is None for m in gbdt.layers_[0].models_[3])


def test_hgb_given_pca_features_runs_only_when_named_and_sees_the_categories_and_the_components():
    assert "HGB-pca" not in mixed.DEFAULT_METHODS
    X, y = load_frames("mixed_categories", quick=True)[:2]
    ctx = mixed.STUDY.context(mixed.STUDY.parse(["--quick"]), Unit("mixed_categories", "HGB-pca", 0))
    hgb = mixed.METHODS["HGB-pca"](ctx).fit(X, y)[-1]
    n_numeric = sum(X[c].dtype.kind == "f" for c in X.columns)
    assert hgb.n_features_in_ == X.shape[1] + n_numeric
    assert hgb.is_categorical_.sum() == sum(str(X[c].dtype) == "category" for c in X.columns) > 0
    pca = mixed.METHODS["mdDF-subset-hgbpred-pca"](ctx).fit(X, y)
    assert pca[-1].n_features_in_ == X.shape[1] + n_numeric and pca[-1].predictor == "hgb"
