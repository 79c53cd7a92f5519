"""Damaged ``model_dir`` files: every seeded byte flip or truncation ends in a clear error or an unchanged prediction.

Each kind of stored file (a binned forest, a scikit-learn-tree forest, a pickled member, the marker) is
damaged in place, and a fresh copy of the model (unpickled) predicts in a separate worker process, so that
a hang or a crash of the traversal is counted (and the worker restarted) instead of stopping the suite.
"""

import json
import os
import pickle
import selectors
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.naive_bayes import GaussianNB

from mddf import MDDFClassifier

#: Seconds a worker may take for one case before it is counted as hung.
CASE_SECONDS = 10.0
#: Seconds the worker may take to start and predict with an undamaged model.
STARTUP_SECONDS = 300.0
#: Outcomes of a case: ``clear`` (an error naming the damaged file), ``sane`` (the original prediction),
#: ``unclear`` (an error that does not name the file), ``silent`` (another prediction), ``crash``, ``hang``.
OUTCOMES = ("clear", "sane", "unclear", "silent", "crash", "hang")

WORKER = r"""
import hashlib, json, pickle, sys
import numpy as np
from mddf.storage import files as storage_files

X = np.load(sys.argv[1])
for line in sys.stdin:
    case = json.loads(line)
    storage_files.VERIFIED.clear()  # each case is a first load
    try:
        with open(case["pickle"], "rb") as f:
            model = pickle.load(f)
        if case["rehash"]:  # the handles take the files as they are now: only the array checks are left
            for block in model.layers_:
                for handle in (m for models in block.models_ for m in models):
                    with open(handle.path, "rb") as f:
                        data = f.read()
                    handle.record.sha256, handle.record.size = hashlib.sha256(data).hexdigest(), len(data)
        if case["relocate"]:
            model.relocate_model_dir(model.model_dir_)
        proba = np.ascontiguousarray(model.predict_proba(X))
        reply = {"proba": hashlib.sha256(proba.tobytes()).hexdigest()}
    except Exception as exc:
        reply = {"error": type(exc).__name__, "message": str(exc)}
    print(json.dumps(reply), flush=True)
"""


class Worker:
    """A process that unpickles a model and predicts, one case per line; restarted after a crash or a hang."""

    def __init__(self, X_path):
        self.X_path = X_path
        self.proc = None

    def _start(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(self.X_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def run(self, pickle_path, relocate=False, rehash=False, timeout=CASE_SECONDS):
        """The worker's reply to one case: a dict, or ``{"crash": returncode}`` / ``{"hang": True}``.

        ``rehash``: the model's handles take the hash and size of the files as they are (as a forged
        pickle could), so that only the checks of the forests' arrays stand between them and the traversal.
        """
        if self.proc is None:
            self._start()
        case = {"pickle": str(pickle_path), "relocate": relocate, "rehash": rehash}
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        with selectors.DefaultSelector() as selector:
            selector.register(self.proc.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout)
        if not ready:
            self.close()
            return {"hang": True}
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            self.proc = None
            return {"crash": code}
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def classify(reply, expected, relpath):
    """The outcome (one of :data:`OUTCOMES`) of a case whose damaged file is ``relpath``."""
    if "hang" in reply:
        return "hang"
    if "crash" in reply:
        return "crash"
    if "error" in reply:
        return "clear" if relpath in reply["message"] else "unclear"
    return "sane" if reply["proba"] == expected else "silent"


def damages(content, rng, n_flips=8, n_bursts=6, n_truncations=8):
    """Seeded damaged versions of ``content``: one flipped byte, 40 random bytes overwritten, truncations."""
    out = []
    for _ in range(n_flips):
        data = bytearray(content)
        at = rng.randint(len(data))
        data[at] ^= rng.randint(1, 256)
        out.append(("flip", bytes(data)))
    for _ in range(n_bursts):
        data = bytearray(content)
        for at in rng.randint(len(data), size=40):
            data[at] = rng.randint(256)
        out.append(("40 bytes", bytes(data)))
    lengths = [0, 10, 64, len(content) - 1] + list(rng.randint(len(content), size=max(n_truncations - 4, 0)))
    out.extend(("truncation", content[:length]) for length in lengths[:n_truncations])
    return out


def fit_models(folder):
    """Two tiny models fitted into subfolders of ``folder``, pickled; returns ``(pickle paths, X_new path)``."""
    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float32)
    params = dict(n_estimators=4, max_layers=2, n_tolerant_layers=2, n_folds=2, random_state=0)
    models = {
        "hist": MDDFClassifier(**params, forest_types=("rf", "crf", GaussianNB()), model_dir=folder / "hist"),
        "exact": MDDFClassifier(**params, forest_types=("rf", "crf"), tree_method="exact", model_dir=folder / "exact"),
    }
    paths = {}
    for name, model in models.items():
        model.fit(X[:300], y[:300])
        paths[name] = folder / f"{name}.pkl"
        paths[name].write_bytes(pickle.dumps(model))
    np.save(folder / "X_new.npy", X[300:400])
    return paths, folder / "X_new.npy"


#: Kind of stored file -> (model, its path in the model's folder, whether the case also relocates the model).
STORED_FILES = {
    "binned forest": ("hist", os.path.join("layer-001", "m0-fold0.bin"), False),
    "pickled member": ("hist", os.path.join("layer-001", "m2-fold1.bin"), False),
    "exact forest": ("exact", os.path.join("layer-001", "m1-fold1.bin"), False),
    "marker": ("hist", "MDDF_MODEL_DIR.json", True),
}


def fuzz(folder, seed=0, rehash=False, kinds=tuple(STORED_FILES), **sizes):
    """Damage each kind of stored file and count the outcomes: ``{kind: Counter}``, and the unexpected replies.

    ``rehash``: see :meth:`Worker.run`.
    """
    pickles, X_path = fit_models(folder)
    worker = Worker(X_path)
    rng = np.random.RandomState(seed)
    counts, unexpected = {}, []
    try:
        expected = {}
        for name, path in pickles.items():  # the first run imports mddf and loads the compiled code
            reply = worker.run(path, timeout=STARTUP_SECONDS)
            assert "proba" in reply, f"the undamaged {name} model did not predict: {reply}"
            expected[name] = reply["proba"]
        for kind in kinds:
            name, relpath, relocate = STORED_FILES[kind]
            path = folder / name / relpath
            original = path.read_bytes()
            counts[kind] = Counter()
            for how, data in damages(original, rng, **sizes):
                if data == original:
                    continue
                with open(path, "wb") as f:  # damaged in place, as a disk or a copy would
                    f.write(data)
                reply = worker.run(pickles[name], relocate=relocate, rehash=rehash)
                outcome = classify(reply, expected[name], relpath)
                counts[kind][outcome] += 1
                if outcome not in ("clear", "sane"):
                    unexpected.append((kind, how, outcome, reply))
            path.write_bytes(original)
    finally:
        worker.close()
    return counts, unexpected


@pytest.mark.slow
def test_every_damaged_stored_file_gives_a_clear_error_or_the_original_prediction(tmp_path):
    counts, unexpected = fuzz(tmp_path)
    assert not unexpected, unexpected
    tried = sum(sum(c.values()) for c in counts.values())
    assert tried > 4 * 15
    # a damaged forest or member always fails: its content hash is checked
    for kind in ("binned forest", "pickled member", "exact forest"):
        assert set(counts[kind]) == {"clear"}, counts[kind]


@pytest.mark.slow
def test_damaged_forest_arrays_never_crash_or_hang_the_traversal_even_behind_a_matching_hash(tmp_path):
    counts, unexpected = fuzz(tmp_path, rehash=True, kinds=("binned forest", "exact forest"))
    assert sum(sum(c.values()) for c in counts.values()) > 2 * 15
    # a changed split or leaf class in range can change a prediction (the hash is what detects it); nothing else
    assert [case for case in unexpected if case[2] != "silent"] == []
    assert all(c["clear"] > 0 for c in counts.values())  # the array checks rejected damaged arrays


if __name__ == "__main__":  # the outcome counts, for a report: python tests/mddf/storage/test_model_dir_fuzz.py FOLDER
    import pathlib

    rehash = len(sys.argv) > 2 and sys.argv[2] == "rehash"
    found, odd = fuzz(pathlib.Path(sys.argv[1]), rehash=rehash, n_flips=10, n_bursts=8, n_truncations=8)
    total = Counter()
    for kind, c in found.items():
        total.update(c)
        print(f"{kind:15s} tried {sum(c.values()):3d} " + " ".join(f"{o} {c[o]}" for o in OUTCOMES))
    print(f"{'all':15s} tried {sum(total.values()):3d} " + " ".join(f"{o} {total[o]}" for o in OUTCOMES))
    for case in odd:
        print(case[:3], str(case[3])[:200])
