"""Small-sample robustness (the mdDF paper's Figure 6): test accuracy versus training fraction.

The same as ``mddf small-sample``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.small_sample`.
"""

from mddf.experiments import cli
from mddf.experiments.exit_status import exit_now

if __name__ == "__main__":
    exit_now(cli.script_entry("small-sample", __file__))
