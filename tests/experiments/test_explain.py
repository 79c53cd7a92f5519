"""``mddf explain``: the attributions of held-out rows of the user's table as a CSV and a figure, nothing of the
user's replaced without --force (moved to old/), and bad options refused with exit status 2."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mddf.experiments import cli
from mddf.experiments.explain import summary_plot

QUICK = ["--quick", "--n-jobs", "1", "--quiet"]


def _explain(user_csv, out, *options, target="y"):
    return cli.main(["explain", "--data", str(user_csv), "--target", target, "--rows", "12", "--out", str(out)]
                    + QUICK + list(options))  # fmt: skip


@pytest.mark.slow
def test_explain_writes_each_rows_attributions_per_class_and_a_figure(tmp_path, user_csv, capsys):
    out = tmp_path / "explained"
    assert _explain(user_csv, out) == 0
    assert capsys.readouterr().out == f"{out}\n"  # the folder written, alone on stdout
    table = pd.read_csv(out / "attributions.csv")
    columns = ["x1", "x2", "colour", "size"]
    assert list(table.columns) == ["row", "class", "base", "prediction", *columns]
    assert len(table) == 12 * 3 and sorted(set(table["class"])) == ["maybe", "no", "yes"]
    assert np.allclose(table["base"] + table[columns].sum(axis=1), table["prediction"])
    assert np.allclose(table.groupby("row")["prediction"].sum(), 1.0)  # each row's class probabilities
    rows = table["row"].unique()
    assert set(rows) <= set(range(300)) and len(rows) == 12  # the rows of the file (held out of the fit)
    assert (out / "summary.png").stat().st_size > 0


def test_the_summary_draws_a_binary_models_attributions_once_and_stacks_more_classes():
    # a binary model's attributions to its two classes are mirror images: stacked, every bar was twice its length
    one = np.random.default_rng(1).normal(size=(6, 3))
    fig = summary_plot(SimpleNamespace(values=np.stack([-one, one], axis=2)), ["a", "b", "c"], ["no", "yes"])
    (ax,) = fig.axes
    widths = {t.get_text(): bar.get_width() for t, bar in zip(ax.get_yticklabels(), ax.patches)}
    assert len(ax.patches) == 3 and widths == pytest.approx(dict(zip("abc", np.abs(one).mean(axis=0))))
    assert all(bar.get_x() == 0 for bar in ax.patches) and ax.get_legend() is None
    assert ax.get_xlabel().startswith("mean |attribution| to P(yes) over the explained rows")
    three = summary_plot(SimpleNamespace(values=np.stack([one, -one, 2 * one], axis=2)), list("abc"), list("xyz"))
    assert len(three.axes[0].patches) == 9 and three.axes[0].get_legend() is not None  # stacked per class
    regression = summary_plot(SimpleNamespace(values=one), list("abc"), None)
    assert len(regression.axes[0].patches) == 3


def test_a_regression_target_gets_one_line_a_row(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=80), "colour": rng.choice(["r", "g"], 80)})
    frame["price"] = frame["x"] * 2.5 + (frame["colour"] == "r")
    frame.to_csv(tmp_path / "prices.csv", index=False)
    assert _explain(tmp_path / "prices.csv", tmp_path / "out", target="price") == 0
    table = pd.read_csv(tmp_path / "out" / "attributions.csv")
    assert list(table.columns) == ["row", "base", "prediction", "x", "colour"] and len(table) == 12


def test_the_base_is_the_models_mean_prediction_over_its_kept_training_rows(tmp_path, monkeypatch):
    from mddf.cascade.base import CascadeBase

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=120), "z": rng.normal(size=120)})
    frame["price"] = 3 * (frame["x"] > 1.2) + frame["z"]  # a skewed target: the trees' own base is off its mean
    frame.to_csv(tmp_path / "prices.csv", index=False)
    models, explain = [], CascadeBase.explain
    monkeypatch.setattr(CascadeBase, "explain", lambda self, *a, **k: models.append(self) or explain(self, *a, **k))
    assert _explain(tmp_path / "prices.csv", tmp_path / "out", target="price") == 0
    table = pd.read_csv(tmp_path / "out" / "attributions.csv")
    (model,) = models
    assert np.allclose(table["base"], model.predict(model.background_).mean(), atol=1e-6)
    assert not np.allclose(
        table["base"], model.explain(model.background_, background="tree_path_dependent").base_values[0]
    )
    assert np.allclose(table["base"] + table[["x", "z"]].sum(axis=1), table["prediction"])


@pytest.mark.slow
def test_a_file_changed_since_the_run_is_moved_aside_unless_force_is_given(tmp_path, user_csv, capsys):
    out = tmp_path / "explained"
    assert _explain(user_csv, out) == 0
    (out / "attributions.csv").write_text("mine")
    capsys.readouterr()
    assert _explain(user_csv, out) == 0
    (aside,) = (out / "old").iterdir()
    assert (aside / "attributions.csv").read_text() == "mine" and not (aside / "summary.png").exists()
    assert f"{out}: moved attributions.csv to {aside}/ (not written by mddf here" in capsys.readouterr().err
    (out / "attributions.csv").write_text("mine again")
    assert _explain(user_csv, out, "--force") == 0
    assert (out / "attributions.csv").read_text() != "mine again" and len(list((out / "old").iterdir())) == 1


def test_bad_options_are_one_line_and_exit_status_2(tmp_path, user_csv, capsys):
    file = tmp_path / "a_file"
    file.write_text("x")
    assert _explain(user_csv, file) == 2
    assert "is a file" in capsys.readouterr().err
    assert _explain(user_csv, tmp_path / "out", "--rows", "0") == 2
    assert "--rows 0" in capsys.readouterr().err
    assert _explain(user_csv, tmp_path / "out", target="nope") == 2
    assert not (tmp_path / "out").exists()
