"""Benchmark runner: the mdDF paper's Table 2 (and 3) and the DeepBoost paper's Tables 1-3.

The same as ``mddf benchmark``; what it does and writes is documented in :mod:`mddf.experiments.benchmark`.
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
