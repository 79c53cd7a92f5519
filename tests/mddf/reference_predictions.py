"""The recorded predictions of the reference fits whose last bits depend on the CPU (test_reference_fits.py), and of
the pickled models of earlier versions whose do (test_pickle_compat.py)."""

import hashlib
from pathlib import Path

import numpy as np

#: How far the probabilities may be from the recorded ones (relative); they differ by about 1e-13 between CPUs.
RTOL = 1e-9
#: The recorded probabilities and labels, by the name of their case (``pickled/<name>``: a pickled model's).
RECORDED = Path(__file__).parent / "data" / "reference_predictions.npz"


def layer_digest(estimator, X):
    """SHA-256 of what mddf's own code fixes in a fitted classifier's prediction: the ``transform`` output of each
    kept layer (its mixture of class vectors, float32)."""
    h = hashlib.sha256()
    for t in range(1, estimator.n_layers_ + 1):
        h.update(np.ascontiguousarray(estimator.transform(X, layer=t)).tobytes())
    return h.hexdigest()


def recorded(name):
    """The recorded ``(probabilities, labels)`` of ``name``."""
    with np.load(RECORDED, allow_pickle=False) as saved:
        return saved[f"{name}/proba"], saved[f"{name}/labels"]


def record(name, proba, labels):
    """Write the probabilities and labels of ``name`` into :data:`RECORDED` (when recording the digests again)."""
    saved = dict(np.load(RECORDED, allow_pickle=False)) if RECORDED.exists() else {}
    saved.update({f"{name}/proba": proba, f"{name}/labels": np.asarray(labels).astype(str)})
    np.savez_compressed(RECORDED, **saved)


def assert_close_to_recorded(name, proba, labels):
    """``proba`` within :data:`RTOL` of the recorded probabilities of ``name``, and the same labels."""
    expected_proba, expected_labels = recorded(name)
    np.testing.assert_allclose(proba, expected_proba, rtol=RTOL, atol=0, err_msg=f"{name}: the probabilities changed")
    np.testing.assert_array_equal(
        np.asarray(labels).astype(str), expected_labels, err_msg=f"{name}: the labels changed"
    )
