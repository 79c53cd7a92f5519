"""Export the per-layer features of a fitted mdDF to a compressed ``.npz`` for downstream models.

The same as ``mddf export-features``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.feature_export`.
"""

import sys

from mddf.experiments import cli

if __name__ == "__main__":
    sys.exit(cli.script_entry("export-features", __file__))
