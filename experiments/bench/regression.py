"""Regression: CascadeForestRegressor against RF400, ExtraTrees400, HistGradientBoosting and LightGBM.

Datasets: scikit-learn's diabetes data (442 rows, a quarter held out for testing, split by the seed),
and the synthetic Friedman #1 (10 features, 5 of them noise; noise sd 1.0) and Friedman #3 (4 features;
noise sd 0.1, about a third of the target's sd, the 3:1 signal-to-noise ratio of Breiman's bagging
experiments), each with 10,000 training rows and an independent test set of 10,000 rows drawn with
another seed. Every method is fitted with each seed as its ``random_state`` (and the data's seed);
the score is the test R^2. Issue #18's target: the cascade's mean R^2 at least the random forest's.

Every fit runs in a fresh process (unless ``--in-process``), so one fit's memory and compiled code do
not carry over; its fit time includes loading the cascade's compiled tree code from numba's cache.
Seeds are interleaved (every dataset and method for seed 0, then seed 1, ...). Results are appended to
``<out>/results.jsonl`` as each fit finishes and a rerun skips the finished ones; ``<out>/table.md``
holds the R^2 mean ± std over the seeds and the median fit seconds. LightGBM is optional (``pip install
lightgbm``, the ``bench`` extra); without it its column is left out with a message.

Examples
--------
python scripts/bench_regression.py --seeds 0,1,2
python scripts/bench_regression.py --datasets friedman1 --params '{"forest_types": ["rf", "rf", "et", "et"]}'
python scripts/bench_regression.py --quick
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from mddf.experiments.bench.fitting import lightgbm_available, pending, timed_fit
from mddf.experiments.environment import run_in_fresh_process
from mddf.experiments.provenance import provenance, script_path, with_markdown_header
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, mean_std

DATASETS = ("diabetes", "friedman1", "friedman3")
METHODS = ("CascadeForest", "RF400", "ExtraTrees400", "HistGradientBoosting", "LightGBM")
N_ROWS = 10_000
QUICK_ROWS = 300
QUICK_CASCADE = {"n_estimators": 5, "max_layers": 2}
QUICK_TREES = 20


def make_data(dataset: str, seed: int, n_rows: int = N_ROWS):
    """``X_train, y_train, X_test, y_test`` of ``dataset`` for ``seed``: diabetes split, or Friedman data drawn."""
    from sklearn.datasets import load_diabetes, make_friedman1, make_friedman3
    from sklearn.model_selection import train_test_split

    if dataset == "diabetes":
        X, y = load_diabetes(return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed)
        return X_train, y_train, X_test, y_test
    if dataset == "friedman1":
        make = lambda n, s: make_friedman1(n, n_features=10, noise=1.0, random_state=s)  # noqa: E731
    elif dataset == "friedman3":
        make = lambda n, s: make_friedman3(n, noise=0.1, random_state=s)  # noqa: E731
    else:
        raise ValueError(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}")
    X_train, y_train = make(n_rows, seed)
    X_test, y_test = make(n_rows, seed + 10_000)
    return X_train, y_train, X_test, y_test


def build(method: str, seed: int, n_jobs: int, params: dict | None = None, n_trees: int = 400):
    """A fresh estimator for ``method``; ``params`` go to the cascade, ``n_trees`` to RF and ExtraTrees."""
    from sklearn.ensemble import ExtraTreesRegressor, HistGradientBoostingRegressor, RandomForestRegressor

    from mddf import CascadeForestRegressor

    if method == "CascadeForest":
        return CascadeForestRegressor(random_state=seed, n_jobs=n_jobs, **(params or {}))
    if method == "RF400":
        return RandomForestRegressor(n_estimators=n_trees, random_state=seed, n_jobs=n_jobs)
    if method == "ExtraTrees400":
        return ExtraTreesRegressor(n_estimators=n_trees, random_state=seed, n_jobs=n_jobs)
    if method == "HistGradientBoosting":
        return HistGradientBoostingRegressor(random_state=seed)
    if method == "LightGBM":
        from lightgbm import LGBMRegressor

        return LGBMRegressor(random_state=seed, n_jobs=n_jobs, verbose=-1)
    raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")


def fit_and_score(dataset, method, seed, n_jobs, params=None, quick=False) -> dict:
    """Fit one model and score it on the test rows (the function a fresh process runs)."""
    from sklearn.metrics import r2_score

    X_train, y_train, X_test, y_test = make_data(dataset, seed, QUICK_ROWS if quick else N_ROWS)
    if quick:
        params = {**QUICK_CASCADE, **(params or {})}
    model = build(method, seed, n_jobs, params, QUICK_TREES if quick else 400)
    predicted, fit_s, predict_s = timed_fit(model, X_train, y_train, X_test)
    record = {
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "r2": float(r2_score(y_test, predicted)),
        "fit_s": fit_s,
        "predict_s": predict_s,
        "n_train": len(y_train),
    }
    if method == "CascadeForest":
        record["params"] = params or {}
        record["layers"] = int(model.n_layers_)
        record["grown"] = len(model.train_history_)
        record["oof_r2"] = [h["oof_r2"] for h in model.train_history_]
    return record


def table(records, methods) -> str:
    """Markdown: test R^2 (mean ± std over seeds) and median fit seconds per dataset and method."""
    by = {}
    for r in records:
        by.setdefault((r["dataset"], r["method"]), []).append(r)
    datasets = list(dict.fromkeys(r["dataset"] for r in records))
    lines = []
    for title, cell in (
        ("Test R^2, mean ± std over seeds", lambda runs: mean_std([r["r2"] for r in runs], 4)),
        ("Fit seconds, median over seeds", lambda runs: f"{statistics.median(r['fit_s'] for r in runs):.2f}"),
    ):
        rows = [
            [dataset] + [cell(by[(dataset, m)]) if (dataset, m) in by else "" for m in methods] for dataset in datasets
        ]
        lines += [f"{title}:", "", *markdown_table(["dataset", *methods], rows), ""]
    layers = [
        f"{d}: {'/'.join(str(r['layers']) for r in by[(d, 'CascadeForest')])}"
        for d in datasets
        if (d, "CascadeForest") in by
    ]
    if layers:
        lines.append("CascadeForest layers kept per seed: " + "; ".join(layers))
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--datasets", default=",".join(DATASETS), help="comma-separated subset of " + ", ".join(DATASETS)
    )
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--params", default="{}", help="JSON of CascadeForestRegressor parameters")
    parser.add_argument("--out", default="results/regression")
    parser.add_argument("--in-process", action="store_true", help="fit in this process instead of fresh ones")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_ROWS} training rows, a tiny cascade and {QUICK_TREES}-tree forests (smoke test)",
    )
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    datasets = [d for d in args.datasets.split(",") if d]
    for dataset in datasets:
        if dataset not in DATASETS:
            parser.error(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}")
    params = json.loads(args.params)
    methods = [m for m in METHODS if m != "LightGBM" or lightgbm_available()]
    if "LightGBM" not in methods:
        print("LightGBM is not installed: its column is left out (pip install lightgbm)", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    records = store.records()
    for seed, dataset, method in pending(records, seeds, datasets, methods):
        task = (dataset, method, seed, args.n_jobs, params, args.quick)
        record = fit_and_score(*task) if args.in_process else run_in_fresh_process(fit_and_score, *task)
        records.append(record)
        store.append(record)
        print(
            f"{dataset} / {method} / seed {seed}: R^2 {record['r2']:.4f}  fit {record['fit_s']:.1f}s",
            file=sys.stderr,
            flush=True,
        )
    kept = [r for r in records if r["seed"] in seeds and r["dataset"] in datasets]
    text = table(kept, methods)
    prov = provenance(script_path("bench_regression.py"), sys.argv[1:] if argv is None else argv)
    (out / "table.md").write_text(with_markdown_header(text, prov))
    print(text)
    return 0
