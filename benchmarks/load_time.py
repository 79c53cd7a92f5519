"""What loading a saved default model costs in a new process: ``mddf.load`` and its first prediction, no compiling.

Per dataset and seed, a default model (``random_state=seed``, ``--n-jobs`` threads) is fitted on the training rows
(adult: its categorical columns as categories; letter: numeric; the regressor on the synthetic
``numeric_interaction`` table) and saved (``est.save``); then ``--rounds`` new Python processes each import mddf,
load the file and predict the first 100 test rows, timing the three steps apart (wall seconds), and report what
numba said it compiled (:data:`benchmarks.first_use.NOTICE` lines on stderr; the fit before them filled the
cache, as a user's first fit does). The first process's prediction is checked equal to the fitted model's. The
table: per dataset, the file's size, the median seconds of the import, the load and the first prediction, and the
compile notices seen (the target of issue 92: a default model loads in under a second, compiling nothing).

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.load_time --n-jobs 2
python -m benchmarks.load_time --quick
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks.data import frames
from benchmarks.first_use import NOTICE
from benchmarks.harness import Study, TrainTest
from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.experiments.tables import markdown_table

PREDICTED_ROWS = 100
REGRESSION_DATASET = "numeric_interaction"

#: What each process runs: ``python -c CHILD MODEL ROWS``; prints its seconds and the prediction as JSON.
CHILD = r"""
import json, sys, time
start = time.perf_counter()
import pandas as pd
import mddf
imported = time.perf_counter()
model = mddf.load(sys.argv[1])
loaded = time.perf_counter()
prediction = model.predict(pd.read_pickle(sys.argv[2]))
predicted = time.perf_counter()
print(json.dumps({"import_s": imported - start, "load_s": loaded - imported, "predict_s": predicted - loaded,
                  "prediction": [float(v) for v in prediction]}))
"""


def new_process(model_path: Path, rows_path: Path) -> dict:
    """One new process loading ``model_path`` and predicting ``rows_path``: its seconds, prediction and notices."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(model_path), str(rows_path)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the loading process failed:\n{done.stderr[-3000:]}")
    record = json.loads(done.stdout.strip().splitlines()[-1])
    record["notices"] = [line for line in done.stderr.splitlines() if line.startswith(NOTICE)]
    return record


def _time_unit(ctx, X, y, X_eval, y_eval) -> dict:
    """Fit and save the default model, then load it and predict its first 100 evaluation rows in
    ``--load-rounds`` new processes."""
    model, X_eval = ctx.build().fit(X, y), X_eval.iloc[:PREDICTED_ROWS]
    expected = [float(v) for v in np.asarray(model.predict(X_eval), dtype=float)]
    with tempfile.TemporaryDirectory(prefix="mddf-load-time-") as folder:
        model_path, rows_path = Path(folder) / "model.mddf", Path(folder) / "rows.pkl"
        model.save(model_path)
        X_eval.to_pickle(rows_path)
        runs = [new_process(model_path, rows_path) for _ in range(ctx.options.load_rounds)]
        size = model_path.stat().st_size
    if runs[0]["prediction"] != expected:
        raise AssertionError("the loaded model does not predict what the fitted one does")
    record = {f"{step}_s": statistics.median(r[f"{step}_s"] for r in runs) for step in ("import", "load", "predict")}
    record.update(file_mb=size / 2**20, n_train=len(y), notices=sorted({n for r in runs for n in r["notices"]}))
    return record


def _table(results) -> str:
    """Per dataset: file size, median import, load and first-prediction seconds, and the compile notices seen."""
    header = ["dataset", "model", "file (MB)", "import (s)", "load (s)", "predict 100 rows (s)", "compile notices"]
    lines = []
    for r in sorted(results.records, key=lambda r: (r["dataset"], r["seed"])):
        steps = [f"{r[f'{step}_s']:.2f}" for step in ("import", "load", "predict")]
        lines.append([r["dataset"], r["method"], f"{r['file_mb']:.1f}", *steps, str(len(r["notices"]))])
    return "\n".join(markdown_table(header, lines)) + "\n"


def _options(parser):
    parser.add_argument("--load-rounds", type=int, default=3, help="new processes loading each model (default: 3)")


STUDY = Study(
    "load_time",
    __doc__,
    datasets=[frames("adult"), frames("letter"), dataclasses.replace(frames(REGRESSION_DATASET), task="regression")],
    methods={
        "classifier": lambda ctx: MDDFClassifier(random_state=ctx.seed, n_jobs=ctx.n_jobs),
        "regressor": lambda ctx: CascadeForestRegressor(random_state=ctx.seed, n_jobs=ctx.n_jobs),
    },
    protocol=TrainTest(seeds=(0,)),
    applies=lambda method, dataset, options: (method == "regressor") == (dataset == REGRESSION_DATASET),
    quick={"datasets": [REGRESSION_DATASET]},
    options=_options,
    settings=lambda options: {"load_rounds": options.load_rounds},
    fit=_time_unit,
    table=_table,
    report="load_time",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
