"""Small-sample robustness (the mdDF paper's Figure 6): test accuracy versus training fraction.

Trains random forest, XGBoost, gcForest and mdDF on stratified fractions of the training split
(``mddf.experiments.protocols.subsample``: every class keeps at least one row; the test split is unchanged),
repeated over seeds, and plots the mean test accuracy with standard-deviation error bars.
Each (fraction, method, seed) is one run of the benchmark runner (``run_one``, fresh worker
process, or a task on a Dask cluster with ``--scheduler``; resumable ``results.jsonl`` in
``--out``), so random forest and XGBoost get 400 x k trees with k = the layers of mdDF on the
same fraction and seed.

The paper uses UCI HAR (the default when its files are present, else satimage).

Writes ``small_sample_<dataset>.png/.pdf/.csv`` in ``--out``, each with the command that regenerates
it, the commit, the machine and the date (``mddf.experiments.provenance``; the CSV's are ``#``
comment lines: read it with ``pandas.read_csv(path, comment="#")``).
"""

from __future__ import annotations

import sys

from mddf.experiments import cli
from mddf.experiments.small_sample import DEFAULT_FRACTIONS, DEFAULT_METHODS, plot, summarize  # noqa: F401


def build_parser():
    """The options of ``mddf small-sample`` (:mod:`mddf.experiments.cli`), under this script's name."""
    return cli.small_sample_parser("small_sample.py")


def main(argv=None, registry=None) -> int:
    """``mddf small-sample``; ``registry`` lets callers add or replace methods."""
    return cli.run_script("small-sample", __file__, argv, registry)


if __name__ == "__main__":
    sys.exit(cli.script_entry("small-sample", __file__))
