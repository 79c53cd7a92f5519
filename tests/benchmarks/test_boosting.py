"""The boosting study: the DeepBoost paper's Tables on its protocol, resumable, beside the paper's numbers."""

import json

import pytest
from provenance_files import read_csv_rows, read_provenance

from benchmarks import boosting
from benchmarks.boosting_tables import paper
from benchmarks.deepboost_protocol import TABLE_ALGORITHMS
from mddf.baselines import DeepBoostClassifier
from mddf.experiments.store import ResultStore


@pytest.mark.slow
def test_the_study_quick_mode_writes_markdown_and_csv(tmp_path):
    out = tmp_path / "bench"
    assert boosting.main(["--quick", "--out", str(out)]) == 0
    md = (out / "tables.md").read_text()
    assert "Table 2: boosted trees, exponential loss" in md and "Table 3: boosted trees, logistic loss" in md
    rows = read_csv_rows(out / "tables.csv")
    assert [(r["table"], r["algorithm"]) for r in rows] == [
        ("2", "AdaBoost"),
        ("2", "AdaBoost-L1"),
        ("2", "DeepBoost"),
        ("3", "LogReg"),
        ("3", "LogReg-L1"),
        ("3", "DeepBoost"),
    ]
    assert all(0.0 <= float(r["error"]) < 0.2 and r["selection"] == "validation" for r in rows)
    assert len(read_csv_rows(out / "tables_all_settings.csv")) == 6 * 10  # one setting per algorithm, 10 runs
    for name in ("tables.md", "tables.csv", "tables_all_settings.csv"):
        prov = read_provenance((out / name).read_text())
        assert prov["command"] == f"python -m benchmarks.boosting --quick --out {out}", name
        assert prov["commit"] and prov["machine"] and prov["date"]


@pytest.mark.slow
def test_the_study_puts_both_selections_side_by_side(tmp_path):
    out = tmp_path / "bench"
    argv = ["--quick", "--selection", "both", "--cv-folds", "3", "--out", str(out)]  # --quick: Tables 2 and 3
    assert boosting.main(argv) == 0
    rows = [r for r in read_csv_rows(out / "tables.csv") if r["table"] == "2"]
    assert [(r["algorithm"], r["selection"]) for r in rows] == [
        (a, s) for a in ("AdaBoost", "AdaBoost-L1", "DeepBoost") for s in ("validation", "cv")
    ]
    md = (out / "tables.md").read_text()
    assert "3-fold CV: parameters (and rounds) chosen by the lowest mean error" in md
    section = md[md.index("### Table 2: the two selection protocols side by side") :]
    lines = section.splitlines()
    assert lines[4] == "| dataset | algorithm | validation fold | 3-fold CV | paper |"
    for r_val, r_cv in zip(rows[::2], rows[1::2]):
        line = next(x for x in lines if x.startswith(f"| breast_cancer | {r_val['algorithm']} |"))
        assert f"{float(r_val['error']):.4f} ({float(r_val['std']):.4f})" in line
        assert f"{float(r_cv['error']):.4f} ({float(r_cv['std']):.4f})" in line
    details = read_csv_rows(out / "tables_all_settings.csv")
    assert {len(json.loads(d["val_splits"])) for d in details if d["selection"] == "cv"} == {3}
    assert {len(json.loads(d["val_splits"])) for d in details if d["selection"] == "validation"} == {1}
    with pytest.raises(SystemExit):
        boosting.STUDY.parse(["--cv-folds", "1"])


@pytest.mark.slow
def test_the_study_resumes_an_interrupted_sweep_and_runs_only_what_is_missing(tmp_path, capsys):
    out = tmp_path / "bench"
    argv = ["--quick", "--selection", "both", "--cv-folds", "outer", "--out", str(out)]
    assert boosting.main(argv) == 0
    full = (out / "tables.csv").read_text().split("\n# date")[0], read_csv_rows(out / "tables.csv")
    capsys.readouterr()
    # interrupted after the first unit (both selections of AdaBoost), the next record half written
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 6  # 2 tables x 3 algorithms, each with its 2 selections
    (out / "results.jsonl").write_text(lines[0] + "\n" + lines[1][:40])
    with pytest.warns(UserWarning, match="removed an incomplete last record"):
        assert boosting.main(argv) == 0
    printed = [x for x in capsys.readouterr().err.splitlines() if x.startswith("table ")]
    assert len(printed) == 6 * 2 - 2  # the AdaBoost pair was kept, the rest was run again
    again = read_csv_rows(out / "tables.csv")
    keep = ("table", "algorithm", "selection", "error", "std", "selected")
    assert [{k: r[k] for k in keep} for r in again] == [{k: r[k] for k in keep} for r in full[1]]
    assert len(read_csv_rows(out / "tables_all_settings.csv")) == 6 * 2 * 10
    # nothing missing: nothing runs, and no checkpoint file is left behind
    assert boosting.main(argv) == 0
    assert not [x for x in capsys.readouterr().err.splitlines() if x.startswith("table ")]
    assert not list((out / "checkpoints").glob("*.jsonl"))
    # the two selections ran together: with the 9 other folds as CV parts, the paper's validation fits are shared
    rows = read_csv_rows(out / "tables.csv")
    assert {(r["selection"], r["fits"], r["shared_with"]) for r in rows if r["table"] == "2"} == {
        ("validation", "10", "cv"),
        ("cv", str(45 + 10), "validation"),
    }


@pytest.mark.slow
def test_the_study_keeps_the_fits_of_an_interrupted_result(tmp_path, monkeypatch, capsys):
    """Interrupted inside a result, a rerun fits only what the first run had not finished, and
    publishes the same table as a run without interruption."""
    argv = ["--quick", "--tables", "2", "--n-jobs", "1", "--out"]
    real_fit = DeepBoostClassifier.fit
    calls, stop_at = [], [None]

    def counted_fit(self, X, y, sample_weight=None):
        if len(calls) == stop_at[0]:
            raise KeyboardInterrupt
        calls.append(1)
        return real_fit(self, X, y, sample_weight=sample_weight)

    monkeypatch.setattr(DeepBoostClassifier, "fit", counted_fit)
    assert boosting.main(argv + [str(tmp_path / "whole")]) == 0
    n_whole = len(calls)

    out = tmp_path / "resumed"
    calls.clear()
    stop_at[0] = 4
    with pytest.raises(KeyboardInterrupt):
        boosting.main(argv + [str(out)])
    (kept,) = (out / "checkpoints").glob("*.jsonl")
    assert len(ResultStore(kept).records()) == 4
    calls.clear()
    stop_at[0] = None
    assert boosting.main(argv + [str(out)]) == 0
    assert len(calls) == n_whole - 4
    assert not list((out / "checkpoints").glob("*.jsonl"))
    # the table says that the result was resumed, and how many of its fits were read back
    read_back = sorted(r["fits_read_back"] for r in read_csv_rows(out / "tables.csv"))
    assert read_back == ["0"] * (len(read_back) - 1) + ["4"]
    assert "(4 fits read back)" in (out / "tables.md").read_text()
    keep = ("table", "algorithm", "selection", "error", "std", "selected")
    whole, resumed = (read_csv_rows(d / "tables.csv") for d in (tmp_path / "whole", out))
    assert [{k: r[k] for k in keep} for r in resumed] == [{k: r[k] for k in keep} for r in whole]


@pytest.mark.slow
def test_the_study_report_runs_nothing_and_lists_what_is_missing(tmp_path, monkeypatch):
    out = tmp_path / "bench"
    argv = ["--quick", "--tables", "2", "--out", str(out)]

    def no_fit(self, X, y, sample_weight=None):
        raise AssertionError("--report must not fit")

    real_fit = DeepBoostClassifier.fit
    monkeypatch.setattr(DeepBoostClassifier, "fit", no_fit)
    assert boosting.main(argv + ["--report"]) == 0
    markdown = (out / "tables.md").read_text()
    assert "- Table 2, breast_cancer: AdaBoost (validation fold), AdaBoost-L1 (validation fold), DeepBoost" in markdown
    assert "**A sweep in progress:** 0 of 3 results" in markdown  # --tables 2: its three algorithms
    monkeypatch.setattr(DeepBoostClassifier, "fit", real_fit)
    assert boosting.main(argv) == 0
    ran = [x for x in (out / "tables.md").read_text().splitlines() if x.startswith("| breast_cancer |")]
    monkeypatch.setattr(DeepBoostClassifier, "fit", no_fit)
    assert boosting.main(argv + ["--report"]) == 0
    markdown = (out / "tables.md").read_text()
    assert "Not run yet" not in markdown and "in progress" not in markdown
    assert [x for x in markdown.splitlines() if x.startswith("| breast_cancer |")] == ran


@pytest.mark.slow
def test_the_study_partition_seed_reassigns_the_folds(tmp_path):
    # another seed is another random partition of the rows: same settings, other test errors
    errors = {}
    for seed in (0, 1):
        out = tmp_path / f"seed{seed}"
        assert boosting.main(["--quick", "--out", str(out), "--partition-seed", str(seed)]) == 0
        assert f"rows assigned to folds with seed {seed}" in (out / "tables.md").read_text()
        errors[seed] = [float(r["test"]) for r in read_csv_rows(out / "tables_all_settings.csv")]
    assert len(errors[0]) == len(errors[1]) and errors[0] != errors[1]


def test_the_study_help_and_bad_arguments(capsys):
    with pytest.raises(SystemExit) as exc:
        boosting.STUDY.parse(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "--quick" in text and "--adult" in text and "--speed" in text
    with pytest.raises(SystemExit) as exc:
        boosting.STUDY.parse(["--tables", "4"])
    assert exc.value.code == 2
    assert "--tables" in capsys.readouterr().err


def test_the_papers_numbers_come_in_the_tables_layout_with_its_mnist_rows():
    for table, algorithms in TABLE_ALGORITHMS.items():
        for name in (
            "breastcancer",
            "ionosphere",
            "german",
            "diabetes",
            "ocr17",
            "ocr49",
            "ocr17-mnist",
            "ocr49-mnist",
        ):
            cells = [paper(table, name, algorithm) for algorithm in algorithms]
            assert all(0 < err < 0.3 and 0 < std < 0.06 for err, std, _, _ in cells), (table, name)
    # Spot checks against the paper's text.
    assert paper(2, "ionosphere", "DeepBoost") == (0.0501, 0.0316, 26.1, 50.0)
    assert paper(3, "german", "LogReg-L1") == (0.232, 0.0123, 7, 66.8)
    assert paper(1, "ocr49", "AdaBoost H1") == (0.0555, 0.0167, 1, 100)
    assert paper(1, "ocr49-mnist", "DeepBoost") == (0.0177, 0.00438, 1.9975, 100)
    assert paper(2, "letter", "DeepBoost") is None
