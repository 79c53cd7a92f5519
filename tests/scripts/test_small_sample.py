"""Small-sample study: every class survives the smallest fractions; figure and numbers are written."""

from mddf.datasets import load_dataset
from mddf.experiments.cli import run_script
from mddf.experiments.protocols import subsample
from mddf.experiments.provenance import read_csv_rows, read_provenance, strip_provenance
from mddf.experiments.small_sample import DEFAULT_FRACTIONS


def test_fractions_keep_every_class_down_to_one_percent():
    for name in ("iris", "digits", "wine"):
        ds = load_dataset(name)
        for fraction in DEFAULT_FRACTIONS:
            sub = subsample(ds, fraction, random_state=0)
            assert set(sub.y_train) == set(ds.y_train), (name, fraction)


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
