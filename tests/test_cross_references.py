"""Docstrings and documentation pages name only objects that exist, and the rendered ones only public objects.

A cross-reference is a Sphinx role of the Python domain, ``:func:`...```, ``:class:`...```, ``:meth:`...```,
``:mod:`...```, ``:attr:`...```, ``:data:`...```, ``:exc:`...``` or ``:obj:`...``` (``:py:func:`...``` too), or its
MyST form ``{func}`...```. Sphinx only warns about a target it cannot find in nitpicky mode, and it never
documents the private modules, so a reference to a renamed or removed function renders as plain text without a
word of warning. :func:`resolves` looks each target up as Sphinx's Python domain does: within the class and the
module of the docstring, then the module's parent packages, then as written (``~`` and ``!`` dropped, ``title
<target>`` read as its target, leading dots as "relative to this module"). Looking a name up imports its module
part and takes the rest as attributes. An attribute that only instances have (assigned to ``self.name`` in the
class or a base, or a dataclass field) or that a subclass provides (a hook its base documents) exists too.

Checked: every docstring and every comment (``#:`` documentation comments, and the text cells of the gallery
examples) of the package (``mddf/``, ``baselines/``, ``datasets/``, ``experiments/``), the studies (``benchmarks/``),
``scripts/*.py`` and
``examples/*.py``, and every page under ``docs/`` (Markdown and reStructuredText, outside fenced code; the targets
of a ``.. currentmodule::`` are looked up in that module) and ``README.md``. The pages and the docstrings of the
public objects (what ``mddf``, ``mddf.baselines``, ``mddf.datasets``, ``mddf.forests``, ``mddf.trees`` and
``mddf.utils`` export, and their public members) are rendered, so their references name no private object
(``mddf.blocks.members.FoldModel``: a module of an internal layer package, :data:`INTERNAL`, or a name with a
leading underscore): Sphinx has no page to link it to.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import io
import re
import textwrap
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Source folder -> the package it is installed as.
PACKAGES = {
    "mddf": "mddf",
    "baselines": "mddf.baselines",
    "datasets": "mddf.datasets",
    "experiments": "mddf.experiments",
    "benchmarks": "benchmarks",  # the studies, beside the package (imported from the repository root)
}
PUBLIC_MODULES = ("mddf", "mddf.baselines", "mddf.datasets", "mddf.forests", "mddf.trees", "mddf.utils")
#: The layer packages of mddf/ that the API reference leaves out: what users need of them, mddf exports.
INTERNAL = ("mddf.cascade", "mddf.blocks", "mddf.margin", "mddf.features", "mddf.storage")
DOCS = ROOT / "docs"
BUILD_DIRS = {"_build", "auto_examples", "generated"}

#: A reference: ``:func:`target``` or ``:py:func:`target``` (reST), ``{func}`target``` (MyST).
ROLE = re.compile(r"(?::|\{)(?:py:)?(func|class|meth|mod|attr|data|exc|obj)(?::|\})`([^`\n]+)`")
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CURRENT_MODULE = re.compile(r"^\.\. (?:py:)?currentmodule:: (\S+)\s*$")


@dataclasses.dataclass(frozen=True)
class Reference:
    where: str  # file and line
    role: str
    target: str  # as written
    module: str | None = None  # the module the reference is looked up in
    cls: str | None = None  # the class whose docstring holds it

    def __str__(self):
        return f"{self.where}: :{self.role}:`{self.target}`"


def references(text):
    """(role, target) of every cross-reference in ``text``."""
    return [(match.group(1), match.group(2)) for match in ROLE.finditer(text)]


def _target(written):
    """The dotted name a written target points at: ``~``/``!`` dropped, ``title <name>`` read as ``name``."""
    name = written.strip()
    if name.endswith(">") and "<" in name:
        name = name[name.rindex("<") + 1 : -1]
    return name.lstrip("~!").removesuffix("()")


def _assigned_to_self(cls):
    """Names assigned to ``self.<name>`` anywhere in the source of ``cls``."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return set()
    return {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
        if isinstance(node.value, ast.Name) and node.value.id == "self"
    }


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _has(obj, name):
    if hasattr(obj, name):
        return True
    if not inspect.isclass(obj):
        return False
    bases = [c for c in obj.__mro__ if c is not object]
    if any(name in getattr(c, "__dataclass_fields__", {}) or name in _assigned_to_self(c) for c in bases):
        return True  # an instance attribute
    return any(hasattr(sub, name) or name in _assigned_to_self(sub) for sub in _subclasses(obj))  # a hook


def lookup(dotted):
    """Whether ``dotted`` names an object: its longest importable prefix, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # no module of that name: the rest are attributes
            raise
        for attr in parts[i:]:
            if not _has(obj, attr):
                return False
            obj = getattr(obj, attr, None)
        return True
    return False


def resolves(target, module=None, cls=None):
    """Whether a written ``target`` names an object, looked up from ``module`` (and class ``cls``) as Sphinx does."""
    name = _target(target).lstrip(".")
    scopes = []
    if module:
        if cls:
            scopes.append(f"{module}.{cls}")
        scopes += [module.rsplit(".", i)[0] for i in range(module.count(".") + 1)]
    return any(lookup(f"{scope}.{name}") for scope in scopes) or lookup(name)


def _module_of(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] not in PACKAGES:
        return None  # a script or an example: not importable, its targets are absolute
    parts[0] = PACKAGES[parts[0]]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _classes_by_line(tree):
    """(first line, last line, class name) of each class; a nested class after the one it is in."""
    return [(n.lineno, n.end_lineno, n.name) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]


def _enclosing_class(classes, line):
    inside = [(first, name) for first, last, name in classes if first <= line <= last]
    return max(inside)[1] if inside else None


def _source_references(path):
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    module, classes = _module_of(path), _classes_by_line(tree)
    where = path.relative_to(ROOT).as_posix()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                line = node.body[0].lineno
                cls = node.name if isinstance(node, ast.ClassDef) else _enclosing_class(classes, line)
                for role, target in references(doc):
                    yield Reference(f"{where}:{line}", role, target, module, cls)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            line = token.start[0]
            for role, target in references(token.string):
                yield Reference(f"{where}:{line}", role, target, module, _enclosing_class(classes, line))


def _page_references(path):
    text = _FENCE.sub(lambda match: "\n" * match.group(0).count("\n"), path.read_text(encoding="utf-8"))
    where, module = path.relative_to(ROOT).as_posix(), None
    for number, line in enumerate(text.splitlines(), 1):
        if match := _CURRENT_MODULE.match(line):
            module = match.group(1)
        for role, target in references(line):
            yield Reference(f"{where}:{number}", role, target, module)


def _source_files():
    files = sorted(path for folder in PACKAGES for path in (ROOT / folder).rglob("*.py"))
    return files + sorted((ROOT / "scripts").glob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))


def _pages():
    pages = [ROOT / "README.md"]
    pages += sorted(
        path
        for path in DOCS.rglob("*")
        if path.suffix in (".md", ".rst") and not BUILD_DIRS & set(path.relative_to(DOCS).parts)
    )
    return pages


SOURCE_REFERENCES = [ref for path in _source_files() for ref in _source_references(path)]
PAGE_REFERENCES = [ref for path in _pages() for ref in _page_references(path)]


def _public_docstrings():
    """(name, docstring) of the public modules, their exported objects and those objects' public members."""
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        yield name, module.__doc__
        for attr in module.__all__:
            obj = getattr(module, attr)
            if callable(obj):
                yield f"{name}.{attr}", obj.__doc__
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if not member.startswith("_"):
                        target = value.fget if isinstance(value, property) else value
                        yield f"{name}.{attr}.{member}", getattr(target, "__doc__", None)


def _private(target):
    name = _target(target)
    return any(part.startswith("_") for part in name.split(".")) or name.startswith(tuple(f"{p}." for p in INTERNAL))


@pytest.mark.slow
def test_every_cross_reference_names_an_object_that_exists():
    broken = [str(ref) for ref in SOURCE_REFERENCES + PAGE_REFERENCES if not resolves(ref.target, ref.module, ref.cls)]
    assert not broken, "these references name nothing that exists:\n" + "\n".join(broken)


def test_the_rendered_documentation_references_no_private_object():
    found = [str(ref) for ref in PAGE_REFERENCES if _private(ref.target)]
    found += [
        f"{name}: :{role}:`{target}`"
        for name, doc in _public_docstrings()
        if doc
        for role, target in references(doc)
        if _private(target)
    ]
    assert not found, "Sphinx documents no private object; name a public one or say it in words:\n" + "\n".join(found)


def test_the_walk_reads_docstrings_comments_and_pages():
    found = {(ref.where.split(":")[0], ref.target) for ref in SOURCE_REFERENCES + PAGE_REFERENCES}
    assert ("mddf/cascade/base.py", "mddf.MDDFClassifier") in found  # a docstring
    assert ("examples/plot_missing_values_and_weights.py", "~mddf.MDDFClassifier") in found  # a gallery cell
    assert ("docs/user_guide/mddf.md", "~mddf.solve_layer_share") in found  # MyST
    assert ("docs/api/index.rst", "MDDFGridSearch") in found  # reST, under its currentmodule
    assert len(SOURCE_REFERENCES) > 300 and len(PAGE_REFERENCES) > 50


def test_both_syntaxes_and_every_form_of_target_are_read():
    text = ":func:`~mddf.margins`, {class}`mddf.MDDFClassifier`, :py:meth:`fitting <mddf.MDDFClassifier.fit>`"
    assert references(text) == [
        ("func", "~mddf.margins"),
        ("class", "mddf.MDDFClassifier"),
        ("meth", "fitting <mddf.MDDFClassifier.fit>"),
    ]
    assert [_target(target) for _, target in references(text)] == [
        "mddf.margins",
        "mddf.MDDFClassifier",
        "mddf.MDDFClassifier.fit",
    ]


@pytest.mark.parametrize(
    "target, module, cls",
    [
        ("mddf.margins", None, None),
        ("~mddf.MDDFClassifier.staged_predict_proba", None, None),
        ("mddf.experiments.runner.run_one", None, None),  # a module below a package
        ("mddf.ModelFileError.path", None, None),  # an instance attribute
        ("sklearn.datasets.load_svmlight_file", None, None),
        ("~.runner.run_one", "mddf.experiments.cluster", None),  # relative to the module's package
        ("improves", "mddf.utils._stopping", None),  # in the module
        ("EarlyStopping.reason", "mddf.utils._stopping", "Measure"),  # an instance attribute of another class
        ("predict", "mddf.baselines.gcforest", "GCForestClassifier"),  # in the class
        ("transform", "mddf.cascade.layer_features", "LayerOutputMixin"),  # a hook the subclasses provide
    ],
)
def test_a_reference_to_an_existing_object_resolves(target, module, cls):
    assert resolves(target, module, cls)


@pytest.mark.parametrize(
    "target, module, cls",
    [
        ("mddf.margin.alpha.solve_alpha_normalized", None, None),  # never existed
        ("mddf.ForestBlock", None, None),  # no longer exported
        ("mddf.alpha.solve_layer_share", None, None),  # the module's name before it became private
        ("mddf.datasets.deepboost_folds", None, None),  # in another package
        ("~.margins.no_such_statistic", "mddf.margin.state", None),
        ("mddf.MDDFClassifier.no_such_method", None, None),
        ("no_such_function", "mddf.utils._stopping", "EarlyStopping"),
    ],
)
def test_a_reference_to_a_missing_object_does_not_resolve(target, module, cls):
    assert not resolves(target, module, cls)


def test_a_private_target_is_told_apart():
    assert _private("~mddf.blocks.members.FoldModel") and _private("mddf.MDDFClassifier._fit_block")
    assert _private("mddf.storage.ModelStore") and not _private("mddf.storage_notes")
    assert not _private("~mddf.MDDFClassifier.fit") and not _private("mddf.experiments.runner.run_one")
