"""The import graph, read from the sources with ``ast`` (imports inside functions included).

- Code outside ``mddf/`` (the baselines, datasets, experiments, scripts, examples and benchmarks) imports only
  public names of mddf: no module, package or name of mddf with a dotted part that starts with ``_``. A folder's
  own private modules are its own business (``mddf.baselines._weak`` within ``baselines/``).
- The modules of mddf import each other without a cycle, and reach no private name (``_x``) of another of its
  packages, by an import or by an attribute of an imported module (:func:`cross_package_private_names`); the
  private layer packages themselves (``mddf._runtime``) are packages like the others, whose public names the
  packages :data:`ALLOWED` to may import.
- ``mddf/`` is built in layers, one package each (as ``mddf/__init__.py`` describes them), and
  :data:`ALLOWED` states the arrows between them: a package imports only the packages it names there, which
  import each other without a cycle. At most :data:`MAX_TOP_MODULES` modules stand directly in ``mddf/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Source folder -> the package it is installed as (None: not installed).
FOLDERS = {
    "mddf": "mddf",
    "baselines": "mddf.baselines",
    "datasets": "mddf.datasets",
    "experiments": "mddf.experiments",
    "scripts": None,
    "examples": None,
    "benchmarks": None,
}
#: The folders whose code uses mddf from outside.
OUTSIDE = [folder for folder in FOLDERS if folder != "mddf"]

#: The layer packages of mddf/ -> the packages each may import (the allowed arrows). A module belongs to the package
#: that holds it; the modules directly in mddf/ (the exported names, the paper's configuration, the pickles of
#: earlier layouts) to "mddf", which may import any of them.
ALLOWED = {
    "mddf._runtime": set(),  # numba's cache, the code built ahead of time, threads
    "mddf.margin": set(),  # the paper's equations and Algorithm 2's state
    "mddf.storage": set(),  # model files of model_dir
    "mddf.utils": {"mddf._runtime", "mddf.storage"},  # input checks, tabular input, layer outputs, stopping, save()
    "mddf.trees": {"mddf._runtime"},  # one binned tree
    "mddf.forests": {"mddf._runtime", "mddf.storage", "mddf.trees"},  # the only way to the trees
    "mddf.features": {"mddf._runtime", "mddf.utils", "mddf.forests"},  # pairs, principal directions
    "mddf.blocks": {"mddf._runtime", "mddf.utils", "mddf.storage", "mddf.forests"},  # one cross-fitted layer
    "mddf.cascade": {  # the growth engine, the tasks' policies and the estimators
        "mddf._runtime",
        "mddf.utils",
        "mddf.storage",
        "mddf.margin",
        "mddf.forests",
        "mddf.features",
        "mddf.blocks",
    },
    "mddf._ahead_of_time": {"mddf._runtime", "mddf.forests"},  # the build of the compiled code
}
#: The layer packages whose names code outside mddf/ may import; the others are internal (mddf exports what users
#: need of them).
PUBLIC_PACKAGES = {"mddf.utils", "mddf.trees", "mddf.forests"}
#: Modules directly in mddf/, __init__.py included.
MAX_TOP_MODULES = 6


def module_name(path, folder=None):
    """The dotted name ``path`` is imported as (``folder``'s package, or the path itself when not installed)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = FOLDERS.get(parts[0]) if folder is None else folder
    parts = (package.split(".") if package else parts[:1]) + parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source, name, is_package=False):
    """``(line, target)`` of every import in ``source`` (module ``name``): each imported module, and each name
    imported from one as ``module.name``; relative imports resolved."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([node.module] if node.module else []))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _private_part(target, own_package):
    """The first private part of an mddf name outside ``own_package`` (an internal layer package counts as one),
    or None."""
    if own_package and (target == own_package or target.startswith(own_package + ".")):
        return None
    parts = target.split(".")
    if parts[0] != "mddf":
        return None
    if len(parts) > 1 and f"mddf.{parts[1]}" in ALLOWED and f"mddf.{parts[1]}" not in PUBLIC_PACKAGES:
        return parts[1]
    return next((part for part in parts[1:] if part.startswith("_") and not part.startswith("__")), None)


def private_imports(source, name, own_package=None, is_package=False):
    """``(line, target)`` of the imports of ``source`` that reach a private part of mddf outside ``own_package``."""
    return [(line, target) for line, target in imports(source, name, is_package) if _private_part(target, own_package)]


def _sources(folders):
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py")) if (ROOT / folder).is_dir() else ()


def test_no_code_outside_mddf_imports_a_private_module_or_name_of_mddf():
    found = []
    for path in _sources(OUTSIDE):
        package = FOLDERS[path.relative_to(ROOT).parts[0]]
        name = module_name(path)
        for line, target in private_imports(path.read_text(), name, package, path.name == "__init__.py"):
            found.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert not found, "import these through a public name (mddf.utils, mddf.forests, ...):\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source, found",
    [
        ("from mddf.blocks._base import BinnedInput", ["mddf.blocks._base.BinnedInput"]),
        ("def f():\n    import mddf.forests._secret as s", ["mddf.forests._secret"]),  # inside a function
        ("from mddf import MDDFClassifier, _cascade, __version__", ["mddf._cascade"]),
        ("from mddf.utils import _validation", ["mddf.utils._validation"]),
        ("from .. import _storage", ["mddf._storage"]),  # relative, out of the folder's own package
        ("from ._weak import best_splits", []),  # the folder's own private module
        ("from mddf.forests import BinnedInput\nimport numpy._core", []),
        ("from mddf.cascade.growth import CascadeGrowth", ["mddf.cascade.growth.CascadeGrowth"]),  # internal
    ],
)
def test_the_check_finds_every_form_of_private_import(source, found):
    targets = [target for _, target in private_imports(source, "mddf.baselines.deepboost", "mddf.baselines")]
    assert targets == found


def target_package(target):
    """The layer package (a key of :data:`ALLOWED`) a dotted name of mddf belongs to, or ``"mddf"``."""
    parts = target.split(".")
    return f"mddf.{parts[1]}" if len(parts) > 1 and f"mddf.{parts[1]}" in ALLOWED else "mddf"


def _dotted(node):
    """``a.b.c`` of an attribute chain rooted at a name, as ``["a", "b", "c"]``, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def cross_package_private_names(source, name, is_package=False):
    """``(line, target)`` of every private name of another package of mddf that module ``name`` (of mddf/) reaches:
    imported (``from ..utils._tabular import x``, ``from ..utils import _x``) or read as an attribute of what it
    imported (``utils._x``, ``mddf.utils._tabular.x``). A name is private when a part after its package starts with
    ``_`` (``__init__``-style names are not)."""
    own = package_of(name) if name.split(".")[0] == "mddf" else None
    tree = ast.parse(source)
    found, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for (_, target), alias in zip(imports(ast.unparse(node), name, is_package), node.names):
                found.append((node.lineno, target))
                if isinstance(node, ast.Import) and alias.asname is None:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
                else:
                    bound[alias.asname or alias.name] = target
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        parts = _dotted(node) if isinstance(node, ast.Attribute) and id(node) not in inner else None
        if parts and parts[0] in bound:
            found.append((node.lineno, ".".join([bound[parts[0]], *parts[1:]])))
    private = []
    for line, target in found:
        package = target_package(target)
        if target.split(".")[0] != "mddf" or package == own:
            continue
        rest = target.split(".")[package.count(".") + 1 :]
        if any(part.startswith("_") and not part.startswith("__") for part in rest):
            private.append((line, target))
    return sorted(set(private))


def test_no_package_of_mddf_reaches_a_private_name_of_another():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {target}"
        for path in _sources(["mddf"])
        for line, target in cross_package_private_names(path.read_text(), module_name(path), path.name == "__init__.py")
    ]
    assert not found, "give these a public name in their package (or move them to the package using them):\n" + (
        "\n".join(found)
    )


@pytest.mark.parametrize(
    "source, found",
    [
        ("from ..utils._tabular import is_dataframe", [(1, "mddf.utils._tabular.is_dataframe")]),
        (
            "from ..utils import _tabular\n_tabular.is_dataframe(X)",
            [(1, "mddf.utils._tabular"), (2, "mddf.utils._tabular.is_dataframe")],
        ),
        ("from .. import utils\nutils._tabular.is_dataframe(X)", [(2, "mddf.utils._tabular.is_dataframe")]),
        ("def f():\n    import mddf.utils\n    return mddf.utils._stopping", [(3, "mddf.utils._stopping")]),
        ("from ..cascade.layer_features import _x", [(1, "mddf.cascade.layer_features._x")]),
        ("from .._runtime.threads import one_thread\nfrom ..utils import check_columns", []),  # public names
        ("from . import _secret\nfrom ._secret import x", []),  # the package's own private module
        ("import numpy as np\nnp._core", []),  # not mddf's
    ],
)
def test_the_private_name_check_finds_imports_and_attributes(source, found):
    assert cross_package_private_names(source, "mddf.features.appended") == found


def edges_of(sources):
    """Module -> the modules it imports among ``sources`` (name -> ``(source, is_package)``); a name imported
    from a module counts as the module, ``from . import x`` of a package's attribute as the package."""
    edges = {}
    for name, (source, is_package) in sources.items():
        targets = set()
        for _, target in imports(source, name, is_package):
            if target in sources:
                targets.add(target)
            elif target.rpartition(".")[0] in sources:
                targets.add(target.rpartition(".")[0])
        edges[name] = targets - {name}
    return edges


def graph(folders=("mddf", "baselines", "datasets", "experiments")):
    """The import graph of the installed modules of ``folders``."""
    return edges_of({module_name(path): (path.read_text(), path.name == "__init__.py") for path in _sources(folders)})


def cycles(edges):
    """The groups of two or more modules that import each other, directly or not (Tarjan's components)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_installed_modules_import_each_other_without_a_cycle():
    assert cycles(graph()) == []


def test_the_benchmarks_import_each_other_without_a_cycle():
    # every import counts, those inside functions and under TYPE_CHECKING too: a module that needs a piece of a
    # module above it gets the piece moved down, as benchmarks/harness/declarations.py got checkpoints()
    assert cycles(graph(["benchmarks"])) == []


def test_the_cycle_check_finds_a_cycle_closed_by_an_import_inside_a_function():
    sources = {
        "mddf": ("from ._a import x", True),
        "mddf._a": ("from ._b import y", False),
        "mddf._b": ("def marker():\n    from . import __name__ as package", False),
        "mddf._c": ("import mddf._a", False),
    }
    edges = edges_of(sources)
    assert edges == {"mddf": {"mddf._a"}, "mddf._a": {"mddf._b"}, "mddf._b": {"mddf"}, "mddf._c": {"mddf._a"}}
    assert cycles(edges) == [["mddf", "mddf._a", "mddf._b"]]


def package_of(name):
    """The layer package of module ``name`` of mddf/ (a key of :data:`ALLOWED`), or ``"mddf"`` for a top module."""
    parts = name.split(".")
    if len(parts) == 1 or f"mddf.{parts[1]}" not in ALLOWED:
        if len(parts) > 2 or (len(parts) == 2 and (ROOT / "mddf" / parts[1]).is_dir()):
            raise LookupError(f"{name} is in no package of ALLOWED (tests/test_imports.py): place it in one")
        return "mddf"
    return f"mddf.{parts[1]}"


def arrows(edges):
    """``{(package, imported package)}`` of a module graph, between different packages."""
    return {(package_of(a), package_of(b)) for a, targets in edges.items() for b in targets} - {
        (p, p) for p in [*ALLOWED, "mddf"]
    }


def test_every_package_of_mddf_imports_only_the_packages_it_is_allowed():
    edges = graph(["mddf"])
    found = [
        f"{name} ({package_of(name)}) imports {target} ({package_of(target)})"
        for name, targets in sorted(edges.items())
        for target in sorted(targets)
        if package_of(name) != "mddf"
        and package_of(target) != package_of(name)
        and package_of(target) not in ALLOWED[package_of(name)]
    ]
    assert not found, "arrows not in ALLOWED:\n" + "\n".join(found)


def test_the_allowed_arrows_have_no_cycle_and_no_package_imports_the_top():
    assert cycles({p: set(targets) for p, targets in ALLOWED.items()}) == []
    assert all("mddf" not in targets and p not in targets for p, targets in ALLOWED.items())
    assert not [(a, b) for a, b in arrows(graph(["mddf"])) if b == "mddf"]


def test_the_package_check_finds_a_module_outside_the_packages_and_an_arrow_not_allowed():
    assert [package_of(n) for n in ("mddf", "mddf._paper_config", "mddf.forests.growing")] == [
        "mddf",
        "mddf",
        "mddf.forests",
    ]
    with pytest.raises(LookupError, match="mddf._new.module"):
        package_of("mddf._new.module")
    assert arrows({"mddf.trees.grower": {"mddf.forests.binned"}}) == {("mddf.trees", "mddf.forests")}
    assert ("mddf.forests", "mddf.trees") in arrows({"mddf.forests.binned": {"mddf.trees.nodes"}})


def test_at_most_six_modules_stand_directly_in_mddf():
    top = sorted(path.name for path in (ROOT / "mddf").glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top
    folders = {path.name for path in (ROOT / "mddf").iterdir() if (path / "__init__.py").exists()}
    assert {f"mddf.{folder}" for folder in folders} == set(ALLOWED)
