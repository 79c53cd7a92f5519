"""Numbers and lists the documentation repeats say what their one source says.

- a page's generated block (the README's numbers on the 44 real tables, from the ahead study's published results
  ``docs/benchmarks/ahead.csv``; the command-line page's exit statuses) is what ``docs/_scripts/generated_blocks.py``
  writes, and the real-data page's own tables show those results;
- the install page, the README and CONTRIBUTING name every package of the ``bench`` extra (pyproject.toml).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["README.md", "docs/user_guide/command_line.md"])
def test_a_pages_generated_block_is_what_the_script_writes_from_its_source(page):
    blocks = _script("generated_blocks")
    assert blocks.block(ROOT / page) == blocks.written(ROOT / page), (
        f"{page} differs from its source: run python docs/_scripts/generated_blocks.py"
    )


def test_the_script_rewrites_a_stale_block_in_place(tmp_path, monkeypatch):
    blocks = _script("generated_blocks")
    page = tmp_path / "command_line.md"
    begin, end = blocks.markers(ROOT / "docs" / "user_guide" / "command_line.md")
    page.write_text(f"intro\n\n{begin}\n| old |\n{end}\n\nafter\n")
    monkeypatch.setattr(blocks, "BLOCKS", {page: blocks.BLOCKS[ROOT / "docs" / "user_guide" / "command_line.md"]})
    monkeypatch.setattr(blocks, "ROOT", tmp_path)
    assert blocks.main(["--check"]) == 1
    assert blocks.main([]) == 0 and blocks.main(["--check"]) == 0
    assert page.read_text() == f"intro\n\n{begin}\n{blocks.exit_statuses()}{end}\n\nafter\n"


def test_the_real_data_pages_suite_means_are_those_of_its_csv():
    numbers = _script("generated_blocks")
    data = numbers.read(ROOT / "docs" / "benchmarks" / "realdata.csv")
    page = (ROOT / "docs" / "benchmarks" / "realdata.md").read_text(encoding="utf-8")
    for metric, scale, digits in (("accuracy", 100, 2), ("r2", 1, 4)):
        table = page[page.index(f"{'accuracy (%)' if metric == 'accuracy' else 'r2'} per table") :]
        header = next(line for line in table.splitlines() if line.startswith("| table |"))
        means = next(line for line in table.splitlines() if line.startswith("| suite mean |"))
        learners = [cell.strip() for cell in header.strip("|").split("|")][1:]
        shown = [float(cell) for cell in means.strip("|").split("|")[1:]]
        computed = numbers.suite_means(data[metric], learners)
        assert shown == [round(scale * computed[learner], digits) for learner in learners], metric


def test_the_install_page_the_readme_and_contributing_name_every_package_of_the_bench_extra():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    bench = re.search(r"^bench = \[(.*)\]$", pyproject, re.MULTILINE).group(1)
    packages = re.findall(r'"([A-Za-z0-9_.-]+)', bench)
    assert packages == ["catboost"]  # LightGBM is a dependency (the regressor's default member)
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    row = next(line for line in install.splitlines() if line.startswith("| `bench` |"))
    readme = next(line for line in (ROOT / "README.md").read_text().splitlines() if "# extras:" in line)
    contributing = next(line for line in (ROOT / "CONTRIBUTING.md").read_text().splitlines() if "add bench" in line)
    for text in (row, readme, contributing):
        assert all(package in text.lower() for package in packages), text
