"""A probe of ``target_statistics``: the classifier's default against the same with target statistics, on a few real
tables whose categories carry the signal. A probe, not the rule's run: 5-fold cross-validation,
one seed, accuracy and fit seconds per configuration and table, printed as a markdown table.

Examples
--------
MDDF_REALDATA=/path/to/realdata python -m benchmarks.target_statistics --tables beps titanic chile --n-jobs 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
from sklearn.model_selection import StratifiedKFold

from benchmarks import realdata
from mddf import MDDFClassifier
from mddf.experiments.tables import markdown_table

#: The configurations compared: the classifier's default, then with each kind of statistics.
CONFIGS = {"default": {}, "columns": {"target_statistics": "columns"}, "pairs": {"target_statistics": "pairs"}}


def cross_validate(X, y, params, folds=5, seed=0, n_jobs=None):
    """Mean accuracy and total fit seconds of ``MDDFClassifier(**params)`` over a seeded stratified k-fold."""
    correct, seconds = 0, 0.0
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y):
        model = MDDFClassifier(random_state=seed, n_jobs=n_jobs, **params)
        start = time.perf_counter()
        model.fit(X.iloc[train], y[train])
        seconds += time.perf_counter() - start
        correct += int((model.predict(X.iloc[test]) == y[test]).sum())
    return correct / len(y), seconds


def probe(tables, configs=CONFIGS, folds=5, seed=0, n_jobs=None, suite="realdata"):
    """One row per table: its accuracy (%) and fit seconds under each configuration."""
    rows = []
    for name in tables:
        table = realdata.load_table(name, suite=suite)
        row = [name, len(table.y), int(sum(str(t) == "category" for t in table.X.dtypes))]
        for params in configs.values():
            accuracy, seconds = cross_validate(table.X, np.asarray(table.y), params, folds, seed, n_jobs)
            row += [f"{100 * accuracy:.2f}", f"{seconds:.1f}"]
        rows.append(row)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["beps", "titanic", "chile"])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument("--suite", default="realdata", choices=realdata.GROUPS)
    args = parser.parse_args(argv)
    configs = {name: CONFIGS[name] for name in args.configs}
    rows = probe(args.tables, configs, args.folds, args.seed, args.n_jobs, args.suite)
    header = ["table", "rows", "categories"] + [f"{c} {what}" for c in configs for what in ("acc %", "fit s")]
    print("\n".join(markdown_table(header, rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
