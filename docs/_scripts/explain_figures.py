"""Draw the explain page's figures: a beeswarm of the attributions of 500 test rows of adult, and one row's waterfall.

``MDDFClassifier`` with its defaults (``random_state=0``) is fitted on 3,000 training rows of adult (the census
income table of the mdDF paper, its eight categorical columns as pandas categories), and ``explain()`` attributes
its calibrated probability of ``>50K`` for the first 500 rows of adult's test split, exactly (TreeSHAP through the
layers). shap draws the figures (the ``explain`` extra). Run from the repository root, with ``MDDF_DATA`` pointing
at the benchmark files (``docs/user_guide/datasets.md``)::

    python docs/_scripts/explain_figures.py   # writes docs/user_guide/explain_beeswarm.png and explain_waterfall.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "user_guide"
TRAIN_ROWS, EXPLAINED_ROWS, SHOWN_ROW = 3000, 500, 3


def adult_frame(X, dataset):
    """Adult's rows as a DataFrame, its categorical columns as pandas categories of their names."""
    frame = pd.DataFrame(X, columns=dataset.feature_names)
    for name, categories in dataset.extra["categories"].items():
        codes = frame[name].to_numpy()
        known = np.isfinite(codes)
        values = np.full(len(codes), None, dtype=object)
        values[known] = np.asarray(categories, dtype=object)[codes[known].astype(int)]
        frame[name] = pd.Categorical(values, categories=list(categories))
    return frame


def draw(out=OUT):
    import shap

    from mddf import MDDFClassifier
    from mddf.datasets import load_dataset

    ds = load_dataset("adult")
    rows = np.random.default_rng(0).choice(len(ds.y_train), TRAIN_ROWS, replace=False)
    model = MDDFClassifier(random_state=0, n_jobs=-1).fit(adult_frame(ds.X_train[rows], ds), ds.y_train[rows])
    explained = model.explain(adult_frame(ds.X_test[:EXPLAINED_ROWS], ds))[:, :, 1]  # the probability of >50K
    shap.plots.beeswarm(explained, max_display=14, show=False)
    plt.gcf().set_size_inches(8, 6)
    plt.xlabel("attribution to the probability of >50K")
    plt.tight_layout()
    plt.savefig(out / "explain_beeswarm.png", dpi=110, bbox_inches="tight")
    plt.close("all")
    shap.plots.waterfall(explained[SHOWN_ROW], max_display=10, show=False)
    plt.gcf().set_size_inches(8, 5)
    plt.tight_layout()
    plt.savefig(out / "explain_waterfall.png", dpi=110, bbox_inches="tight")
    plt.close("all")
    return out / "explain_beeswarm.png", out / "explain_waterfall.png"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the two PNG files")
    for path in draw(parser.parse_args().out):
        print(path)
