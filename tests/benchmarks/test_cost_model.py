"""The cost model's refit (benchmarks/cost_model.py) and the coefficients the package ships."""

import numpy as np
import pandas as pd
import pytest

from benchmarks import cost_model
from mddf.experiments import cost_estimate
from mddf.experiments.methods import default_registry


def test_the_shipped_coefficients_are_the_refit_of_the_committed_measurements(capsys):
    assert cost_model.main(["--check"]) == 0
    assert "the installed coefficients are the refit's" in capsys.readouterr().out


def test_a_log_linear_cost_is_recovered_and_each_table_left_out_is_predicted_exactly():
    rows, columns, outputs = np.array([500, 2_000, 8_000, 20_000, 900]), np.array([5, 9, 30, 12, 7]), [1, 2, 1, 5, 3]
    seconds = np.exp(-6.0 + 0.9 * np.log(rows) + 0.3 * np.log(columns) + 0.5 * np.log(outputs))
    data = pd.DataFrame(
        {"method": "m", "group": "classification", "table": list("abcde"), "rows": rows, "columns": columns}
    ).assign(outputs=outputs, seconds=seconds)
    coefficients, smallest, predicted = cost_model.refit(data)
    assert coefficients[("m", "classification")] == pytest.approx((-6.0, 0.9, 0.3, 0.5), abs=1e-4)
    assert smallest[("m", "classification")] == 500
    assert cost_model.errors(predicted)[("m", "classification")] == (1.0, 1.0)


def test_the_papers_protocol_is_a_line_in_the_rows_and_one_table_goes_in_proportion_to_them():
    data = pd.DataFrame({"method": ["m", "m", "m", "m", "one"], "group": "paper", "table": list("abcde")}).assign(
        rows=[100, 400, 1_600, 6_400, 300], columns=[4, 64, 8, 30, 9], outputs=[2, 9, 1, 1, 1]
    )
    data["seconds"] = np.exp(-3.0 + 0.8 * np.log(data["rows"]))
    data.loc[4, "seconds"] = 6.0
    coefficients, _, predicted = cost_model.refit(data)
    assert coefficients[("m", "paper")] == pytest.approx((-3.0, 0.8, 0.0, 0.0), abs=1e-4)
    assert coefficients[("one", "paper")] == pytest.approx((np.log(6.0 / 300), 1.0, 0.0, 0.0), abs=1e-4)
    assert cost_model.errors(predicted)[("one", "paper")] == (None, None)


def test_the_shipped_module_covers_every_method_of_both_protocols_and_every_kind_of_first_use():
    groups = {(m, t) for m, t in cost_estimate.COEFFICIENTS if t != "paper"}
    assert groups == set(cost_model.LEARNERS) | set(cost_model.SUITE_ONLY)
    paper = {m for m, t in cost_estimate.COEFFICIENTS if t == "paper"}
    registry = default_registry()
    assert {s.name for s in registry.select(None, ablation=False, peers=False, protocol="paper")} <= paper
    assert all(len(line) == 7 for line in cost_estimate.COEFFICIENTS.values())
    from mddf._runtime.compile_cache import KIND_BUILDERS

    assert tuple(KIND_BUILDERS) == cost_model.FIRST_USE_KINDS  # every kind the estimate counts, the cache tells
    assert set(cost_estimate.FIRST_USE) == set(cost_model.FIRST_USE_KINDS) and min(cost_estimate.FIRST_USE.values()) > 0
