"""t-SNE of mdDF's layer features (the mdDF paper's Figure 7).

Fits mdDF, then embeds in 2-D (``sklearn.manifold.TSNE``) the augmented features of several
layers: for the training rows the out-of-fold features (``oof_features_``), for the test rows
``transform(X_test, layer=t)``. Each panel is coloured by class and titled with the ratio of
intra-class to inter-class variance of the embedding, tr(S_W)/tr(S_B) (smaller: more compact
classes). The paper uses UCI HAR; without its files the default is satimage.

Writes ``tsne_<dataset>.png/.pdf`` plus ``tsne_<dataset>.csv`` (every embedded point) and
``tsne_<dataset>_ratios.csv`` (the ratio of every panel) in ``--out``, each with the command that
regenerates it, the commit, the machine and the date (``mddf.experiments.provenance``: image
metadata, ``#`` comment lines before the CSV header; read with ``pandas.read_csv(path, comment="#")``).
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
