"""``mddf benchmark --data PATH --target COLUMN --monotone COL:+1,COL:-1``: mdDF fitted with the constraints, the other
methods as they are, constrained results never resumed as unconstrained ones, and bad input refused in one line."""

import json

import numpy as np
import pandas as pd
import pytest

from mddf.experiments import cli
from mddf.experiments.monotone_option import parse_monotone
from mddf.experiments.studies import UsageError

FAST = ["--quick", "--n-jobs", "1", "--quiet", "--isolation", "inline", "--folds", "2", "--seeds", "1"]


def prices(path, classes=None):
    """A table of three numeric columns and a text one; ``price`` a regression target, or ``classes`` labels."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 3))
    frame = pd.DataFrame(x, columns=["area", "age", "noise"]).assign(town=rng.choice(["a", "b"], size=80))
    price = 2 * x[:, 0] - x[:, 1] + rng.normal(scale=0.3, size=80)
    frame["price"] = price if classes is None else np.array(classes)[np.digitize(price, [-1, 1]) % len(classes)]
    frame.to_csv(path, index=False)
    return path


def benchmark(data, *options, out):
    return cli.main(["benchmark", "--data", str(data), "--target", "price", *options, *FAST, "--out", str(out)])


@pytest.mark.slow
def test_mddf_gets_the_constraints_and_its_results_are_bound_to_them(tmp_path, capsys):
    data, out = prices(tmp_path / "prices.csv"), tmp_path / "out"
    assert benchmark(data, "--methods", "mdDF,HGB-es", "--monotone", "area:+1,age:-1", out=out) == 0
    records = {r["method"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert records["mdDF"]["status"] == "ok" and records["mdDF"]["params"]["monotonic_cst"] == [1, -1, 0, 0]
    assert records["HGB-es"]["params"]["monotonic_cst"] is None  # the others are the comparison, unconstrained
    capsys.readouterr()
    assert benchmark(data, "--methods", "mdDF,HGB-es", out=out) == 0  # without: mdDF is refitted, not resumed
    assert "other settings of mdDF" in capsys.readouterr().err


@pytest.mark.parametrize(
    "option, message",
    [
        ("wealth:+1", "--monotone 'wealth' is not a feature column of the --data file (columns: area, age, noise"),
        ("area:+2", "--monotone 'area:+2': the sign must be +1 or -1, not '+2'"),
        ("area", "--monotone 'area': expected COLUMN:+1 or COLUMN:-1"),
        ("area:+1,area:-1", "--monotone names 'area' twice"),
        ("town:+1", "--monotone 'town' is a text column: its categories have no order"),
    ],
)
def test_a_bad_constraint_is_a_one_line_usage_error(tmp_path, capsys, option, message):
    assert benchmark(prices(tmp_path / "prices.csv"), "--monotone", option, out=tmp_path / "out") == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith(f"mddf benchmark: error: {message}")
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_multi_class_target_or_no_data_file_is_refused(tmp_path, capsys):
    three = prices(tmp_path / "p.csv", classes=["lo", "mid", "hi"])
    assert benchmark(three, "--monotone", "area:+1", out=tmp_path / "o") == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith("a regression or two-class target; this one has 3")
    assert cli.main(["benchmark", "--monotone", "area:+1", *FAST, "--out", str(tmp_path / "o")]) == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("--monotone goes with --data PATH (it names the file's columns)")
    )


def test_several_targets_take_no_constraint(tmp_path, capsys):
    frame = pd.read_csv(prices(tmp_path / "p.csv")).assign(rent=lambda f: f.price / 2)
    frame.to_csv(tmp_path / "two.csv", index=False)
    argv = ["benchmark", "--data", str(tmp_path / "two.csv"), "--target", "price,rent", "--monotone", "area:+1"]
    assert cli.main([*argv, *FAST, "--out", str(tmp_path / "o")]) == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("--monotone takes one --target: several targets take no monotone constraints")
    )


def test_the_option_reads_column_sign_pairs():
    assert parse_monotone("income:+1, debt:-1,a:b:1") == {"income": 1, "debt": -1, "a:b": 1}
    with pytest.raises(UsageError, match="expected COLUMN"):
        parse_monotone("income:+1,")
