"""Accuracy and margins of mdDF over its layers (the mdDF paper's Figures 8 and 9).

The same as ``mddf plot-layers``; what it does and writes is documented in :mod:`mddf.experiments.layer_figures`.
"""

from __future__ import annotations

import sys

from mddf.experiments import cli
from mddf.experiments.layer_figures import layer_rows, plot_accuracy, plot_margins  # noqa: F401


def build_parser():
    """The options of ``mddf plot-layers`` (:mod:`mddf.experiments.cli`), under this script's name."""
    return cli.plot_layers_parser("plot_layers.py")


def main(argv=None) -> int:
    """``mddf plot-layers``."""
    return cli.run_script("plot-layers", __file__, argv)


if __name__ == "__main__":
    sys.exit(cli.script_entry("plot-layers", __file__))
