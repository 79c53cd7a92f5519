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

``--figure PNG`` fits only what its figure needs (:data:`FIGURE`): the default cascade and HistGradientBoosting on
saratoga, each without and with the constraints, fitted on every row; it draws the predictions of ``--figure-rows``
random rows along the grid of living area (:func:`figure`).

Examples
--------
OMP_NUM_THREADS=1 MDDF_REALDATA=/path/to/realdata python -m benchmarks.monotone
OMP_NUM_THREADS=1 MDDF_REALDATA=/path/to/realdata python -m benchmarks.monotone --models "cascade (defaults)"
OMP_NUM_THREADS=1 MDDF_REALDATA=/path/to/realdata python -m benchmarks.monotone --figure docs/benchmarks/monotone.png
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


def curves(model, X, column, rows, task):
    """The grid of ``column`` (25 values, its 1st to 99th percentile) and the predictions along it (the positive
    class's probability for a classifier) of ``rows`` random rows of ``X``, their other columns fixed: an array of
    one row per sampled row, one column per grid value."""
    sample = X.sample(n=min(rows, len(X)), random_state=SEED)
    grid = np.nanpercentile(X[column], np.linspace(1, 99, 25))
    along = []
    for value in grid:
        probe = sample.copy()
        probe[column] = value
        along.append(model.predict(probe) if task == "regression" else model.predict_proba(probe)[:, 1])
    return grid, np.column_stack(along)


def wrong_way(along, sign):
    """The most negative ``sign * step`` between neighbouring values of the rows of ``along``: >= 0 when monotone."""
    return float((sign * np.diff(along, axis=1)).min())


def worst_step(model, X, column, sign, rows, task):
    """The most negative ``sign * step`` of the predictions along a grid of ``column`` (see the module)."""
    return wrong_way(curves(model, X, column, rows, task)[1], sign)


def prepare(name, flchain_rows):
    """``X`` (numbers), ``y``, the task and the constraint per column of table ``name``."""
    task, constrained = TABLES[name]
    table = load_table(name)
    X, y = numeric(table.X), np.asarray(table.y)
    if name == "flchain":
        keep = np.random.RandomState(SEED).choice(len(X), flchain_rows, replace=False)
        X, y = X.iloc[keep].reset_index(drop=True), y[keep]
    if task == "classification":
        y = pd.factorize(y, sort=True)[0]
    return X, y, task, [constrained.get(c, 0) for c in X.columns]


def run_table(name, rows, flchain_rows, chosen=None):
    X, y, task, constraint = prepare(name, flchain_rows)
    constrained = TABLES[name][1]
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


#: The figure's table, constrained column, models and what it predicts (``--figure``).
FIGURE = ("saratoga", "livingArea", ("cascade (defaults)", "HistGradientBoosting"), "predicted log price")


def figure_curves(name, column, labels, rows, flchain_rows=2000):
    """``{label: {"unconstrained": (grid, along), "constrained": (grid, along)}}``: :func:`curves` of ``column`` for
    ``rows`` random rows, of each model of ``labels`` fitted on every row of table ``name`` without and with its
    constraints."""
    X, y, task, constraint = prepare(name, flchain_rows)
    return {
        label: {
            setting: curves(models(task, bound)[label].fit(X, y), X, column, rows, task)
            for setting, bound in (("unconstrained", None), ("constrained", constraint))
        }
        for label in labels
    }


def figure(panels, column, sign, ylabel):
    """One row of two panels per model of ``panels`` (:func:`figure_curves`): the predictions along the grid of
    ``column``, unconstrained (thin grey lines) beside constrained (a colour per row), each titled with its worst
    step (:func:`wrong_way`)."""
    from mddf.experiments.figures import plt

    fig, axes = plt.subplots(len(panels), 2, figsize=(9, 3.2 * len(panels)), sharey="row", squeeze=False)
    for row, (label, pair) in zip(axes, panels.items()):
        for ax, setting in zip(row, ("unconstrained", "constrained")):
            grid, along = pair[setting]
            lines = ax.plot(grid, along.T, color="grey", lw=0.8)
            if setting == "constrained":  # a colour per row (none of them grey)
                for line, colour in zip(lines, plt.get_cmap("viridis")(np.linspace(0, 0.9, len(lines)))):
                    line.set(color=colour, lw=1.5)
            ax.set_title(f"{label}, {setting}: worst step {wrong_way(along, sign):.3g}", fontsize=9)
            ax.set_xlabel(column)
        row[0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def draw_figure(path, rows, argv):
    """Fit what :data:`FIGURE` needs, draw :func:`figure` and save it as ``path`` (PNG) with its provenance."""
    from benchmarks.harness.study import command_provenance
    from mddf.experiments.figures import save_figure

    name, column, labels, ylabel = FIGURE
    fig = figure(figure_curves(name, column, labels, rows), column, TABLES[name][1][column], ylabel)
    return save_figure(fig, path.parent, path.stem, command_provenance("monotone", argv), formats=("png",))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000, help="rows of the grid check (default 1000)")
    parser.add_argument("--flchain-rows", type=int, default=2000, help="rows of flchain used (default 2000)")
    parser.add_argument("--tables", default=",".join(TABLES), help="comma-separated tables (default: both)")
    parser.add_argument("--models", default=None, help="comma-separated models (default: all), as the table names them")
    parser.add_argument(
        "--figure",
        type=Path,
        help=f"only draw the figure of {FIGURE[1]} on {FIGURE[0]} ({', '.join(FIGURE[2])}) to this PNG",
    )
    parser.add_argument("--figure-rows", type=int, default=8, help="random rows of the figure (default 8)")
    args = parser.parse_args(argv)
    if args.figure is not None:
        draw_figure(args.figure, args.figure_rows, sys.argv[1:] if argv is None else argv)
        return 0
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
