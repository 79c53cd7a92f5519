"""Reading back the provenance header the runners and studies write (:mod:`mddf.experiments.provenance`): what
the tests check their files with."""

import csv
import io
from pathlib import Path

from mddf.experiments.provenance import MARKDOWN_BEGIN, MARKDOWN_END


def split_provenance(text: str) -> tuple[dict, str]:
    """``(fields, rest)``: the provenance fields of ``text``'s header (a Markdown block or a CSV's leading ``#``
    lines) and ``text`` without it; ``({}, text)`` without a header (or an unterminated Markdown block)."""
    lines = text.splitlines(keepends=True)
    fields, end = {}, 0
    if lines and lines[0].rstrip("\n") == MARKDOWN_BEGIN:
        end = next((i + 1 for i, line in enumerate(lines) if line.rstrip("\n") == MARKDOWN_END), 0)
        if not end:
            return {}, text
        for line in lines[1 : end - 1]:
            key, _, value = line.strip().removeprefix("- ").partition(": ")
            fields[key.split(" ")[0].lower()] = value.strip().strip("`").strip()
        while end < len(lines) and not lines[end].strip():
            end += 1
    else:
        while end < len(lines) and lines[end].startswith("#"):
            key, _, value = lines[end][1:].strip().partition(": ")
            fields[key] = value
            end += 1
    return fields, "".join(lines[end:])


def read_provenance(text: str) -> dict:
    """The provenance fields of a CSV's leading ``# key: value`` lines or of a Markdown header block."""
    return split_provenance(text)[0]


def strip_provenance(text: str) -> str:
    """``text`` without its provenance header (CSV comment lines or the Markdown block)."""
    return split_provenance(text)[1]


def read_csv_rows(path) -> list[dict]:
    """The rows of a CSV written by the scripts, as dicts (leading ``#`` comment lines skipped)."""
    text = Path(path).read_text()
    return list(csv.DictReader(io.StringIO(strip_provenance(text))))
