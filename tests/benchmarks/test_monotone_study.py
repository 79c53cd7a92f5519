"""The monotone-constraints study's figure: each model's predictions along a constrained column's grid, for a few
rows, unconstrained (grey, free to go both ways) beside constrained (never the wrong way), drawn from the models the
study fits."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import same_color
from sklearn.ensemble import HistGradientBoostingRegressor

from benchmarks import monotone


@pytest.fixture
def toy(monkeypatch):
    """A table ``toy`` of 300 rows whose target rises with ``x`` but wiggles (an unconstrained model goes down in
    places), its models HistGradientBoosting alone."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.uniform(0, 6, 300), "z": rng.normal(size=300)})
    y = X["x"] + 1.5 * np.sin(3 * X["x"]) + X["z"] + rng.normal(scale=0.1, size=300)
    monkeypatch.setitem(monotone.TABLES, "toy", ("regression", {"x": 1}))
    monkeypatch.setattr(monotone, "prepare", lambda name, flchain_rows: (X, y.to_numpy(), "regression", [1, 0]))
    monkeypatch.setattr(
        monotone, "models", lambda task, c: {"HGB": HistGradientBoostingRegressor(max_iter=30, monotonic_cst=c)}
    )
    return X


def test_the_curves_follow_the_columns_grid_for_each_sampled_row(toy):
    model = HistGradientBoostingRegressor(max_iter=30).fit(toy, toy["x"])
    grid, along = monotone.curves(model, toy, "x", 5, "regression")
    assert grid.shape == (25,) and np.all(np.diff(grid) > 0)
    assert grid[[0, -1]] == pytest.approx(np.percentile(toy["x"], [1, 99]))
    assert along.shape == (5, 25)
    row = toy.sample(n=5, random_state=monotone.SEED).iloc[[2]]
    assert along[2, 10] == model.predict(row.assign(x=grid[10]))[0]


def test_the_figure_curves_go_the_wrong_way_only_unconstrained(toy):
    panels = monotone.figure_curves("toy", "x", ["HGB"], rows=6)
    assert list(panels) == ["HGB"] and list(panels["HGB"]) == ["unconstrained", "constrained"]
    assert monotone.wrong_way(panels["HGB"]["unconstrained"][1], 1) < -0.1
    assert monotone.wrong_way(panels["HGB"]["constrained"][1], 1) >= 0
    assert monotone.wrong_way(np.array([[1.0, 3.0, 2.0]]), -1) == -2.0  # a decreasing constraint: a rise is wrong


def test_the_figure_shows_each_model_unconstrained_in_grey_beside_constrained_in_colour():
    grid = np.linspace(0, 1, 4)
    free = np.array([[0.0, 2.0, 1.0, 3.0], [1.0, 0.5, 2.0, 2.5], [0.0, 0.1, 0.2, 0.1]])
    bound = np.maximum.accumulate(free, axis=1)
    panels = {"A": {"unconstrained": (grid, free), "constrained": (grid, bound)},
              "B": {"unconstrained": (grid, free - 1), "constrained": (grid, bound - 1)}}  # fmt: skip
    fig = monotone.figure(panels, "x", 1, "predicted y")
    try:
        axes = fig.axes
        assert len(axes) == 4
        assert [ax.get_title() for ax in axes] == [
            "A, unconstrained: worst step -1", "A, constrained: worst step 0",
            "B, unconstrained: worst step -1", "B, constrained: worst step 0",
        ]  # fmt: skip
        for ax, along in zip(axes, [free, bound, free - 1, bound - 1]):
            assert len(ax.lines) == 3 and ax.get_xlabel() == "x"
            for line, row in zip(ax.lines, along):
                assert np.array_equal(line.get_xdata(), grid) and np.array_equal(line.get_ydata(), row)
        assert all(same_color(line.get_color(), "grey") for ax in axes[0::2] for line in ax.lines)
        colours = [line.get_color() for line in axes[1].lines]
        assert not any(same_color(c, "grey") for c in colours) and len({tuple(c) for c in colours}) == 3
        assert axes[0].get_ylabel() == axes[2].get_ylabel() == "predicted y"
    finally:
        plt.close(fig)


def test_the_figure_option_fits_only_the_figures_models_and_saves_a_png(toy, tmp_path, monkeypatch):
    monkeypatch.setattr(monotone, "FIGURE", ("toy", "x", ("HGB",), "predicted y"))
    monkeypatch.setattr(monotone, "run_table", lambda *a, **k: pytest.fail("the study ran"))
    png = tmp_path / "figure.png"
    assert monotone.main(["--figure", str(png), "--figure-rows", "4"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
