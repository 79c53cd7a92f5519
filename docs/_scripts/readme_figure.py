"""Draw the README's figure: on each of the 44 real tables, boosting and forests against the cascades' defaults.

It reads the per-table results the ahead study's page publishes, and nothing else: ``docs/benchmarks/ahead.csv``
(:mod:`benchmarks.ahead`, its full run: the mean over the folds of 5-fold cross-validation repeated 3 times, once on
the tables of 20,000 rows or more, every learner on the same folds).

Left: the classification tables, each peer's accuracy minus the default ``MDDFClassifier``'s, in percentage points.
Right: the regression tables, each peer's R² minus the default ``CascadeForestRegressor``'s, times 100 (the
defaults' names in the results: :data:`generated_blocks.CASCADES`). A point right of zero is a learner ahead of the
cascade. The peers: HistGradientBoosting, LightGBM, XGBoost and CatBoost (their defaults, stopped early on 10% of
the training rows) and a 400-tree random forest. Run from the repository root::

    python docs/_scripts/readme_figure.py               # writes docs/readme_comparison.png
    python docs/_scripts/readme_figure.py --out other.png

``tests/test_docs_figures.py`` draws it again and checks that the committed file has the drawing's size.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

DOCS = Path(__file__).resolve().parents[1]
OUT = DOCS / "readme_comparison.png"
RESULTS = DOCS / "benchmarks" / "ahead.csv"


def _cascades() -> dict:
    """:data:`generated_blocks.CASCADES`, the defaults' names in the results (one list for both scripts)."""
    spec = importlib.util.spec_from_file_location("generated_blocks", Path(__file__).with_name("generated_blocks.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASCADES


CASCADES = _cascades()
#: Task -> (the cascade's learner name, the ranking metric's column, its axis label).
TASKS = {
    "classification": (CASCADES["classification"][0], "accuracy", "accuracy minus mdDF's (points)"),
    "regression": (CASCADES["regression"][0], "r2", "R² minus the cascade's (x 100)"),
}
#: Peer learner name -> (label, marker, colour).
PEERS = {
    "HGB-es": ("HistGradientBoosting", "o", "#1f77b4"),
    "LightGBM-es": ("LightGBM", "s", "#2ca02c"),
    "XGBoost-es": ("XGBoost", "D", "#ff7f0e"),
    "CatBoost-es": ("CatBoost", "v", "#d62728"),
    "RF-400": ("random forest", "^", "#7f7f7f"),
}
#: Figure size (inches) and resolution: the committed PNG is 1200 x 840 pixels (26 classification tables a panel).
SIZE = (10, 7)
DPI = 120


def differences(path=RESULTS):
    """``{task: {table: {label: the peer's metric minus the cascade's, x 100}}}`` from the published results."""
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    means = {(row["table"], row["learner"]): row for row in rows}
    out = {}
    for task, (cascade, metric, _) in TASKS.items():
        per_table = {}
        for (table, learner), row in means.items():
            if learner != cascade or not row[metric]:
                continue
            base = float(row[metric])
            per_table[table] = {
                label: 100 * (float(means[table, peer][metric]) - base)
                for peer, (label, _, _) in PEERS.items()
                if (table, peer) in means and means[table, peer][metric]
            }
        out[task] = per_table
    return out


def draw(path=OUT, results=RESULTS):
    """Draw the figure into ``path`` (PNG) and return the path."""
    diffs = differences(results)
    styles = {label: (marker, colour) for label, marker, colour in PEERS.values()}
    fig, axes = plt.subplots(1, 2, figsize=SIZE)
    for ax, (task, (_, _, xlabel)) in zip(axes, TASKS.items()):
        # the tables in the order of the best peer's lead, the cascade's best tables first
        tables = sorted(diffs[task], key=lambda t: max(diffs[task][t].values(), default=0))
        for row, table in enumerate(tables):
            for label, value in diffs[task][table].items():
                marker, colour = styles[label]
                ax.scatter(value, row, marker=marker, color=colour, s=40, label=label, zorder=3)
        ax.axvline(0, color="black", linewidth=1)
        ax.set_yticks(range(len(tables)), tables, fontsize=8)
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel(xlabel + "; right of 0: ahead", fontsize=8)
        ax.set_title(f"{task}, {len(tables)} tables", fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    fig.legend(unique.values(), unique.keys(), loc="lower center", ncol=len(unique), fontsize=8)
    n_tables = sum(len(tables) for tables in diffs.values())
    title = f"Boosting and a random forest against the cascades' defaults, 5-fold CV on {n_tables} real tables"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = Path(path)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"PNG to write (default: {OUT})")
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"per-table results (default: {RESULTS})")
    args = parser.parse_args(argv)
    print(draw(args.out, args.results))


if __name__ == "__main__":
    main()
