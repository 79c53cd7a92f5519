"""Draw the README's figure: test accuracy of gradient boosting, forests and DF21 against mdDF's, per dataset.

It reads the raw records the benchmark pages publish, and nothing else:

- ``docs/benchmarks/mixed.jsonl`` (:mod:`benchmarks.mixed`, the test rows of letter, satimage, adult and the
  Fashion-MNIST subset, seeds 0-4): the default ``MDDFClassifier`` (``mdDF-subset``), HistGradientBoosting,
  LightGBM and XGBoost at their defaults, a 400-tree random forest;
- ``docs/benchmarks/df21-epyc-7e45617.jsonl`` (:mod:`benchmarks.df21`, the same datasets' test rows and
  yeast): DF21 and the k-fold mdDF of that run.

Each point is a learner's mean test accuracy minus mdDF's mean in the same study (same splits and seeds:
0-4 in the first, 0-2 and 0-4 on yeast in the second),
in percentage points: a point right of zero is a learner ahead of mdDF. Run from the repository root::

    python docs/_scripts/readme_figure.py               # writes docs/readme_comparison.png
    python docs/_scripts/readme_figure.py --out other.png

``tests/test_docs_figures.py`` draws it again and checks that the committed file has the drawing's size.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

DOCS = Path(__file__).resolve().parents[1]
OUT = DOCS / "readme_comparison.png"
#: Study records -> (mdDF's method name there, {method name: label}).
STUDIES = {
    DOCS / "benchmarks" / "mixed.jsonl": (
        "mdDF-subset",
        {"HGB": "HistGradientBoosting", "LightGBM": "LightGBM", "XGBoost": "XGBoost", "RF400": "random forest"},
    ),
    DOCS / "benchmarks" / "df21-epyc-7e45617.jsonl": ("mdDF k-fold", {"DF21": "DF21"}),
}
DATASETS = ("letter", "satimage", "adult", "fashion-mnist", "yeast")
#: Label -> (marker, colour).
STYLES = {
    "HistGradientBoosting": ("o", "#1f77b4"),
    "LightGBM": ("s", "#2ca02c"),
    "XGBoost": ("D", "#ff7f0e"),
    "random forest": ("^", "#7f7f7f"),
    "DF21": ("v", "#d62728"),
}
#: Figure size (inches) and resolution: the committed PNG is 1080 x 480 pixels.
SIZE = (9, 4)
DPI = 120


def differences():
    """``{dataset: {label: accuracy points minus mdDF's}}`` from the studies' test-row records."""
    out = defaultdict(dict)
    for path, (reference, labels) in STUDIES.items():
        scores = defaultdict(list)
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("stage", "test") != "test" or record.get("status", "ok") != "ok":
                continue
            if record.get("accuracy") is not None:
                scores[record["dataset"], record["method"]].append(record["accuracy"])
        for dataset in DATASETS:
            base = scores.get((dataset, reference))
            for method, label in labels.items():
                if base and scores.get((dataset, method)):
                    mean = sum(scores[dataset, method]) / len(scores[dataset, method])
                    out[dataset][label] = 100 * (mean - sum(base) / len(base))
    return dict(out)


def draw(path=OUT):
    """Draw the figure into ``path`` (PNG) and return the path."""
    diffs = differences()
    datasets = [d for d in DATASETS if d in diffs]
    fig, ax = plt.subplots(figsize=SIZE)
    for row, dataset in enumerate(datasets):
        for label, value in diffs[dataset].items():
            marker, colour = STYLES[label]
            ax.scatter(value, row, marker=marker, color=colour, s=48, label=label, zorder=3)
    ax.axvline(0, color="black", linewidth=1)
    ax.set_yticks(range(len(datasets)), datasets)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("test accuracy minus mdDF's (percentage points; right of 0: ahead of mdDF)")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    ax.legend(unique.values(), unique.keys(), loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.set_title("mdDF (defaults) against boosting, a random forest and DF21, on the test rows", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"PNG to write (default: {OUT})")
    print(draw(parser.parse_args(argv).out))


if __name__ == "__main__":
    main()
