"""The tree-kernels study: another revision's tree package beside this checkout's.

The growing half compiles both growers of the baseline copy (about a minute), so only routing is run here;
growing is the same comparison on the same `_BaselineTrees` interface.
"""

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification
from study_helpers import read_records

from benchmarks import tree_kernels
from benchmarks._internals import BinnedInput

ROOT = Path(__file__).resolve().parents[2]


def _committed_trees_are_the_checkout_s():
    """Whether ``mddf/trees`` of HEAD is this checkout's (then HEAD as the baseline must agree exactly)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return False
    status = subprocess.run(
        ["git", "status", "--porcelain", "mddf/trees"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    return status.returncode == 0 and status.stdout.strip() == ""


@pytest.fixture(scope="module")
def head():
    if not _committed_trees_are_the_checkout_s():
        pytest.fail("this test needs a git checkout whose mddf/trees has no uncommitted change (git status)")
    baseline = tree_kernels._BaselineTrees("HEAD", ROOT)
    yield baseline
    baseline.close()


def _data():
    X, y = make_classification(400, 6, n_informative=4, n_classes=3, random_state=0)
    X = X.astype(np.float32)
    X[::17, 2] = np.nan  # a missing value takes the learned side in both packages
    return BinnedInput(X[:300]), y[:300], X[300:]


@pytest.mark.slow
def test_the_same_revision_routes_to_bit_identical_predictions(head):
    data, y, X_test = _data()
    results = tree_kernels.compare_routing(head, data, y, X_test, n_trees=3, rounds=2)
    assert [r["kind"] for r in results] == ["rf", "crf"]
    assert all(r["same_predictions"] and r["old_ns"] > 0 and r["new_ns"] > 0 for r in results)


def test_the_copy_of_the_baseline_is_removed_when_closed(head):
    data, y, X_test = _data()
    tree_kernels.compare_routing(head, data, y, X_test, n_trees=1, rounds=1)  # the copy was imported and used
    assert head.folder.is_dir()
    copy = tree_kernels._BaselineTrees("HEAD", ROOT)
    assert (copy.folder / "baseline_trees" / "grower.py").is_file()
    copy.close()
    assert not copy.folder.exists()


@pytest.mark.slow
def test_the_same_revision_bins_to_the_same_codes(head):
    _, _, X_test = _data()
    X = np.random.RandomState(1).standard_normal((300, 6)).astype(np.float32)
    result = tree_kernels.compare_binning(head, X, X_test, rounds=2)
    assert result["same_codes"] and result["old_ns"] > 0 and result["new_ns"] > 0
    assert (result["rows"], result["columns"]) == X_test.shape


def test_a_layer_input_appends_out_of_fold_class_vectors_and_the_refitted_forest_s_for_test_rows():
    X, y = make_classification(300, 5, n_informative=3, n_classes=3, random_state=2)
    X = X.astype(np.float32)
    X_test = X[:40] + np.float32(0.01)
    layer, layer_test = tree_kernels.layer_input(X, y, X_test)
    assert layer.shape == (300, 8) and layer_test.shape == (40, 8)
    assert np.array_equal(layer[:, :5], X) and np.array_equal(layer_test[:, :5], X_test)
    np.testing.assert_allclose(layer[:, 5:].sum(axis=1), 1.0, rtol=1e-6)
    # out of fold: a training row's class vector is not the forest's fit of that row (which is near one-hot)
    in_fold = layer_test[:, 5:].max(axis=1)
    out_of_fold = layer[:40, 5:].max(axis=1)
    assert out_of_fold.mean() < in_fold.mean()


def test_the_command_compares_routing_and_binning_on_a_dataset_and_writes_its_tables(head, tmp_path, monkeypatch):
    monkeypatch.setitem(tree_kernels._BASELINES, "HEAD", head)  # the copy the fixture made
    argv = ["--quick", "--baseline", "HEAD", "--methods", "routing,binning", "--trees", "2", "--timing-rounds", "2"]
    assert tree_kernels.main([*argv, "--out", str(tmp_path)]) == 0
    records = read_records(tmp_path)
    assert [r["method"] for r in records] == ["routing", "binning"] and records[0]["config"]["baseline"] == "HEAD"
    assert all(r["same_predictions"] for r in records[0]["routing"]) and records[1]["binning"]["same_codes"]
    text = (tmp_path / "tree_kernels.md").read_text()
    assert "# Tree kernels against `HEAD`" in text and "## Routing" in text and "## Growing" not in text
