"""Small-sample robustness (the mdDF paper's Figure 6): test accuracy versus training fraction.

The same as ``mddf small-sample``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.small_sample`.
"""

import sys

from mddf.experiments import cli

if __name__ == "__main__":
    sys.exit(cli.script_entry("small-sample", __file__))
