"""What ``explain()`` costs: rows explained a second, exact and fast, against the fit and a prediction of the same rows.

The explain page's cost table (``docs/user_guide/explain.md``) and its target: explaining 200 rows of a default
``MDDFClassifier`` fitted on 3,000 rows takes at most the fit's time. Per dataset and seed, a default model
(``random_state=seed``, ``--n-jobs`` threads) is fitted on 3,000 stratified training rows (adult: its categorical
columns as categories; letter and satimage: numeric), then the first 200 test rows are predicted, explained exactly
and fast (both centred on the model's kept background, ``explain()``'s default, whose 100 rows they explain too) and
exactly with the path-dependent base (``"path"``: no background), ``--timing-rounds`` times each, interleaved and the
order rotated from round to round (:func:`benchmarks.harness.interleave`; wall seconds, one process), the median
kept. Every explanation is checked to add up to ``predict_proba`` (within 1e-6). ``CascadeForestRegressor`` is
timed the same way on the synthetic ``numeric_interaction`` table (``--methods regressor``). The table: per dataset
and method, the fit's seconds, the kept layers, and for each mode its rows a second and its time over the fit's (the
target: at most 1 for the exact mode).

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.explain_cost --n-jobs 1 --seeds 0,1,2
python -m benchmarks.explain_cost --report-only
python -m benchmarks.explain_cost --quick
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
from sklearn.model_selection import train_test_split

from benchmarks.data import load_frames
from benchmarks.harness import Data, Dataset, Study, TrainTest, interleave
from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.experiments.tables import markdown_table

TRAIN_ROWS, EXPLAINED_ROWS = 3000, 200
#: The dataset of the regressor; the classifier's are the others.
REGRESSION_DATASET = "numeric_interaction"
MODES = ("predict", "exact", "fast", "path")
#: The modes that explain (their time over the fit's in the table); "path": exact, the path-dependent base.
EXPLAINING = MODES[1:]


def _rows(name, task="classification"):
    """Dataset ``name``: 3,000 stratified training rows (``random_state=0``) and the first 200 test rows."""

    def load(ctx):
        X, y, X_test, y_test = load_frames(name, quick=ctx.quick, data_home=getattr(ctx.options, "data_home", None))
        n_train = min(TRAIN_ROWS, len(y) - 1)
        if n_train < len(y):
            stratify = y if task == "classification" else None
            X, _, y, _ = train_test_split(X, y, train_size=n_train, stratify=stratify, random_state=0)
        return Data(X, y, X_test.iloc[:EXPLAINED_ROWS], y_test[:EXPLAINED_ROWS])

    return Dataset(name, load, task=task)


def _time_unit(ctx, X, y, X_eval, y_eval) -> dict:
    """Fit the default model once, then time its prediction and both explanations of the evaluation rows."""
    model = ctx.build()
    start = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - start
    classifier = hasattr(model, "predict_proba")
    predict = model.predict_proba if classifier else model.predict
    calls = {
        "predict": lambda: predict(X_eval),
        "exact": lambda: model.explain(X_eval),
        "fast": lambda: model.explain(X_eval, fast=True),
        "path": lambda: model.explain(X_eval, background="tree_path_dependent"),
    }
    seconds, values = interleave(calls, rounds=ctx.options.timing_rounds, offset=ctx.seed)
    expected = values["predict"]
    for mode in EXPLAINING:
        found = values[mode].base_values + values[mode].values.sum(axis=1)
        if np.abs(found - expected).max() > 1e-6:
            raise AssertionError(f"the {mode} attributions do not add up to the prediction")
    record = {"fit_s": fit_s, "n_layers": int(model.n_layers_), "n_train": len(y), "n_explained": len(X_eval)}
    record.update({f"{mode}_s": statistics.median(seconds[mode]) for mode in MODES})
    return record


def _table(results) -> str:
    """Per dataset and method: fit seconds, kept layers, and per mode rows a second and time over the fit's."""
    groups = {}
    for r in results.records:
        groups.setdefault((r["dataset"], r["method"]), []).append(r)
    header = ["dataset", "method", "fit (s)", "layers"]
    header += [f"{mode}: rows/s" for mode in MODES] + [f"{mode} / fit" for mode in EXPLAINING]
    lines = []
    for (dataset, method), records in sorted(groups.items()):
        fit = statistics.median(r["fit_s"] for r in records)
        line = [dataset, method, f"{fit:.2f}", "/".join(str(r["n_layers"]) for r in records)]
        for mode in MODES:
            line.append(f"{statistics.median(r['n_explained'] / r[f'{mode}_s'] for r in records):,.0f}")
        for mode in EXPLAINING:
            line.append(f"{statistics.median(r[f'{mode}_s'] / r['fit_s'] for r in records):.2f}")
        lines.append(line)
    return "\n".join(markdown_table(header, lines)) + "\n"


def _options(parser):
    parser.add_argument("--timing-rounds", type=int, default=3, help="interleaved rounds of each timing")


STUDY = Study(
    "explain_cost",
    __doc__,
    datasets=[_rows("adult"), _rows("letter"), _rows("satimage"), _rows(REGRESSION_DATASET, "regression")],
    methods={
        "classifier": lambda ctx: MDDFClassifier(random_state=ctx.seed, n_jobs=ctx.n_jobs),
        "regressor": lambda ctx: CascadeForestRegressor(random_state=ctx.seed, n_jobs=ctx.n_jobs),
    },
    protocol=TrainTest(seeds=(0, 1, 2)),
    applies=lambda method, dataset, options: (method == "regressor") == (dataset == REGRESSION_DATASET),
    quick={"datasets": [REGRESSION_DATASET], "seeds": (0,)},
    options=_options,
    settings=lambda options: {"timing_rounds": options.timing_rounds},
    fit=_time_unit,
    table=_table,
    report="explain_cost",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
