"""``mddf benchmark --target a,b``: several targets of one table, a multi-output regression or a multi-label
classification, the methods that fit one target skipped in one line; each (method, seed, fold) recorded in
``results.jsonl`` as it finishes, a rerun of the same data and settings resuming, the summary and a figure written
through the ``--out`` rule."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from mddf.experiments import cli, multi_target
from mddf.experiments.exit_status import EXIT_INTERRUPTED
from mddf.experiments.multi_target import METHODS, several_targets
from mddf.experiments.studies import UsageError

FAST = ["--quick", "--folds", "2", "--seeds", "1", "--quiet"]


@pytest.fixture
def table(tmp_path):
    """``x1, x2, colour`` and two numeric targets, two yes/no columns and a three-class one."""
    rng = np.random.default_rng(0)
    n = 120
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    colour = rng.choice(["red", "green", "blue"], n)
    frame = pd.DataFrame({"x1": x1, "x2": x2, "colour": colour})
    frame["price"] = 3 * x1 + (colour == "red") + rng.normal(size=n) * 0.1
    frame["weight"] = -2 * x2 + rng.normal(size=n) * 0.1
    frame["sold"] = np.where(x1 > 0, "yes", "no")
    frame["cheap"] = np.where(x2 > 0.3, "yes", "no")
    frame["grade"] = rng.choice(["a", "b", "c"], n)
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path


def test_the_target_names_several_columns_with_commas():
    assert several_targets("y") is None and several_targets(None) is None
    assert several_targets("a, b") == ["a", "b"]
    with pytest.raises(UsageError, match="name two or more different columns"):
        several_targets("a,a")


@pytest.mark.slow
def test_several_numbers_are_a_multi_output_regression(table, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["benchmark", "--data", str(table), "--target", "price,weight", "--drop", "sold,cheap,grade"]
    assert cli.main([*argv, "--methods", "mdDF,RF,XGBoost", "--out", str(out), *FAST]) == 0
    captured = capsys.readouterr()
    assert "skipped XGBoost: it fits one target" in captured.err
    assert "| method | R² price | R² weight | mean R² |" in captured.out
    written = json.loads((out / "several_targets.json").read_text())
    assert written["task"] == "regression" and list(written["results"]) == ["mdDF", "RF"]
    assert all(min(r["r2"]) > 0.5 for r in written["results"].values())  # both targets are learnt


@pytest.mark.slow
def test_several_yes_no_columns_are_a_multi_label_classification(table, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # without --out: results/<file stem>-<sha256 prefix>-targets
    argv = ["benchmark", "--data", str(table), "--target", "sold,cheap", "--drop", "price,weight,grade"]
    assert cli.main([*argv, *FAST]) == 0
    out = capsys.readouterr().out
    assert "| method | Hamming loss | subset accuracy | micro F1 | macro F1 |" in out
    assert all(f"| {method} |" in out for method in METHODS)
    (folder,) = (tmp_path / "results").iterdir()
    assert folder.name.startswith("table-") and folder.name.endswith("-targets")
    assert (folder / "several_targets.png").read_bytes().startswith(PNG)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--target", "price,grade"], "must all be numbers .* or all yes/no columns .*grade: classification of 3"),
        (["--target", "price,wieght"], "'wieght' is not a column of table.csv"),
        (["--target", "price,weight", "--protocol", "paper"], "--protocol paper has no several-target methods"),
        (["--target", "price,weight", "--methods", "XGBoost"], "no requested method fits several targets"),
    ],
    ids=["mixed", "misspelt", "paper protocol", "no method"],
)
def test_bad_several_targets_are_one_line(table, capsys, extra, message):
    status = cli.main(["benchmark", "--data", str(table), *extra, *FAST])
    assert status != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert any(re.search(message, line) for line in err), err


PNG = b"\x89PNG\r\n\x1a\n"
REGRESSION = ["benchmark", "--target", "price,weight", "--drop", "sold,cheap,grade", "--methods", "Baseline,RF"]
FOUR = ["--quick", "--folds", "2", "--seeds", "1"]  # two methods x one seed x two folds: four units


@pytest.fixture
def fits(monkeypatch):
    """The methods fitted, in order: every model :func:`multi_target.build` makes counts its ``fit`` calls."""
    fitted, build = [], multi_target.build

    def counting(method, *args, **kwargs):
        model = build(method, *args, **kwargs)
        fit = model.fit
        model.fit = lambda X, y: (fitted.append(method), fit(X, y))[1]
        return model

    monkeypatch.setattr(multi_target, "build", counting)
    return fitted


def records(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _sha(path):
    from mddf.datasets.user_data import file_sha256

    return file_sha256(path)


def test_each_unit_is_recorded_bound_and_a_rerun_resumes(table, tmp_path, fits, capsys):
    out = tmp_path / "out"
    argv = [*REGRESSION, "--data", str(table), "--out", str(out), *FOUR]
    assert cli.main(argv) == 0
    assert fits == ["Baseline", "Baseline", "RF", "RF"]
    written = records(out)
    assert [(r["method"], r["seed"], r["fold"]) for r in written] == [
        (m, 0, f) for m in ("Baseline", "RF") for f in (0, 1)
    ]
    assert {r["data_sha256"] for r in written} == {_sha(table)}
    assert len({r["settings_sha256"] for r in written}) == 2  # one per method
    assert all(r["status"] == "ok" and len(r["r2"]) == 2 for r in written)
    assert written[0]["key"].endswith("|protocol=several-targets")  # not a one-target run's key
    summary = json.loads((out / "several_targets.json").read_text())
    assert summary["results"]["RF"]["r2"] == pytest.approx(np.mean([r["r2"] for r in written[2:]], axis=0))
    capsys.readouterr()

    assert cli.main(argv) == 0
    assert fits == ["Baseline", "Baseline", "RF", "RF"]  # nothing fitted again
    assert "resuming: 4 of 4 runs already finished" in capsys.readouterr().err
    assert len(records(out)) == 4


def test_an_interrupted_run_keeps_its_finished_units(table, tmp_path, fits, monkeypatch, capsys):
    out = tmp_path / "out"
    argv = [*REGRESSION, "--data", str(table), "--out", str(out), *FOUR]
    fit_one = multi_target.fit_one

    def dies_on_the_third(unit, *args):
        if len(fits) == 2:
            raise KeyboardInterrupt
        return fit_one(unit, *args)

    monkeypatch.setattr(multi_target, "fit_one", dies_on_the_third)
    assert cli.main(argv) == EXIT_INTERRUPTED  # Ctrl-C during the third unit
    assert [r["method"] for r in records(out)] == ["Baseline", "Baseline"]
    assert not (out / "several_targets.json").exists()
    monkeypatch.setattr(multi_target, "fit_one", fit_one)
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert fits == ["Baseline", "Baseline", "RF", "RF"]
    assert "resuming: 2 of 4 runs already finished" in capsys.readouterr().err


@pytest.mark.parametrize(
    "change, refits",
    [
        (["--folds", "3"], ["Baseline"] * 3 + ["RF"] * 3),
        (["--drop", "sold,cheap,grade,colour"], ["Baseline"] * 2 + ["RF"] * 2),
        (["--target", "weight,price"], ["Baseline"] * 2 + ["RF"] * 2),
    ],
    ids=["folds", "columns read", "targets"],
)
def test_a_changed_setting_refits_and_sets_the_old_results_aside(table, tmp_path, fits, capsys, change, refits):
    out = tmp_path / "out"
    argv = [*REGRESSION, "--data", str(table), "--out", str(out), *FOUR]
    assert cli.main(argv) == 0
    del fits[:]
    capsys.readouterr()
    assert cli.main([*argv, *change]) == 0
    assert fits == refits
    assert "held 4 result(s) of other data or settings (other settings of Baseline, RF)" in capsys.readouterr().err
    (aside,) = (out / "old").iterdir()
    assert len(records(aside)) == 4 and (aside / "several_targets.png").is_file()
    assert len(records(out)) == len(refits)


def test_changed_data_refits(table, tmp_path, fits, capsys):
    out = tmp_path / "out"
    argv = [*REGRESSION, "--data", str(table), "--out", str(out), *FOUR]
    assert cli.main(argv) == 0
    table.write_text(table.read_text().replace("red", "rouge"))
    del fits[:]
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert fits == ["Baseline", "Baseline", "RF", "RF"]
    assert "data sha256" in capsys.readouterr().err


def test_a_corrupt_or_tampered_record_is_not_trusted(table, tmp_path, fits, capsys):
    out = tmp_path / "out"
    argv = [*REGRESSION, "--data", str(table), "--out", str(out), *FOUR]
    assert cli.main(argv) == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    tampered = {**json.loads(lines[3]), "r2": "0.99"}  # the last RF unit: not a number per target
    (out / "results.jsonl").write_text("\n".join([*lines[:3], '{"cut short', json.dumps(tampered)]) + "\n")
    del fits[:]
    capsys.readouterr()
    with pytest.warns(UserWarning, match="results.jsonl:4: ignoring an incomplete record"):
        assert cli.main(argv) == 0
    assert fits == ["RF"]
    assert "resuming: 3 of 4 runs already finished" in capsys.readouterr().err


def test_the_summary_and_figure_follow_the_out_rule(table, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "several_targets.png").write_text("the user's own picture")
    argv = [*REGRESSION, "--data", str(table), "--out", str(out), *FOUR]
    assert cli.main(argv) == 0
    assert "moved several_targets.png to" in capsys.readouterr().err
    (aside,) = (out / "old").iterdir()
    assert (aside / "several_targets.png").read_text() == "the user's own picture"
    assert (out / "several_targets.png").read_bytes().startswith(PNG)
    manifest = json.loads((out / ".mddf-written.json").read_text())["files"]
    assert set(manifest) == {"several_targets.json", "several_targets.png"}


def test_a_multi_label_figure_is_a_png(table, tmp_path):
    out = tmp_path / "out"
    argv = ["benchmark", "--data", str(table), "--target", "sold,cheap", "--drop", "price,weight,grade"]
    assert cli.main([*argv, "--methods", "Baseline,RF", "--out", str(out), *FOUR, "--quiet"]) == 0
    assert (out / "several_targets.png").read_bytes().startswith(PNG)
    assert {"hamming_loss", "subset_accuracy", "f1_micro", "f1_macro"} <= set(records(out)[0])
