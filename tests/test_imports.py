"""The import graph, read from the sources with ``ast`` (imports inside functions included).

- Code outside ``mddf/`` (the baselines, datasets, experiments, scripts, examples and benchmarks) imports only
  public names of mddf: no module, package or name of mddf with a dotted part that starts with ``_``. A folder's
  own private modules are its own business (``mddf.baselines._weak`` within ``baselines/``).
- The modules of mddf import each other without a cycle.
- ``mddf/`` is built in layers, :data:`LAYERS` (as ``mddf/__init__.py`` describes them): a module imports
  from its own layer and the layers below, never from one above.
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

#: The layers of mddf/, lowest first: a module belongs to the layer of the longest prefix that names it.
LAYERS = [
    # the foundations: helpers of every estimator, the paper's equations, the stopping rule, model files
    (
        "foundations",
        (
            "mddf.utils",
            "mddf._margin",
            "mddf._alpha",
            "mddf._weights",
            "mddf._stopping",
            "mddf._storage",
            "mddf._screening",
            "mddf._calibration",
            "mddf._threads",
            "mddf._ahead_of_time.dispatch",
            "mddf._compile_cache",
        ),
    ),
    ("trees", ("mddf.trees",)),
    ("forests", ("mddf.forests",)),
    # features appended to x: pairs of columns, principal directions (transformers, and steps of the cascades)
    ("features", ("mddf._appended", "mddf._pair_search", "mddf._pairs", "mddf._rotation")),
    (
        "blocks",
        ("mddf._members", "mddf._staged_boosting", "mddf._block_base", "mddf._block_classifier")
        + ("mddf._block_regressor",),
    ),
    (
        "cascades",
        # the engine that grows a cascade, the policies of the two tasks, the steps before and after growth, and
        # the estimators' shared base
        ("mddf._layer_features", "mddf._mixture", "mddf._pair_step", "mddf._final_predictor", "mddf._probing")
        + ("mddf._growth",)
        + ("mddf._policy", "mddf._margin_policy", "mddf._residual_policy", "mddf._cascade_base")
        + ("mddf._cascade_classifier", "mddf._cascade_regressor"),
    ),
    (
        "estimators",
        (
            "mddf",
            "mddf._ahead_of_time",
            "mddf._search",
            "mddf._paper_config",
            "mddf._pickle_compat",
        ),
    ),
]


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
    """The first private part of an mddf name outside ``own_package``, or None."""
    if own_package and (target == own_package or target.startswith(own_package + ".")):
        return None
    parts = target.split(".")
    if parts[0] != "mddf":
        return None
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
        ("from mddf._block_base import BinnedInput", ["mddf._block_base.BinnedInput"]),
        ("def f():\n    import mddf.forests._secret as s", ["mddf.forests._secret"]),  # inside a function
        ("from mddf import MDDFClassifier, _cascade, __version__", ["mddf._cascade"]),
        ("from mddf.utils import _validation", ["mddf.utils._validation"]),
        ("from .. import _storage", ["mddf._storage"]),  # relative, out of the folder's own package
        ("from ._weak import best_splits", []),  # the folder's own private module
        ("from mddf.forests import BinnedInput\nimport numpy._core", []),
    ],
)
def test_the_check_finds_every_form_of_private_import(source, found):
    targets = [target for _, target in private_imports(source, "mddf.baselines.deepboost", "mddf.baselines")]
    assert targets == found


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


def layer(name):
    """The index in :data:`LAYERS` of module ``name`` of mddf/."""
    matches = [
        (len(prefix), i)
        for i, (_, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if name == prefix or (prefix != "mddf" and name.startswith(prefix + "."))
    ]
    if not matches:
        raise LookupError(f"{name} is in no layer of LAYERS (tests/test_imports.py): place it in one")
    return max(matches)[1]


def test_every_module_of_mddf_is_in_a_layer_and_imports_none_above_its_own():
    upward = [
        f"{name} ({LAYERS[layer(name)][0]}) imports {target} ({LAYERS[layer(target)][0]})"
        for name, targets in sorted(graph(["mddf"]).items())
        for target in sorted(targets)
        if layer(target) > layer(name)
    ]
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_the_layer_check_places_modules_by_their_longest_prefix():
    assert [LAYERS[layer(name)][0] for name in ("mddf", "mddf.forests.growing", "mddf.utils._tabular")] == [
        "estimators",
        "forests",
        "foundations",
    ]
    with pytest.raises(LookupError, match="mddf._new"):
        layer("mddf._new")


def test_the_forests_are_the_only_way_from_the_blocks_and_cascades_to_the_trees():
    # one home for forests: above the trees, only mddf.forests grows, stores or routes them
    edges = graph(["mddf"])
    reaching = sorted(
        name
        for name, targets in edges.items()
        if any(t == "mddf.trees" or t.startswith("mddf.trees.") for t in targets)
        if not name.startswith(("mddf.trees", "mddf.forests"))
    )
    assert reaching == []
