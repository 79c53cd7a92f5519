"""The Markdown documentation reads as documentation of the current state, not as a lab notebook.

Checked on every ``.md`` page under ``docs/`` and on ``README.md``:

- no "not recorded" (a figure without its command: give the script and options that regenerate it, or drop
  the figure);
- no issue reference: ``issue 17``, ``issue #17``, ``issues 3 and 4``, ``gh-17``, a GitHub ``/issues/17`` or
  ``/pull/17`` address, or a bare ``#17``. A bare ``#`` followed by digits counts only when it stands alone: not
  after a letter, digit, ``/``, ``&`` or another ``#`` (so no heading, no ``page.md#17-anchor``, no
  ``&#123;`` entity), and not followed by a letter, digit or ``-`` (so no ``#1a2b3c`` colour).
  "Friedman #1" and "Friedman #1 and #3" (on one line) name the regression problems and are let through. A
  colour of three or six decimal digits (``#123``) would be flagged; the pages have none;
- no absolute path of a machine: ``/work/``, ``/root/``, ``/home/``, ``/tmp/``, ``/Users/`` or a Windows drive
  (``C:\\``). Example paths a reader is told to adapt (``/opt/df21/bin/python``) are not flagged;
- every relative Markdown link (``[text](other.md)``, ``[text](../user_guide/mddf.md#a-heading)``,
  ``[data](df21.jsonl)``, a reference definition ``[name]: other.md``) points at a file that exists. Links
  inside code are not links; ``http(s):`` and ``mailto:`` addresses and same-page ``#anchor`` links are not
  checked here (Sphinx checks the anchors: ``sphinx-build -W``).

A page answers its question once: none is over :data:`MAX_PAGE_LINES` lines (split a longer one by topic); the
CHANGELOG is a list of changes of at most :data:`MAX_CHANGELOG_LINES` lines, the README a landing page of at most
:data:`MAX_README_LINES`.

History belongs in ``CHANGELOG.md``; measurements with their command, machine and date in
``docs/benchmarks/`` and ``docs/results/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD_DIRS = {"_build", "auto_examples", "generated"}
#: The longest a documentation page may be.
MAX_PAGE_LINES = 400
#: The longest the CHANGELOG may be: a list of changes, a line or two each, not a report.
MAX_CHANGELOG_LINES = 250
#: The README is a landing page: at most this many lines, the rest on the docs' pages.
MAX_README_LINES = 200


def _pages():
    pages = [ROOT / "README.md"]
    pages += sorted(p for p in DOCS.rglob("*.md") if not BUILD_DIRS & set(p.relative_to(DOCS).parts))
    return pages


#: (what, pattern) of lab-notebook text.
CHECKS = [
    ("not recorded", re.compile(r"\bnot\s+recorded\b", re.IGNORECASE)),
    ("issue reference", re.compile(r"\b(?:issues?|tickets?|PRs?|pull requests?)\s*#?\d+\b", re.IGNORECASE)),
    ("issue reference", re.compile(r"\bgh-\d+\b|/(?:issues|pull)/\d+\b", re.IGNORECASE)),
    ("issue reference", re.compile(r"(?<![\w/&#])#\d+(?![\w-])")),
    ("machine path", re.compile(r"(?<![\w.~])/(?:work|root|home|tmp|Users)/")),
    ("machine path", re.compile(r"\b[A-Za-z]:\\\\?[\w$]")),
]

#: Names that hold a ``#`` and digits and are not issue references, removed before the checks.
_NAMES = re.compile(r"\bFriedman #\d+(?:\s*(?:,|and|or)\s*#\d+)*")

_FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)>?", re.MULTILINE)  # [name]: target


def findings(text: str) -> list[str]:
    """Lab-notebook text in a page, as ``"<what>, line <n>: <line>"`` (empty when the page is clean)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = _NAMES.sub("", line)
        for what, pattern in CHECKS:
            if pattern.search(line):
                found.append(f"{what}, line {number}: {line.strip()}")
                break
    return found


def _blank(match: re.Match) -> str:
    # keep the line count, so the links' line numbers stay right
    return re.sub(r"[^\n]", " ", match.group(0))


def links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every relative Markdown link of a page outside code, the anchor removed."""
    prose = _INLINE_CODE.sub(_blank, _FENCE.sub(_blank, text))
    found = []
    matches = sorted([*_LINK.finditer(prose), *_DEFINITION.finditer(prose)], key=lambda m: m.start())
    for match in matches:
        target = match.group(1)
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        if path:
            found.append((prose.count("\n", 0, match.start()) + 1, path))
    return found


def broken_links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [
        f"line {line}: {target}"
        for line, target in links(text)
        if not (ROOT / target.lstrip("/") if target.startswith("/") else page.parent / target).exists()
    ]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_page_has_no_lab_notebook_text(page):
    found = findings(page.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_is_at_most_four_hundred_lines(page):
    n_lines = len(page.read_text(encoding="utf-8").splitlines())
    assert n_lines <= MAX_PAGE_LINES, f"{n_lines} lines: split the page by topic"


def test_the_readme_is_a_landing_page_of_at_most_two_hundred_lines():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= MAX_README_LINES


def test_the_changelog_is_a_list_of_changes():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_CHANGELOG_LINES
    unreleased = text.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]  # the released sections are history
    entries = [e.split("\n\n")[0] for e in re.split(r"\n(?=- )", unreleased) if e.startswith("- ")]
    assert entries and max(len(e.splitlines()) for e in entries) <= 6, "an entry of more than six lines is a report"


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_existing_files(page):
    broken = broken_links(page)
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize(
    "text",
    [
        "Command not recorded.",
        "figures not recorded",
        "Friedman #1, see #12",
        "what issue #17 asks",
        "Issue 28 part 6",
        "see #12 for the discussion",
        "(#17)",
        "fixed in gh-4",
        "https://github.com/o/r/issues/17",
        "--out /work/runs/df21",
        "cache in /home/me/.cache",
        "/tmp/docs_html_check",
        r"C:\Users\me",
    ],
)
def test_the_checks_find_lab_notebook_text(text):
    assert findings(text)


@pytest.mark.parametrize(
    "text",
    [
        "# A heading",
        "## 2. Results",
        "[the bound](scale.md#the-memory-bound)",
        "[next](#results-on-a-quiet-machine)",
        "a colour #1a2b3c and #fff",
        "Friedman #1 and #3 (10,000 training rows)",
        "recorded in docs/benchmarks/scale.jsonl",
        "MDDF_DF21_PYTHON=/opt/df21/bin/python",
        "the tissue 3 cells",
        "&#123;",
    ],
)
def test_the_checks_let_documentation_through(text):
    assert not findings(text)


def test_links_skip_code_addresses_and_anchors():
    text = "[a](a.md) `[b](b.md)` [c](https://x.org/c.md) [d](#d)\n```\n[e](e.md)\n```\n[f](../f.md#g)\n[h]: h.md"
    assert links(text) == [(1, "a.md"), (5, "../f.md"), (6, "h.md")]
