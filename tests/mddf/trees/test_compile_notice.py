"""The one-line notice that numba compiles the tree code, printed when the cache is cold and only once."""

import importlib.util
import textwrap

import numpy as np
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.trees import _compile_notice
from mddf.trees._compile_notice import MESSAGE, announce_compilation, is_compiled

SOURCE = textwrap.dedent(
    """
    from numba import njit


    @njit(cache=True)
    def add_one(x):
        return x + 1
    """
)


def load(path, name):
    """Import the module at ``path`` afresh under ``name``: a new dispatcher, as in a new process."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fresh(monkeypatch):
    """Nothing announced yet in this process."""
    monkeypatch.setattr(_compile_notice, "_announced", False)


def test_a_cold_function_is_announced_once_then_found_compiled_and_cached(tmp_path, fresh, capsys):
    path = tmp_path / "cold_module.py"
    path.write_text(SOURCE)
    add_one = load(path, "cold_module").add_one
    assert not is_compiled(add_one)  # no signature here, no cache index next to the source
    assert announce_compilation(add_one)
    assert capsys.readouterr().err == MESSAGE + "\n"
    assert not announce_compilation(add_one)  # once per process
    assert capsys.readouterr().err == ""
    assert add_one(1) == 2  # compiles and writes numba's cache
    assert is_compiled(add_one)
    # a new process (a new dispatcher of the same source) finds the on-disk cache
    assert is_compiled(load(path, "cold_module_again").add_one)
    # ... until the source changes: numba then compiles again
    path.write_text(SOURCE + "\n\ndef unrelated():\n    return 0\n")
    assert not is_compiled(load(path, "cold_module_changed").add_one)


def test_nothing_is_said_for_compiled_tree_code(fresh, capsys):
    X = np.random.RandomState(0).rand(60, 3)
    MDDFClassifier(n_estimators=2, n_folds=2, max_layers=1, random_state=0).fit(X, X[:, 0] > 0.5)
    capsys.readouterr()
    from mddf.trees.grower import GROW_GINI

    assert is_compiled(GROW_GINI)
    assert not announce_compilation(GROW_GINI)
    assert capsys.readouterr().err == ""


def test_the_fits_growing_binned_trees_announce_a_cold_cache_once(fresh, monkeypatch, capsys):
    monkeypatch.setattr(_compile_notice, "is_compiled", lambda dispatcher: False)  # as on a fresh install
    X = np.random.RandomState(0).rand(60, 3)
    MDDFClassifier(n_estimators=2, n_folds=2, max_layers=2, random_state=0).fit(X, X[:, 0] > 0.5)
    CascadeForestRegressor(n_estimators=2, n_folds=2, max_layers=2, random_state=0).fit(X, X[:, 0])
    assert capsys.readouterr().err.count(MESSAGE) == 1
    # scikit-learn's trees need no compilation
    monkeypatch.setattr(_compile_notice, "_announced", False)
    MDDFClassifier(n_estimators=2, n_folds=2, max_layers=1, tree_method="exact", random_state=0).fit(X, X[:, 0] > 0.5)
    assert MESSAGE not in capsys.readouterr().err
