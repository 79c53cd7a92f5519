"""Monotone constraints (``monotonic_cst``) verified on real tables, and what they cost (issue 80, item 3).

On each table: the cascade at its defaults (its forests and, for the classifier, XGBoost; the regressor's pair
features pair the unconstrained columns only), the cascade with ``forest_types=("gbdt", "lgbm")`` (boosted members
only; ``pair_features=None``), XGBoost (``monotone_constraints``) and scikit-learn's HistGradientBoosting
(``monotonic_cst``), each fitted with and without the table's constraints, scored in 5-fold cross-validation (R² for
regression, accuracy for classification; one seed, the same folds for every model). Then the grid check: each
constrained model fitted on every row predicts ``--rows`` random rows with a constrained column set to each of 25
values (its 1st to 99th percentile; the other columns fixed), and the most negative step of ``sign * prediction``
(the positive class's probability for a classifier) between neighbouring values is reported, for the unconstrained
model too (to show the check can fail): monotone when >= 0.

Text columns are given to every model as their category codes (numbers, none constrained), so that every model
reads the same columns. The tables are :mod:`benchmarks.realdata`'s (``MDDF_REALDATA``): saratoga (house prices,
living area +1 and bathrooms +1) and flchain (death, age +1; ``--flchain-rows`` random rows of its 7,874).

Examples
--------
OMP_NUM_THREADS=1 MDDF_REALDATA=/path/to/realdata python -m benchmarks.monotone
OMP_NUM_THREADS=1 MDDF_REALDATA=/path/to/realdata python -m benchmarks.monotone --models "cascade (defaults)"
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from xgboost import XGBClassifier, XGBRegressor

from benchmarks.realdata import load_table
from mddf import CascadeForestRegressor, MDDFClassifier

#: Per table: its task and the constraint of each constrained column.
TABLES = {
    "saratoga": ("regression", {"livingArea": 1, "bathrooms": 1}),
    "flchain": ("classification", {"age": 1}),
}
SEED = 0


def numeric(X):
    """``X`` with its category columns as their codes (NaN for a missing value)."""
    X = X.copy()
    for column in X.columns:
        if not pd.api.types.is_numeric_dtype(X[column]):
            codes = X[column].astype("category").cat.codes.astype(float)
            X[column] = codes.where(codes >= 0)
    return X.astype(float)


def models(task, constraint):
    """The three models with ``constraint`` (a list of -1, 0, 1 per column; None: unconstrained)."""
    regression = task == "regression"
    cascade = CascadeForestRegressor if regression else MDDFClassifier
    extra = {"pair_features": None} if regression else {}
    xgb = XGBRegressor if regression else XGBClassifier
    hgb = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
    return {
        "cascade (defaults)": cascade(monotonic_cst=constraint, random_state=SEED, n_jobs=1),
        "cascade (gbdt, lgbm)": cascade(
            forest_types=("gbdt", "lgbm"), monotonic_cst=constraint, random_state=SEED, n_jobs=1, **extra
        ),
        "XGBoost": xgb(
            monotone_constraints=None if constraint is None else tuple(constraint), random_state=SEED, n_jobs=1
        ),  # fmt: skip
        "HistGradientBoosting": hgb(monotonic_cst=constraint, random_state=SEED),
    }


def worst_step(model, X, column, sign, rows, task):
    """The most negative ``sign * step`` of the predictions along a grid of ``column`` (see the module)."""
    sample = X.sample(n=min(rows, len(X)), random_state=SEED)
    grid = np.nanpercentile(X[column], np.linspace(1, 99, 25))
    along = []
    for value in grid:
        probe = sample.copy()
        probe[column] = value
        along.append(model.predict(probe) if task == "regression" else model.predict_proba(probe)[:, 1])
    return float((sign * np.diff(np.column_stack(along), axis=1)).min())


def run_table(name, rows, flchain_rows, chosen=None):
    task, constrained = TABLES[name]
    table = load_table(name)
    X, y = numeric(table.X), np.asarray(table.y)
    if name == "flchain":
        keep = np.random.RandomState(SEED).choice(len(X), flchain_rows, replace=False)
        X, y = X.iloc[keep].reset_index(drop=True), y[keep]
    if task == "classification":
        y = pd.factorize(y, sort=True)[0]
    constraint = [constrained.get(c, 0) for c in X.columns]
    folds = (KFold if task == "regression" else StratifiedKFold)(5, shuffle=True, random_state=SEED)
    scoring = "r2" if task == "regression" else "accuracy"
    lines = []
    for label in models(task, None):
        if chosen is not None and label not in chosen:
            continue
        start = time.perf_counter()
        free = cross_val_score(models(task, None)[label], X, y, cv=folds, scoring=scoring).mean()
        bound = cross_val_score(models(task, constraint)[label], X, y, cv=folds, scoring=scoring).mean()
        worst = []
        for setting in (None, constraint):
            fitted = models(task, setting)[label].fit(X, y)
            worst.append(min(worst_step(fitted, X, c, s, rows, task) for c, s in constrained.items()))
        seconds = time.perf_counter() - start
        lines.append(
            f"| {name} | {label} | {free:.4f} | {bound:.4f} | {bound - free:+.4f} | {worst[0]:.3g} | {worst[1]:.3g} "
            f"| {seconds:.0f} |"
        )
        print(lines[-1], flush=True)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000, help="rows of the grid check (default 1000)")
    parser.add_argument("--flchain-rows", type=int, default=2000, help="rows of flchain used (default 2000)")
    parser.add_argument("--tables", default=",".join(TABLES), help="comma-separated tables (default: both)")
    parser.add_argument("--models", default=None, help="comma-separated models (default: all), as the table names them")
    args = parser.parse_args(argv)
    print(
        "| table | model | score unconstrained | score constrained | cost | worst grid step unconstrained "
        "| worst grid step constrained | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.tables.split(","):
        run_table(name, args.rows, args.flchain_rows, None if args.models is None else args.models.split(","))
    return 0


if __name__ == "__main__":
    sys.exit(main())
