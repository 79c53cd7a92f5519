"""No page names a file that does not exist, unless it says what the file is.

Checked on every ``.md`` page under ``docs/`` and on ``README.md``: each file name in inline code (```` `x.md` ````,
```` `results/ahead/ahead.md` ````; code blocks are commands and their output, checked by ``test_doc_commands.py``)
must be

- a file of the repository: relative to the page, to the repository's root or to ``docs/``, or, a bare name, the
  name of one of its files (``member.py``);
- or, not code (``.py``, ``.sh``), a file the code names, an output it writes or an input it reads (``table.md``,
  ``results.jsonl``, ``manifest.json``): its name or stem is in the sources of the package, the studies or the
  scripts;
- or said to be something else on the page: a file the reader writes (``saved as `tfit.py```), a file of
  another repository (named on the same line), or a former file (```since-removed `scripts/bench_mddf.py```).

Names with a placeholder or a pattern (``<out>/table.md``, ``tsne_*.csv``, ``$MDDF_DATA/x``) are not checked. A
study's report that the page copies is named with the folder it is written to (``results/ahead_check/ahead_check.md``,
an output of the command the page gives), which is what this cannot check and the pages say.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD_DIRS = {"_build", "auto_examples", "generated"}
#: The folders whose Python sources name the files the code writes and reads.
SOURCES = ("mddf", "experiments", "datasets", "baselines", "benchmarks", "scripts")
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_NAME = re.compile(
    r"(?<!`)`(?P<name>[^`\s]+\.(?:md|jsonl|csv|png|pdf|json|npz|txt|py|sh|toml|yml|yaml|parquet|gz))`(?!`)"
)
_PATTERN = re.compile(r"[*<>{}$]")
#: What the page says of a name that is not in the repository (the text before it, the line it is on).
_FORMER = re.compile(r"since-removed\s*$")
_SAID = re.compile(r"\bsaved as\b|\brepository\b")


def _pages():
    pages = [ROOT / "README.md"]
    pages += sorted(p for p in DOCS.rglob("*.md") if not BUILD_DIRS & set(p.relative_to(DOCS).parts))
    return pages


def _repository_files() -> set:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {Path(line).name for line in listed.splitlines()}


FILES = _repository_files()
CODE = "\n".join(p.read_text(errors="replace") for folder in SOURCES for p in (ROOT / folder).rglob("*.py"))


def unexplained(page: Path, text: str) -> list[str]:
    """The file names of ``text`` (a page's, at ``page``) that are neither files nor said to be anything else."""
    found = []
    for line in _FENCE.sub("", text).splitlines():
        for match in _NAME.finditer(line):
            name = match.group("name")
            if _PATTERN.search(name):
                continue
            if any((base / name).exists() for base in (page.parent, ROOT, DOCS)) or ("/" not in name and name in FILES):
                continue
            base = name.rsplit("/", 1)[-1]
            data = not name.endswith((".py", ".sh"))  # code is a file of the repository or nothing
            if data and (base in CODE or base.split(".")[0] in CODE):
                continue
            if _FORMER.search(line[: match.start()]) or _SAID.search(line):
                continue
            found.append(name)
    return found


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_a_page_names_exists_or_the_page_says_what_it_is(page):
    missing = unexplained(page, page.read_text())
    assert not missing, f"{page.relative_to(ROOT)} names files that are not in the repository: {missing}"


@pytest.mark.parametrize(
    "text, names",
    [
        ("see `docs/index.md` and `member.py`", []),  # a file of the repository, by path or by name
        ("it writes `table.md` and `results.jsonl`", []),  # files the code names
        ("the script `scripts/bench_nothing_here.py`", ["scripts/bench_nothing_here.py"]),
        ("`experiments/bench/predictor_inputs.py`", ["experiments/bench/predictor_inputs.py"]),  # moved: named as code
        ("it ran as the since-removed `scripts/bench_nothing_here.py`", []),
        ("the script, saved as `nothing_here.py`, then", []),
        ("`nothing/here.py` in the Someone/Else repository", []),
        ("`tsne_*.csv` and `<out>/nothing_here.md`", []),  # patterns and placeholders
        ("```\n`nothing_here.md`\n```", []),  # code blocks are not checked here
    ],
)
def test_the_check_tells_a_missing_file_from_one_the_page_explains(text, names):
    assert unexplained(DOCS / "page.md", text) == names
