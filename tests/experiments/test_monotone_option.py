"""``mddf benchmark --data PATH --target COLUMN --monotone COL:+1,COL:-1``: mdDF fitted with the constraints, the other
methods as they are, constrained results never resumed as unconstrained ones, and bad input refused in one line; with
two classes, the class whose probability is constrained named on stderr, in the table and in the model's summary, and
chosen by its label (``--monotone-class``)."""

import json

import numpy as np
import pandas as pd
import pytest

from mddf.datasets import user_data
from mddf.experiments import cli
from mddf.experiments.methods import default_registry
from mddf.experiments.monotone_option import parse_monotone, with_monotone
from mddf.experiments.runner import describe_model
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


@pytest.mark.parametrize("option, value", [("--monotone", "area:+1"), ("--monotone-class", "high")])
def test_several_targets_take_no_constraint(tmp_path, capsys, option, value):
    frame = pd.read_csv(prices(tmp_path / "p.csv")).assign(rent=lambda f: f.price / 2)
    frame.to_csv(tmp_path / "two.csv", index=False)
    argv = ["benchmark", "--data", str(tmp_path / "two.csv"), "--target", "price,rent", option, value]
    assert cli.main([*argv, *FAST, "--out", str(tmp_path / "o")]) == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(f"{option} takes one --target: several targets take no monotone constraints")
    )


def loaded(path):
    return user_data.load_source(user_data.source_for(path, "price"))


@pytest.mark.parametrize(
    "label, flipped, named",
    [(None, False, "expensive"), ("expensive", False, "expensive"), ("cheap", True, "cheap")],
    ids=["default", "the default named", "the other class"],
)
def test_with_two_classes_the_constrained_class_is_named_and_chosen_by_its_label(tmp_path, label, flipped, named):
    # the constraints held for the second of the sorted labels and nothing said which: a user who meant the other
    # class saw its probability move the wrong way
    dataset = loaded(prices(tmp_path / "p.csv", classes=["cheap", "expensive"]))
    said = []
    registry, specs = with_monotone("area:+1,age:-1", dataset, default_registry(), [], label, said.append)
    mddf = registry.get("mdDF")
    sign = -1 if flipped else 1  # the estimator constrains P(classes_[1]): P(cheap) = 1 - P(expensive)
    assert mddf.build.monotonic_cst == (sign, -sign, 0, 0)
    statement = f"the probability of class {named!r} never falls as area grows, never rises as age grows"
    assert said == [f"mdDF: monotone constraints: {statement} (--monotone-class names the class)"]
    assert mddf.description.endswith(f"; {statement}")  # the table's note on mdDF
    assert mddf.build.about == {"constraints": {"area": 1, "age": -1}, "statement": statement, "probability_of": named}
    record = {}
    describe_model(record, _fitted_cascade(), monotone=mddf.build.about)
    assert record["cascade"]["monotone"]["probability_of"] == named


def _fitted_cascade():
    from sklearn.datasets import make_classification

    from mddf import MDDFClassifier

    X, y = make_classification(60, 4, random_state=0)
    return MDDFClassifier(n_estimators=4, max_layers=1, n_folds=2, n_jobs=1, random_state=0).fit(X, y)


def test_a_regressions_constraints_hold_for_its_prediction(tmp_path):
    said = []
    with_monotone("area:+1", loaded(prices(tmp_path / "p.csv")), default_registry(), [], None, said.append)
    assert said == ["mdDF: monotone constraints: the prediction never falls as area grows"]


@pytest.mark.parametrize(
    "options, message",
    [
        (["--monotone", "area:+1", "--monotone-class", "maybe"],
         "--monotone-class 'maybe' is not a class of the target: its classes are 'cheap', 'expensive'"),
        (["--monotone-class", "cheap"], "--monotone-class goes with --monotone"),
    ],
)  # fmt: skip
def test_a_class_that_is_none_of_the_targets_is_a_usage_error_before_any_fit(tmp_path, capsys, options, message):
    data = prices(tmp_path / "p.csv", classes=["cheap", "expensive"])
    assert benchmark(data, *options, out=tmp_path / "out") == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"mddf benchmark: error: {message}"
    assert not (tmp_path / "out").exists()


def test_a_class_named_for_a_regression_is_a_usage_error(tmp_path, capsys):
    options = ["--monotone", "area:+1", "--monotone-class", "high"]
    assert benchmark(prices(tmp_path / "p.csv"), *options, out=tmp_path / "out") == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith("--monotone-class names the class of a two-class "
                                                             "target; this target is a regression")  # fmt: skip


@pytest.mark.slow
def test_the_benchmark_says_which_class_it_constrains_on_stderr_in_the_table_and_in_each_runs_summary(tmp_path, capsys):
    data, out = prices(tmp_path / "p.csv", classes=["cheap", "expensive"]), tmp_path / "out"
    assert benchmark(data, "--methods", "mdDF", "--monotone", "area:-1", "--monotone-class", "cheap", out=out) == 0
    statement = "the probability of class 'cheap' never rises as area grows"
    assert f"mdDF: monotone constraints: {statement}" in capsys.readouterr().err
    assert f"; {statement}." in (out / "table.md").read_text()
    runs = [r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines()) if r["method"] == "mdDF"]
    assert runs and all(r["cascade"]["monotone"]["probability_of"] == "cheap" for r in runs)
    assert all(r["params"]["monotonic_cst"] == [1, 0, 0, 0] for r in runs)  # P(expensive) rises with area


def test_the_option_reads_column_sign_pairs():
    assert parse_monotone("income:+1, debt:-1,a:b:1") == {"income": 1, "debt": -1, "a:b": 1}
    with pytest.raises(UsageError, match="expected COLUMN"):
        parse_monotone("income:+1,")
