"""The target-statistics probe: cross-validated accuracy and fit seconds of the classifier under a configuration."""

import numpy as np
import pandas as pd

from benchmarks import target_statistics


def test_cross_validation_scores_every_row_once_and_times_the_fits():
    rng = np.random.RandomState(0)
    X = pd.DataFrame({"a": pd.Categorical(rng.randint(6, size=120).astype(str)), "x": rng.randn(120)})
    y = np.where(X["a"].isin(["0", "1", "2"]), "yes", "no")
    small = {"n_estimators": 5, "max_layers": 1, "target_statistics": "columns"}
    accuracy, seconds = target_statistics.cross_validate(X, y, small, folds=3, n_jobs=1)
    assert accuracy > 0.9 and seconds > 0
    assert set(target_statistics.CONFIGS) == {"default", "columns", "pairs"}
