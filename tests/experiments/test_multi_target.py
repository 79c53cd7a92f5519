"""``mddf benchmark --target a,b``: several targets of one table, a multi-output regression or a multi-label
classification, the methods that fit one target skipped in one line."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from mddf.experiments import cli
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
def test_several_yes_no_columns_are_a_multi_label_classification(table, capsys):
    argv = ["benchmark", "--data", str(table), "--target", "sold,cheap", "--drop", "price,weight,grade"]
    assert cli.main([*argv, *FAST]) == 0
    out = capsys.readouterr().out
    assert "| method | Hamming loss | subset accuracy | micro F1 | macro F1 |" in out
    assert all(f"| {method} |" in out for method in METHODS)


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
