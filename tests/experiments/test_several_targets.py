"""``mddf benchmark --data FILE --target a,b``: several targets go through the one runner, as one target does: the
practitioner's methods under their own names, the estimate before the runs, each run a record of ``results.jsonl``
bound to the data and settings (a rerun resumes), and the table of means ± standard errors with its paired
differences and winner line, and its figure; numbers are a multi-output regression (R² averaged over the targets,
and each target's), yes/no columns a multi-label classification (subset accuracy, Hamming loss, micro and macro
F1)."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from mddf.experiments import cli
from mddf.experiments.methods import default_registry
from mddf.experiments.registry import SEVERAL_TARGETS

FAST = ["--quick", "--folds", "5", "--seeds", "1", "--isolation", "inline"]
TWO = ["--methods", "Baseline,RF-400"]
REGRESSION = ["--target", "price,weight", "--drop", "sold,cheap,grade"]
MULTILABEL = ["--target", "sold,cheap", "--drop", "price,weight,grade"]
PNG = b"\x89PNG\r\n\x1a\n"


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


def benchmark(table, out, *argv):
    return cli.main(["benchmark", "--data", str(table), *FAST, *argv, "--out", str(out)])


def records(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_every_practitioner_method_takes_several_targets_under_its_own_name():
    practitioner = default_registry().select(protocol="practitioner")
    assert {"mdDF", "Baseline", "HGB-es", "RF-400"} <= {spec.name for spec in practitioner}
    assert all(set(SEVERAL_TARGETS) <= set(spec.tasks) for spec in practitioner)


def test_several_numbers_get_the_estimate_and_the_table_of_one_target(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert benchmark(table, out, *REGRESSION, *TWO) == 0
    captured = capsys.readouterr()
    assert "a multi-output regression of 2 targets: price, weight" in captured.err
    assert "estimated time: about" in captured.err  # said before the runs, as for one target
    header = "| Method | R² | Δ to best | R² price | R² weight | seconds (selection + fit) | predict s | compile s |"
    assert header in captured.out
    assert re.search(r"\| \*\*RF-400\*\* ★ \| \*\*0\.\d{4}\*\* ± 0\.\d{4} \| best \|", captured.out)
    assert re.search(r"\| Baseline \| -?0\.\d{4} ± 0\.\d{4} \| −0\.\d{4} ± 0\.\d{4} \|", captured.out)
    assert "- table: RF-400 is best on R², by more than 2 standard errors over every other method." in captured.out
    assert "Several targets (price, weight), a multi-output regression" in captured.out
    assert captured.out.strip() in (out / "table.md").read_text()  # what it printed
    assert (out / "figure.png").read_bytes().startswith(PNG)  # one panel: ± 2 standard errors, as for one target
    written = records(out)
    assert sorted((r["method"], r["fold"]) for r in written) == [
        (m, f) for m in ("Baseline", "RF-400") for f in range(5)
    ]
    assert all(r["key"].endswith("|protocol=practitioner") and r["targets"] == ["price", "weight"] for r in written)
    rf = next(r for r in written if r["method"] == "RF-400")
    assert rf["r2"] == pytest.approx(np.mean([rf["r2[price]"], rf["r2[weight]"]]))


def test_several_yes_no_columns_are_a_multi_label_classification(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert benchmark(table, out, *MULTILABEL, *TWO) == 0
    captured = capsys.readouterr()
    assert "a multi-label classification of 2 targets: sold 'yes' 54%, cheap 'yes' 36%" in captured.err
    assert "| Method | subset accuracy (%) | Δ to best | Hamming loss | micro F1 | macro F1 |" in captured.out
    assert "- table: RF-400 is best on subset accuracy, by more than 2 standard errors" in captured.out
    assert {"subset_accuracy", "hamming_loss", "f1_micro", "f1_macro"} <= set(records(out)[0])


@pytest.mark.slow
def test_the_practitioner_methods_all_run_on_several_targets(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert benchmark(table, out, *REGRESSION, "--folds", "2") == 0
    table_md = capsys.readouterr().out
    for spec in default_registry().select(protocol="practitioner"):
        assert f"| {spec.name} " in table_md or f"| **{spec.name}** " in table_md
    assert min(r["r2[price]"] for r in records(out) if r["method"] == "mdDF") > 0.5  # each target is learnt


def test_a_rerun_resumes_and_other_targets_refit(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert benchmark(table, out, *REGRESSION, *TWO, "--folds", "2") == 0
    capsys.readouterr()
    assert benchmark(table, out, *REGRESSION, *TWO, "--folds", "2") == 0
    assert "resuming: 4 of 4 runs already finished" in capsys.readouterr().err
    assert len(records(out)) == 4

    swapped = ["--target", "weight,price", "--drop", "sold,cheap,grade"]  # the targets in another order
    assert benchmark(table, out, *swapped, *TWO, "--folds", "2") == 0
    assert "held 4 result(s) of other data or settings (other settings of Baseline, RF-400)" in capsys.readouterr().err
    (aside,) = (out / "old").iterdir()
    assert len(records(aside)) == 4 and len(records(out)) == 4


def test_the_records_of_the_retired_several_target_runner_are_moved_aside_not_read(table, tmp_path, capsys):
    # its records (keys ending in |protocol=several-targets) and files are set aside as of other settings
    from mddf.datasets.user_data import file_sha256

    out = tmp_path / "out"
    out.mkdir()
    old = {"key": "table|RF|seed=0|fold=0|fraction=1|profile=quick|protocol=several-targets", "dataset": "table"}
    old.update(method="RF", status="ok", data_sha256=file_sha256(table), protocol="several-targets", r2=[0.9, 0.8])
    (out / "results.jsonl").write_text(json.dumps(old) + "\n")
    (out / "several_targets.png").write_bytes(PNG)
    assert benchmark(table, out, *REGRESSION, *TWO, "--folds", "2") == 0
    assert "moved results.jsonl, several_targets.png to" in capsys.readouterr().err
    (aside,) = (out / "old").iterdir()
    assert records(aside) == [old]
    assert {r["method"] for r in records(out)} == {"Baseline", "RF-400"}


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--target", "price,grade"], r"must all be numbers .* or all yes/no columns .*grade: classification of 3"),
        (["--target", "price,wieght"], r"'wieght' is not a column of table.csv"),
        (["--target", "price,price"], r"--target 'price,price': name two or more different columns"),
        (["--target", "price,weight", "--protocol", "paper"], r"--protocol paper has no several-target methods"),
        (["--target", "price,weight", "--test", "TABLE"], r"--test is not supported with several targets"),
    ],
    ids=["mixed", "misspelt", "twice", "paper protocol", "test file"],
)
def test_bad_several_targets_are_one_line_and_write_nothing(table, tmp_path, capsys, extra, message):
    extra = [str(table) if arg == "TABLE" else arg for arg in extra]
    assert benchmark(table, tmp_path / "out", *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert re.search(message, err[-1]), err
    assert not (tmp_path / "out").exists()


def test_a_method_of_one_target_is_left_out_in_one_line(table, tmp_path, capsys):
    assert benchmark(table, tmp_path / "out", *REGRESSION, "--methods", "XGBoost,RF-400", "--folds", "2") == 0
    assert "left out: XGBoost does not handle several targets" in capsys.readouterr().err
