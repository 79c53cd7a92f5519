"""The real-data study's figures: the critical-difference diagram of each task's mean ranks, and the suite mean
against the median fit seconds."""

from __future__ import annotations

import math

from benchmarks.harness import METRICS, PERCENT
from benchmarks.realdata_statistics import cliques


def cd_figure(ranks: dict, cd: float, title: str):
    """A critical-difference diagram (Demšar 2006): the mean ranks on an axis, the best on the left, the
    learners no more than ``cd`` apart joined by a bar, and the CD drawn above the axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = sorted(ranks, key=ranks.get)
    k = len(order)
    half = math.ceil(k / 2)
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.32 * half))
    low, high = 1, max(k, 2)
    ax.set_xlim(low - 0.6, high + 0.6)
    ax.set_ylim(-(half + 1.5), 1.6)
    ax.axis("off")
    ax.hlines(0, low, high, color="black", lw=1)
    for r in range(low, high + 1):
        ax.vlines(r, 0, 0.15, color="black", lw=1)
        ax.text(r, 0.25, str(r), ha="center", va="bottom", fontsize=9)
    if math.isfinite(cd):
        ax.hlines(1.1, low, low + cd, color="black", lw=1.5)
        ax.vlines([low, low + cd], 1.0, 1.2, color="black", lw=1.5)
        ax.text(low + cd / 2, 1.25, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    for i, m in enumerate(order):
        left = i < half
        level = -(i + 1) if left else -(k - i)
        x = ranks[m]
        end = low - 0.5 if left else high + 0.5
        ax.plot([x, x, end], [0, level, level], color="black", lw=0.8)
        ax.text(
            end,
            level,
            f"{m} ({x:.2f})  " if left else f"  {m} ({x:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize=9,
        )
    for j, group in enumerate(cliques(ranks, cd) if math.isfinite(cd) else []):
        y = -0.35 - 0.22 * j
        ax.hlines(y, ranks[group[0]] - 0.05, ranks[group[-1]] + 0.05, color="tab:red", lw=3)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def frontier(points: list, higher: bool = True) -> list:
    """The learners of ``points`` (``(name, seconds, score)``) that no other beats on both: none as fast or faster
    with a better score; fastest first."""
    better = (lambda a, b: a > b) if higher else (lambda a, b: a < b)
    kept = [
        p
        for p in points
        if not any(q is not p and q[1] <= p[1] and better(q[2], p[2]) for q in points)
        and not any(q is not p and q[1] < p[1] and q[2] == p[2] for q in points)
    ]
    return sorted(kept, key=lambda p: p[1])


def time_figure(points: list, metric: str, title: str):
    """Each learner's suite mean of the ranking metric against its median fit seconds (log axis), the frontier (the
    learners no other beats on both, :func:`frontier`) joined by a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    scale = 100 if metric in PERCENT else 1
    best = frontier(points, higher=METRICS[metric][2])
    ax.step(
        [p[1] for p in best], [scale * p[2] for p in best], where="post", color="0.6", lw=1, zorder=0, label="frontier"
    )
    for name, seconds, score in points:
        ax.scatter(seconds, scale * score, color="tab:red" if name.startswith(("mdDF", "Cascade")) else "tab:blue")
        ax.annotate(name, (seconds, scale * score), textcoords="offset points", xytext=(4, 3), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("median fit seconds per fit (log scale)")
    ax.set_ylabel(f"suite mean {metric}" + (" (%)" if scale == 100 else ""))
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def write_figures(figures: dict, out, provenance: dict):
    """Save each figure as ``<out>/<stem>.png`` and ``.pdf`` with its provenance."""
    from mddf.experiments.figures import save_figure

    for stem, fig in figures.items():
        save_figure(fig, out, stem, provenance)
