"""Export the per-layer features of a fitted mdDF to a compressed ``.npz`` for downstream models.

Layout of the file (``numpy.load(path)``), with T kept layers, d feature columns per layer
(d = number of classes, or 4 x classes with ``passed_features="per_forest"``):

    train_features  float32 (T, n_train, d)  out-of-fold augmented feature of layer t of the
                                             training rows (oof_features_; train_features[t-1]
                                             is layer t; no row's feature comes from a forest
                                             that trained on it). MDDFClassifier stores the
                                             normalised f_t / sum_{l<=t} alpha_l (rows sum to 1)
    test_features   float32 (T, n_test, d)   the same for the test rows, transform(X_test, layer=t)
                                             (absent for datasets without a test split)
    y_train, y_test int64                    class codes 0..s-1
    classes         str                      original labels, classes[y]
    layers          int64 (T,)               1..T
    alphas          float64 (T,)             layer weights alpha_t
    X_train, X_test float32                  raw inputs, only with --include-raw
                                             (to rebuild mdDF's "preconc" input [x, f_t])
    meta            str                      JSON: dataset, mdDF parameters, n_layers,
                                             stop reason, package versions, this layout

Example (logistic regression on the last layer's features):

    z = np.load("results/features/satimage_mddf_features.npz")
    LogisticRegression(max_iter=1000).fit(z["train_features"][-1], z["y_train"]).score(
        z["test_features"][-1], z["y_test"])
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
