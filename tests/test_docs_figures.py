"""The user guide's figure is drawn by code, and its glossary defines the terms the guide links to.

- ``docs/_scripts/cascade_diagram.py`` draws the cascade diagram; the committed
  ``docs/user_guide/cascade.png`` must be a drawing of it (same pixel size), and the guide's first page
  must show it;
- ``docs/_scripts/readme_figure.py`` draws the README's figure from the real-data suite's published
  per-table results (``docs/benchmarks/realdata.csv``), one point per table and peer;
- ``docs/_scripts/architecture_figure.py`` draws the layer packages from the code's imports; the committed
  ``docs/architecture.png`` is its drawing and its arrows are the arrows ``tests/test_imports.py`` allows;
- ``docs/user_guide/glossary.md`` has a heading for every term of the paper the guide uses, and every
  ``glossary.md#anchor`` link of the documentation and the README names one of its headings.
"""

from __future__ import annotations

import importlib.util
import re
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIGURE = DOCS / "user_guide" / "cascade.png"
GLOSSARY = DOCS / "user_guide" / "glossary.md"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", data[16:24])


def _script(name):
    """The module of ``docs/_scripts/<name>.py``."""
    spec = importlib.util.spec_from_file_location(name, DOCS / "_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_cascade_diagram_is_drawn_by_its_script(tmp_path):
    drawn = _script("cascade_diagram").draw(tmp_path / "cascade.png")
    size = _png_size(drawn.read_bytes())
    assert size == (1800, 840)
    assert _png_size(FIGURE.read_bytes()) == size, (
        "docs/user_guide/cascade.png is not the script's drawing: run python docs/_scripts/cascade_diagram.py"
    )


@pytest.mark.slow
def test_the_architecture_figure_is_drawn_by_its_script(tmp_path):
    drawn = _script("architecture_figure").draw(tmp_path / "architecture.png")
    size = _png_size(drawn.read_bytes())
    assert size == (1500, 1020)
    assert _png_size((DOCS / "architecture.png").read_bytes()) == size, (
        "docs/architecture.png is not the script's drawing: run python docs/_scripts/architecture_figure.py"
    )


def test_the_architecture_figure_draws_the_codes_imports_and_only_allowed_ones():
    from test_imports import ALLOWED, arrows, graph

    lines, edges = _script("architecture_figure").package_graph()
    drawn = {(a, b) for a, targets in edges.items() for b in targets}
    assert drawn == arrows(graph(["mddf"]))  # what tests/test_imports.py reads of the code
    assert all(b in ALLOWED[a] for a, b in drawn if a != "mddf")
    assert set(lines) == set(ALLOWED) | {"mddf"}
    floors = _script("architecture_figure").floors(edges)
    assert all(floors[a] > floors[b] for a, b in drawn)  # every arrow points down


def test_the_user_guide_opens_with_the_diagram():
    index = (DOCS / "user_guide" / "index.md").read_text(encoding="utf-8")
    first_content = next(line for line in index.splitlines()[1:] if line.strip())
    assert re.fullmatch(r"!\[[^\]]+\]\(cascade\.png\)", first_content)


def _anchor(heading: str) -> str:
    # MyST's (and GitHub's) heading anchors: lower case, spaces to hyphens, punctuation but - and _ dropped
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _glossary_anchors() -> set[str]:
    text = GLOSSARY.read_text(encoding="utf-8")
    return {_anchor(h) for h in re.findall(r"^## (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize(
    "term",
    [
        "layer",
        "preconc",
        "d_t",
        "augmented-feature-f_t",
        "crf",
        "cross-fitted-out-of-fold",
        "margin",
        "margin-ratio",
        "table-2-style",
        "alpha_t",
        "class-vector",
    ],
)
def test_the_glossary_defines_the_papers_terms(term):
    assert term in _glossary_anchors()


def test_links_into_the_glossary_name_its_headings():
    anchors = _glossary_anchors()
    pages = [ROOT / "README.md", *DOCS.rglob("*.md")]
    bad = [
        f"{page.relative_to(ROOT)}: #{anchor}"
        for page in pages
        if "_build" not in page.parts
        for anchor in re.findall(r"glossary\.md#([\w-]+)", page.read_text(encoding="utf-8"))
        if anchor not in anchors
    ]
    assert not bad, "\n".join(bad)


def test_the_anchor_rule_matches_myst():
    assert _anchor("Cross-fitted, out-of-fold") == "cross-fitted-out-of-fold"
    assert _anchor("Augmented feature f_t") == "augmented-feature-f_t"
    assert _anchor("Table 2-style") == "table-2-style"


def test_the_readme_figure_is_drawn_from_the_ahead_studys_results(tmp_path):
    script = _script("readme_figure")
    diffs = script.differences()
    # every table of both suites, each with every peer, read from the published per-table results
    assert len(diffs["classification"]) == 26 and len(diffs["regression"]) == 18
    peers = {"HistGradientBoosting", "LightGBM", "XGBoost", "CatBoost", "random forest"}
    for task in diffs.values():
        assert all(set(per_peer) == peers for per_peer in task.values())
    drawn = script.draw(tmp_path / "readme.png")
    assert _png_size(drawn.read_bytes()) == _png_size((DOCS / "readme_comparison.png").read_bytes()) == (1200, 840)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/readme_comparison.png)" in readme.split("## Install")[0]


def test_the_readme_figure_subtracts_the_cascades_score(tmp_path):
    results = tmp_path / "realdata.csv"
    cascades = _script("generated_blocks").CASCADES  # the defaults' names in the results
    classifier, regressor = cascades["classification"][0], cascades["regression"][0]
    results.write_text(
        "# command: test\n"
        "table,learner,accuracy,r2\n"
        f"a,{classifier},0.80,\n"
        "a,HGB-es,0.83,\n"
        "a,RF-400,0.79,\n"
        f"b,{regressor},,0.50\n"
        "b,LightGBM-es,,0.45\n",
        encoding="utf-8",
    )
    diffs = _script("readme_figure").differences(results)
    assert diffs["classification"]["a"] == pytest.approx({"HistGradientBoosting": 3.0, "random forest": -1.0})
    assert diffs["regression"]["b"] == pytest.approx({"LightGBM": -5.0})
