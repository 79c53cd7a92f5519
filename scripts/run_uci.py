"""Benchmark runner: the mdDF paper's Table 2 (and 3) and the DeepBoost paper's Tables 1-3.

The same as ``mddf benchmark``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.benchmark`.
"""

from mddf.experiments import cli
from mddf.experiments.exit_status import exit_now

if __name__ == "__main__":
    exit_now(cli.script_entry("benchmark", __file__))
