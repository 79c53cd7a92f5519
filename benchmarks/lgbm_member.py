"""The LightGBM members against the XGBoost member: one probe on letter (issue 79, item 3).

The classifier's default (``forest_types=("rf", "rf", "crf", "crf", "gbdt")``) against the same cascade with
``"gbdt"`` replaced by ``"lgbm"`` and by ``"lgbm_es"``: the fit's and the prediction's wall seconds and the test
accuracy, on ``--train-rows`` stratified training rows of letter (every one of its 4,000 test rows predicted), one
``--seed``, ``--rounds`` rounds interleaved (default, lgbm, lgbm_es, default, ...) in one process, ``--n-jobs``
workers, after an untimed small fit of each. Printed as a markdown table (each round's times, the median of the
rounds' times over the default's, the accuracy and the kept layers, the same in every round).

``--fold-model``: one fold model alone, as a layer fits it, instead: XGBoost's ``"gbdt"`` and LightGBM's ``"lgbm"``
(also without ``deterministic`` and ``force_row_wise``, and with depth 6) fitted on 2,000 rows of letter beside
one member's class vectors (26 random class shares: 42 columns), one thread, and predicting 1,000 of them; the fit
once, the prediction best of three.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.lgbm_member --train-rows 3000 --rounds 2 --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.lgbm_member --fold-model
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
from sklearn.model_selection import train_test_split

from mddf import MDDFClassifier
from mddf.datasets import load_dataset
from mddf.forests import make_gbdt, make_lgbm

DEFAULT = ("rf", "rf", "crf", "crf", "gbdt")
DESIGNS = {name: DEFAULT[:4] + (name,) for name in ("gbdt", "lgbm", "lgbm_es")}


def run_once(forest_types, data, seed, n_jobs, **settings):
    """``(fit seconds, predict seconds, test accuracy, kept layers)`` of the classifier's default with
    ``forest_types``."""
    X, y, X_test, y_test = data
    model = MDDFClassifier(forest_types=forest_types, random_state=seed, n_jobs=n_jobs, **settings)
    start = time.perf_counter()
    model.fit(X, y)
    fitted = time.perf_counter()
    predicted = model.predict(X_test)
    done = time.perf_counter()
    return fitted - start, done - fitted, float((predicted == y_test).mean()), model.n_layers_


def fold_model_times(letter, seed=0):
    """Print one fold model's fit and prediction seconds, XGBoost's against LightGBM's (see ``--fold-model``)."""
    rng = np.random.RandomState(seed)
    rows = rng.choice(len(letter.y_train), 2000, replace=False)
    shares = rng.dirichlet(np.ones(26), size=len(rows))
    X = np.hstack([letter.X_train[rows], shares]).astype(np.float32)
    y = np.unique(letter.y_train[rows], return_inverse=True)[1]
    models = {
        '"gbdt" (XGBoost)': make_gbdt(random_state=seed),
        '"lgbm"': make_lgbm(random_state=seed),
        '"lgbm", neither deterministic nor force_row_wise': make_lgbm(random_state=seed).set_params(
            deterministic=False, force_row_wise=False
        ),
        '"lgbm", depth 6': make_lgbm(random_state=seed).set_params(max_depth=6),
    }
    print("| model | fit (s) | predict 1,000 rows (s) |\n|---|---|---|")
    for name, model in models.items():
        start = time.perf_counter()
        model.fit(X, y)
        fit = time.perf_counter() - start
        predict = []
        for _ in range(3):
            start = time.perf_counter()
            model.predict_proba(X[:1000])
            predict.append(time.perf_counter() - start)
        print(f"| {name} | {fit:.2f} | {min(predict):.3f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train-rows", type=int, default=3000, help="stratified training rows of letter's 16,000")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the three designs, interleaved")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--fold-model", action="store_true", help="time one fold model alone instead")
    args = parser.parse_args(argv)
    letter = load_dataset("letter", verbose=0)
    if args.fold_model:
        return fold_model_times(letter, args.seed)
    X, y = letter.X_train, letter.y_train
    if args.train_rows < len(y):
        X, _, y, _ = train_test_split(X, y, train_size=args.train_rows, stratify=y, random_state=args.seed)
    data = (X, y, letter.X_test, letter.y_test)
    for forest_types in DESIGNS.values():  # untimed: libraries loaded and kernels compiled before the rounds
        run_once(forest_types, (X[:300], y[:300], X[:10], y[:10]), args.seed, args.n_jobs, n_estimators=5)
    results = {name: [] for name in DESIGNS}
    for r in range(args.rounds):
        for name, forest_types in DESIGNS.items():
            results[name].append(run_once(forest_types, data, args.seed, args.n_jobs))
            fit, predict, accuracy, layers = results[name][-1]
            print(
                f"round {r}: {name}: fit {fit:.1f} s, predict {predict:.2f} s, accuracy {accuracy:.4f}, {layers} layers"
            )
    base_fit = statistics.median(run[0] for run in results["gbdt"])
    base_predict = statistics.median(run[1] for run in results["gbdt"])
    print(f"\nletter, {len(y)} training rows, 4000 test rows, seed {args.seed}, n_jobs {args.n_jobs}\n")
    print("| member | fit (s) | predict (s) | fit / default | predict / default | test accuracy | layers |")
    print("|---|---|---|---|---|---|---|")
    for name, runs in results.items():
        fit = statistics.median(run[0] for run in runs)
        predict = statistics.median(run[1] for run in runs)
        accuracy, layers = runs[0][2], runs[0][3]
        if any(run[2:] != runs[0][2:] for run in runs):  # a seed gives the same model: a difference is a bug
            raise RuntimeError(f"{name}: the rounds' accuracies or layers differ: {runs}")
        print(
            f"| `{name}` | {' / '.join(f'{run[0]:.1f}' for run in runs)} | {' / '.join(f'{run[1]:.2f}' for run in runs)}"
            f" | {fit / base_fit:.2f} | {predict / base_predict:.2f} | {100 * accuracy:.2f}% | {layers} |"
        )


if __name__ == "__main__":
    main()
