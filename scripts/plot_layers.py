"""Accuracy and margins of mdDF over its layers (the mdDF paper's Figures 8 and 9).

Writes, in ``--out``:

- ``layers_<dataset>.png/.pdf/.csv`` (Figure 8): training accuracy (out-of-fold, from
  ``train_history_``, every grown layer) and test accuracy (``staged_predict_proba``, every kept
  layer) per layer, and on a second axis the margin ratio lambda = std/mean of the training
  margins;
- ``margins_<dataset>.png/.pdf/.csv`` (Figure 9): cumulative distributions of the training
  margins at several layers.

Margins are computed from the stored out-of-fold features: (f_y - max_{j != y} f_j) divided by
the sum of the layer weights alpha (``mddf.experiments.layers``), the margin of the combined vote that
makes the prediction (positive exactly when the row is classified correctly). They exist for the
kept layers only (the features of dropped layers are not stored). The CSV also lists the
estimator's ``train_history_`` ratio, which is of the weighted sum of per-layer margins
(Algorithm 2, line 6) and differs from ours after the first layer. The paper uses UCI HAR;
without its files the default is satimage.

Every file carries the command that regenerates it, the commit, the machine and the date
(``mddf.experiments.provenance``): PNG/PDF metadata, and ``#`` comment lines before the CSV
header (read it with ``pandas.read_csv(path, comment="#")``).

Example: ``python scripts/plot_layers.py --dataset satimage --max-layers 10 --n-tolerant-layers 10``
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
