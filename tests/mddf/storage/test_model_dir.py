"""The bounded-memory mode (``model_dir``): fitted models on disk, bit-identical to the in-memory mode."""

import copy
import gc
import hashlib
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import types
import weakref

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_classification
from sklearn.naive_bayes import GaussianNB

from mddf import CascadeForestRegressor, MDDFClassifier, MDDFGridSearch
from mddf.baselines.gcforest import GCForestClassifier, gcforest_cascade
from mddf.blocks.members import FoldModel
from mddf.forests import ForestBuilder
from mddf.storage import FORMAT, HEADER_BYTES, MARKER, ModelFileError, StoredModel, StoredRecord
from mddf.storage import files as storage_files
from mddf.trees.nodes import EXTENDED, FEATURE_SHIFT, LEAF, LEFT_CLASS, RIGHT_CLASS

FAST = dict(n_estimators=4, max_layers=3, n_tolerant_layers=1, random_state=0)
#: The four forests a layer, for the tests that count or measure the forests' files.
FORESTS = ("rf", "rf", "crf", "crf")


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    rows = np.random.RandomState(0).permutation(len(y))
    X, y = X[rows].astype(np.float32), y[rows]
    return X[:1200], y[:1200], X[1200:]


def assert_same_fit(a, b, X_new):
    """Every output of two fits is bit-identical."""
    assert a.n_layers_ == b.n_layers_ and len(a.train_history_) == len(b.train_history_)
    assert np.array_equal(a.predict_proba(X_new), b.predict_proba(X_new))
    for stage_a, stage_b in zip(a.staged_predict_proba(X_new), b.staged_predict_proba(X_new), strict=True):
        assert np.array_equal(stage_a, stage_b)
    assert np.array_equal(a.transform(X_new, layer=1), b.transform(X_new, layer=1))
    for oof_a, oof_b in zip(a.oof_features_, b.oof_features_, strict=True):
        assert np.array_equal(oof_a, oof_b)
    assert np.array_equal(a.feature_importances_, b.feature_importances_)
    assert np.array_equal(a.layer_importances_, b.layer_importances_)
    assert np.array_equal(a.alphas_, b.alphas_)
    drop = {"fit_seconds"}
    assert [{k: v for k, v in h.items() if k not in drop} for h in a.train_history_] == [
        {k: v for k, v in h.items() if k not in drop} for h in b.train_history_
    ]


@pytest.mark.parametrize(
    "params",
    [
        dict(class_vectors="kfold", tree_method="hist"),
        dict(class_vectors="kfold", tree_method="exact"),
        dict(class_vectors="oob", tree_method="hist"),
        dict(class_vectors="oob", tree_method="exact"),
        dict(class_vectors="kfold", tree_method="hist", predictor="forest"),
        dict(class_vectors="oob", tree_method="hist", forest_types=("rf", "crf", GaussianNB())),
        dict(class_vectors="kfold", tree_method="hist", validation_fraction=0.25, n_jobs=2),
    ],
    ids=["kfold-hist", "kfold-exact", "oob-hist", "oob-exact", "predictor", "other-member", "validation-2-jobs"],
)
@pytest.mark.slow
def test_disk_mode_is_bit_identical_to_memory_mode(digits, tmp_path, params):
    X, y, X_new = digits
    memory = MDDFClassifier(**FAST, **params).fit(X, y)
    disk = MDDFClassifier(**FAST, **params, model_dir=tmp_path / "model").fit(X, y)
    assert memory.model_dir_ is None and disk.model_dir_ == str(tmp_path / "model")
    stored = [model for block in disk.layers_ for models in block.models_ for model in models]
    assert stored and all(isinstance(model, StoredModel) for model in stored)
    assert_same_fit(memory, disk, X_new)
    assert np.array_equal(memory.predict(X_new), disk.predict(X_new))


def test_one_file_per_fitted_model_and_layer_and_none_for_the_layers_not_kept(digits, tmp_path):
    X, y, _ = digits
    kfold = MDDFClassifier(
        **{**FAST, "max_layers": 5, "random_state": 3}, forest_types=FORESTS, model_dir=tmp_path / "kfold"
    ).fit(X, y)
    # the layers grown after the best prefix are deleted; the kept ones have k x 4 files
    assert len(kfold.train_history_) > kfold.n_layers_  # precondition: a layer was discarded
    layers = [f"layer-{t:03d}" for t in range(1, kfold.n_layers_ + 1)]
    assert sorted(os.listdir(tmp_path / "kfold")) == sorted([MARKER, *layers])
    expected = {f"m{j}-fold{i}.bin" for j in range(4) for i in range(3)}
    for layer in layers:
        assert set(os.listdir(tmp_path / "kfold" / layer)) == expected
    oob = MDDFClassifier(**FAST, forest_types=FORESTS, class_vectors="oob", model_dir=tmp_path / "oob").fit(X, y)
    assert set(os.listdir(tmp_path / "oob" / "layer-001")) == {f"m{j}-oob.bin" for j in range(4)}
    assert oob.layers_[0].nbytes == oob.train_history_[0]["model_bytes"] > 0


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.slow
def test_at_most_n_jobs_forests_are_in_memory_during_fit_and_prediction(digits, tmp_path, monkeypatch, n_jobs):
    X, y, X_new = digits
    live, peak = set(), [0]

    def track(forest):
        key = id(forest)
        live.add(key)
        weakref.finalize(forest, live.discard, key)
        peak[0] = max(peak[0], len(live))

    finish, load = ForestBuilder.finish, StoredRecord.load

    def spy_finish(self, *args, **kwargs):  # every fitted forest is finished by its builder
        forest = finish(self, *args, **kwargs)
        track(forest)
        return forest

    def spy_load(self, *args, **kwargs):
        model = load(self, *args, **kwargs)
        track(model)
        return model

    monkeypatch.setattr(ForestBuilder, "finish", spy_finish)
    monkeypatch.setattr(StoredRecord, "load", spy_load)
    params = dict(FAST, max_layers=3, n_tolerant_layers=3, n_jobs=n_jobs, validation_fraction=0.2)
    memory = MDDFClassifier(**params).fit(X, y)
    assert peak[0] == 3 * 12  # every forest of every layer stays
    del memory
    gc.collect()
    live.clear()
    peak[0] = 0
    disk = MDDFClassifier(**params, model_dir=tmp_path).fit(X, y)
    disk.predict_proba(X_new)
    assert len(disk.train_history_) == 3 and 1 <= peak[0] <= n_jobs
    assert not live  # nothing left in memory


@pytest.mark.slow
def test_disk_mode_holds_less_memory_than_memory_mode(tmp_path):
    tracemalloc = pytest.importorskip("tracemalloc")
    X, y = make_classification(2000, 10, n_informative=6, n_classes=3, flip_y=0.2, random_state=0)
    params = dict(n_estimators=20, max_layers=5, n_tolerant_layers=5, forest_types=FORESTS, random_state=0)
    peaks = {}
    for model_dir in (None, tmp_path / "warm-up"):  # the first fit of each mode imports modules: not measured
        MDDFClassifier(n_estimators=2, max_layers=2, model_dir=model_dir).fit(X[:100], y[:100])
    for mode, model_dir in (("memory", None), ("disk", tmp_path / "model")):
        gc.collect()
        tracemalloc.start()
        model = MDDFClassifier(**params, model_dir=model_dir).fit(X, y)
        _, peaks[mode] = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        model_bytes = sum(h["model_bytes"] for h in model.train_history_)
        del model
    # the memory mode's peak holds every forest of every layer; the disk mode's one forest at a time
    assert peaks["memory"] - peaks["disk"] > 0.8 * model_bytes
    assert peaks["disk"] < peaks["memory"] / 2


@pytest.mark.slow
def test_pickle_references_the_folder_and_predicts_in_a_fresh_process(digits, tmp_path):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, model_dir=tmp_path / "model").fit(X, y)
    blob = pickle.dumps(model)
    in_memory = pickle.dumps(MDDFClassifier(**FAST).fit(X, y))
    forests = sum(m.nbytes for block in model.layers_ for models in block.models_ for m in models)
    assert len(in_memory) - len(blob) > 0.9 * forests  # handles, not trees (both hold the bin edges)
    (tmp_path / "model.pkl").write_bytes(blob)
    np.save(tmp_path / "X_new.npy", X_new)
    script = (
        "import pickle, sys, numpy as np\n"
        "model = pickle.load(open(sys.argv[1], 'rb'))\n"
        "np.save(sys.argv[3], model.predict_proba(np.load(sys.argv[2])))\n"
    )
    out = tmp_path / "proba.npy"
    subprocess.run([sys.executable, "-c", script, tmp_path / "model.pkl", tmp_path / "X_new.npy", out], check=True)
    assert np.array_equal(np.load(out), model.predict_proba(X_new))


def test_a_missing_file_or_a_moved_folder_raises_an_error_naming_the_file(digits, tmp_path):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, model_dir=tmp_path / "model").fit(X, y)
    expected = model.predict_proba(X_new)
    shutil.move(tmp_path / "model", tmp_path / "moved")
    with pytest.raises(FileNotFoundError, match=r"layer-001.m0-fold0\.bin.*relocate_model_dir"):
        model.predict(X_new)
    with pytest.raises(FileNotFoundError, match=MARKER):
        model.relocate_model_dir(tmp_path / "elsewhere")
    model.relocate_model_dir(tmp_path / "moved")
    assert model.model_dir_ == str(tmp_path / "moved")
    assert np.array_equal(model.predict_proba(X_new), expected)
    os.remove(tmp_path / "moved" / "layer-002" / "m3-fold1.bin")
    with pytest.raises(FileNotFoundError, match=r"layer-002.m3-fold1\.bin"):
        model.predict_proba(X_new)


def test_a_deleted_marker_makes_prediction_an_error_naming_it(digits, tmp_path):
    # the marker says the folder's files are this fit's: without it, predicting (and loading the models into memory)
    # is mddf's error naming the file, not a silent success. Unpickling is not refused, so that the model can still
    # be pointed at an intact copy of its folder.
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, model_dir=tmp_path / "model").fit(X, y)
    expected, data = model.predict_proba(X_new), pickle.dumps(model)
    shutil.copytree(tmp_path / "model", tmp_path / "copy")
    os.remove(tmp_path / "model" / MARKER)
    missing = re.escape(f"model file {tmp_path / 'model' / MARKER}: missing: the marker mddf wrote")
    for call in (model.predict, model.transform, lambda X: pickle.loads(data).predict_proba(X)):
        with pytest.raises(ModelFileError, match=missing) as error:
            call(X_new)
        assert error.value.path == str(tmp_path / "model" / MARKER)
    with pytest.raises(ModelFileError, match=missing):
        pickle.loads(data).to_memory()
    assert np.array_equal(pickle.loads(data).relocate_model_dir(tmp_path / "copy").predict_proba(X_new), expected)


def test_refit_replaces_the_previous_files_and_an_old_pickle_then_fails_clearly(digits, tmp_path):
    X, y, X_new = digits
    model = MDDFClassifier(**{**FAST, "max_layers": 2, "n_tolerant_layers": 2}, model_dir=tmp_path)
    old = pickle.loads(pickle.dumps(model.fit(X, y)))
    (tmp_path / "notes.txt").write_text("not mddf's")
    model.set_params(max_layers=1).fit(X, y)
    assert sorted(os.listdir(tmp_path)) == [MARKER, "layer-001", "notes.txt"]  # layer-002 gone, other files kept
    assert np.array_equal(
        model.predict_proba(X_new), MDDFClassifier(**{**FAST, "max_layers": 1}).fit(X, y).predict_proba(X_new)
    )
    with pytest.raises(ModelFileError, match="another fit"):
        old.predict_proba(X_new)  # its layer-001 file name was written again by the refit


def test_a_folder_with_layer_entries_mddf_did_not_write_is_refused(digits, tmp_path):
    X, y, _ = digits
    (tmp_path / "layer-001").mkdir()
    (tmp_path / "layer-001" / "data.csv").write_text("1,2\n")
    with pytest.raises(ValueError, match="did not write it"):
        MDDFClassifier(**FAST, model_dir=tmp_path).fit(X, y)
    assert (tmp_path / "layer-001" / "data.csv").exists()
    with pytest.raises(ValueError, match="is a file"):
        MDDFClassifier(**FAST, model_dir=tmp_path / "layer-001" / "data.csv").fit(X, y)


@pytest.mark.parametrize("estimator", [MDDFClassifier, CascadeForestRegressor, GCForestClassifier])
def test_an_empty_model_dir_is_refused_rather_than_the_current_directory(estimator, tmp_path, monkeypatch):
    # model_dir="" wrote the fit's files and marker into the current directory
    monkeypatch.chdir(tmp_path)
    X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    with pytest.raises(ValueError, match=r"^model_dir='' is an empty path; give a folder \(\"\.\" for the current"):
        estimator(n_estimators=4, max_layers=1, random_state=0, model_dir="").fit(X, y)
    assert os.listdir(tmp_path) == []


def test_auto_folder_belongs_to_the_model(digits):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, model_dir="auto").fit(X, y)
    first = model.model_dir_
    expected = model.predict_proba(X_new)
    assert os.path.isdir(first) and os.path.exists(os.path.join(first, MARKER))
    # pickling carries the files; the copy writes them to a folder of its own
    blob = pickle.dumps(model)
    assert len(blob) > sum(block.nbytes for block in model.layers_)
    clone_ = pickle.loads(blob)
    twin = copy.deepcopy(model)
    assert len({first, clone_.model_dir_, twin.model_dir_}) == 3
    # refitting deletes the previous folder; garbage collection deletes the current one
    model.fit(X, y)
    assert not os.path.exists(first) and os.path.isdir(model.model_dir_)
    second = model.model_dir_
    del model
    gc.collect()
    assert not os.path.exists(second)
    assert np.array_equal(clone_.predict_proba(X_new), expected)
    assert np.array_equal(twin.predict_proba(X_new), expected)
    third = twin.model_dir_
    twin.to_memory()
    assert twin.model_dir_ is None and not os.path.exists(third)
    assert np.array_equal(twin.predict_proba(X_new), expected)


def test_to_memory_detaches_the_model_from_its_folder(digits, tmp_path):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, model_dir=tmp_path / "model").fit(X, y)
    expected = model.predict_proba(X_new)
    model.to_memory()
    shutil.rmtree(tmp_path / "model")
    assert model.model_dir_ is None
    assert not any(isinstance(m, StoredModel) for block in model.layers_ for models in block.models_ for m in models)
    assert np.array_equal(pickle.loads(pickle.dumps(model)).predict_proba(X_new), expected)
    with pytest.raises(ValueError, match="in memory"):
        model.relocate_model_dir(tmp_path)


@pytest.mark.parametrize("model_dir", ["folder", "auto"])
@pytest.mark.slow
def test_grid_search_keeps_each_candidates_files_apart_and_only_the_selected_ones(digits, tmp_path, model_dir):
    X, y, X_new = digits
    X, y = X[:600], y[:600]
    base = dict(n_estimators=4, max_layers=3, n_folds=2, forest_types=FORESTS, random_state=2)
    grid = {"max_depth_factor": [1, 16], "margin_mean": [0.95, 0.7]}  # two groups sharing a first layer
    folder = tmp_path / "search"
    estimator = MDDFClassifier(**base, model_dir=folder if model_dir == "folder" else "auto")
    (folder / "candidate-009").mkdir(parents=True)  # a previous search's leftover: replaced
    (folder / MARKER).write_text("{}")
    search = MDDFGridSearch(estimator=estimator, param_grid=grid, halving_layers=(2,), halving_factor=2).fit(X, y)
    plain = MDDFGridSearch(
        estimator=MDDFClassifier(**base), param_grid=grid, halving_layers=(2,), halving_factor=2
    ).fit(X, y)
    assert search.best_index_ == plain.best_index_ and search.cv_results_ == plain.cv_results_
    assert search.best_index_ % 2 == 1  # precondition: its first layer was fitted by another candidate
    best = search.best_estimator_
    assert_same_fit(plain.best_estimator_, best, X_new)
    if model_dir == "folder":
        assert best.model_dir_ == str(folder / f"candidate-{search.best_index_:03d}")
        assert sorted(os.listdir(folder)) == sorted([MARKER, f"candidate-{search.best_index_:03d}"])
    layers = [f"layer-{t:03d}" for t in range(1, best.n_layers_ + 1)]
    assert sorted(e for e in os.listdir(best.model_dir_) if e != MARKER) == layers
    for block in best.layers_:  # the shared first layer too
        assert all(m.path.startswith(best.model_dir_ + os.sep) for models in block.models_ for m in models)
    assert np.array_equal(pickle.loads(pickle.dumps(search)).predict_proba(X_new), search.predict_proba(X_new))


def test_gcforest_cascade_takes_model_dir(digits, tmp_path):
    X, y, X_new = digits
    params = dict(n_estimators=4, max_layers=2, random_state=0)
    memory = gcforest_cascade(**params).fit(X, y)
    disk = gcforest_cascade(**params, model_dir=tmp_path).fit(X, y)
    assert os.path.isdir(tmp_path / "layer-001")
    assert_same_fit(memory, disk, X_new)


def test_gcforest_classifier_passes_model_dir_to_its_cascade(digits, tmp_path):
    X, y, X_new = digits
    params = dict(n_estimators=4, max_layers=2, random_state=0)
    memory = GCForestClassifier(**params).fit(X, y)
    disk = GCForestClassifier(**params, model_dir=tmp_path).fit(X, y)
    assert disk.cascade_.model_dir_ == str(tmp_path) and os.path.isdir(tmp_path / "layer-001")
    assert np.array_equal(memory.predict_proba(X_new), disk.predict_proba(X_new))


def rewrite(path, edit):
    """Replace the file's bytes by ``edit(bytearray of them)``; returns the new bytes."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data = bytes(edit(data))
    with open(path, "wb") as f:
        f.write(data)
    return data


@pytest.mark.parametrize("member", [0, 2], ids=["forest", "pickled-member"])
def test_a_damaged_file_raises_an_error_naming_it_and_both_hashes(digits, tmp_path, member):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, forest_types=("rf", "crf", GaussianNB()), model_dir=tmp_path).fit(X, y)
    handle = model.layers_[0].models_[member][1]

    def flip(data):
        data[len(data) // 2] ^= 0x10
        return data

    found = hashlib.sha256(rewrite(handle.path, flip)).hexdigest()
    expected = handle.record.sha256
    with pytest.raises(ModelFileError, match=re.escape(f"{handle.path}: its content changed")) as error:
        model.predict_proba(X_new)
    assert f"SHA-256 {found}, expected {expected}" in str(error.value) and error.value.path == handle.path
    rewrite(handle.path, lambda data: data[:-100])
    with pytest.raises(ModelFileError, match=re.escape(f"{handle.path}: {handle.record.size - 100} bytes where")):
        model.predict_proba(X_new)


def test_a_file_of_another_format_version_raises_an_error_naming_it_and_both_versions(digits, tmp_path):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, model_dir=tmp_path).fit(X, y)
    handle = model.layers_[0].models_[0][0]
    rewrite(handle.path, lambda data: data[:8] + struct.pack("<I", 1) + data[12:])
    with pytest.raises(ModelFileError, match=re.escape(f"{handle.path}: model file format 1; this version of mddf")):
        model.predict_proba(X_new)
    with pytest.raises(ModelFileError, match=f"reads format {FORMAT}$"):
        model.predict_proba(X_new)


def test_a_member_pickled_under_a_module_name_that_no_longer_exists_raises_an_error_naming_the_file(
    digits, tmp_path, monkeypatch
):
    # The files of a fit made before the implementation modules became private name mddf.members.FoldModel.
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, forest_types=("rf", GaussianNB()), model_dir=tmp_path).fit(X, y)
    handle = model.layers_[0].models_[1][0]
    member = handle.load()
    with monkeypatch.context() as old_layout:
        old_layout.setitem(sys.modules, "mddf.members", types.SimpleNamespace(FoldModel=FoldModel))
        old_layout.setattr(FoldModel, "__module__", "mddf.members")
        old_pickle = pickle.dumps(member, protocol=pickle.HIGHEST_PROTOCOL)
    assert b"mddf.members" in old_pickle and b"mddf.blocks.members" not in old_pickle
    data = rewrite(handle.path, lambda data: data[:HEADER_BYTES] + old_pickle)
    handle.record.sha256, handle.record.size = hashlib.sha256(data).hexdigest(), len(data)
    problem = "its pickle cannot be loaded here: ModuleNotFoundError: No module named 'mddf.members'"
    with pytest.raises(ModelFileError, match=re.escape(f"{handle.path}: {problem}")) as error:
        model.predict_proba(X_new)
    assert error.value.path == handle.path


def test_forest_arrays_are_checked_even_when_the_hash_was_rewritten_to_match(digits, tmp_path):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, model_dir=tmp_path).fit(X, y)
    handle = model.layers_[0].models_[1][0]
    forest = handle.load(copy=True)
    words = forest.words
    # a split whose word holds its right child's offset (no folded leaf child, no side-table row)
    node = int(np.flatnonzero((words & (LEAF | EXTENDED | LEFT_CLASS | RIGHT_CLASS)) == 0)[1])
    offset, dtype, _ = handle.record.layout["words"]
    at = offset + node * np.dtype(dtype).itemsize
    looped = words[node] & words.dtype.type((1 << (FEATURE_SHIFT + forest.feature_bits)) - 1)

    def loop_back(data):  # the node's right child becomes the node itself: the traversal would never end
        data[at : at + np.dtype(dtype).itemsize] = looped.tobytes()
        return data

    handle.record.sha256 = hashlib.sha256(rewrite(handle.path, loop_back)).hexdigest()
    with pytest.raises(
        ModelFileError, match=re.escape(f"{handle.path}: its tree arrays are not valid: a child is not after")
    ):
        model.predict_proba(X_new)


def test_a_forest_file_is_hashed_and_checked_on_its_first_load_and_again_only_once_it_changed(
    digits, tmp_path, monkeypatch
):
    X, y, X_new = digits
    model = MDDFClassifier(**FAST, forest_types=FORESTS, model_dir=tmp_path).fit(X, y)
    expected = model.predict_proba(X_new)
    n_files = sum(len(models) for block in model.layers_ for models in block.models_)
    hashed = []
    check_hash = StoredRecord._check_hash

    def spy(self, path, content):
        hashed.append(path)
        check_hash(self, path, content)

    monkeypatch.setattr(StoredRecord, "_check_hash", spy)
    storage_files.VERIFIED.clear()
    assert np.array_equal(model.predict_proba(X_new), expected)
    assert len(hashed) == len(set(hashed)) == n_files
    hashed.clear()
    assert np.array_equal(model.predict_proba(X_new), expected)
    assert hashed == []
    path = model.layers_[0].models_[0][0].path
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # rewritten with the same bytes
    assert np.array_equal(model.predict_proba(X_new), expected)
    assert hashed == [path]


def test_a_damaged_marker_raises_an_error_naming_it_when_the_folder_is_relocated(digits, tmp_path):
    X, y, _ = digits
    model = MDDFClassifier(**FAST, model_dir=tmp_path).fit(X, y)
    rewrite(tmp_path / MARKER, lambda data: data[:-20])
    with pytest.raises(ModelFileError, match=re.escape(f"{tmp_path / MARKER}: not valid JSON")):
        model.relocate_model_dir(tmp_path)
