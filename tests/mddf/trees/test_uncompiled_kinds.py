"""Which kinds of input the next fit compiles: those whose tree builder neither numba's cache nor the code built
ahead of time holds for its argument types."""

import os
import subprocess
import sys

from mddf._runtime import dispatch
from mddf.trees import first_use
from mddf.trees.grower import GROWERS


def test_a_new_empty_cache_compiles_every_kind(tmp_path):
    code = "from mddf.trees import uncompiled_kinds; print(uncompiled_kinds())"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MDDF_AHEAD_OF_TIME": "0"}
    printed = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert printed.strip() == str(list(first_use.KIND_BUILDERS))


def test_the_kinds_whose_builder_the_cache_lacks_compile_and_an_unreadable_cache_names_none(monkeypatch):
    numeric = dispatch.argument_types(GROWERS["gini"].variants()[0])
    monkeypatch.setattr(first_use, "cached_signatures", lambda dispatcher: [numeric])
    monkeypatch.setattr(dispatch.TABLE, "functions_for", lambda name, variants: {})
    assert first_use.uncompiled_kinds() == ["categorical", "missing", "regression"]
    monkeypatch.setattr(first_use, "cached_signatures", lambda dispatcher: None)  # unreadable: nothing certain
    assert first_use.uncompiled_kinds() == []
