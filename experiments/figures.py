"""Writing figures (PNG + PDF, matplotlib's Agg backend), their provenance in their metadata."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed; must precede pyplot's import
import matplotlib.pyplot as plt  # noqa: E402

from .outfolder import whole  # noqa: E402
from .provenance import pdf_metadata, png_metadata  # noqa: E402

__all__ = ["plt", "save_figure"]


def save_figure(fig, out_dir, stem: str, provenance: dict | None = None, formats=("png", "pdf")) -> list[Path]:
    """Save and close ``fig`` as ``<out_dir>/<stem>.png`` (150 dpi) and ``.pdf`` (``formats``), ``provenance`` in their
    metadata, each file whole or not at all (:func:`~.outfolder.whole`); return the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    try:
        for ext, metadata in (("png", png_metadata), ("pdf", pdf_metadata)):
            if ext not in formats:
                continue
            path = out_dir / f"{stem}.{ext}"
            with whole(path) as temporary:
                shown = metadata(provenance) if provenance else None
                fig.savefig(temporary, format=ext, dpi=150, bbox_inches="tight", metadata=shown)
            paths.append(path)
    finally:
        plt.close(fig)
    return paths
