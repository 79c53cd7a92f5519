"""Benchmark runner: the mdDF paper's Table 2 (and 3) and the DeepBoost paper's Tables 1-3.

The same as ``mddf benchmark``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.benchmark`.
"""

import sys

from mddf.experiments import cli

if __name__ == "__main__":
    sys.exit(cli.script_entry("benchmark", __file__))
