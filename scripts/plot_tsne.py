"""t-SNE of mdDF's layer features (the mdDF paper's Figure 7).

The same as ``mddf plot-tsne``; what it does and writes is documented in :mod:`mddf.experiments.tsne_figure`.
"""

from __future__ import annotations

import sys

from mddf.experiments import cli
from mddf.experiments.tsne_figure import embed, sample_rows  # noqa: F401


def build_parser():
    """The options of ``mddf plot-tsne`` (:mod:`mddf.experiments.cli`), under this script's name."""
    return cli.plot_tsne_parser("plot_tsne.py")


def main(argv=None) -> int:
    """``mddf plot-tsne``."""
    return cli.run_script("plot-tsne", __file__, argv)


if __name__ == "__main__":
    sys.exit(cli.script_entry("plot-tsne", __file__))
