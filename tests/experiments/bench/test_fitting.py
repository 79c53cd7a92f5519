"""The runs a resumed sweep still has to do, the benchmarks' timed fit and the check for the optional LightGBM."""

import importlib.util

import numpy as np
from sklearn.dummy import DummyClassifier

from mddf.experiments.bench.fitting import lightgbm_available, pending, timed_fit


def test_pending_runs_interleave_the_seeds_and_leave_out_the_recorded_ones():
    records = [{"dataset": "iris", "method": "RF", "seed": 0}, {"dataset": "wine", "method": "RF", "seed": 1}]
    assert pending(records, [0, 1], ["iris", "wine"], ["RF"]) == [(0, "wine", "RF"), (1, "iris", "RF")]
    cases = [("iris", "complete")]
    named = pending(
        [{"case": "iris complete", "method": "RF", "seed": 0}], [0, 1], cases, ["RF"], field="case", name=" ".join
    )
    assert named == [(1, ("iris", "complete"), "RF")]


def test_timed_fit_fits_predicts_and_times_both():
    X, y = np.zeros((6, 2)), np.array([0, 1, 1, 1, 0, 1])
    model = DummyClassifier(strategy="most_frequent")
    predicted, fit_s, predict_s = timed_fit(model, X, y, X[:4])
    np.testing.assert_array_equal(predicted, [1, 1, 1, 1])
    assert model.classes_.tolist() == [0, 1]
    assert 0 <= fit_s < 60 and 0 <= predict_s < 60


def test_lightgbm_is_available_exactly_when_it_is_installed():
    assert lightgbm_available() == (importlib.util.find_spec("lightgbm") is not None)
