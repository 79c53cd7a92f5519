"""The cost model of ``mddf benchmark`` and ``mddf small-sample``'s estimate, refitted from measured runs.

A run's seconds (its selection, fit and the prediction of its test rows, labels and probabilities from one pass) are
``exp(a + b log rows + c log columns + d log outputs)``, ``rows`` the rows it trains on, ``outputs`` the classes less
one (at least one; a regression has one); one line per method and group, fitted by least squares to the median
seconds of each table's runs:

- ``classification`` and ``regression``, the practitioner protocol's methods: the 44 tables of the ahead-of-CatBoost
  study's full run (``docs/benchmarks/ahead-full.jsonl``: 572 to 50,000 rows, 5-fold cross-validation, two threads;
  the columns and classes from the suites' manifests, :mod:`benchmarks.realdata`). The record of each method is
  :data:`LEARNERS`': ``mdDF`` is today's default of its task (``MDDFClassifier()``, the study's ``mdDF``;
  ``CascadeForestRegressor()``, its ``CascadeForest-select+lgbm+later``), the peers are themselves; ``Baseline``,
  not in that study, is the real-data suite's twenty tables (``docs/benchmarks/realdata.csv``). Rows, columns and
  outputs (classification), rows and columns (regression).
- ``paper``, the papers' protocol's methods (``PAPER_CONFIG``'s mdDF, the tree-budget forests, the grids' selection
  included): the runner's records of the mdDF paper's four datasets (``docs/results/mddf.jsonl``) and of the README's
  default run on scikit-learn's bundled datasets (``docs/benchmarks/cost-model-paper.jsonl``, written by
  ``--measure-paper``). Rows only (four to eight tables a method); a method measured on fewer than three tables (the
  binary boosting methods: breast cancer alone) takes its time in proportion to the rows, through its table.

Its error is each table's measured seconds over the line fitted without that table (leave one table out), per
method: the median and the largest factor. Beside the lines, ``first_use``: the compile seconds of a first fit of
each kind of input (numeric, categorical, missing values, regression; ``docs/benchmarks/first-use.jsonl``, the
records of ``python -m benchmarks.first_use``, the median compile CPU of each kind), and ``fixed_seconds``: the
command's own start, reading and writing (:data:`FIXED_SECONDS`, docs/benchmarks/runner-overhead.md). The suite's
mean accuracy (R²) of the cheaper designs and of the peers, and the designs' time ratios, are read from
``docs/benchmarks/price.csv`` and ``docs/benchmarks/price.md``.

It writes the coefficients, errors and accuracies to ``experiments/cost_model.json`` (installed as package data of
``mddf.experiments``, read by :mod:`mddf.experiments.cost_estimate`) and each table's measured and predicted seconds
to ``docs/benchmarks/cost-model.csv``; ``--check`` refits from that CSV (and the first-use records) alone and says
whether the installed coefficients are its own. ``--measure-paper`` runs the README's first command
(``scripts/run_uci.py``, the papers' protocol on the bundled datasets) into a temporary folder and keeps its records'
shapes and seconds in ``docs/benchmarks/cost-model-paper.jsonl`` (run it on a quiet machine, then refit).

Examples
--------
python -m benchmarks.cost_model
python -m benchmarks.cost_model --check
python -m benchmarks.cost_model --measure-paper && python -m benchmarks.cost_model
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "benchmarks"
COEFFICIENTS = ROOT / "experiments" / "cost_model.json"
GROUPS = ("classification", "regression", "paper")
FIT_DATA = DOCS / "cost-model.csv"
PRACTITIONER_RECORDS = DOCS / "ahead-full.jsonl"
PAPER_RECORDS = (ROOT / "docs" / "results" / "mddf.jsonl", DOCS / "cost-model-paper.jsonl")
FIRST_USE_RECORDS = DOCS / "first-use.jsonl"
#: The first-use kinds the estimate adds (``benchmarks/first_use.py``'s, those that compile a builder of their own).
FIRST_USE_KINDS = ("numeric", "categorical", "missing", "regression")
#: A sweep's seconds beyond its runs': the command's imports, reading of the table, the workers' start and the table
#: and figure at the end (3.5 s on a quiet machine, docs/benchmarks/runner-overhead.md, the 35 small runs).
FIXED_SECONDS = 3.5
#: The measured learner of each method of the practitioner protocol, per task: in the ahead study's records, or (a
#: method it did not fit) in the real-data suite's ``realdata.csv``.
LEARNERS = {
    ("mdDF", "classification"): "mdDF",
    ("mdDF", "regression"): "CascadeForest-select+lgbm+later",
    **{
        (name, task): name
        for name in ("HGB-es", "LightGBM-es", "XGBoost-es", "CatBoost-es", "RF-400")
        for task in ("classification", "regression")
    },
}
SUITE_ONLY = {("Baseline", "classification"): "Baseline", ("Baseline", "regression"): "Baseline"}
#: The share of a table's rows each run of the real-data suite trained on (5-fold cross-validation).
SUITE_TRAIN_SHARE = 0.8
#: Fewer tables than this: a line through the method's tables in proportion to the rows (no error measured).
FEWEST_TABLES = 3
#: The cheaper designs of docs/benchmarks/price.md named by the advice, per task: the estimator's parameters.
DESIGNS = {
    "classification": ("mdDF-oob-es", 'forest_types=("rf", "rf", "crf", "crf", "gbdt_es"), class_vectors="oob"'),
    "regression": ("CascadeForest-50", "n_estimators=50"),
}
FIT_COLUMNS = ["method", "group", "table", "rows", "columns", "outputs", "seconds"]
#: What ``--measure-paper`` keeps of each record of the papers' protocol.
PAPER_FIELDS = ("key", "dataset", "method", "status", "n_train", "n_features", "n_classes", "started_at")
PAPER_SECONDS = ("compile_seconds", "selection_seconds", "train_seconds", "predict_seconds")


def outputs(classes: int) -> int:
    """The outputs of a task of ``classes`` classes (0: a regression): classes less one, at least one."""
    return max(1, classes - 1)


def practitioner_data(records=PRACTITIONER_RECORDS, realdata_csv=DOCS / "realdata.csv", suite="all") -> pd.DataFrame:
    """One row per (method, task, table) of the practitioner protocol: the median training rows of its runs, the
    table's columns and outputs, and the median of its runs' fit and prediction seconds."""
    from benchmarks.realdata import manifest

    shapes = {e["name"]: e for e in manifest(None, suite)}
    runs = pd.read_json(records, lines=True)
    runs = runs[runs["status"] == "ok"].assign(seconds=runs["fit_s"] + runs["predict_s"])
    found = []
    for (method, task), learner in LEARNERS.items():
        for table, group in runs[(runs["method"] == learner) & (runs["task"] == task)].groupby("dataset"):
            found.append((method, task, table, float(group["n_train"].median()), float(group["seconds"].median())))
    measured = pd.read_csv(realdata_csv, comment="#")
    for (method, task), learner in SUITE_ONLY.items():
        for r in measured[measured["learner"] == learner].itertuples():
            if shapes[r.table]["task"] == task:
                rows = shapes[r.table]["rows"] * SUITE_TRAIN_SHARE
                found.append((method, task, r.table, rows, r.median_fit_s + r.median_predict_s))
    data = []
    for method, task, table, rows, seconds in found:
        entry = shapes[table]
        classes = len(entry["classes"]) if task == "classification" else 0
        data.append([method, task, table, rows, entry["features"], outputs(classes), seconds])
    return pd.DataFrame(data, columns=FIT_COLUMNS)


def run_seconds(record: dict) -> float:
    """A record's seconds of the run's own work, its compilation apart: selection, final fit and prediction."""
    return float(sum(record.get(key) or 0.0 for key in PAPER_SECONDS[1:]))


def paper_data(paths=PAPER_RECORDS) -> pd.DataFrame:
    """One row per (method, dataset) of the papers' protocol's records (full training sets): the training rows,
    columns and outputs, and the median seconds of its runs (:func:`run_seconds`)."""
    latest = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            record = json.loads(line)
            if record.get("status") == "ok" and record.get("fraction", 1.0) == 1.0:
                latest[(path, record["key"])] = record
    runs = pd.DataFrame(
        [
            [r["method"], r["dataset"], r["n_train"], r["n_features"], outputs(r["n_classes"]), run_seconds(r)]
            for r in latest.values()
        ],
        columns=["method", "table", "rows", "columns", "outputs", "seconds"],
    )
    medians = runs.groupby(["method", "table"], sort=False).median().reset_index()
    return medians.assign(group="paper")[FIT_COLUMNS]


def fit_data() -> pd.DataFrame:
    """The data of every line: :func:`practitioner_data` and :func:`paper_data`."""
    return pd.concat([practitioner_data(), paper_data()], ignore_index=True)


def design(group: pd.DataFrame, name: str) -> np.ndarray:
    """The line's inputs: 1 and log rows; with log columns for the practitioner protocol's methods, and log outputs
    for its classification."""
    columns = [np.ones(len(group)), np.log(group["rows"])]
    if name != "paper":
        columns.append(np.log(group["columns"]))
    if name == "classification":
        columns.append(np.log(group["outputs"]))
    return np.column_stack(columns)


def line(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares of ``y`` on ``X``; with fewer than :data:`FEWEST_TABLES` tables, the line of slope 1 in log rows
    through their mean."""
    if len(y) < FEWEST_TABLES:
        return np.array([np.mean(y - X[:, 1]), 1.0, *[0.0] * (X.shape[1] - 2)])
    return np.linalg.lstsq(X, y, rcond=None)[0]


def refit(data: pd.DataFrame) -> tuple[dict, dict, pd.DataFrame]:
    """``({(method, group): (a, b, c, d)}, {(method, group): the fewest training rows measured}, data with each
    table's predicted and left-out predicted seconds)`` (no left-out prediction with :data:`FEWEST_TABLES` tables
    or fewer)."""
    coefficients, smallest, predicted = {}, {}, []
    for (method, name), group in data.groupby(["method", "group"], sort=False):
        X, y = design(group, name), np.log(group["seconds"].to_numpy())
        coef = line(X, y)
        left_out = np.full(len(y), np.nan)
        if len(y) > FEWEST_TABLES:
            left_out = np.exp([X[i] @ line(np.delete(X, i, 0), np.delete(y, i)) for i in range(len(y))])
        coefficients[(method, name)] = tuple(round(float(c), 4) for c in (*coef, 0.0, 0.0)[:4])
        smallest[(method, name)] = int(group["rows"].min())
        predicted.append(group.assign(predicted=np.exp(X @ coef), left_out=left_out))
    return coefficients, smallest, pd.concat(predicted)


def errors(predicted: pd.DataFrame) -> dict:
    """``{(method, group): (median, largest)}``: the factor between each table's seconds and its left-out prediction
    (None, None without one)."""
    factor = np.exp(np.abs(np.log(predicted["seconds"] / predicted["left_out"])))
    grouped = factor.groupby([predicted["method"], predicted["group"]], sort=False)
    return {
        key: (None, None) if f.isna().all() else (round(float(f.median()), 2), round(float(f.max()), 2))
        for key, f in grouped
    }


def sweep_errors(predicted: pd.DataFrame) -> tuple[float, float, int, int]:
    """``(median, largest, beyond 2x, tables)``: the factor between each practitioner table's measured seconds and its
    left-out prediction, summed over the methods (the runs of one fold of the default sweep, Baseline aside: it is
    measured on the twenty tables only)."""
    mine = predicted[(predicted["group"] != "paper") & (predicted["method"] != "Baseline")]
    summed = mine.groupby("table")[["seconds", "left_out"]].sum()
    factor = np.exp(np.abs(np.log(summed["seconds"] / summed["left_out"])))
    return round(float(factor.median()), 2), round(float(factor.max()), 2), int((factor > 2).sum()), len(factor)


def first_use(path: Path = FIRST_USE_RECORDS) -> dict:
    """``{kind: seconds}``: the median compile CPU of each kind of :data:`FIRST_USE_KINDS` in ``benchmarks.first_use``'s
    records (each kind after the kinds before it, as a new user meets them)."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    seconds = {}
    for kind in FIRST_USE_KINDS:
        measured = [r["compile_cpu"] for r in records if r.get("dataset") == kind and r.get("status") == "ok"]
        seconds[kind] = round(max(0.0, statistics.median(measured)), 1)
    return seconds


def suite_scores(price_csv: Path = DOCS / "price.csv") -> dict:
    """``{"classification": {learner: mean accuracy}, "regression": {learner: mean R²}}`` over price.csv's tables."""
    price = pd.read_csv(price_csv, comment="#")
    classification = price[price["r2"].isna()].groupby("learner")["accuracy"].mean()
    regression = price[price["r2"].notna()].groupby("learner")["r2"].mean()
    return {
        "classification": {k: round(float(v), 4) for k, v in classification.items()},
        "regression": {k: round(float(v), 5) for k, v in regression.items()},
    }


def design_ratios(price_md: Path = DOCS / "price.md") -> dict:
    """``{design: (fit ratio, predict ratio, worst table difference)}`` of :data:`DESIGNS` from price.md's tables."""
    text = price_md.read_text()
    found = {}
    for name, _ in DESIGNS.values():
        pattern = rf"^\| {re.escape(name)} \| ([\d.]+)x \| ([\d.]+)x \|[^|]*\|(?:[^|]*\|)? ([^|]*) \|"
        row = re.search(pattern, text, re.M)
        if row is None:
            raise SystemExit(f"{price_md}: no row of {name} in its design tables")
        worst = [float(v) for v in re.findall(r"(-[\d.]+) ±", row.group(3))]
        found[name] = (float(row.group(1)), float(row.group(2)), min(worst) if worst else 0.0)
    return found


def module_text(
    coefficients: dict, smallest: dict, errs: dict, compile_seconds: dict, scores: dict, ratios: dict
) -> str:
    """The text of :data:`COEFFICIENTS`' file (JSON, one line a method): each line's coefficients, its error and the
    fewest rows it was measured on, the first use's compile seconds by kind, the fixed seconds, the scores the advice
    shows (today's defaults, the cheaper designs and the practitioner protocol's peers) and the designs."""
    shown = {"mdDF", "CascadeForest", *(name for name, _ in DESIGNS.values()), *(m for m, _ in LEARNERS)}
    parts = {
        "coefficients": {
            g: {m: [*coefficients[m, t], *errs[m, t], smallest[m, t]] for m, t in coefficients if t == g}
            for g in GROUPS
        },
        "first_use": compile_seconds,
        "fixed_seconds": FIXED_SECONDS,
        "suite_scores": {task: {k: v for k, v in by.items() if k in shown} for task, by in scores.items()},
        "cheaper_designs": {task: [name, parameters, *ratios[name]] for task, (name, parameters) in DESIGNS.items()},
    }
    return as_json(parts) + "\n"


def as_json(value, indent: str = "") -> str:
    """``value`` as JSON: a dict of dicts or lists a line an item, anything else on one line."""
    if not isinstance(value, dict) or not any(isinstance(v, (dict, list)) for v in value.values()):
        return json.dumps(value, ensure_ascii=False)
    items = ",\n".join(f"{indent} {json.dumps(k)}: {as_json(v, indent + ' ')}" for k, v in value.items())
    return "{\n" + items + f"\n{indent}}}"


def measure_paper(out: Path = PAPER_RECORDS[1]) -> str:
    """Run the README's first command (``python scripts/run_uci.py``) in a temporary folder, keep its records' shapes
    and seconds (:data:`PAPER_FIELDS`, :data:`PAPER_SECONDS`) in ``out``; return a line saying its wall time and the
    machine's load average."""
    with tempfile.TemporaryDirectory(prefix="mddf-cost-paper-") as folder:
        load, start = os.getloadavg()[0], time.perf_counter()
        command = [sys.executable, str(ROOT / "scripts" / "run_uci.py"), "--out", str(Path(folder) / "out")]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        records = [json.loads(line) for line in (Path(folder) / "out" / "results.jsonl").read_text().splitlines()]
    kept = [{k: r.get(k) for k in (*PAPER_FIELDS, *PAPER_SECONDS)} for r in records if r.get("method")]
    out.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return (
        f"{len(kept)} runs in {wall:.0f} s of wall time; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cost_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="refit from docs/benchmarks/cost-model.csv and compare")
    parser.add_argument("--measure-paper", action="store_true", help="run the README's first command, keep its runs")
    args = parser.parse_args(argv)
    if args.measure_paper:
        print(measure_paper())
        return 0
    data = pd.read_csv(FIT_DATA)[FIT_COLUMNS] if args.check else fit_data()
    coefficients, smallest, predicted = refit(data)
    text = module_text(coefficients, smallest, errors(predicted), first_use(), suite_scores(), design_ratios())
    if args.check:
        same = COEFFICIENTS.read_text() == text
        print("the installed coefficients are the refit's" if same else f"{COEFFICIENTS} differs from the refit")
        return 0 if same else 1
    COEFFICIENTS.write_text(text)
    shown = predicted.assign(predicted=predicted["predicted"].round(3), left_out=predicted["left_out"].round(3))
    FIT_DATA.write_text(shown.to_csv(index=False))
    for (method, group), (median, largest) in errors(predicted).items():
        said = f"median factor {median:.2f}, largest {largest:.2f}" if median else "one table: no error measured"
        print(f"{method:<14} {group:<14} {said}")
    median, largest, beyond, tables = sweep_errors(predicted)
    print(f"a table's runs of every method, left out: median factor {median:.2f}, largest {largest:.2f}, "
          f"beyond 2x on {beyond} of {tables} tables")  # fmt: skip
    print(f"wrote {COEFFICIENTS} and {FIT_DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
