"""Writing figures (PNG + PDF, matplotlib's Agg backend) and the numbers behind them (CSV).

Given a provenance dict (:func:`.provenance.provenance`), the figures carry it in their metadata
(PNG text chunks, PDF document information) and the CSV in leading ``# key: value`` comment lines:
read it with ``pandas.read_csv(path, comment="#")`` or :func:`.provenance.read_csv_rows`.
"""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed; must precede pyplot's import
import matplotlib.pyplot as plt  # noqa: E402

from .provenance import csv_header, pdf_metadata, png_metadata  # noqa: E402

__all__ = ["plt", "save_figure", "write_rows"]


def save_figure(fig, out_dir, stem: str, provenance: dict | None = None) -> list[Path]:
    """Save ``fig`` as ``<out_dir>/<stem>.png`` (150 dpi) and ``.pdf``; close it; return the paths.

    ``provenance`` (command, commit, machine, date) goes into each file's metadata.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext, metadata in (("png", png_metadata), ("pdf", pdf_metadata)):
        path = out_dir / f"{stem}.{ext}"
        fig.savefig(path, dpi=150, bbox_inches="tight", metadata=metadata(provenance) if provenance else None)
        paths.append(path)
    plt.close(fig)
    return paths


def write_rows(rows: list[dict], path, provenance: dict | None = None) -> Path:
    """Write dict rows as CSV (columns in first-seen order), after ``provenance`` as ``#`` comment lines."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with path.open("w", newline="") as fh:
        if provenance:
            fh.write(csv_header(provenance))
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path
