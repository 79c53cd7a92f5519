"""The stores of a block's models: in memory, or in the files of ``model_dir``; persistence and nothing else."""

import ast
import pickle
from pathlib import Path

import numpy as np
import pytest

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.storage import FORMAT, MemoryStore, ModelStore


def test_the_memory_store_answers_what_the_model_store_answers():
    methods = {"writer", "handle", "model_class", "loaded", "remove", "move", "destroy", "check_claimed", "relocate"}
    assert all(callable(getattr(MemoryStore, name)) and callable(getattr(ModelStore, name)) for name in methods)
    store = MemoryStore()
    assert store.path is None and not store.temporary
    assert store.handle("model") == "model" and store.loaded("model") == "model" and store.writer("layer-001") is None
    with pytest.raises(ValueError, match="in memory"):
        store.relocate("/somewhere")


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_a_model_pickled_before_the_stores_had_one_interface_still_predicts(estimator):
    rng = np.random.RandomState(0)
    X = rng.rand(60, 4)
    y = (X[:, 0] > 0.5).astype(int) if estimator == "classifier" else X[:, 0]
    cls = MDDFClassifier if estimator == "classifier" else CascadeForestRegressor
    model = cls(n_estimators=4, max_layers=2, random_state=0).fit(X, y)
    expected = model.predict(X)
    model._model_store = None  # what a fit without model_dir kept before
    for block in model.layers_:
        block.store = None
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), expected)
    assert restored.model_dir_ is None


def test_the_storage_package_imports_nothing_else_of_mddf_and_builds_no_task():
    # persistence only: no member types, no joblib, and no import of mddf outside the package (which imports it)
    imported = set()
    for path in (Path(__file__).resolve().parents[3] / "mddf" / "storage").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                imported.add("." * node.level + (node.module or ""))
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    own = {".files", ".layouts", ".records", ".saved", ".sealed", ".stores", ".temporary"}
    assert not {name for name in imported - own if name.startswith((".", "mddf", "joblib", "sklearn"))}, imported


def test_the_user_guide_gives_the_file_format_version_the_code_writes():
    # the guide said version 2 while the files were of version 3
    guide = (Path(__file__).resolve().parents[3] / "docs" / "user_guide" / "memory.md").read_text()
    assert f"**File format (version {FORMAT}).**" in guide
    assert f"the format version as a little-endian uint32 ({FORMAT})" in guide
