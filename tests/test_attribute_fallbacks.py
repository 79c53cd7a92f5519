"""No code of mddf falls back on an attribute's absence: objects of earlier versions get what they lack in one place.

The version policy (:mod:`mddf.cascade.versions`) fills in what an object of an earlier version lacks when it is read
back, from one table (:data:`mddf.storage.EARLIER_LAYOUTS`); code that reads an attribute then reads it as it is.
This scan finds every ``getattr(obj, name, default)`` in ``mddf/`` and requires it to be one of :data:`ALLOWED`, the
reads whose default stands for something other than an earlier version (each says what).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (module, the call as ``ast.unparse`` writes it) -> why its default is not an old-pickle fallback.
ALLOWED = {
    # the unpickler's part of the policy: a name looked up in the modules that hold a moved module's names now
    ("mddf/_pickle_compat.py", "getattr(importlib.import_module(target), attr, _NOTHING)"): "moved modules",
    # a module that is not a package has no __path__
    ("mddf/_runtime/compile_cache.py", "getattr(module, '__path__', None)"): "modules",
    # any callable: a functools.partial has no __name__
    ("mddf/_runtime/threads.py", "getattr(function, '__name__', type(function).__name__)"): "callables",
    # parameters of the classifier only (input_features, screening_accuracy), which the regressor's lack
    ("mddf/cascade/monotone.py", "getattr(params, 'input_features', None)"): "one task's parameters",
    ("mddf/cascade/monotone.py", "getattr(params, 'tree_method', 'hist')"): "one task's parameters",
    ("mddf/cascade/monotone.py", "getattr(params, parameter, None)"): "one task's parameters",
    # an unfitted estimator: no fitted cascade, no store to reuse
    ("mddf/cascade/base.py", "getattr(cascade.__dict__.get('fitted_cascade_'), 'store', None)"): "unfitted",
    # an unfitted estimator has no classes_ (scikit-learn's convention)
    ("mddf/cascade/base.py", "getattr(self, 'classes_', None)"): "unfitted",
    ("mddf/cascade/classifier.py", "getattr(self, 'classes_', None)"): "unfitted",
    # y as given by the user: a list has no shape
    ("mddf/cascade/multilabel.py", "getattr(y, 'shape', None)"): "user input",
    # the regressor has no screening_accuracy parameter: it screens no row
    ("mddf/cascade/seam.py", "getattr(params, 'screening_accuracy', None)"): "the regressor",
    # scikit-learn sets feature_names_in_ only for X with column names
    ("mddf/cascade/seam.py", "getattr(estimator, 'feature_names_in_', None)"): "scikit-learn's convention",
    # any fitted member's model: only the stored forests name their arrays, only classifiers have a class count
    ("mddf/storage/records.py", "getattr(type(model), '_stored_arrays', ())"): "any member",
    ("mddf/storage/records.py", "getattr(model, 'n_classes', None)"): "any member",
    # any object being pickled: whether its class pickles sealed
    ("mddf/storage/sealed.py", "getattr(type(obj), '__reduce__', None)"): "any object",
    # numba's event module, marked once per process when the notice is installed
    ("mddf/trees/_compile_notice.py", "getattr(event, '_mddf_compile_notice', None)"): "once per process",
    # numba's dispatchers: a function may lack __module__
    ("mddf/trees/_compile_notice.py", "getattr(dispatcher.py_func, '__module__', '')"): "any function",
    # the code built ahead of time may lack a kernel, or the label kinds (then compiled on first use)
    ("mddf/trees/criterion.py", "getattr(module, 'LABEL_KINDS', None)"): "built ahead of time",
    ("mddf/trees/criterion.py", "getattr(module, function.name, None)"): "built ahead of time",
    # X as given by the user: a list has no shape, a column's dtype may be an extension type, pandas may be absent
    ("mddf/utils/_tabular.py", "getattr(X, 'shape', ())"): "user input",
    ("mddf/utils/_tabular.py", "getattr(dtype, 'kind', None)"): "user input",
    ("mddf/utils/_tabular.py", "getattr(sys.modules.get('pandas'), 'NA', None)"): "pandas not loaded",
    # validate_tabular is public (mddf.utils): an estimator without the parameter reads categories from dtypes
    ("mddf/utils/_tabular.py", "getattr(estimator, 'categorical_features', 'from_dtype')"): "public helper",
    # y as given by the user: a list has no dtype, an extension dtype may have no kind
    ("mddf/utils/_validation.py", "getattr(y, 'dtype', None)"): "user input",
    ("mddf/utils/_validation.py", "getattr(dtype, 'kind', 'O')"): "user input",
}


def getattr_with_default():
    """``(module, call)`` of every ``getattr`` call of three arguments in ``mddf/``, in file order."""
    found = []
    for path in sorted((ROOT / "mddf").rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
                if len(node.args) == 3:
                    found.append((module, ast.unparse(node)))
    return found


def test_no_getattr_with_a_default_outside_the_allowed_reads():
    unexplained = sorted(set(getattr_with_default()) - set(ALLOWED))
    assert not unexplained, (
        "getattr(obj, name, default) outside the allowed reads: an attribute an earlier version lacks belongs in "
        f"mddf.storage.EARLIER_LAYOUTS (see mddf.cascade.versions), any other default in ALLOWED: {unexplained}"
    )


def test_every_allowed_read_still_exists():
    stale = sorted(set(ALLOWED) - set(getattr_with_default()))
    assert not stale, f"ALLOWED names reads that mddf no longer has: {stale}"


def test_the_scan_finds_a_fallback_of_the_old_kind(tmp_path, monkeypatch):
    module = tmp_path / "mddf" / "blocks" / "old.py"
    module.parent.mkdir(parents=True)
    module.write_text('def refits(block):\n    return getattr(block, "fold_trees", "all") == "refit"\n')
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert getattr_with_default() == [("mddf/blocks/old.py", "getattr(block, 'fold_trees', 'all')")]
