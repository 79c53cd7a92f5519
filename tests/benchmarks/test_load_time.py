"""The load-time study: a unit fits and saves a model, loads it in new processes that predict what it predicts and
say what numba compiled, and the table gives the median seconds of each step."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from benchmarks import load_time
from mddf import CascadeForestRegressor


def _unit(model, rounds=2):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 4)), columns=list("abcd"))
    y = X["a"] + X["b"] ** 2
    ctx = SimpleNamespace(build=lambda: model, options=SimpleNamespace(load_rounds=rounds), seed=0)
    return load_time._time_unit(ctx, X[:100], y[:100], X[100:], y[100:])


@pytest.mark.slow
def test_a_unit_loads_in_new_processes_and_the_table_reads_its_steps():
    record = _unit(CascadeForestRegressor(n_estimators=4, max_layers=2, n_jobs=1, random_state=0))
    assert all(record[f"{step}_s"] > 0 for step in ("import", "load", "predict"))
    assert record["file_mb"] > 0 and record["n_train"] == 100
    assert record["notices"] == []  # the fit in this process filled numba's cache
    table = load_time._table(SimpleNamespace(records=[{"dataset": "toy", "method": "regressor", "seed": 0, **record}]))
    assert "| toy | regressor |" in table and "load (s)" in table


def test_a_loaded_model_that_predicts_otherwise_is_reported(monkeypatch):
    monkeypatch.setattr(
        load_time,
        "new_process",
        lambda *paths: {"import_s": 1, "load_s": 1, "predict_s": 1, "prediction": [0.0] * 20, "notices": []},
    )
    with pytest.raises(AssertionError, match="does not predict what the fitted one does"):
        _unit(CascadeForestRegressor(n_estimators=4, max_layers=1, n_jobs=1, random_state=0), rounds=1)
