"""Benchmark runner: the mdDF paper's Table 2 (and 3) and the DeepBoost paper's Tables 1-3.

Runs every available method on a suite of datasets, appends one JSON line per finished
(dataset, method, seed[, fold]) run to ``<out>/results.jsonl`` and writes Table 2-style
``table.md`` / ``table.csv`` (plus ``ablation.md`` / ``ablation.csv`` with ``--ablation``) with the
published numbers alongside, and with ``--peers`` ``peers.md`` / ``peers.csv``: today's peers
(LightGBM, HGB, ExtraTrees) next to mdDF, RF and XGBoost on the same splits and seeds. Every table
file starts with the command that regenerates it, the commit, the machine and the date (CSV: ``#``
comment lines, read with ``pandas.read_csv(path, comment="#")``). Rerunning with the same ``--out``
resumes: finished runs are skipped, failed ones retried.

Examples
--------
    python scripts/run_uci.py                               # bundled datasets, a few minutes
    python scripts/run_uci.py --suite mddf --seeds 3        # Table 2 on the paper's 8 datasets
    python scripts/run_uci.py --suite mddf --ablation       # ... and Table 3
    python scripts/run_uci.py --suite mddf --peers          # ... and today's peers (peers.md)
    python scripts/run_uci.py --suite deepboost             # DeepBoost datasets, 10-fold protocol
    python scripts/run_uci.py --datasets yeast,letter --methods mdDF,RF
    python scripts/run_uci.py --suite mddf --scheduler tcp://HOST:8786   # on a Dask cluster
    python scripts/run_uci.py --scheduler local:2           # on 2 local Dask worker processes

Random forest and XGBoost use 400 x k trees, k = the number of layers mdDF kept on the same
dataset and seed (mdDF runs first; see ``mddf.experiments/methods.py``). Each run executes in a fresh
worker process; its peak memory is that process's peak resident set size. With ``--scheduler``
each run is a task on a Dask cluster instead (``mddf.experiments/cluster.py``; needs the 'dask' extra);
results still stream into the same ``results.jsonl``.
"""

from __future__ import annotations

import sys

from mddf.experiments import cli
from mddf.experiments.benchmark import PEERS_ORDER, TABLE2_ORDER, TABLE3_ORDER, write_tables  # noqa: F401
from mddf.experiments.cli import parse_seeds  # noqa: F401
from mddf.experiments.suites import SUITES  # noqa: F401


def build_parser():
    """The options of ``mddf benchmark`` (:mod:`mddf.experiments.cli`), under this script's name."""
    return cli.benchmark_parser("run_uci.py")


def main(argv=None, registry=None) -> int:
    """``mddf benchmark``; ``registry`` lets callers add or replace methods."""
    return cli.run_script("benchmark", __file__, argv, registry)


if __name__ == "__main__":
    sys.exit(cli.script_entry("benchmark", __file__))
