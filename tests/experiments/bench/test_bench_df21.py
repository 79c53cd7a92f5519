"""bench_df21.py: the --quick comparison (fresh processes), DF21 skipped with a message when its environment is
absent, resuming, the rotated interleaved rounds, and the per-round ratios (stand-ins for the fits)."""

import json

import numpy as np
import pytest

from mddf.experiments import environment
from mddf.experiments.bench import df21 as bench_df21
from mddf.experiments.provenance import MARKDOWN_BEGIN, read_csv_rows, read_provenance

DF21_VERSIONS, DF21_MISSING = bench_df21.probe_df21(bench_df21.df21_python())


def _records(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_quick_run_without_df21_says_so_runs_the_rest_and_resumes(tmp_path, capsys):
    out = tmp_path / "df21"
    argv = ["--quick", "--df21-python", str(tmp_path / "no-env" / "bin" / "python"), "--out", str(out)]
    assert bench_df21.main(argv) == 0
    err = capsys.readouterr().err
    assert "DF21 skipped: no DF21 environment" in err and "scripts/setup_df21_env.sh" in err
    records = _records(out)
    assert sorted(r["method"] for r in records) == ["RF400", "mdDF k-fold", "mdDF oob"]
    for r in records:
        assert r["status"] == "ok" and r["dataset"] == "digits" and r["seed"] == 0 and r["round"] == 0
        assert r["accuracy"] > 0.8 and r["fit_s"] > 0 and r["peak_rss_mb"] > 0
    assert all(1 <= r["layers"] <= 2 for r in records if r["method"] != "RF400")
    markdown = (out / "df21_comparison.md").read_text()
    assert markdown.startswith(MARKDOWN_BEGIN) and "--quick" in read_provenance(markdown)["command"]
    assert "skipped (no DF21 environment)" in markdown and "| digits | mdDF oob |" in markdown
    rows = read_csv_rows(out / "df21_comparison.csv")
    assert {r["method"] for r in rows} == {"mdDF k-fold", "mdDF oob", "RF400"}
    assert all(r["fit_vs_df21"] == "" and float(r["fit_vs_rf400"]) > 0 for r in rows if r["method"] != "RF400")
    # a rerun finds every fit done: nothing appended, nothing fitted
    assert bench_df21.main(argv) == 0
    assert len(_records(out)) == len(records)
    assert "round 0" not in capsys.readouterr().err


@pytest.mark.skipif(DF21_VERSIONS is None, reason=f"no DF21 environment ({DF21_MISSING})")
def test_quick_run_fits_df21_under_its_own_interpreter(tmp_path):
    out = tmp_path / "df21"
    assert bench_df21.main(["--quick", "--methods", "df21,rf400", "--out", str(out)]) == 0
    df21 = next(r for r in _records(out) if r["method"] == "DF21")
    assert df21["status"] == "ok" and df21["accuracy"] > 0.8 and 1 <= df21["layers"] <= 2
    assert df21["df21_versions"]["deep-forest"] == "0.1.7" and df21["df21_versions"]["python"].startswith("3.9")
    assert (out / "data" / "digits.npz").exists()
    rf = next(r for r in read_csv_rows(out / "df21_comparison.csv") if r["method"] == "RF400")
    assert float(rf["fit_vs_df21"]) > 0
    assert "deep-forest 0.1.7 under Python 3.9" in (out / "df21_comparison.md").read_text()


def _fake_fit(calls):
    """A stand-in for run_in_fresh_process(fit_once, ...): the fit time says which method ran."""
    times = {"mdDF k-fold": 3.0, "mdDF oob": 1.0, "RF400": 2.0}

    def run(function, dataset, method, seed, *rest):
        assert function is bench_df21.fit_once
        calls.append((dataset, method, seed))
        return {"accuracy": 0.9, "fit_s": times[method], "predict_s": times[method] / 10, "peak_rss_mb": 100.0}

    return run


def test_rounds_rotate_the_methods_and_resume_per_dataset_method_seed_round(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(environment, "run_in_fresh_process", _fake_fit(calls))
    out = tmp_path / "rounds"
    argv = ["--datasets", "digits", "--seeds", "0,1", "--methods", "kfold,oob,rf400", "--out", str(out)]
    assert bench_df21.main([*argv, "--rounds", "2"]) == 0
    order = ["mdDF k-fold", "mdDF oob", "RF400"]
    rotated = ["mdDF oob", "RF400", "mdDF k-fold"]
    assert [m for _, m, _ in calls] == order + order + rotated + rotated
    assert [s for _, _, s in calls] == [0, 0, 0, 1, 1, 1] * 2
    # a third round runs only the new (dataset, method, seed, round) fits
    assert bench_df21.main([*argv, "--rounds", "3"]) == 0
    assert [m for _, m, _ in calls[12:]] == ["RF400", "mdDF k-fold", "mdDF oob"] * 2
    assert len(_records(out)) == 18
    kfold = next(r for r in read_csv_rows(out / "df21_comparison.csv") if r["method"] == "mdDF k-fold")
    assert kfold["rounds"] == "3" and kfold["runs"] == "6" and float(kfold["fit_vs_rf400"]) == pytest.approx(1.5)


def test_ratios_are_per_round_pairs_summarised_by_their_median():
    def record(method, seed, round_index, fit_s, predict_s=1.0):
        return {
            "dataset": "letter",
            "method": method,
            "seed": seed,
            "round": round_index,
            "accuracy": 0.97,
            "fit_s": fit_s,
            "predict_s": predict_s,
            "peak_rss_mb": 100.0,
            "layers": 3,
        }

    # round 1 ran on a slower machine: pairwise ratios stay 1.0, while medians of each column would give 2/4
    records = [record("mdDF k-fold", 0, 0, 2.0), record("DF21", 0, 0, 2.0)]
    records += [record("mdDF k-fold", 0, 1, 4.0), record("DF21", 0, 1, 4.0)]
    records += [record("mdDF k-fold", 0, 2, 2.0), record("DF21", 0, 2, 4.0)]
    rows = bench_df21.summarise(records, ["letter"], ["mdDF k-fold", "DF21"])
    kfold = next(r for r in rows if r["method"] == "mdDF k-fold")
    assert kfold["fit_vs_df21"] == pytest.approx(1.0) and kfold["fit_s"] == 2.0
    assert kfold["predict_vs_df21"] == pytest.approx(1.0) and kfold["fit_vs_rf400"] == ""
    assert kfold["accuracy"] == pytest.approx(97.0) and kfold["layers"] == "3"
    assert kfold["accuracy_se"] == 0.0
    assert kfold["targets"] == "missed: accuracy 97.00 (standard error 0.00) < 97.12"
    assert bench_df21.rotated(["a", "b", "c"], 4) == ["b", "c", "a"]


def test_df21_input_is_refused_when_it_holds_nan(tmp_path, monkeypatch):
    X = np.zeros((4, 2), dtype=np.float32)
    X[1, 1] = np.nan
    arrays = (X, np.arange(4), X[:0], np.arange(0))
    monkeypatch.setattr(bench_df21, "train_test_arrays", lambda dataset, data_home=None: arrays)
    with pytest.raises(ValueError, match="NaN or infinite values, which DF21 rejects"):
        bench_df21.export_for_df21("adult", tmp_path / "adult.npz")
    assert not (tmp_path / "adult.npz").exists()


def test_help_lists_quick_and_unknown_methods_are_named(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_df21.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "--quick" in text and "--out" in text and "--df21-python" in text
    with pytest.raises(SystemExit):
        bench_df21.main(["--methods", "gcforest"])
    assert "unknown method 'gcforest'" in capsys.readouterr().err


def test_an_accuracy_equal_to_the_floor_at_its_two_decimals_meets_it():
    row = {"method": "mdDF k-fold", "dataset": "adult", "fit_vs_df21": 1.0, "predict_vs_df21": 1.0}
    assert bench_df21.targets_met({**row, "accuracy": 86.1449}) == "met"  # shown as 86.14, the floor
    missed = "missed: accuracy 86.13 (standard error 0.00) < 86.14"
    assert bench_df21.targets_met({**row, "accuracy": 86.1349}) == missed


def test_an_accuracy_below_the_floor_by_less_than_one_standard_error_of_its_seeds_meets_it():
    def record(seed, accuracy):
        fields = {"fit_s": 1.0, "predict_s": 1.0, "peak_rss_mb": 1.0, "layers": 3, "round": 0, "seed": seed}
        return {"dataset": "letter", "method": "mdDF k-fold", "accuracy": accuracy, **fields}

    def df21(seed):
        return {**record(seed, 0.9), "method": "DF21"}

    # seeds at 97.08, 97.13, 97.10: mean 97.103, standard error 0.0145; the floor 97.12 is within it
    near = [record(0, 0.9708), record(1, 0.9713), record(2, 0.9710)] + [df21(s) for s in range(3)]
    row = next(r for r in bench_df21.summarise(near, ["letter"], ["mdDF k-fold", "DF21"]) if r["method"] != "DF21")
    assert row["accuracy_se"] == pytest.approx(0.0145, abs=1e-3) and row["targets"] == "met"
    # seeds at 97.075, 97.125, 97.10: mean 97.10, standard error 0.0144; 97.114 rounds below the floor
    far = [record(0, 0.97075), record(1, 0.97125), record(2, 0.9710)] + [df21(s) for s in range(3)]
    row = next(r for r in bench_df21.summarise(far, ["letter"], ["mdDF k-fold", "DF21"]) if r["method"] != "DF21")
    assert row["targets"] == "missed: accuracy 97.10 (standard error 0.01) < 97.12"
    assert "97.10 ± 0.01" in bench_df21.markdown([row], ["mdDF k-fold"], "note")
