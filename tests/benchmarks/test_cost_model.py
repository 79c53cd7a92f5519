"""The cost model's refit (benchmarks/cost_model.py) and the coefficients the package ships."""

import numpy as np
import pandas as pd
import pytest

from benchmarks import cost_model
from mddf.experiments import cost_estimate


def test_the_shipped_coefficients_are_the_refit_of_the_committed_measurements(capsys):
    assert cost_model.main(["--check"]) == 0
    assert "the installed coefficients are the refit's" in capsys.readouterr().out


def test_a_log_linear_cost_is_recovered_and_each_table_left_out_is_predicted_exactly():
    rows, columns, outputs = np.array([500, 2_000, 8_000, 20_000, 900]), np.array([5, 9, 30, 12, 7]), [1, 2, 1, 5, 3]
    seconds = np.exp(-6.0 + 0.9 * np.log(rows) + 0.3 * np.log(columns) + 0.5 * np.log(outputs))
    data = pd.DataFrame(
        {"method": "m", "task": "classification", "table": list("abcde"), "rows": rows, "columns": columns}
    ).assign(outputs=outputs, seconds=seconds)
    coefficients, predicted = cost_model.refit(data)
    assert coefficients[("m", "classification")] == pytest.approx((-6.0, 0.9, 0.3, 0.5), abs=1e-4)
    assert cost_model.errors(predicted)[("m", "classification")] == (1.0, 1.0)


def test_the_shipped_module_covers_every_practitioner_method_of_both_tasks():
    assert set(cost_estimate.COEFFICIENTS) == set(cost_model.LEARNERS)
    assert all(len(line) == 6 for line in cost_estimate.COEFFICIENTS.values())
