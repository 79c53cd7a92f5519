"""Reference fits whose predictions must not change, bit for bit, when the code is reorganised.

Each case fits one estimator on fixed synthetic data (numeric columns with missing values, and a
category column) and compares the SHA-256 of its ``predict_proba`` / ``predict`` output, as
float64 bytes, with the digest recorded when the case was added. A refactoring that changes a
single bit of a prediction fails here; a change meant to alter predictions must say so by
updating the digest in the same commit, with the reason in its message.

Bits are pinned only where mddf's own code fixes them (numpy's arithmetic, the compiled trees, XGBoost's and
scikit-learn's trees on one thread): those digests hold on any x86-64 CPU. The cases of :data:`LIBRARY_FLOAT` end in
floating-point code of other libraries whose last bits depend on the CPU (numpy's ``exp`` and ``log`` take AVX-512
paths where the CPU has them): their digest pins each kept layer's ``transform`` output (the cascade's mixture, from
mddf's code), and their probabilities are compared within ``reference_predictions.RTOL`` with those recorded in
``data/reference_predictions.npz``. ``test_the_digests_hold_without_avx512`` runs this file with numpy's AVX-512 paths
disabled. To record the digests again, run this file with ``MDDF_PRINT_REFERENCE_DIGESTS=1``, ``-s`` and ``-n 0``
(it then also writes the probabilities of the :data:`LIBRARY_FLOAT` cases).
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reference_predictions import assert_close_to_recorded, layer_digest, record, recorded

from mddf import PAPER_CONFIG, CascadeForestRegressor, MDDFClassifier
from mddf.baselines import GCForestClassifier

#: Digests of the reference predictions, recorded at the commit that added each case and again when
#: the bootstrap draws changed to one variate a draw (the random streams of every forest changed).
DIGESTS = {
    "mddf_default": "0db6e32298779e5a2492864fab5485ba160b8890a8be44ce21ba5be0ecf22e9d",
    # recorded when small nodes' threshold searches began summing their rows per bin and class before the
    # scan (fractional row weights, as the out-of-bag mode's D_t, then round differently in the last bits)
    "mddf_oob": "f82f87b053bb201fb32819369fb018c7f85abafa49fdd217259693858f41d8c6",
    "mddf_exact": "b0fcf13a3e34b7af05134ab0ae5a547464393cadca2c801c275bc7264dace61e",
    "gcforest": "fdb6ba7600513199804f42a99dc3eb798d2b9bd973cc20902b731d49a08c68a8",
    # recorded again when target="y" (not a default since the residual target) began to fit y less its mean, to keep
    # its precision under an offset of y: the trees' float sums change in their last bits, and some ties between splits
    "regressor": "5b8b23f6d83bb9cdfc923d6e7245da0f368fd81027a672abe3e9edced5d06124",
    "mddf_subset": "10f96367bd2c43b950228d8743f8685cec637c0f539295cfcf92860e8765ed2f",
    "regressor_residual": "e96a45ea8719d9fd25dfa6f2d1fec161ca5b96566533bd4447127906526332ad",
    # recorded when half the columns became the regressor's default (then with categorical_splits="ordinal")
    "regressor_ordinal": "50127292287813e31f25f08f0824180b5c2a02005a2adfc8f0f018b32d5f2bb7",
    # recorded when subset splits became the regressor's default
    "regressor_default": "ff945c14a9937e44e98e8cb4d1e81f974baf118da55100a847642d91825c6199",
    # recorded when the paper's configuration got its name (the same bits as mddf_default: ordinal splits, and the
    # stopping rules agree on these four layers), and when the pair search and calibration joined the cascades
    "mddf_paper_config": "0db6e32298779e5a2492864fab5485ba160b8890a8be44ce21ba5be0ecf22e9d",
    "mddf_pairs_calibration": "0319889fb091c44fb71a98f63bdade9df6fadf3aca56674db161193e4c24f676",
    "regressor_pairs": "022a8cad382ff1b331cb82d3237b28d68fca1c14fac2b35bd7facca54501eb88",
    # recorded when calibration="temperature" became the classifier's default (LIBRARY_FLOAT, as mddf_pairs_calibration
    # and mddf_boosted_member: the digests of their layers' transform outputs since the calibration's last bits were
    # found to depend on the CPU)
    "mddf_calibrated": "879d71fdb75eefe872a27454adf8e0dcebb555d267eddfaaa43e1a7e6cf2e0cb",
    # recorded when the boosted member (forest_types=("rf", "rf", "crf", "crf", "gbdt")) became the default, and
    # when its float32 probabilities began to be read as float64 rows divided by their sums
    "mddf_boosted_member": "b49b66c1478c328970fa45f86841caeae62c53a8aea53cfcb9f0e91e0c5c5ccd",
    # recorded when pair_features="all_operations" became the regressor's default
    "regressor_all_operations": "9aee5b07ab7c16bbca527bbfb064c58531209847bf641f7a5e9576a06c3a1786",
    # recorded when the rule of docs/benchmarks/ahead.md made the LightGBM member, ensemble selection and half the
    # trees after the first layer the regressor's defaults
    "regressor_selection_lgbm": "5f6e1bd837c16bab1a66c325b50c599e23c15ce869fecc513d6eb8ba95a78cfd",
}


def _table(n_rows=360, seed=7):
    """Six numeric columns (5% missing), one 5-category column, and a label that uses both."""
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(n_rows, 6))
    numeric[rng.random(numeric.shape) < 0.05] = np.nan
    category = rng.integers(0, 5, size=n_rows)
    X = pd.DataFrame(numeric, columns=[f"x{j}" for j in range(6)])
    X["colour"] = pd.Categorical(np.array(["red", "green", "blue", "grey", "pink"])[category])
    signal = np.nan_to_num(numeric[:, 0] * numeric[:, 1] + numeric[:, 2]) + (category == 2) - 0.5 * (category == 4)
    return X, signal


def _classification():
    X, signal = _table()
    y = np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3]))
    return X, np.array(["low", "mid", "high"])[y]


def _regression():
    X, signal = _table(seed=11)
    return X, signal + 0.1 * np.random.default_rng(3).normal(size=len(signal))


SMALL = dict(n_estimators=12, max_layers=4, random_state=0, n_jobs=1)
#: The regressor's settings before the rule of docs/benchmarks/ahead.md added a LightGBM member, halved the later
#: layers' trees and made ensemble selection its final mixture: its cases recorded before keep their bits.
REGRESSOR_BEFORE = dict(SMALL, forest_types=("rf", "rf", "crf", "crf"), later_layer_trees=None, final_mixture="cascade")
#: The regressor's cases before the pair search was its default (the real-data page's second rule).
NO_PAIRS = dict(REGRESSOR_BEFORE, pair_features=None)

#: The classifier's four forests a layer, its default before the boosted member (the real-data page's second rule).
FORESTS = dict(forest_types=("rf", "rf", "crf", "crf"))
#: The classifier's cases before calibration was its default: the probabilities of the mixture, as recorded.
PLAIN = dict(SMALL, calibration=None, **FORESTS)

CASES = {
    # categorical_splits="ordinal" keeps the bits recorded before subset splits were the classifier's default
    "mddf_default": lambda: (MDDFClassifier(categorical_splits="ordinal", **PLAIN), _classification()),
    "mddf_oob": lambda: (MDDFClassifier(categorical_splits="ordinal", class_vectors="oob", **PLAIN), _classification()),
    "mddf_subset": lambda: (MDDFClassifier(**PLAIN), _classification()),
    "mddf_exact": lambda: (
        MDDFClassifier(tree_method="exact", categorical_features=None, **PLAIN),
        _classification(),
    ),
    "gcforest": lambda: (GCForestClassifier(**SMALL), _classification()),
    # target="y" and max_features=1.0 are the regressor's defaults before the residual target and half the
    # columns, categorical_splits="ordinal" before subset splits: their recorded bits still hold
    "regressor": lambda: (
        CascadeForestRegressor(target="y", max_features=1.0, categorical_splits="ordinal", **NO_PAIRS),
        _regression(),
    ),
    "regressor_residual": lambda: (
        CascadeForestRegressor(max_features=1.0, categorical_splits="ordinal", **NO_PAIRS),
        _regression(),
    ),
    "regressor_ordinal": lambda: (CascadeForestRegressor(categorical_splits="ordinal", **NO_PAIRS), _regression()),
    "regressor_default": lambda: (CascadeForestRegressor(**NO_PAIRS), _regression()),
    # the regressor's defaults since the same rule made the pair search with differences one
    "regressor_all_operations": lambda: (CascadeForestRegressor(**REGRESSOR_BEFORE), _regression()),
    # the paper's configuration by name, and the steps before and after growth
    "mddf_paper_config": lambda: (MDDFClassifier(**{**PAPER_CONFIG, **SMALL}), _classification()),
    "mddf_pairs_calibration": lambda: (
        MDDFClassifier(pair_features="auto", calibration="temperature", **FORESTS, **SMALL),
        _classification(),
    ),
    "regressor_pairs": lambda: (CascadeForestRegressor(pair_features="auto", **REGRESSOR_BEFORE), _regression()),
    # calibration, a default by the real-data page's second rule, on the four forests
    "mddf_calibrated": lambda: (MDDFClassifier(**FORESTS, **SMALL), _classification()),
    # the classifier's defaults since the same rule added a boosted member to the forests
    "mddf_boosted_member": lambda: (MDDFClassifier(**SMALL), _classification()),
    # the regressor's defaults since the rule of docs/benchmarks/ahead.md (LightGBM member, selection, later trees)
    "regressor_selection_lgbm": lambda: (CascadeForestRegressor(**SMALL), _regression()),
}


#: The cases whose probabilities end in floating-point code of other libraries with CPU-dependent last bits: the
#: temperature of the calibration, fitted (scipy's optimiser on numpy's log) and applied (numpy's exp and log).
LIBRARY_FLOAT = ("mddf_boosted_member", "mddf_calibrated", "mddf_pairs_calibration")


def _digest(estimator, X):
    """SHA-256 of the fitted estimator's predictions on ``X``, as float64 bytes."""
    h = hashlib.sha256()
    if hasattr(estimator, "predict_proba"):
        h.update(np.ascontiguousarray(estimator.predict_proba(X), dtype=np.float64).tobytes())
        h.update("|".join(map(str, estimator.predict(X))).encode())
    else:
        h.update(np.ascontiguousarray(estimator.predict(X), dtype=np.float64).tobytes())
    return h.hexdigest()


#: The full digests (``_digest``) of the LIBRARY_FLOAT cases' probabilities and labels on the CPU that recorded them
#: (with AVX-512): the recorded probabilities are those.
RECORDED_DIGESTS = {
    "mddf_calibrated": "00d27872f2bc21908a7ef90dec1250e7e707600449b67468f9f24d719b90271c",
    "mddf_pairs_calibration": "8a46ff344e1d1250f83d90640be6bda2fafba14ca676823f335d565287bb55cb",
    "mddf_boosted_member": "1f26d79fa443d81439404e6c790f7dc0eb6df2ffdf1496c8bc7070b009dd3cbd",
}


def test_the_recorded_probabilities_are_those_the_full_digests_pinned():
    assert set(RECORDED_DIGESTS) == set(LIBRARY_FLOAT)
    for case, digest in RECORDED_DIGESTS.items():
        proba, labels = recorded(case)
        found = hashlib.sha256(np.ascontiguousarray(proba, dtype=np.float64).tobytes())
        found.update("|".join(labels).encode())
        assert found.hexdigest() == digest, case


@pytest.mark.parametrize("case", sorted(CASES))
def test_reference_fit_predicts_the_recorded_bits(case):
    estimator, (X, y) = CASES[case]()
    if case == "mddf_exact":
        X = X.drop(columns="colour")
    estimator.fit(X, y)
    found = layer_digest(estimator, X) if case in LIBRARY_FLOAT else _digest(estimator, X)
    if os.environ.get("MDDF_PRINT_REFERENCE_DIGESTS"):
        print(f'    "{case}": "{found}",')
        if case in LIBRARY_FLOAT:
            record(case, estimator.predict_proba(X), estimator.predict(X))
    assert found == DIGESTS[case], f"{case}: the predictions changed (digest {found})"
    if case in LIBRARY_FLOAT:
        assert_close_to_recorded(case, estimator.predict_proba(X), estimator.predict(X))


#: numpy's names of the AVX-512 paths it dispatches to (numpy 2.4: ``numpy.show_runtime()`` lists them as found).
AVX512_PATHS = "X86_V4 AVX512_ICL AVX512_SPR"


@pytest.mark.slow
def test_the_digests_hold_without_avx512():
    # a CPU without AVX-512 (the digests were recorded on one with it): numpy's AVX-512 paths disabled, and OpenBLAS
    # told to use its AVX2 kernels, in a fresh process that runs this file and the pickled models' test
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=AVX512_PATHS, OPENBLAS_CORETYPE="Haswell")
    env.pop("MDDF_PRINT_REFERENCE_DIGESTS", None)
    check = "from numpy._core._multiarray_umath import __cpu_features__ as f; print(f['X86_V4'])"
    found = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False", "numpy did not take its AVX-512 paths off"
    here = Path(__file__).parent
    tests = [str(here / "test_reference_fits.py"), f"{here / 'test_pickle_compat.py'}::{PICKLED_TEST}"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-m", "not slow", *tests],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:]


#: The test of the pickled models of earlier versions (test_pickle_compat.py).
PICKLED_TEST = "test_models_pickled_by_0_2_0_dev0_load_and_predict_the_same_bits"
