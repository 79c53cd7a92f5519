"""Small-sample study: every class survives the smallest fractions; figure and numbers are written."""

import pytest
from provenance_files import read_csv_rows, read_provenance, strip_provenance

from mddf.datasets import load_dataset
from mddf.experiments.cli import run_script
from mddf.experiments.protocols import subsample
from mddf.experiments.small_sample import DEFAULT_FRACTIONS


def test_fractions_keep_every_class_down_to_one_percent():
    for name in ("iris", "digits", "wine"):
        ds = load_dataset(name)
        for fraction in DEFAULT_FRACTIONS:
            sub = subsample(ds, fraction, random_state=0)
            assert set(sub.y_train) == set(ds.y_train), (name, fraction)


@pytest.mark.slow
def test_quick_run_writes_figure_and_csv_with_all_classes_present(tmp_path):
    out = tmp_path / "ss"
    code = run_script(
        "small-sample",
        [
            "--quick",
            "--dataset",
            "iris",
            "--methods",
            "RF",
            "--fractions",
            "0.01,0.5,1",
            "--seeds",
            "2",
            "--out",
            str(out),
            "--isolation",
            "inline",
            "--n-jobs",
            "1",
            "--quiet",
        ],
    )
    assert code == 0
    for ext in ("png", "pdf", "csv"):
        assert (out / f"small_sample_iris.{ext}").stat().st_size > 0
    rows = read_csv_rows(out / "small_sample_iris.csv")
    assert [(r["method"], float(r["fraction"])) for r in rows] == [("RF", 0.01), ("RF", 0.5), ("RF", 1.0)]
    assert rows[0]["n_train"] == "3"  # 1% of iris's 105 training rows, one per class
    assert all(r["n_train_classes_min"] == r["n_classes"] == "3" for r in rows)
    assert all(r["n_seeds"] == "2" for r in rows)
    command = read_provenance((out / "small_sample_iris.csv").read_text())["command"]
    assert command.startswith("python scripts/small_sample.py --quick --dataset iris --methods RF")


@pytest.mark.slow
def test_study_on_a_dask_cluster_gives_the_local_numbers(tmp_path, scheduler):
    argv = ["--quick", "--dataset", "iris", "--methods", "mdDF,RF", "--fractions", "0.2,1", "--seeds", "2", "--quiet"]
    assert (
        run_script("small-sample", [*argv, "--out", str(tmp_path / "local"), "--isolation", "inline", "--n-jobs", "1"])
        == 0
    )
    assert run_script("small-sample", [*argv, "--out", str(tmp_path / "cluster"), "--scheduler", scheduler]) == 0
    # the same numbers; only the provenance lines (command, date) differ
    local = strip_provenance((tmp_path / "local" / "small_sample_iris.csv").read_text())
    assert strip_provenance((tmp_path / "cluster" / "small_sample_iris.csv").read_text()) == local
    assert local.count("\n") == 5  # header + 2 methods x 2 fractions


def churn_csv(path, n=600):
    """600 rows, 17% 'churned': at 1% of the 420 training rows the class keeps a single row."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    label = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0.95, "churned", "stayed")
    pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(label=label).to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_the_study_on_a_600_row_csv_completes_with_its_cascades_adapted(tmp_path, capsys):
    # the papers' methods, gcForest among them, on the fractions that failed ("class 0 has 2 training samples")
    data, out = churn_csv(tmp_path / "my.csv"), tmp_path / "out"
    argv = ["--data", str(data), "--target", "label", "--seeds", "1", "--protocol", "paper", "--quick"]
    options = ["--fractions", "0.01,0.02,1", "--out", str(out), "--isolation", "inline", "--n-jobs", "1", "--quiet"]
    assert run_script("small-sample", [*argv, *options]) == 0
    rows = read_csv_rows(out / "small_sample_my.csv")
    assert {(r["method"], float(r["fraction"])) for r in rows} == {
        (m, f) for m in ("mdDF", "gcForest", "RF", "XGBoost") for f in (0.01, 0.02, 1.0)
    }
    smallest = {r["method"]: r for r in rows if r["fraction"] == "0.01"}
    assert smallest["gcForest"]["min_class_rows"] == "1"
    assert smallest["gcForest"]["adapted"] == "class_vectors='oob' (class 'churned' has 1 training row(s))"
    assert smallest["RF"]["adapted_runs"] == "0"
    assert "summary: 12 of 12 runs ok" in capsys.readouterr().err


@pytest.mark.slow
def test_the_practitioner_study_is_the_default_for_a_users_file(tmp_path, capsys):
    data, out = churn_csv(tmp_path / "my.csv"), tmp_path / "out"
    argv = ["--data", str(data), "--target", "label", "--seeds", "1", "--quick", "--fractions", "0.01"]
    assert run_script("small-sample", [*argv, "--out", str(out), "--isolation", "inline", "--n-jobs", "1"]) == 0
    rows = read_csv_rows(out / "small_sample_my.csv")
    assert {r["method"] for r in rows} >= {"mdDF", "Baseline", "HGB-es", "XGBoost-es", "RF-400"}
    assert {r["metric"] for r in rows} == {"roc_auc"}  # 17% 'churned': imbalanced, ranked as the benchmark ranks it


def test_a_fraction_too_small_for_a_method_is_skipped_naming_the_class(tmp_path):
    from dataclasses import replace

    from mddf.datasets.user_data import load_source, source_for
    from mddf.experiments.methods import default_registry
    from mddf.experiments.planning import unusable_fractions

    ds = load_source(source_for(churn_csv(tmp_path / "my.csv"), "label"))
    needy = replace(default_registry().get("RF"), name="Needy", min_class_rows=3)
    skipped = unusable_fractions(ds, [0.01, 0.1, 1.0], [default_registry().get("RF"), needy], seeds=[0])
    assert skipped == {
        (0.01, "Needy"): "fraction 0.01 of seed 0 leaves class 'churned' 1 training row(s); Needy needs 3",
    }


@pytest.mark.slow
def test_a_method_the_folds_leave_too_few_rows_of_a_class_is_named_with_the_class(tmp_path):
    from dataclasses import replace

    from mddf.datasets.user_data import load_source, source_for
    from mddf.experiments.methods import default_registry
    from mddf.experiments.planning import unusable_folds
    from mddf.experiments.protocols import fold_count

    ds = load_source(source_for(churn_csv(tmp_path / "my.csv", n=40), "label"))
    rows = int((ds.classes[ds.y] == "churned").sum())
    k = fold_count(ds.y)  # as many folds as 'churned' has rows, up to 5
    needy = replace(default_registry().get("RF"), name="Needy", min_class_rows=rows)
    skipped = unusable_folds(ds, k, [default_registry().get("RF"), needy], seeds=[0, 1])
    assert list(skipped) == ["Needy"]  # a training fold holds at most rows - 1 of them
    assert skipped["Needy"].endswith(f"leaves class 'churned' {rows - 1} training row(s); Needy needs {rows}")


def test_an_imbalanced_table_is_ranked_and_drawn_as_the_benchmark_ranks_it(tmp_path, capsys):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    y = np.where(np.arange(200) % 20 == 0, "rare", "common")  # 'rare' holds 5% of the rows
    pd.DataFrame({"x": rng.normal(size=200), "y": y}).to_csv(tmp_path / "imb.csv", index=False)
    argv = ["--data", str(tmp_path / "imb.csv"), "--target", "y", "--methods", "Baseline", "--fractions", "1"]
    argv += ["--seeds", "1", "--quick", "--n-jobs", "1", "--isolation", "inline", "--out", str(tmp_path / "ss")]
    assert run_script("small-sample", argv) == 0
    err = capsys.readouterr().err
    assert "imb: ranked by ROC AUC, as its smallest class, 'rare', holds 5% of the rows" in err
    assert "imb / Baseline / seed 0: ROC AUC 0.5000" in err
    (row,) = read_csv_rows(tmp_path / "ss" / "small_sample_imb.csv")
    assert row["metric"] == "roc_auc" and float(row["mean"]) == 0.5
