"""The cost model of ``mddf benchmark`` and ``mddf small-sample``'s estimate, refitted from the suite's measured fits.

For each method of the practitioner protocol and each task, a least-squares line of the logarithm of a run's
seconds (its fit and the prediction of its test fold) in the logarithms of the table's rows, columns and outputs
(classes less one, at least one; a regression has one), fitted to the median seconds of the real-data suite's
twenty tables (``docs/benchmarks/realdata.csv``: 5-fold cross-validation, two threads; the shapes from the suite's
manifest, ``$MDDF_REALDATA``). The method ``mdDF`` is today's default of its task there (``mdDF-gbdt-cal``,
``CascadeForest-pairs3``). Its error on the suite is each table's measured seconds over the line fitted without that
table (leave one table out). The suite's mean accuracy (R²) of the cheaper designs and of the peers, and the designs'
time ratios, are read from ``docs/benchmarks/price.csv`` and ``docs/benchmarks/price.md``.

It writes the coefficients, errors and accuracies to ``experiments/cost_model.json`` (installed as package data of
``mddf.experiments``, read by :mod:`mddf.experiments.cost_estimate`) and each table's measured and
predicted seconds to ``docs/benchmarks/cost-model.csv``; ``--check`` refits from that CSV alone and says whether the
installed coefficients are its own. ``--fit-rows N`` times instead one default ``MDDFClassifier`` fit on four fifths of
a synthetic table of N rows (:func:`benchmarks.runner_overhead.table_frame`: five numeric columns, a text column, two
classes; two threads) and its prediction of the last fifth, beside the model's seconds for them.

Examples
--------
MDDF_REALDATA=/path/to/realdata python -m benchmarks.cost_model
python -m benchmarks.cost_model --check
python -m benchmarks.cost_model --fit-rows 50000
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "benchmarks"
COEFFICIENTS = ROOT / "experiments" / "cost_model.json"
TASKS = ("classification", "regression")
FIT_DATA = DOCS / "cost-model.csv"
#: The suite's learner measured for each method of the command, per task.
LEARNERS = {
    ("mdDF", "classification"): "mdDF-gbdt-cal",
    ("mdDF", "regression"): "CascadeForest-pairs3",
    **{
        (name, task): name
        for name in ("Baseline", "HGB-es", "LightGBM-es", "XGBoost-es", "CatBoost-es", "RF-400", "ExtraTrees-400")
        for task in ("classification", "regression")
    },
}
#: The cheaper designs of docs/benchmarks/price.md named by the advice, per task: the estimator's parameters.
DESIGNS = {
    "classification": ("mdDF-oob-es", 'forest_types=("rf", "rf", "crf", "crf", "gbdt_es"), class_vectors="oob"'),
    "regression": ("CascadeForest-50", "n_estimators=50"),
}


FIT_COLUMNS = ["method", "task", "table", "rows", "columns", "outputs", "seconds"]


def outputs(classes: int) -> int:
    """The outputs of a task of ``classes`` classes (0: a regression): classes less one, at least one."""
    return max(1, classes - 1)


def fit_data(realdata_csv: Path = DOCS / "realdata.csv", suite=None) -> pd.DataFrame:
    """One row per (method, task, table): the table's rows, columns and outputs and its median run seconds."""
    from benchmarks.realdata import manifest

    shapes = {e["name"]: e for e in manifest(suite)}
    measured = pd.read_csv(realdata_csv, comment="#")
    rows = []
    for (method, task), learner in LEARNERS.items():
        for r in measured[measured.learner == learner].itertuples():
            entry = shapes[r.table]
            if entry["task"] != task:
                continue
            classes = len(entry["classes"]) if task == "classification" else 0
            seconds = r.median_fit_s + r.median_predict_s
            rows.append([method, task, r.table, entry["rows"], entry["features"], outputs(classes), seconds])
    return pd.DataFrame(rows, columns=FIT_COLUMNS)


def design(group: pd.DataFrame) -> np.ndarray:
    """The model's inputs: 1, log rows, log columns and (when they vary) log outputs."""
    columns = [np.ones(len(group)), np.log(group["rows"]), np.log(group["columns"])]
    if group["outputs"].nunique() > 1:
        columns.append(np.log(group["outputs"]))
    return np.column_stack(columns)


def refit(data: pd.DataFrame) -> tuple[dict, pd.DataFrame]:
    """``({(method, task): coefficients}, data with each table's predicted and left-out predicted seconds)``."""
    coefficients, predicted = {}, []
    for (method, task), group in data.groupby(["method", "task"], sort=False):
        X, y = design(group), np.log(group["seconds"].to_numpy())
        coef = np.linalg.lstsq(X, y, rcond=None)[0]
        left_out = [X[i] @ np.linalg.lstsq(np.delete(X, i, 0), np.delete(y, i), rcond=None)[0] for i in range(len(y))]
        coefficients[(method, task)] = tuple(round(float(c), 4) for c in (*coef, 0.0)[:4])
        predicted.append(group.assign(predicted=np.exp(X @ coef), left_out=np.exp(left_out)))
    return coefficients, pd.concat(predicted)


def errors(predicted: pd.DataFrame) -> dict:
    """``{(method, task): (median, largest)}``: the factor between each table's seconds and its left-out prediction."""
    factor = np.exp(np.abs(np.log(predicted["seconds"] / predicted["left_out"])))
    grouped = factor.groupby([predicted["method"], predicted["task"]], sort=False)
    return {key: (round(float(f.median()), 2), round(float(f.max()), 2)) for key, f in grouped}


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


def module_text(coefficients: dict, errs: dict, scores: dict, ratios: dict) -> str:
    """The text of :data:`COEFFICIENTS`' file (JSON, one line a method): each line's coefficients and its error, the
    scores the advice shows (today's defaults, the cheaper designs and the practitioner protocol's peers) and the
    designs."""
    shown = {"mdDF", "CascadeForest", *(name for name, _ in DESIGNS.values()), *(m for m, _ in LEARNERS)}
    parts = {
        "coefficients": {
            t: {m: [*coefficients[m, t], *errs[m, t]] for m, of in coefficients if of == t} for t in TASKS
        },
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


def timed_default_fit(rows: int, n_jobs: int = 2) -> str:
    """One default fit on four fifths of a synthetic table of ``rows`` rows and the prediction of the rest, timed,
    beside the cost model's seconds for them and the machine's load average."""
    import os
    import time

    from benchmarks.runner_overhead import table_frame
    from mddf import MDDFClassifier
    from mddf.experiments.cost_estimate import run_seconds

    X = table_frame(rows, seed=1)
    y, cut = X.pop("label").to_numpy(), rows * 4 // 5
    load = os.getloadavg()[0]
    start = time.perf_counter()
    model = MDDFClassifier(random_state=0, n_jobs=n_jobs).fit(X.iloc[:cut], y[:cut])
    fit, start = time.perf_counter() - start, time.perf_counter()
    model.predict_proba(X.iloc[cut:])
    predict = time.perf_counter() - start
    expected = run_seconds("mdDF", "classification", cut, X.shape[1], 2)
    return (
        f"{rows} rows ({cut} fitted, {X.shape[1]} columns, {n_jobs} threads): fit {fit:.1f} s, predict {predict:.1f} s; "
        f"the model: {expected:.0f} s for the two; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cost_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="refit from docs/benchmarks/cost-model.csv and compare")
    parser.add_argument("--fit-rows", type=int, help="time one default fit on a synthetic table of this many rows")
    args = parser.parse_args(argv)
    if args.fit_rows:
        print(timed_default_fit(args.fit_rows))
        return 0
    data = pd.read_csv(FIT_DATA)[FIT_COLUMNS] if args.check else fit_data()
    coefficients, predicted = refit(data)
    text = module_text(coefficients, errors(predicted), suite_scores(), design_ratios())
    if args.check:
        same = COEFFICIENTS.read_text() == text
        print("the installed coefficients are the refit's" if same else f"{COEFFICIENTS} differs from the refit")
        return 0 if same else 1
    COEFFICIENTS.write_text(text)
    shown = predicted.assign(predicted=predicted["predicted"].round(3), left_out=predicted["left_out"].round(3))
    FIT_DATA.write_text(shown.to_csv(index=False))
    for (method, task), (median, largest) in errors(predicted).items():
        print(f"{method:<14} {task:<14} median factor {median:.2f}, largest {largest:.2f}")
    print(f"wrote {COEFFICIENTS} and {FIT_DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
