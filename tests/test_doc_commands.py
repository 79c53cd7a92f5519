"""The commands the documentation gives exist and answer ``--help``.

Collected from ``README.md`` and every ``.md`` page under ``docs/``: each command of a ```` ```bash ```` block
(continuation lines joined, heredoc bodies and comments left out, ``&&``, ``;`` and ``|`` splitting a line) and
each inline ```` `python ...` ```` command, that calls

- ``python -m <module>`` of the repository (``benchmarks.*``, ``mddf.*``; ``pytest``, ``venv`` and other
  installed modules are not checked): the module must exist;
- ``python <file>.py``, ``bash <file>.sh``: the file must exist in the repository, unless a ``> <file>``
  earlier in the same block writes it;
- ``mddf <subcommand>``: the subcommand must exist.

A command of a study whose own usage (its module's docstring) sets a variable for the data it reads
(``MDDF_DATA``: the papers' dataset files; ``MDDF_REALDATA``: the real-data suite's tables) sets it too, or its page
names the variable: the page says what the command needs before it runs.

Each of them then answers ``--help`` with exit status 0 and a usage line, which names every ``--option`` the
documented commands give it (slow: one process each; a file that is neither in ``scripts/`` nor parses its
arguments with argparse is not run). A flag that makes a module run another study of it (``--select``,
``--check paper``: :data:`MODES`) is part of what is asked ``--help``. A results page thus names ``python -m
benchmarks.<study>``, never a script that was removed. Commands holding a placeholder (``<study>``, ``...``)
are not checked.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD_DIRS = {"_build", "auto_examples", "generated"}
#: Modules of the repository, whose commands are checked (others are installed tools: pytest, venv, pip).
OWN_MODULES = ("benchmarks", "mddf", "scripts")
_PYTHON = re.compile(r"python3?(\.\d+)?$")
_BASH_BLOCK = re.compile(r"^```bash[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"(?<!`)`((?:[A-Z_]+=\S+ )*python3? [^`\n]+)`(?!`)")
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
_PREFIXES = {"do", "then", "else", "time", "env", "nohup", "exec", "!", "{", "("}
_SEPARATORS = {"&&", "||", ";", "|", "&", ";;"}
#: Flags of a study module that run another study of it (``benchmarks.harness.main_by_flag``), and how many values
#: each takes.
MODES = {"--select": 0, "--check": 1, "--cv": 0, "--timing": 0, "--speed": 0, "--adult": 0}
_PLACEHOLDER = re.compile(r"<[\w .-]+>|\.\.\.")


@dataclass(frozen=True)
class Target:
    """What a documented command runs: ``kind`` is ``"module"``, ``"file"`` or ``"mddf"`` (a subcommand); ``mode``:
    the flags of :data:`MODES` it gives a module, with their values."""

    kind: str
    name: str
    mode: tuple = ()

    def help_command(self) -> list[str]:
        if self.kind == "module":
            return [sys.executable, "-m", self.name, *self.mode, "--help"]
        if self.kind == "mddf":
            return [
                sys.executable,
                "-c",
                "import sys; from mddf.experiments.cli import main; sys.exit(main())",
                self.name,
                "--help",
            ]
        return [sys.executable, self.name, "--help"]


def pages() -> list[Path]:
    docs = ROOT / "docs"
    found = sorted(p for p in docs.rglob("*.md") if not BUILD_DIRS & set(p.relative_to(docs).parts))
    return [ROOT / "README.md", *found]


def _block_lines(block: str):
    """The block's command lines: continuations joined, heredoc bodies left out."""
    lines, end = [], None
    for line in block.replace("\\\n", " ").splitlines():
        if end is not None:
            end = None if line.strip() == end else end
            continue
        heredoc = _HEREDOC.search(line)
        if heredoc:
            end = heredoc.group(1)
        lines.append(line.strip().removeprefix("$ "))
    return lines


def simple_commands(line: str) -> list[list[str]]:
    """The words of each simple command of a shell line (``&&``, ``;``, ``|`` split it; comments dropped); none for
    a line holding a placeholder (``<study>``, ``...``)."""
    if _PLACEHOLDER.search(line.split(" #")[0]):
        return []
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        words = list(lexer)
    except ValueError:  # an unbalanced quote: not a command
        return []
    commands, current = [], []
    for word in words:
        if word in _SEPARATORS:
            commands.append(current)
            current = []
        else:
            current.append(word)
    return [c for c in commands + [current] if c]


def target_of(words: list[str]) -> Target | None:
    """The repository's module, file or subcommand a command runs, or None (another program)."""
    while words and (words[0] in _PREFIXES or re.fullmatch(r"\w+=\S*", words[0]) or words[0].startswith("$")):
        words = words[1:]
    if len(words) < 2:
        return None
    program, first = Path(words[0]).name, words[1]
    if program == "mddf":
        return None if first.startswith("-") else Target("mddf", first)
    if _PYTHON.fullmatch(program):
        if first == "-m":
            module = words[2] if len(words) > 2 else ""
            mode = [words[i : i + 1 + MODES[w]] for i, w in enumerate(words) if w in MODES]
            return Target("module", module, tuple(sum(mode, []))) if module.split(".")[0] in OWN_MODULES else None
        return Target("file", first) if first.endswith(".py") else None
    if program in ("bash", "sh") and first.endswith(".sh"):
        return Target("file", first)
    return None


@dataclass(frozen=True)
class Documented:
    """A command of a page and what it runs; ``written``: the files its block writes before it (``> file``)."""

    page: str
    command: str
    target: Target
    written: frozenset = frozenset()


def documented_commands() -> list[Documented]:
    found = []
    for page in pages():
        text = page.read_text()
        where = str(page.relative_to(ROOT))
        for block in _BASH_BLOCK.findall(text):
            written = set()
            for line in _block_lines(block):
                for words in simple_commands(line):
                    target = target_of(words)
                    if target is not None:
                        found.append(Documented(where, shlex.join(words), target, frozenset(written)))
                    written |= {words[i + 1] for i, w in enumerate(words[:-1]) if w in (">", ">>")}
        for inline in _INLINE.findall(_FENCE.sub("", text)):
            for words in simple_commands(inline):
                target = target_of(words)
                if target is not None:
                    found.append(Documented(where, shlex.join(words), target))
    return found


COMMANDS = documented_commands()


def _exists(documented: Documented) -> bool:
    target = documented.target
    if target.kind == "module":
        try:
            return importlib.util.find_spec(target.name) is not None
        except ModuleNotFoundError:
            return False
    if target.kind == "mddf":
        from mddf.experiments.cli import COMMANDS as SUBCOMMANDS

        return target.name in SUBCOMMANDS
    return target.name in documented.written or (ROOT / target.name).is_file()


def options(command: str) -> set:
    """The ``--options`` a command gives its program (not those of a command quoted inside it)."""
    return {w.split("=")[0] for words in simple_commands(command) for w in words[1:] if re.match(r"--[a-z]", w)}


def test_the_collector_finds_the_commands_of_each_kind():
    kinds = {(c.target.kind, c.target.name) for c in COMMANDS}
    assert {("mddf", "benchmark"), ("module", "benchmarks.realdata_suite"), ("file", "scripts/run_uci.py")} <= kinds
    assert ("file", "benchmarks/setup_df21_env.sh") in kinds
    assert target_of(["MDDF_DATA=/x", "python", "-m", "pytest"]) is None
    assert target_of(simple_commands("env $env python results/x.py 'a b' # note")[0]) == Target("file", "results/x.py")
    assert target_of(["python", "-m", "benchmarks.a", "--check", "paper", "--n-jobs", "2"]).mode == ("--check", "paper")
    assert options("python x.py --a 1 --sweep 'python y.py --b' --c=2 && mddf z --d") == {
        "--a",
        "--sweep",
        "--c",
        "--d",
    }


def test_every_documented_command_names_a_module_file_or_subcommand_that_exists():
    missing = [f"{c.page}: {c.command}" for c in COMMANDS if not _exists(c)]
    assert not missing, "documented commands whose module, file or subcommand does not exist:\n" + "\n".join(missing)


def data_variables(target: Target) -> set:
    """The variables (``MDDF_DATA``, ``MDDF_REALDATA``, ...) that the usage lines of a module's docstring set for the
    study ``target`` runs (those lines that run it with its flags of :data:`MODES`, else all): what it reads its data
    from."""
    path = ROOT / (target.name.replace(".", "/") + ".py")
    if not path.is_file():
        return set()
    usage = ast.get_docstring(ast.parse(path.read_text())) or ""
    lines = [line for line in usage.splitlines() if re.search(rf"python3? -m {re.escape(target.name)}\b", line)]
    flags = {word for word in target.mode if word in MODES}
    same = [line for line in lines if {w for w in line.split() if w in MODES} == flags]
    return {name for line in same or lines for name in re.findall(r"\b(MDDF_[A-Z_]+)=", line)}


def test_a_documented_study_says_what_data_it_needs():
    unsaid = sorted(
        {
            f"{c.page}: {c.command} (needs ${name})"
            for c in COMMANDS
            if c.target.kind == "module"
            for name in data_variables(c.target)
            if name not in c.command and name not in (ROOT / c.page).read_text()
        }
    )
    assert not unsaid, "documented studies whose page does not say the data they read:\n" + "\n".join(unsaid)
    assert data_variables(Target("module", "benchmarks.ahead")) >= {"MDDF_REALDATA", "MDDF_REALDATA_BROAD"}
    timing = Target("module", "benchmarks.prediction_cost", ("--timing",))
    assert data_variables(timing) == {"MDDF_DATA"}  # the study's timing half reads the papers' datasets only


def _runs_help(target: Target) -> bool:
    """Whether ``--help`` can be asked without running the program: a module or subcommand, a script of ``scripts/``
    (the command line's wrappers) or a file that parses its arguments with argparse."""
    if target.kind != "file":
        return True
    path = ROOT / target.name
    return (
        path.suffix == ".py" and path.is_file() and (path.parent == ROOT / "scripts" or "argparse" in path.read_text())
    )


HELPED = sorted(
    {c.target for c in COMMANDS if _exists(c) and _runs_help(c.target)}, key=lambda t: (t.kind, t.name, t.mode)
)


@pytest.mark.slow
@pytest.mark.parametrize("target", HELPED, ids=lambda t: " ".join([t.name, *t.mode]))
def test_every_documented_program_answers_help_naming_the_documented_options(target):
    done = subprocess.run(target.help_command(), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:"), done.stdout[:500]
    unknown = {
        f"{c.page}: {option}"
        for c in COMMANDS
        if c.target == target
        for option in options(c.command)
        if not re.search(rf"{re.escape(option)}\b", done.stdout)
    }
    assert not unknown, "documented options the program does not take:\n" + "\n".join(sorted(unknown))
