"""Fit DF21 (deep-forest's ``CascadeForestClassifier``) once and write what it measured as JSON.

Runs under the DF21 reference environment's interpreter (``benchmarks/setup_df21_env.sh``: Python 3.9 with
deep-forest's last release), never under mddf's: it imports neither mddf nor anything of this repository,
only numpy and deepforest, so it is a standalone script rather than a study on the harness. The DF21 study
(:mod:`benchmarks.df21`) starts it once per fit, so every fit is a fresh process and its peak resident memory
(``ru_maxrss``) is that fit's alone (plus the interpreter, the libraries and the data).

Input: an ``.npz`` file holding ``X_train``, ``y_train``, ``X_test`` and ``y_test`` (the DF21 study writes it
from ``mddf.datasets.load_dataset``; every value finite, as DF21 requires). Output (``--out``, else
stdout): ``dataset``, ``seed``, ``accuracy`` (and its ``n_correct`` of ``n_test`` rows), ``fit_s``,
``predict_s``, ``peak_rss_mb``, ``layers`` (DF21's ``n_layers_``), ``n_train``, ``params`` and ``versions``
(Python, numpy, scikit-learn, deep-forest, scipy, joblib).

Examples
--------
.df21-venv/bin/python benchmarks/df21_worker.py --probe
.df21-venv/bin/python benchmarks/df21_worker.py --data results/df21/data/letter.npz --dataset letter --seed 0
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time

PACKAGES = ("numpy", "scikit-learn", "deep-forest", "scipy", "joblib")


def versions() -> dict:
    """Python's and the DF21 environment's package versions."""
    from importlib import metadata

    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def fit_once(data, dataset, seed, n_jobs, params) -> dict:
    """Fit ``CascadeForestClassifier(random_state=seed, n_jobs=n_jobs, verbose=0, **params)`` and score it."""
    import warnings

    import numpy as np
    from deepforest import CascadeForestClassifier

    arrays = np.load(data)
    X_train, y_train, X_test, y_test = (arrays[k] for k in ("X_train", "y_train", "X_test", "y_test"))
    model = CascadeForestClassifier(random_state=seed, n_jobs=n_jobs, verbose=0, **params)
    with warnings.catch_warnings():
        # small forests leave a few rows without out-of-bag predictions; DF21 warns and carries on
        warnings.simplefilter("ignore", UserWarning)
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fit_s = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(X_test)
    predict_s = time.perf_counter() - start
    return {
        "dataset": dataset,
        "seed": seed,
        "accuracy": float(np.mean(predicted == y_test)),
        "n_correct": int(np.sum(predicted == y_test)),
        "n_test": int(len(y_test)),
        "fit_s": fit_s,
        "predict_s": predict_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "layers": int(model.n_layers_),
        "n_train": int(len(y_train)),
        "params": params,
        "versions": versions(),
    }


def fit_regressor(data, dataset, seed, n_jobs, params, predictions) -> dict:
    """Fit ``CascadeForestRegressor(random_state=seed, n_jobs=n_jobs, verbose=0, **params)`` on ``y_train`` (one
    target, or several as a 2-D array) and save its predictions of ``X_test`` to ``predictions`` (.npy); the
    multi-output study (``benchmarks/multioutput.py``) scores them."""
    import numpy as np
    from deepforest import CascadeForestRegressor

    arrays = np.load(data)
    model = CascadeForestRegressor(random_state=seed, n_jobs=n_jobs, verbose=0, **params)
    start = time.perf_counter()
    model.fit(arrays["X_train"], arrays["y_train"])
    fit_s = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(arrays["X_test"])
    predict_s = time.perf_counter() - start
    np.save(predictions, np.asarray(predicted, dtype=np.float64))
    return {"dataset": dataset, "seed": seed, "fit_s": fit_s, "predict_s": predict_s, "layers": int(model.n_layers_),
            "versions": versions()}  # fmt: skip


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probe", action="store_true", help="print the versions as JSON (deepforest imported)")
    parser.add_argument("--data", help=".npz with X_train, y_train, X_test, y_test")
    parser.add_argument("--dataset", default="", help="the dataset's name (copied into the output)")
    parser.add_argument("--seed", type=int, default=0, help="DF21's random_state")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--params", default="{}", help="JSON of further CascadeForestClassifier parameters")
    parser.add_argument("--out", default=None, help="write the JSON here (default: stdout)")
    parser.add_argument("--predictions", default=None, help="fit the regressor instead; its predictions to this .npy")
    args = parser.parse_args(argv)
    if args.probe:
        import deepforest  # noqa: F401  (fails here when the environment lacks it)

        result = versions()
    else:
        if not args.data:
            parser.error("--data is required (or --probe)")
        fit = fit_once if args.predictions is None else fit_regressor
        extra = () if args.predictions is None else (args.predictions,)
        result = fit(args.data, args.dataset, args.seed, args.n_jobs, json.loads(args.params), *extra)
    text = json.dumps(result)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
