"""Numbers and lists the documentation repeats say what their one source says.

- The README's numbers on the real-data suite are what ``docs/_scripts/readme_numbers.py`` writes from the page's
  published results (``docs/benchmarks/realdata.csv``), and the page's own tables show those results;
- the install page, the README and CONTRIBUTING name every package of the ``bench`` extra (pyproject.toml).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readmes_real_data_numbers_are_the_scripts_from_the_published_results():
    numbers = _script("readme_numbers")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert numbers.block(readme) == numbers.render(), "the README differs: run python docs/_scripts/readme_numbers.py"


def test_the_real_data_pages_suite_means_are_those_of_its_csv():
    numbers = _script("readme_numbers")
    data = numbers.read()
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
    assert packages == ["lightgbm", "catboost"]
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    row = next(line for line in install.splitlines() if line.startswith("| `bench` |"))
    readme = next(line for line in (ROOT / "README.md").read_text().splitlines() if "# extras:" in line)
    contributing = next(line for line in (ROOT / "CONTRIBUTING.md").read_text().splitlines() if "add bench" in line)
    for text in (row, readme, contributing):
        assert all(package in text.lower() for package in packages), text
