"""A saved model loads and predicts in a new process without compiling anything, once a fit has run on the machine."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.trees._compile_notice import PREFIX

LOAD_AND_PREDICT = """
import sys
import numpy as np
import pandas as pd
import mddf

model = mddf.load(sys.argv[1])
X = pd.read_pickle(sys.argv[2])
print(repr(model.predict(X).tolist()))
"""


def _fitted(kind, rng):
    """A small fitted model of ``kind`` and its rows: the default classifier on numeric columns with missing values
    and a categorical column, or the default regressor."""
    X = pd.DataFrame(rng.normal(size=(120, 4)), columns=list("abcd"))
    if kind == "classifier":
        X.iloc[rng.random(120) < 0.1, 0] = np.nan
        X["colour"] = pd.Categorical(rng.choice(["red", "green", "blue"], 120))
        return MDDFClassifier(n_estimators=4, max_layers=2, n_jobs=1, random_state=0).fit(X, X["b"] > 0), X
    return CascadeForestRegressor(n_estimators=4, max_layers=2, n_jobs=1, random_state=0).fit(X, X["a"]), X


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_a_saved_model_predicts_in_a_new_process_without_a_compile_notice(tmp_path, kind):
    # the fit above compiled (or loaded from numba's cache) every function a prediction needs; loading checks the
    # model's trees with numpy, so the new process finds all it runs in the cache (nothing of it said on stderr)
    model, X = _fitted(kind, np.random.default_rng(0))
    model.save(tmp_path / "model.mddf")
    X.to_pickle(tmp_path / "rows.pkl")
    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_PREDICT, str(tmp_path / "model.mddf"), str(tmp_path / "rows.pkl")],
        capture_output=True,
        text=True,
        env={**os.environ, "MDDF_AHEAD_OF_TIME": "0"},  # the JIT's cache, which the fit filled, not a built module
    )
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith(PREFIX)] == []
    assert done.stdout.strip() == repr(model.predict(X).tolist())
