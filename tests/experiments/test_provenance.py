"""Provenance headers: the command that regenerates a file, the commit, the machine, the date."""

import csv
import io
import subprocess
from pathlib import Path

import pytest
from provenance_files import read_provenance, strip_provenance

from mddf.experiments import provenance as pv

ROOT = Path(__file__).resolve().parents[2]


def test_command_is_shell_quoted_with_the_script_relative_to_the_repository():
    command = pv.command_line(ROOT / "scripts" / "run_uci.py", ["--datasets", "iris,wine", "--out", "my results"])
    assert command == "python scripts/run_uci.py --datasets iris,wine --out 'my results'"


def test_provenance_names_the_checkouts_commit_the_machine_and_a_utc_date():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    prov = pv.provenance(ROOT / "scripts" / "small_sample.py", ["--quick"])
    assert list(prov) == ["command", "commit", "machine", "date"]
    assert prov["command"] == "python scripts/small_sample.py --quick"
    assert prov["commit"].startswith(head.stdout.strip())
    assert "cores" in prov["machine"] and "GiB RAM" in prov["machine"] and "Python " in prov["machine"]
    assert "scikit-learn " in prov["machine"] and "numpy " in prov["machine"]
    assert prov["date"].endswith("Z") and prov["date"][:2] == "20"


PROV = {"command": "python scripts/x.py --a 'b c'", "commit": "abc123", "machine": "2 cores", "date": "2026-01-01Z"}


def test_markdown_header_is_a_marked_block_that_can_be_read_and_stripped():
    md = pv.with_markdown_header("# Title\n\n| a |\n", PROV)
    first = md.splitlines()[:2]
    assert first == [pv.MARKDOWN_BEGIN, "- Command (run from the repository root): `python scripts/x.py --a 'b c'`"]
    assert read_provenance(md) == PROV
    assert strip_provenance(md) == "# Title\n\n| a |\n"


def test_csv_round_trips_with_comment_lines():
    body = "dataset,RF,RF std\niris,95.5,1.25\nwine,97.0,\n"
    text = pv.with_csv_header(body, PROV)
    assert text.splitlines()[:2] == ["# command: python scripts/x.py --a 'b c'", "# commit: abc123"]
    assert read_provenance(text) == PROV
    assert strip_provenance(text) == body
    assert list(csv.DictReader(io.StringIO(strip_provenance(text)))) == list(csv.DictReader(io.StringIO(body)))
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(io.StringIO(text), comment="#")
    assert list(frame.columns) == ["dataset", "RF", "RF std"]
    assert frame["RF"].tolist() == [95.5, 97.0] and frame["dataset"].tolist() == ["iris", "wine"]
