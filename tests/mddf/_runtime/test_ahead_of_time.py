"""The tree code built ahead of time: which calls it covers, when it is used, and that it computes what the JIT does."""

import json
import pickle

import numpy as np
import pandas as pd
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf._ahead_of_time import dispatch
from mddf._ahead_of_time.build import main as build_main
from mddf._runtime.dispatch import REGISTERED, EntryPoint, Table, argument_types
from mddf.trees import grower

#: Cheap entry points: a module of them builds in seconds.
SMALL = ("write_class_words", "alias_table")


def fit_every_kind():
    """Small fits of the six kinds of input a user meets (numeric, categorical, missing, weights, regression, several
    regression targets)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    params = dict(n_estimators=4, max_layers=2, n_jobs=1, random_state=0)
    frame = pd.DataFrame(X, columns=list("abcd")).assign(colour=pd.Categorical(rng.choice(["r", "g"], 120)))
    holes = X.copy()
    holes[rng.random(X.shape) < 0.1] = np.nan
    MDDFClassifier(**params).fit(X, y).predict(X)
    MDDFClassifier(**params).fit(frame, y).predict(frame)
    MDDFClassifier(**params).fit(holes, y).predict(holes)
    MDDFClassifier(**params).fit(X, y, sample_weight=rng.random(120)).predict(X)
    CascadeForestRegressor(**params).fit(X, X[:, 0]).predict(X)
    CascadeForestRegressor(**params).fit(frame, X[:, 0]).predict(frame)
    CascadeForestRegressor(**params).fit(X, X[:, :2]).predict(X)


@pytest.mark.slow
def test_every_call_of_the_six_kinds_of_input_is_a_variant_built_ahead_of_time(monkeypatch):
    calls = {}
    original = EntryPoint.__call__

    def spy(self, *args):
        calls.setdefault(self.name, set()).add(argument_types(args))
        return original(self, *args)

    monkeypatch.setattr(EntryPoint, "__call__", spy)
    fit_every_kind()
    built = {name: {argument_types(args) for args in entry.variants()} for name, entry in REGISTERED.items()}
    assert set(calls) == set(REGISTERED)  # every entry point is called by some kind
    for name, types in calls.items():
        assert types <= built[name], name


def test_every_entry_point_wraps_its_jit_dispatcher_and_pickles_as_the_modules_attribute():
    assert len(REGISTERED) == 10
    for entry in REGISTERED.values():
        assert hasattr(entry.jit, "py_func") and not isinstance(entry.jit, EntryPoint)
    assert pickle.loads(pickle.dumps(grower.GROW_GINI)) is grower.GROW_GINI
    assert grower.GROW_GINI.py_func is grower.GROW_GINI.jit.py_func  # the dispatcher's attributes


@pytest.fixture(scope="module")
def small_build(tmp_path_factory):
    """A module of the :data:`SMALL` entry points, built by the command (in a process of its own, numba's cache
    in a temporary folder)."""
    folder = tmp_path_factory.mktemp("kernels")
    assert build_main([str(folder), "--entries", ",".join(SMALL)]) == 0
    return folder


@pytest.mark.slow
def test_a_built_module_runs_the_variants_it_holds_and_gives_the_jits_results(small_build):
    table = Table(small_build)
    assert table.available() and table.reason is None
    assert all(table.functions_for(name, REGISTERED[name].variants) for name in SMALL)
    assert table.functions_for("route_trees", REGISTERED["route_trees"].variants) == {}  # not in this module
    jit = REGISTERED["alias_table"].jit
    point = EntryPoint("alias_table", jit, REGISTERED["alias_table"].variants, table)
    p = np.random.default_rng(1).random(50)
    ahead = point(p)
    assert all(np.array_equal(a, b) for a, b in zip(ahead, jit(p)))
    # without a JIT to fall back on: the built variant runs
    assert all(
        np.array_equal(a, b)
        for a, b in zip(EntryPoint("alias_table", None, REGISTERED["alias_table"].variants, table)(p), ahead)
    )
    with pytest.raises(TypeError):  # another type: not built, so the (here absent) JIT is asked
        EntryPoint("alias_table", None, REGISTERED["alias_table"].variants, table)(p.astype(np.float32))


def test_a_module_built_from_other_sources_or_not_built_or_turned_off_is_not_used(small_build, tmp_path, monkeypatch):
    record = json.loads((small_build / dispatch.RECORD.name).read_text())
    stale = tmp_path / "stale"
    stale.mkdir()
    for path in small_build.iterdir():
        (stale / path.name).write_bytes(path.read_bytes())
    (stale / dispatch.RECORD.name).write_text(json.dumps({**record, "digest": "0" * 64}))
    table = Table(stale)
    assert not table.available() and "stale" in table.reason
    empty = Table(tmp_path / "nothing")
    assert not empty.available() and empty.reason == "not built"
    p = np.random.default_rng(1).random(5)
    jit = REGISTERED["alias_table"].jit
    assert all(
        np.array_equal(a, b)
        for a, b in zip(EntryPoint("alias_table", jit, REGISTERED["alias_table"].variants, table)(p), jit(p))
    )
    monkeypatch.setenv("MDDF_AHEAD_OF_TIME", "0")
    off = Table(small_build)
    assert not off.available() and "turned off" in off.reason
    assert dispatch.state(off) == "numba's JIT (ahead-of-time module turned off (MDDF_AHEAD_OF_TIME=0))"


def test_the_digest_covers_the_compiled_sources_and_numba(monkeypatch):
    import numba

    before = dispatch.source_digest()
    monkeypatch.setattr(numba, "__version__", numba.__version__ + ".other")
    assert dispatch.source_digest() != before


def test_the_build_command_refuses_an_unknown_entry_point(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MDDF_AOT_BUILDING", "1")  # in this process: the parser's error comes before any compiling
    with pytest.raises(SystemExit):
        build_main([str(tmp_path), "--entries", "grow_gini,no_such_thing"])
    assert "unknown entry points ['no_such_thing']" in capsys.readouterr().err
