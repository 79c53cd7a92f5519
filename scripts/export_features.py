"""Export the per-layer features of a fitted mdDF to a compressed ``.npz`` for downstream models.

The same as ``mddf export-features``; what it does and writes is documented in :mod:`mddf.experiments.feature_export`.
"""

from __future__ import annotations

import sys

from mddf.experiments import cli
from mddf.experiments.feature_export import LAYOUT, layer_features  # noqa: F401


def build_parser():
    """The options of ``mddf export-features`` (:mod:`mddf.experiments.cli`), under this script's name."""
    return cli.export_features_parser("export_features.py")


def main(argv=None) -> int:
    """``mddf export-features``."""
    return cli.run_script("export-features", __file__, argv)


if __name__ == "__main__":
    sys.exit(cli.script_entry("export-features", __file__))
