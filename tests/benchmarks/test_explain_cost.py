"""The explain cost study: a unit fits once, times prediction and both explanations (checked to add up), and the
table gives each mode's rows a second and its time over the fit's."""

from types import SimpleNamespace

import numpy as np

from benchmarks import explain_cost
from mddf import CascadeForestRegressor


def test_a_unit_times_the_modes_and_the_table_reads_them():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = X[:, 0] + X[:, 1] ** 2
    ctx = SimpleNamespace(
        build=lambda: CascadeForestRegressor(n_estimators=4, max_layers=2, random_state=0),
        options=SimpleNamespace(timing_rounds=2),
        seed=0,
    )
    record = explain_cost._time_unit(ctx, X[:100], y[:100], X[100:], y[100:])
    assert record["n_explained"] == 20 and record["n_layers"] >= 1
    assert all(record[f"{mode}_s"] > 0 for mode in explain_cost.MODES)
    results = SimpleNamespace(records=[{"dataset": "toy", "method": "regressor", **record}])
    table = explain_cost._table(results)
    assert "| toy | regressor |" in table and "exact / fit" in table
