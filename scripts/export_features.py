"""Export the per-layer features of a fitted mdDF to a compressed ``.npz`` for downstream models.

The same as ``mddf export-features``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.feature_export`.
"""

from mddf.experiments import cli
from mddf.experiments.exit_status import exit_now

if __name__ == "__main__":
    exit_now(cli.script_entry("export-features", __file__))
