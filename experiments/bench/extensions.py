"""Beyond the paper : mdDF with other block members and a predictor against strong tabular learners.

Datasets: adult, letter, satimage, yeast and a stratified subset of Fashion-MNIST's training split
(``--fmnist-rows``, drawn once with ``random_state=0`` and shared by every method and seed; tested on the
full test split). Methods (``--methods``, any subset of :data:`METHODS`): the paper's mdDF, mdDF
configurations with extremely-randomised forests, XGBoost members or a predictor on top, and the reference
learners XGBoost and LightGBM at their defaults (LightGBM is optional: ``pip install mddf[bench]``; without
it its column is left out with a message), ExtraTrees and random forests of 400 trees, and scikit-learn's
HistGradientBoosting. Categorical columns are given to every method as their ordinal codes.

Fits run in this process, one after another, seeds interleaved (every dataset and method for seed 0, then
seed 1, ...). Each finished fit is appended to ``<out>/results.jsonl`` at once and a rerun skips the
finished ones, so an interrupted run resumes where it stopped. A fit the estimator refuses with a
``ValueError`` (five folds on a class of three training rows, say) is recorded with its message, left
blank in the table and listed under it, and not tried again. ``<out>/table.md`` holds the mean ± std test
accuracy over the seeds per dataset and method, each method's mean rank over the datasets (1 is best; ties
share their mean rank), and the median fit seconds.

Examples
--------
MDDF_DATA=/path/to/data python scripts/bench_extensions.py --seeds 0,1,2 --n-jobs 2
python scripts/bench_extensions.py --quick
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier, HistGradientBoostingClassifier, RandomForestClassifier
from xgboost import XGBClassifier

from mddf import MDDFClassifier
from mddf.experiments.bench.fitting import lightgbm_available, pending, timed_fit
from mddf.experiments.bench.loading import train_test_arrays
from mddf.experiments.provenance import provenance, script_path, with_markdown_header
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, mean_ranks, mean_std

DATASETS = ("adult", "letter", "satimage", "yeast", "fashion-mnist")
QUICK_DATASETS = ("iris", "wine")


def _mddf(**params):
    def build(seed, n_jobs, quick):
        size = {"n_estimators": 4, "max_layers": 2} if quick else {}
        return MDDFClassifier(random_state=seed, n_jobs=n_jobs, **size, **params)

    return build


def _trees(cls, **params):
    def build(seed, n_jobs, quick):
        return cls(n_estimators=20 if quick else 400, n_jobs=n_jobs, random_state=seed, **params)

    return build


def _mddf_five_folds_extra_trees(seed, n_jobs, quick):
    # Five folds: each fold model sees 4/5 of the rows (3 folds: 2/3), so the class vectors the next layers and
    # the predictor learn from are closer to those of a model fitted on every row. On top: the ExtraTrees400
    # reference learner (the cascade reseeds its random_state from its own).
    predictor = _trees(ExtraTreesClassifier)(seed, n_jobs, quick)
    return _mddf(n_folds=5, predictor=predictor)(seed, n_jobs, quick)


def _xgboost(seed, n_jobs, quick):
    return XGBClassifier(n_jobs=n_jobs, random_state=seed, **({"n_estimators": 20} if quick else {}))


def _lightgbm(seed, n_jobs, quick):
    from lightgbm import LGBMClassifier

    return LGBMClassifier(n_jobs=n_jobs, random_state=seed, verbose=-1, **({"n_estimators": 20} if quick else {}))


def _hist_gradient_boosting(seed, n_jobs, quick):
    return HistGradientBoostingClassifier(random_state=seed, **({"max_iter": 20} if quick else {}))


#: name -> builder(seed, n_jobs, quick) of an unfitted classifier.
METHODS = {
    "mdDF": _mddf(),
    "mdDF-ET": _mddf(forest_types=("rf", "rf", "et", "et")),
    "mdDF-ET+xgboost": _mddf(forest_types=("rf", "rf", "et", "et"), predictor="xgboost"),
    "mdDF-gbdt": _mddf(forest_types=("rf", "et", "crf", "gbdt")),
    "mdDF+forest": _mddf(predictor="forest"),
    "mdDF-5fold+ET": _mddf_five_folds_extra_trees,
    "XGBoost": _xgboost,
    "LightGBM": _lightgbm,
    "ExtraTrees400": _trees(ExtraTreesClassifier),
    "RF400": _trees(RandomForestClassifier),
    "HistGradientBoosting": _hist_gradient_boosting,
}


def fit_and_score(method: str, dataset: str, data, seed: int, n_jobs: int, quick: bool) -> dict:
    """Fit ``method`` on ``data`` (``X_train, y_train, X_test, y_test``) and score it: one record."""
    X, y, X_test, y_test = data
    model = METHODS[method](seed, n_jobs, quick)
    predicted, fit_s, predict_s = timed_fit(model, X, y, X_test)
    record = {
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "accuracy": float(np.mean(predicted == y_test)),
        "fit_s": fit_s,
        "predict_s": predict_s,
        "n_train": len(y),
        "n_test": len(y_test),
    }
    if isinstance(model, MDDFClassifier):
        record["n_layers"] = int(model.n_layers_)
    return record


def table(records, methods, datasets) -> str:
    """Markdown: accuracy (%) mean ± std per dataset and method, the mean rank, the median fit seconds."""
    rows = []
    for dataset in datasets:
        row = [dataset]
        for m in methods:
            row.append(mean_std([100 * r["accuracy"] for r in records if r["dataset"] == dataset and r["method"] == m]))
        rows.append(row)
    ranks = mean_ranks(records, methods, datasets)
    rows.append(["mean rank", *(f"{ranks[m]:.2f}" if m in ranks else "" for m in methods)])
    fits = []
    for m in methods:
        values = [r["fit_s"] for r in records if r["method"] == m]
        fits.append(f"{statistics.median(values):.1f}" if values else "")
    rows.append(["median fit s", *fits])
    return "\n".join(markdown_table(["dataset", *methods], rows))


def not_fitted(records) -> str:
    """Markdown list of the (dataset, method) pairs the estimator refused, with its message (empty if none)."""
    errors = {(r["dataset"], r["method"]): r["error"] for r in records if "error" in r}
    if not errors:
        return ""
    lines = [f"- {dataset} / {method}: {message}" for (dataset, method), message in errors.items()]
    return "\n\nNot fitted (left blank above, and out of the ranks on that dataset):\n\n" + "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated dataset names")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of the methods")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--fmnist-rows", type=int, default=15_000, help="stratified Fashion-MNIST training rows")
    parser.add_argument("--out", default="results/extensions")
    parser.add_argument(
        "--quick", action="store_true", help="iris and wine, every method at a tiny size (a smoke test)"
    )
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    datasets = QUICK_DATASETS if args.quick else tuple(args.datasets.split(","))
    methods = args.methods.split(",")
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown methods {unknown}; choose among {list(METHODS)}")
    if "LightGBM" in methods and not lightgbm_available():
        methods.remove("LightGBM")
        print("LightGBM is not installed: its column is left out (pip install lightgbm)", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    records = store.records()
    data = {}
    for seed, dataset, method in pending(records, seeds, datasets, methods):
        if dataset not in data:  # a dataset without a test split: a stratified 70/30 split
            rows = args.fmnist_rows if dataset == "fashion-mnist" else None
            data[dataset] = train_test_arrays(dataset, train_share=0.7, train_rows=rows)
        try:
            record = fit_and_score(method, dataset, data[dataset], seed, args.n_jobs, args.quick)
            outcome = f"{100 * record['accuracy']:.2f}%  fit {record['fit_s']:.1f}s"
        except ValueError as exc:  # the estimator rejects this data (e.g. too few rows of a class)
            record = {"dataset": dataset, "method": method, "seed": seed, "error": str(exc)}
            outcome = f"not fitted: {exc}"
        records.append(record)
        store.append(record)
        print(f"{dataset} / {method} / seed {seed}: {outcome}", file=sys.stderr, flush=True)
    kept = [r for r in records if r["seed"] in seeds and r["dataset"] in datasets and r["method"] in methods]
    text = table([r for r in kept if "error" not in r], methods, datasets) + not_fitted(kept)
    prov = provenance(script_path("bench_extensions.py"), sys.argv[1:] if argv is None else argv)
    (out / "table.md").write_text(
        with_markdown_header(
            f"Test accuracy (%), mean ± std over seeds {args.seeds}; mean rank over the datasets (1 is best); "
            f"median fit seconds.\n\n{text}\n",
            prov,
        )
    )
    print(text)
    return 0
