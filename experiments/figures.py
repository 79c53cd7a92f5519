"""Writing figures (PNG + PDF, matplotlib's Agg backend) and the numbers behind them (CSV)."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed; must precede pyplot's import
import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["plt", "save_figure", "write_rows"]


def save_figure(fig, out_dir, stem: str) -> list[Path]:
    """Save ``fig`` as ``<out_dir>/<stem>.png`` (150 dpi) and ``.pdf``; close it; return the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "pdf"):
        path = out_dir / f"{stem}.{ext}"
        fig.savefig(path, dpi=150, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def write_rows(rows: list[dict], path) -> Path:
    """Write dict rows as CSV (columns in first-seen order)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path
