"""The DF21 comparison: the --quick run (fresh processes), DF21 left out with a message when its environment is
absent, resuming, the rotated interleaved rounds, and the per-round ratios (stand-ins for the fits)."""

import numpy as np
import pytest
from provenance_files import read_csv_rows, read_provenance
from study_helpers import read_records

from benchmarks import df21, harness
from benchmarks.harness import Data
from mddf.experiments.provenance import MARKDOWN_BEGIN

DF21_VERSIONS, DF21_MISSING = df21.probe_df21(df21.df21_python())


@pytest.mark.slow
def test_quick_run_without_df21_says_so_runs_the_rest_and_resumes(tmp_path, capsys):
    out = tmp_path / "df21"
    argv = ["--quick", "--df21-python", str(tmp_path / "no-env" / "bin" / "python"), "--out", str(out)]
    assert df21.main(argv) == 0
    err = capsys.readouterr().err
    assert "DF21 left out: no DF21 environment" in err and "benchmarks/setup_df21_env.sh" in err
    records = read_records(out)
    assert sorted(r["method"] for r in records) == ["RF400", "mdDF k-fold", "mdDF oob"]
    for r in records:
        assert r["status"] == "ok" and r["dataset"] == "digits" and r["seed"] == 0 and r["round"] == 0
        assert r["accuracy"] > 0.8 and r["fit_s"] > 0 and r["peak_rss_mb"] > 0
    assert all(1 <= r["layers"] <= 2 for r in records if r["method"] != "RF400")
    markdown = (out / "df21_comparison.md").read_text()
    assert markdown.startswith(MARKDOWN_BEGIN) and "--quick" in read_provenance(markdown)["command"]
    assert "left out (no DF21 environment)" in markdown and "| digits | mdDF oob |" in markdown
    rows = read_csv_rows(out / "df21_comparison.csv")
    assert {r["method"] for r in rows} == {"mdDF k-fold", "mdDF oob", "RF400"}
    assert all(r["fit_vs_df21"] == "" and float(r["fit_vs_rf400"]) > 0 for r in rows if r["method"] != "RF400")
    assert df21.main(argv) == 0  # a rerun finds every fit done: nothing appended, nothing fitted
    assert len(read_records(out)) == len(records) and "digits /" not in capsys.readouterr().err


@pytest.mark.skipif(DF21_VERSIONS is None, reason=f"no DF21 environment ({DF21_MISSING})")
def test_quick_run_fits_df21_under_its_own_interpreter(tmp_path):
    out = tmp_path / "df21"
    assert df21.main(["--quick", "--methods", "DF21,RF400", "--out", str(out)]) == 0
    record = next(r for r in read_records(out) if r["method"] == "DF21")
    assert record["status"] == "ok" and record["accuracy"] > 0.8 and 1 <= record["layers"] <= 2
    assert record["df21_versions"]["deep-forest"] == "0.1.7" and record["df21_versions"]["python"].startswith("3.9")
    assert (out / "data" / "digits.npz").exists()
    rf = next(r for r in read_csv_rows(out / "df21_comparison.csv") if r["method"] == "RF400")
    assert float(rf["fit_vs_df21"]) > 0
    assert "deep-forest 0.1.7 under Python 3.9" in (out / "df21_comparison.md").read_text()


def test_rounds_rotate_the_methods_and_resume_per_dataset_method_seed_round(tmp_path, monkeypatch):
    calls = []
    times = {"mdDF k-fold": 3.0, "mdDF oob": 1.0, "RF400": 2.0}

    def fake_fit(function, study, args, unit):  # a stand-in for the fresh-process fit: its time names the method
        calls.append((unit.method, unit.seed))
        return {"accuracy": 0.9, "fit_s": times[unit.method], "predict_s": times[unit.method] / 10, "peak_rss_mb": 1.0}

    monkeypatch.setattr(harness.units, "in_fresh_process", fake_fit)
    out = tmp_path / "rounds"
    argv = ["--datasets", "digits", "--seeds", "0,1", "--methods", "mdDF k-fold,mdDF oob,RF400", "--out", str(out)]
    assert df21.main([*argv, "--rounds", "2"]) == 0
    order, rotated = ["mdDF k-fold", "mdDF oob", "RF400"], ["mdDF oob", "RF400", "mdDF k-fold"]
    assert [m for m, _ in calls] == order + order + rotated + rotated
    assert [s for _, s in calls] == [0, 0, 0, 1, 1, 1] * 2
    assert df21.main([*argv, "--rounds", "3"]) == 0  # a third round runs only the new fits
    assert [m for m, _ in calls[12:]] == ["RF400", "mdDF k-fold", "mdDF oob"] * 2
    assert len(read_records(out)) == 18
    kfold = next(r for r in read_csv_rows(out / "df21_comparison.csv") if r["method"] == "mdDF k-fold")
    assert kfold["rounds"] == "3" and kfold["runs"] == "6" and float(kfold["fit_vs_rf400"]) == pytest.approx(1.5)


def test_ratios_are_per_round_pairs_summarised_by_their_median():
    def record(method, seed, round_index, fit_s):
        fields = {"accuracy": 0.97, "predict_s": 1.0, "peak_rss_mb": 100.0, "layers": 3}
        return {"dataset": "letter", "method": method, "seed": seed, "round": round_index, "fit_s": fit_s, **fields}

    # round 1 ran on a slower machine: pairwise ratios stay 1.0, while medians of each column would give 2/4
    records = [record("mdDF k-fold", 0, 0, 2.0), record("DF21", 0, 0, 2.0)]
    records += [record("mdDF k-fold", 0, 1, 4.0), record("DF21", 0, 1, 4.0)]
    records += [record("mdDF k-fold", 0, 2, 2.0), record("DF21", 0, 2, 4.0)]
    rows = df21.summarise(records, ["letter"], ["mdDF k-fold", "DF21"])
    kfold = next(r for r in rows if r["method"] == "mdDF k-fold")
    assert kfold["fit_vs_df21"] == pytest.approx(1.0) and kfold["fit_s"] == 2.0
    assert kfold["predict_vs_df21"] == pytest.approx(1.0) and kfold["fit_vs_rf400"] == ""
    assert kfold["accuracy"] == pytest.approx(97.0) and kfold["layers"] == "3" and kfold["accuracy_se"] == 0.0


def test_the_df21_worker_records_its_correct_rows_out_of_the_test_rows(tmp_path, monkeypatch):
    """The record carries ``n_correct`` of ``n_test`` beside the accuracy, so that a comparison can read it as an
    exact fraction (a stand-in ``deepforest`` module, which predicts class 0, takes DF21's place)."""
    import sys
    import types

    from benchmarks import df21_worker

    class StandIn:
        n_layers_ = 2

        def __init__(self, **params):
            pass

        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    monkeypatch.setitem(sys.modules, "deepforest", types.SimpleNamespace(CascadeForestClassifier=StandIn))
    data = tmp_path / "toy.npz"
    y_test = np.array([0, 1, 0, 0, 1, 1, 0])
    np.savez(data, X_train=np.zeros((4, 2)), y_train=np.array([0, 1, 0, 1]), X_test=np.zeros((7, 2)), y_test=y_test)
    record = df21_worker.fit_once(data, "toy", 0, 1, {})
    assert (record["n_correct"], record["n_test"], record["n_train"]) == (4, 7, 4)
    assert record["accuracy"] == pytest.approx(4 / 7) and record["layers"] == 2


def test_df21_input_is_refused_when_it_holds_nan(tmp_path):
    X = np.zeros((4, 2), dtype=np.float32)
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite values, which DF21 rejects"):
        df21.export_for_df21(Data(X, np.arange(4), X[:0], np.arange(0)), tmp_path / "adult.npz")
    assert not (tmp_path / "adult.npz").exists()


def test_help_lists_quick_and_unknown_methods_are_named(capsys):
    with pytest.raises(SystemExit) as exit_info:
        df21.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "--quick" in text and "--out" in text and "--df21-python" in text
    with pytest.raises(SystemExit):
        df21.main(["--methods", "gcforest"])
    assert "unknown method(s) gcforest" in capsys.readouterr().err


def test_the_environment_script_refuses_to_build_df21_from_source_with_a_python_numpy_has_no_wheels_for(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(df21.__file__).with_name("setup_df21_env.sh")
    fake = tmp_path / "python3.12"
    fake.write_text('#!/bin/sh\nexec "$REAL" -c "import sys; sys.exit(1)"\n')  # reports a version outside 3.9-3.11
    fake.chmod(0o755)
    env = {
        "PATH": "/usr/bin:/bin",
        "REAL": sys.executable,
        "MDDF_DF21_PYTHON": str(tmp_path / "env" / "bin" / "python"),
        "DF21_SOURCE": str(tmp_path / "Deep-Forest"),
        "PYTHON": str(fake),
    }
    done = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"PYTHON={fake} is not a Python 3.9-3.11" in done.stderr
    assert not (tmp_path / "env").exists()  # nothing half-built is left
