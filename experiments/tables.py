"""Result tables: the papers' Table 2 layout (:class:`Table`), and what every Markdown and CSV table is written with."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

from .outfolder import write_text
from .provenance import with_csv_header, with_markdown_header

#: The note on the rank rows that :func:`to_markdown` adds below every table.
RANK_NOTE = (
    "Avg. rank: on each dataset, the columns of a group with a result there are ranked (1 = most accurate, ties "
    "share the mean rank); a column without a result there (not applicable, skipped, error, -) is left out of that "
    "dataset's ranking, and a dataset with fewer than two results in the group is not ranked. Each column's average "
    "is over the datasets where it has a rank: their number is the 'Datasets ranked' row."
)


def plus_minus(mean: float, std: float | None, digits: int = 2, *, bold: bool = False, signed: bool = False) -> str:
    """``"mean ± std"`` with ``digits`` decimals (the mean alone for a None or NaN ``std``), ``bold`` or ``signed``."""
    text = f"{mean:+.{digits}f}" if signed else f"{mean:.{digits}f}"
    if bold:
        text = f"**{text}**"
    if std is not None and not math.isnan(std):
        text += f" ± {std:.{digits}f}"
    return text


def ranks_by_dataset(scores: dict) -> dict:
    """``{label: {dataset: rank}}`` of ``{dataset: {label: score}}``, on the datasets where two labels or more have a
    score: 1 the highest, ties sharing their mean rank."""
    ranks = {}
    for dataset, by_label in scores.items():
        if len(by_label) < 2:
            continue
        for label, rank in zip(by_label, rankdata([-v for v in by_label.values()], method="average")):
            ranks.setdefault(label, {})[dataset] = float(rank)
    return ranks


def markdown_table(header: Sequence[str], rows: Iterable[Sequence], align: str | Sequence[str] = "---") -> list:
    """The lines of a GitHub Markdown table (``align``: one alignment, or one per column)."""
    header = list(header)
    aligns = [align] * len(header) if isinstance(align, str) else list(align)
    if len(aligns) != len(header):
        raise ValueError(f"{len(aligns)} alignments for {len(header)} columns")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(aligns) + "|"]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return lines


def _csv(header: Sequence, rows: Iterable[Sequence]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def csv_text(rows: Sequence[dict], columns: Sequence[str] | None = None) -> str:
    """Dict rows as CSV text (``\\n`` line ends), in ``columns`` (default: every key, in order of appearance)."""
    columns = list(dict.fromkeys(k for row in rows for k in row)) if columns is None else list(columns)
    return _csv(columns, ([row.get(c, "") for c in columns] for row in rows))


def write_markdown(markdown: str, path, provenance: dict | None = None) -> Path:
    """Write a Markdown table or page after ``provenance``'s header, whole or not at all; return the path."""
    return write_text(path, with_markdown_header(markdown, provenance))


def write_csv(text: str, path, provenance: dict | None = None) -> Path:
    """Write CSV ``text`` after ``provenance`` as ``#`` comment lines, as :func:`write_markdown` writes."""
    return write_text(path, with_csv_header(text, provenance), newline="")


def write_rows(rows: Sequence[dict], path, provenance: dict | None = None) -> Path:
    """Write dict rows as CSV (:func:`csv_text`, :func:`write_csv`); return the path."""
    return write_csv(csv_text(rows), path, provenance)


@dataclass
class Cell:
    mean: float | None = None  # accuracy in percent
    std: float | None = None
    n: int = 0
    text: str | None = None  # replaces the number: why it does not apply ("binary only"), "error", "skipped", "-"

    def shown(self, bold: bool, digits: int = 3) -> str:
        return (self.text or "-") if self.mean is None else plus_minus(self.mean, self.std, digits, bold=bold)


@dataclass
class Column:
    label: str
    group: str  # "ours" or "paper"
    cells: dict = field(default_factory=dict)  # dataset -> Cell


@dataclass
class Table:
    title: str
    datasets: list
    columns: list
    notes: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # label -> {dataset: text}, informative columns

    def groups(self):
        return list(dict.fromkeys(c.group for c in self.columns))

    def scores(self, group, dataset) -> dict:
        """``{label: mean}`` of the group's columns that have a result on ``dataset``."""
        cells = {c.label: c.cells.get(dataset) for c in self.columns if c.group == group}
        return {label: cell.mean for label, cell in cells.items() if cell is not None and cell.mean is not None}

    def best(self, dataset, group) -> set:
        values = self.scores(group, dataset)
        top = max(values.values(), default=None)
        return {label for label, v in values.items() if np.isclose(v, top, rtol=0, atol=1e-9)}

    def ranks(self, group) -> dict:
        """``{label: {dataset: rank}}`` of a group's columns (:func:`ranks_by_dataset`)."""
        ranked = ranks_by_dataset({d: self.scores(group, d) for d in self.datasets})
        return {c.label: ranked.get(c.label, {}) for c in self.columns if c.group == group}

    def average_ranks(self, group) -> dict:
        """``{label: (mean rank or None, datasets ranked)}`` of each of the group's columns."""
        return {
            label: (float(np.mean(list(v.values()))) if v else None, len(v)) for label, v in self.ranks(group).items()
        }

    def ran(self, group="ours") -> list:
        """Labels of the group's columns that have a result (a number) on at least one dataset."""
        has = [c for c in self.columns if any(c.cells.get(d, Cell()).mean is not None for d in self.datasets)]
        return [c.label for c in has if c.group == group]

    def ordered(self) -> tuple:
        """``(our columns, the published columns, {group: average_ranks})``."""
        ours, paper = ([c for c in self.columns if c.group == g] for g in ("ours", "paper"))
        return ours, paper, {g: self.average_ranks(g) for g in self.groups()}


def method_notes(table: Table, descriptions, group="ours") -> list:
    """The texts of ``descriptions`` (``(methods, text)``) whose methods ran, ``{methods}`` naming those that did."""
    notes = []
    for methods, text in descriptions:
        if present := [m for m in table.ran(group) if m in methods]:
            notes.append(text.replace("{methods}", and_list(present)))
    return notes


def and_list(names) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def summarize(records, *, fraction=1.0, profile=None, seeds=None) -> dict:
    """``{(dataset, method): Cell}`` of the latest record per key: the mean accuracy over seeds (and folds), its sample
    standard deviation; failures alone read ``"error"``."""
    latest = {rec["key"]: rec for rec in records if "key" in rec and rec.get("method")}
    groups: dict = {}
    for rec in latest.values():
        wanted = rec.get("fraction", 1.0) == fraction and profile in (None, rec.get("profile"))
        if wanted and (seeds is None or rec.get("seed") in seeds):
            groups.setdefault((rec["dataset"], rec["method"]), []).append(rec)
    cells = {}
    for key, recs in groups.items():
        if accs := [100.0 * r["accuracy"] for r in recs if r.get("status") == "ok"]:
            cells[key] = Cell(float(np.mean(accs)), float(np.std(accs, ddof=1)) if len(accs) > 1 else None, len(accs))
        else:
            cells[key] = Cell(text="skipped" if any(r.get("status") == "skipped" for r in recs) else "error")
    return cells


def build_table(title, datasets, methods, cells, *, paper=None, paper_std=None, not_applicable=None, skipped=None,
                notes=(), extra=None) -> Table:  # fmt: skip
    """A :class:`Table`: ``datasets`` as rows, ``methods`` as our columns (``cells``: :func:`summarize`'s), the
    published ``paper`` columns, ``not_applicable`` and ``skipped`` cells saying why, ``extra`` columns after ours."""
    skipped, columns, not_applicable = skipped or {}, [], not_applicable or {}
    for method in methods:
        columns.append(Column(method, "ours"))
        for d in datasets:
            why = not_applicable.get((d, method))
            cell = Cell(text=why) if why else cells.get((d, method), Cell(text="-"))
            columns[-1].cells[d] = Cell(text="skipped") if d in skipped else cell
    for label, values in (paper or {}).items():
        std = (paper_std or {}).get(label, {})
        cells_of = {d: Cell(values[d], std.get(d), 1) if d in values else Cell(text="-") for d in datasets}
        columns.append(Column(label, "paper", cells_of))
    all_notes = list(notes) + [f"{d}: skipped, {message}" for d, message in skipped.items() if d in datasets]
    return Table(title, list(datasets), columns, all_notes, dict(extra or {}))


def to_markdown(table: Table) -> str:
    """The table as GitHub Markdown: bold best values, the rank rows, the notes ending with :data:`RANK_NOTE`."""
    ours, paper, ranks = table.ordered()
    headers = ["Dataset"] + [c.label for c in ours] + list(table.extra) + [c.label for c in paper]
    rows = []
    for d in table.datasets:
        best = {g: table.best(d, g) for g in table.groups()}
        row = [d, *(c.cells[d].shown(c.label in best["ours"]) for c in ours)]
        row += [table.extra[label].get(d, "-") for label in table.extra]
        rows.append(row + [c.cells[d].shown(c.label in best.get("paper", ())) for c in paper])
    ranked = [ranks[c.group].get(c.label, (None, 0)) for c in ours + paper]
    mean, count = ["-" if r is None else f"{r:.3f}" for r, _ in ranked], [str(n) for _, n in ranked]
    for label, cells in (("Avg. rank", mean), ("Datasets ranked", count)):
        rows.append([label, *cells[: len(ours)], *[""] * len(table.extra), *cells[len(ours) :]])
    lines = [f"### {table.title}", "", *markdown_table(headers, rows, [":---"] + ["---:"] * (len(headers) - 1)), ""]
    return "\n".join(lines + [f"- {n}" for n in [*table.notes, RANK_NOTE]]) + "\n"


def to_csv(table: Table) -> str:
    """The table as CSV: mean, std and n per column, a "best (ours)" column, and last the average ranks."""
    ours, paper, ranks = table.ordered()
    header = ["dataset", *(f"{c.label}{end}" for c in ours + paper for end in ("", " std", " n"))]
    rows = []
    for d in table.datasets:
        row = [d]
        for cell in (c.cells[d] for c in ours + paper):
            std = "" if cell.std is None else round(cell.std, 4)
            row += [cell.text or "", "", 0] if cell.mean is None else [round(cell.mean, 4), std, cell.n]
        row += [table.extra[label].get(d, "") for label in table.extra]
        rows.append(row + [";".join(sorted(table.best(d, "ours")))])
    row = ["Avg. rank"]
    for c in ours + paper:
        r, n = ranks[c.group].get(c.label, (None, 0))
        row += ["" if r is None else round(r, 4), "", n]
    rows.append(row + [""] * len(table.extra) + [""])
    return _csv(header + list(table.extra) + ["best (ours)"], rows)
