"""Accuracy and margins of mdDF over its layers (the mdDF paper's Figures 8 and 9).

The same as ``mddf plot-layers``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.layer_figures`.
"""

import sys

from mddf.experiments import cli

if __name__ == "__main__":
    sys.exit(cli.script_entry("plot-layers", __file__))
