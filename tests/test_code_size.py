"""The sizes a maintainer can live with, held: short functions, small estimator modules, a small shared base, and
docstrings that are contracts (issue 65).

- No function of the project's code is longer than :data:`MAX_FUNCTION_LINES` lines, but the compiled numba kernels
  (a function decorated with a ``jit``, or a factory whose body builds one).
- No module of the project's code or of its tests is longer than :data:`MAX_MODULE_LINES` lines but the tree
  kernels' (``mddf/trees``); every module that defines a public estimator holds at most
  :data:`MAX_ESTIMATOR_MODULE_LINES` lines, docstrings included; the cascades' shared base has at most
  :data:`MAX_BASE_METHODS` methods.
- A public estimator's class docstring is at most :data:`MAX_CLASS_DOCSTRING_LINES` lines, and each parameter of a
  public function or method (the estimators' included) is described in at most :data:`MAX_PARAMETER_LINES` lines
  (how a default was chosen, and the details, belong to the docs pages).
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from pathlib import Path

import pytest

import mddf
import mddf.baselines
from mddf.cascade.base import CascadeBase

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("mddf", "baselines", "datasets", "experiments", "benchmarks", "scripts")
MAX_FUNCTION_LINES = 100
MAX_MODULE_LINES = 600
#: The folders whose modules may be longer: the compiled tree kernels, each of whose modules holds one criterion's
#: kernels together.
LONG_MODULE_FOLDERS = ("mddf/trees",)
MAX_ESTIMATOR_MODULE_LINES = 500
MAX_BASE_METHODS = 25
MAX_CLASS_DOCSTRING_LINES = 200
MAX_PARAMETER_LINES = 10

ESTIMATORS = [
    getattr(package, name)
    for package in (mddf, mddf.baselines)
    for name in package.__all__
    if inspect.isclass(getattr(package, name)) and hasattr(getattr(package, name), "get_params")
]


def _is_kernel(node) -> bool:
    """A numba kernel: decorated with a ``jit``, or a factory whose short body defines and returns one."""
    if any("jit" in ast.unparse(d) for d in node.decorator_list):
        return True
    inner = [n for n in node.body if isinstance(n, ast.FunctionDef)]
    return len(node.body) <= 3 and any(_is_kernel(n) for n in inner)


def long_functions(max_lines=MAX_FUNCTION_LINES) -> list:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_kernel(node):
                    length = node.end_lineno - node.lineno + 1
                    if length > max_lines:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length} lines")
    return found


def test_no_function_is_longer_than_a_hundred_lines_but_the_compiled_kernels():
    assert not long_functions(), "split these into named steps:\n" + "\n".join(long_functions())


def test_the_size_check_finds_a_long_function_and_spares_a_kernel(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(120))
    tree = ast.parse(f"def long():\n{body}\n\n@njit(cache=True)\ndef kernel():\n{body}\n")
    long, kernel = tree.body
    assert not _is_kernel(long) and _is_kernel(kernel)


def long_modules(folder: str, max_lines=MAX_MODULE_LINES) -> list:
    """The modules under ``folder`` longer than ``max_lines`` lines (those under :data:`LONG_MODULE_FOLDERS` aside)."""
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        n_lines = len(path.read_text().splitlines())
        if n_lines > max_lines and not where.startswith(LONG_MODULE_FOLDERS):
            found.append(f"{where}: {n_lines} lines")
    return found


@pytest.mark.parametrize("folder", [*FOLDERS, "tests"])
def test_no_module_is_longer_than_six_hundred_lines_but_the_tree_kernels(folder):
    assert not long_modules(folder), "split these into modules with one job each:\n" + "\n".join(long_modules(folder))


def test_the_size_check_finds_a_long_module(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    for folder, n_lines in (("pkg", 601), ("pkg/ok", 600), ("mddf/trees", 900)):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "m.py").write_text("x = 1\n" * n_lines)
    assert long_modules("pkg") == ["pkg/m.py: 601 lines"]
    assert long_modules("mddf") == []


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_an_estimator_module_is_at_most_five_hundred_lines(estimator):
    path = Path(inspect.getsourcefile(estimator))
    n_lines = len(path.read_text().splitlines())
    assert n_lines <= MAX_ESTIMATOR_MODULE_LINES, f"{path.relative_to(ROOT)}: {n_lines} lines"


def test_the_cascades_shared_base_is_small():
    methods = [
        name for name, value in vars(CascadeBase).items() if inspect.isfunction(value) or isinstance(value, property)
    ]
    assert len(methods) <= MAX_BASE_METHODS, methods


def parameter_lengths(doc: str) -> dict:
    """``{parameter: lines of its description}`` of a numpydoc ``Parameters`` section (any indentation)."""
    section = re.search(r"\nParameters\n-+\n(.*?)(?:\n\n[A-Z][a-z]+\n-+\n|\Z)", inspect.cleandoc(doc), re.S)
    lengths, current = {}, None
    for line in (section.group(1) if section else "").splitlines():
        header = re.match(r"^(\w[\w, ]*)( : |$)", line)
        if header:
            current = header.group(1)
            lengths[current] = 0
        elif current is not None and line.strip():
            lengths[current] += 1
    return lengths


def public_docstrings():
    """``(name, docstring)`` of every public function and class of mddf's public packages, and of the public
    methods (inherited ones of mddf included) of those classes."""
    import mddf.datasets
    import mddf.forests
    import mddf.trees
    import mddf.utils

    found = {}
    for package in (mddf, mddf.baselines, mddf.datasets, mddf.utils, mddf.forests, mddf.trees):
        for name in package.__all__:
            obj = getattr(package, name)
            if not callable(obj):
                continue
            found[f"{package.__name__}.{name}"] = obj.__doc__
            for member in dir(obj) if inspect.isclass(obj) else ():
                value = getattr(obj, member, None)
                if (
                    not member.startswith("_")
                    and callable(value)
                    and (getattr(value, "__module__", None) or "").startswith("mddf")
                ):
                    found[f"{package.__name__}.{name}.{member}"] = value.__doc__
    return sorted((name, doc) for name, doc in found.items() if doc)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_a_class_docstring_is_a_contract_of_at_most_two_hundred_lines(estimator):
    doc = inspect.getdoc(estimator)
    assert len(doc.splitlines()) <= MAX_CLASS_DOCSTRING_LINES
    lengths = parameter_lengths(estimator.__doc__)
    assert lengths, "the docstring has a Parameters section"
    too_long = {name: n for name, n in lengths.items() if n > MAX_PARAMETER_LINES}
    assert not too_long, f"{estimator.__name__}: parameters described in more than {MAX_PARAMETER_LINES} lines"


def test_every_parameter_of_a_public_function_or_method_is_described_in_at_most_ten_lines():
    documented = public_docstrings()
    assert len(documented) > 150 and "mddf.MDDFClassifier.fit" in dict(documented)
    too_long = {
        f"{name}: {parameter}": n
        for name, doc in documented
        for parameter, n in parameter_lengths(doc).items()
        if n > MAX_PARAMETER_LINES
    }
    assert not too_long, f"describe these in at most {MAX_PARAMETER_LINES} lines (details: the user guide): {too_long}"


def test_the_parameter_lengths_are_read_at_any_indentation():
    doc = """Fit.

        Parameters
        ----------
        X : array
            one
            two
        y

        Returns
        -------
        self
        """
    assert parameter_lengths(doc) == {"X": 2, "y": 0}
