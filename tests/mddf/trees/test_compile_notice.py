"""The line on stderr that says which of mddf's functions numba compiles, and why."""

import importlib.util
import sys
import textwrap

import numpy as np
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.trees import _compile_notice
from mddf.trees._compile_notice import NOT_CACHED, PREFIX

SOURCE = textwrap.dedent(
    """
    from numba import njit


    @njit(cache=True)
    def inner(x):
        return x * 2


    @njit(cache=True)
    def add_one(x):
        return inner(x) + 1
    """
)


def load(path, name):
    """Import the module at ``path`` afresh under ``name``: a new dispatcher, as in a new process."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fresh(monkeypatch):
    """Nothing said yet in this process."""
    monkeypatch.setattr(registered(), "said", set())


def registered():
    """The listener registered in this process: the latest import's (a test may have imported mddf afresh)."""
    from numba.core import event

    return getattr(event, "_mddf_compile_notice", _compile_notice.NOTICE)


@pytest.fixture
def cold_module(tmp_path, monkeypatch):
    """A module of mddf's (by its name) that nothing compiled yet, and its path."""
    path = tmp_path / "cold_module.py"
    path.write_text(SOURCE)
    name = f"mddf._test_cold_{tmp_path.name}"
    monkeypatch.delitem(sys.modules, name, raising=False)
    return load(path, name), path


def notices(err):
    return [line for line in err.splitlines() if line.startswith(PREFIX)]


def test_a_first_compilation_says_which_function_and_that_nothing_was_cached(fresh, cold_module, capsys):
    module, _ = cold_module
    assert module.add_one(1) == 3
    said = notices(capsys.readouterr().err)
    # the function called, not the one compiled as its part
    assert said == [f"{PREFIX} {module.__name__}.add_one ({NOT_CACHED}); once, then cached"]


def test_new_argument_types_are_named_as_the_cause(fresh, cold_module, capsys):
    module, path = cold_module
    module.add_one(1)
    capsys.readouterr()
    # a new process (a new dispatcher of the same source) loads the integer version from the cache: silent
    again = load(path, module.__name__ + "_again")
    assert again.add_one(2) == 5
    assert notices(capsys.readouterr().err) == []
    # but a float compiles, and the line says the argument that is new
    assert again.add_one(0.5) == 2.0
    (line,) = notices(capsys.readouterr().err)
    assert "cached for other inputs; new here: x: float64" in line


def test_each_function_and_cause_is_said_once(fresh, cold_module, capsys):
    module, _ = cold_module
    listener = registered()
    event = type("Event", (), {"data": {"dispatcher": module.add_one, "args": ()}})()
    for _ in range(2):
        listener.on_start(event)
        listener.on_end(event)
    assert len(notices(capsys.readouterr().err)) == 1


def test_code_outside_mddf_is_not_said(fresh, tmp_path, capsys):
    path = tmp_path / "elsewhere.py"
    path.write_text(SOURCE)
    assert load(path, "elsewhere_module").add_one(1) == 3
    assert notices(capsys.readouterr().err) == []


def test_fits_of_compiled_code_say_nothing(fresh, capsys):
    X = np.random.RandomState(0).rand(60, 3)
    MDDFClassifier(n_estimators=2, n_folds=2, max_layers=2, random_state=0).fit(X, X[:, 0] > 0.5)
    CascadeForestRegressor(n_estimators=2, n_folds=2, max_layers=2, random_state=0).fit(X, X[:, 0])
    capsys.readouterr()  # the first fits of this process may have compiled (a cold cache)
    MDDFClassifier(n_estimators=2, n_folds=2, max_layers=2, random_state=1).fit(X, X[:, 0] > 0.5)
    CascadeForestRegressor(n_estimators=2, n_folds=2, max_layers=2, random_state=1).fit(X, X[:, 0])
    assert notices(capsys.readouterr().err) == []


def test_a_module_imported_again_replaces_its_listener_rather_than_adding_one(fresh, cold_module, capsys):
    from numba.core import event

    current = registered()
    again = load(_compile_notice.__file__, "mddf.trees._compile_notice_again")
    try:
        module, _ = cold_module
        module.add_one(1)
        assert len(notices(capsys.readouterr().err)) == 1  # said by the new listener only
    finally:  # the listener registered before, back, as the rest of the session expects
        event.unregister("numba:compile", again.NOTICE)
        event.register("numba:compile", current)
        event._mddf_compile_notice = current
        sys.modules.pop("mddf.trees._compile_notice_again", None)
