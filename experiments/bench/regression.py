"""Regression: CascadeForestRegressor against RF400, ExtraTrees400, HistGradientBoosting and LightGBM.

Datasets: scikit-learn's diabetes data (442 rows, a quarter held out for testing, split by the seed),
and the synthetic Friedman #1 (10 features, 5 of them noise; noise sd 1.0) and Friedman #3 (4 features;
noise sd 0.1, about a third of the target's sd, the 3:1 signal-to-noise ratio of Breiman's bagging
experiments), each with 10,000 training rows and an independent test set of 10,000 rows drawn with
another seed; and scikit-learn's California housing (20,640 rows, 8 features; a quarter held out by
the seed, the first 10,000 of the rest trained on) when it is already in scikit-learn's data folder
(``fetch_california_housing`` downloads it; this script never does, and leaves it out with a message
otherwise). Two tables with category columns and missing values, named in ``--datasets`` (they are not in
the default list): ``mixed_regression``, the columns of the mixed-data benchmark's ``mixed_categories``
with a continuous target (:func:`mddf.experiments.bench.mixed_data.mixed_categories_regression`; 10,000
training and 10,000 test rows of one draw with the seed, so the structure changes with the seed), and
``adult_age``, adult's age read from its other 13 columns (8 categorical, ``'?'`` missing; its standard
split). On them, the cascade, HistGradientBoosting and LightGBM get the categories as categories (pandas
``category`` columns), the cascade with each ``categorical_splits`` named: ``CascadeForest-ordinal``
(thresholds of the category codes) and ``CascadeForest-subset`` (category subsets), which run on these
tables only, in place of ``CascadeForest`` (the defaults); RF400 and ExtraTrees400 get the ordinal codes,
a missing category as NaN. Every method is fitted with each seed as its ``random_state`` (and the data's seed);
the score is the test R^2. Issue #18's target: the cascade's mean R^2 at least the random forest's.

``--select`` chooses the cascade's configuration without the test rows: for each candidate of
:data:`CANDIDATES` (each also with ``predictor="hgb"``, scored on the same fit), dataset and seed it
runs a 3-fold cross-validation on the training rows only, appends one record per fold to
``<out>/selection.jsonl`` (resumable as the test runs) and writes ``<out>/selection.md``: the mean CV
R^2 per candidate, dataset and seed, and the candidate of the highest mean over the datasets. Then run
the test comparison with that candidate's parameters (``--params``).

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
python scripts/bench_regression.py --select --seeds 0,1,2,3,4 --out results/regression-select
python scripts/bench_regression.py --datasets mixed_regression,adult_age --seeds 0,1,2,3,4
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
from mddf.experiments.runner import predictor_choice
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, mean_std, number

DATASETS = ("diabetes", "friedman1", "friedman3", "california")
#: The tables with category columns (pandas DataFrames), run when named in ``--datasets``.
CATEGORY_DATASETS = ("mixed_regression", "adult_age")
METHODS = (
    "CascadeForest",
    "CascadeForest-ordinal",
    "CascadeForest-subset",
    "RF400",
    "ExtraTrees400",
    "HistGradientBoosting",
    "LightGBM",
)
#: The cascade with each ``categorical_splits`` named, fitted on the :data:`CATEGORY_DATASETS` only (on numeric
#: data both are the default cascade), where the plain ``"CascadeForest"`` (the defaults) is not fitted.
CATEGORY_METHODS = {"CascadeForest-ordinal": "ordinal", "CascadeForest-subset": "subset"}
N_ROWS = 10_000
QUICK_ROWS = 300
QUICK_CASCADE = {"n_estimators": 5, "max_layers": 2}
QUICK_TREES = 20

#: The configurations ``--select`` compares: name -> CascadeForestRegressor parameters (all of them explicit,
#: so that a name keeps its meaning when the defaults change). Each is also scored with ``predictor="hgb"``.
_RF2_CRF2 = {"forest_types": ["rf", "rf", "crf", "crf"], "categorical_splits": "ordinal"}
CANDIDATES = {
    "rf2-crf2": {**_RF2_CRF2, "target": "y", "max_features": 1.0},
    "rf2-crf-gbdt": {**_RF2_CRF2, "forest_types": ["rf", "rf", "crf", "gbdt"], "target": "y", "max_features": 1.0},
    "rf-crf-gbdt2": {**_RF2_CRF2, "forest_types": ["rf", "crf", "gbdt", "gbdt"], "target": "y", "max_features": 1.0},
    "rf2-crf2 residual": {**_RF2_CRF2, "target": "residual", "max_features": 1.0},
    "rf2-crf-gbdt residual": {
        **_RF2_CRF2,
        "forest_types": ["rf", "rf", "crf", "gbdt"],
        "target": "residual",
        "max_features": 1.0,
    },
    # the random forests' candidate features per split: all of them (above: scikit-learn's regression default,
    # and the cascade's until half of them was chosen), half (the default now), or Breiman's p/3 for regression
    "rf2-crf2 residual mf0.5": {**_RF2_CRF2, "target": "residual", "max_features": 0.5},
    "rf2-crf2 residual mf0.33": {**_RF2_CRF2, "target": "residual", "max_features": 1 / 3},
    # the category columns split into category subsets, the default (on numeric data the same model as above)
    "rf2-crf2 residual mf0.5 subset": {
        **_RF2_CRF2,
        "target": "residual",
        "max_features": 0.5,
        "categorical_splits": "subset",
    },
}
#: The final predictor every candidate is also scored with, on the same cascade (suffix of the candidate's name).
SELECTION_PREDICTOR = "hgb"
#: A reference scored beside the candidates by the same cross-validation (never selected).
SELECTION_REFERENCE = "HistGradientBoosting"
SELECTION_FOLDS = 3


def make_data(dataset: str, seed: int, n_rows: int = N_ROWS):
    """``X_train, y_train, X_test, y_test`` of ``dataset`` for ``seed``: diabetes split, or Friedman data drawn.

    X is an array, or a DataFrame with ``category`` columns for the :data:`CATEGORY_DATASETS`.
    """
    from sklearn.datasets import fetch_california_housing, load_diabetes, make_friedman1, make_friedman3
    from sklearn.model_selection import train_test_split

    if dataset in CATEGORY_DATASETS:
        return _category_data(dataset, seed, n_rows)

    if dataset in ("diabetes", "california"):
        if dataset == "diabetes":
            X, y = load_diabetes(return_X_y=True)
        else:
            X, y = fetch_california_housing(return_X_y=True, download_if_missing=False)
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed)
        if dataset == "california":
            X_train, y_train = X_train[:n_rows], y_train[:n_rows]
        return X_train, y_train, X_test, y_test
    if dataset == "friedman1":
        make = lambda n, s: make_friedman1(n, n_features=10, noise=1.0, random_state=s)  # noqa: E731
    elif dataset == "friedman3":
        make = lambda n, s: make_friedman3(n, noise=0.1, random_state=s)  # noqa: E731
    else:
        raise ValueError(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS + CATEGORY_DATASETS)}")
    X_train, y_train = make(n_rows, seed)
    X_test, y_test = make(n_rows, seed + 10_000)
    return X_train, y_train, X_test, y_test


def _category_data(dataset: str, seed: int, n_rows: int):
    """The tables with category columns: ``mixed_regression`` drawn with the seed (``n_rows`` training and
    ``n_rows`` test rows of one draw), ``adult_age`` on adult's standard split (its first ``n_rows`` training
    rows when ``n_rows`` is below :data:`N_ROWS`, for smoke tests)."""
    from mddf.experiments.bench.mixed_data import load_frames, mixed_categories_regression

    if dataset == "mixed_regression":
        X, y = mixed_categories_regression(2 * n_rows, random_state=seed)
        return X.iloc[:n_rows], y[:n_rows], X.iloc[n_rows:], y[n_rows:]
    X_train, _, X_test, _ = load_frames("adult")
    if n_rows < N_ROWS:
        X_train, X_test = X_train.iloc[:n_rows], X_test.iloc[:n_rows]
    y_train, y_test = (X["age"].to_numpy(dtype="float64") for X in (X_train, X_test))
    return X_train.drop(columns="age"), y_train, X_test.drop(columns="age"), y_test


def applies(method: str, dataset: str) -> bool:
    """Whether the benchmark fits ``method`` on ``dataset``: the cascade with its ``categorical_splits``
    named on the tables with categories, the default cascade on the others, every other method on all."""
    if method in CATEGORY_METHODS:
        return dataset in CATEGORY_DATASETS
    return method != "CascadeForest" or dataset not in CATEGORY_DATASETS


def _for_method(method: str, *frames):
    """The inputs as ``method`` takes them: the random forests get a DataFrame's categories as ordinal codes
    (a missing category as NaN), the others the DataFrame itself."""
    from mddf.experiments.bench.mixed_data import ordinal_codes

    if method in ("RF400", "ExtraTrees400"):
        return tuple(ordinal_codes(X) if hasattr(X, "columns") else X for X in frames)
    return frames


def california_cached() -> bool:
    """Whether scikit-learn's California housing data is in its data folder (never downloads it)."""
    from sklearn.datasets import fetch_california_housing

    try:
        fetch_california_housing(download_if_missing=False)
    except OSError:
        return False
    return True


def build(method: str, seed: int, n_jobs: int, params: dict | None = None, n_trees: int = 400):
    """A fresh estimator for ``method``; ``params`` go to the cascade, ``n_trees`` to RF and ExtraTrees."""
    from sklearn.ensemble import ExtraTreesRegressor, HistGradientBoostingRegressor, RandomForestRegressor

    from mddf import CascadeForestRegressor

    if method == "CascadeForest":
        return CascadeForestRegressor(random_state=seed, n_jobs=n_jobs, **(params or {}))
    if method in CATEGORY_METHODS:
        splits = CATEGORY_METHODS[method]
        return CascadeForestRegressor(
            random_state=seed, n_jobs=n_jobs, **{**(params or {}), "categorical_splits": splits}
        )
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
    X_train, X_test = _for_method(method, X_train, X_test)
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
    if method.startswith("CascadeForest"):
        record["params"] = params or {}
        record["layers"] = int(model.n_layers_)
        record["grown"] = len(model.train_history_)
        record["oof_r2"] = [h["oof_r2"] for h in model.train_history_]
        record.update(predictor_choice(model))  # with a predictor: what predicted ("cascade": no predictor)
    return record


def cross_validate(dataset, candidate, seed, fold, n_jobs, quick=False) -> dict:
    """Fit ``candidate`` on the other folds of ``dataset``'s training rows and score fold ``fold`` (R^2).

    The folds are ``KFold(SELECTION_FOLDS, shuffle=True, random_state=seed)`` over the training rows of
    :func:`make_data`; the test rows are never read. A cascade candidate is fitted once with
    ``predictor=SELECTION_PREDICTOR``: ``cv_r2`` scores its own prediction (its last layer's), and
    ``cv_r2_predictor`` the predictor's.
    """
    from sklearn.metrics import r2_score
    from sklearn.model_selection import KFold
    from sklearn.utils import _safe_indexing

    X, y, _, _ = make_data(dataset, seed, QUICK_ROWS if quick else N_ROWS)
    train, held_out = list(KFold(SELECTION_FOLDS, shuffle=True, random_state=seed).split(X))[fold]
    X_train, X_held_out = _safe_indexing(X, train), _safe_indexing(X, held_out)
    record = {"dataset": dataset, "method": candidate, "seed": seed, "fold": fold, "n_train": len(train)}
    if candidate == SELECTION_REFERENCE:
        model = build(candidate, seed, n_jobs)
        predicted, record["fit_s"], _ = timed_fit(model, X_train, y[train], X_held_out)
        record["cv_r2"] = float(r2_score(y[held_out], predicted))
        return record
    params = {**CANDIDATES[candidate], "predictor": SELECTION_PREDICTOR}
    if quick:
        params = {**QUICK_CASCADE, **params}
    model = build("CascadeForest", seed, n_jobs, params, QUICK_TREES if quick else 400)
    with_predictor, record["fit_s"], _ = timed_fit(model, X_train, y[train], X_held_out)
    *_, own = model.staged_predict(X_held_out)
    record["params"] = params
    record["cv_r2"] = float(r2_score(y[held_out], own))
    record["cv_r2_predictor"] = float(r2_score(y[held_out], with_predictor))
    record["layers"] = int(model.n_layers_)
    return record


def selection_scores(records) -> dict:
    """``{(configuration, dataset, seed): mean CV R^2 over the folds}``; a candidate with the predictor is
    named ``"<candidate> + <SELECTION_PREDICTOR>"``."""
    folds = {}
    for r in records:
        folds.setdefault((r["method"], r["dataset"], r["seed"]), []).append(r["cv_r2"])
        if "cv_r2_predictor" in r:
            name = f"{r['method']} + {SELECTION_PREDICTOR}"
            folds.setdefault((name, r["dataset"], r["seed"]), []).append(r["cv_r2_predictor"])
    return {key: statistics.fmean(values) for key, values in folds.items() if len(values) == SELECTION_FOLDS}


def select(records, datasets, seeds) -> tuple[str | None, str]:
    """The configuration of the highest mean CV R^2 over ``datasets`` (each the mean over ``seeds``), and
    the Markdown of the selection: per configuration and dataset, and per seed.

    Only configurations with every dataset, seed and fold done compete; the reference
    (:data:`SELECTION_REFERENCE`) is shown but never selected.
    """
    scores = selection_scores(records)
    names = list(dict.fromkeys(name for name, _, _ in scores))
    complete = [n for n in names if all((n, d, s) in scores for d in datasets for s in seeds)]
    means = {n: {d: statistics.fmean(scores[(n, d, s)] for s in seeds) for d in datasets} for n in complete}
    overall = {n: statistics.fmean(means[n].values()) for n in complete}
    candidates = [n for n in complete if not n.startswith(SELECTION_REFERENCE)]
    chosen = max(candidates, key=overall.get) if candidates else None
    rows = [
        [n + (" (chosen)" if n == chosen else "")] + [number(means[n][d]) for d in datasets] + [number(overall[n])]
        for n in complete
    ]
    lines = [
        f"CV R^2 on the training rows ({SELECTION_FOLDS} folds), mean over seeds {', '.join(map(str, seeds))}:",
        "",
        *markdown_table(["configuration", *datasets, "mean"], rows),
        "",
        "CV R^2 per seed (mean over the folds):",
        "",
    ]
    per_seed = [
        [n, d] + [number(scores[(n, d, s)]) if (n, d, s) in scores else "" for s in seeds]
        for d in datasets
        for n in names
    ]
    lines += markdown_table(["configuration", "dataset", *[f"seed {s}" for s in seeds]], per_seed)
    if chosen is None:
        lines += ["", "No candidate has every dataset, seed and fold done yet."]
    else:
        lines += ["", f"Chosen: {chosen} ({json.dumps(chosen_params(chosen))})"]
    return chosen, "\n".join(lines) + "\n"


def chosen_params(name: str) -> dict:
    """The CascadeForestRegressor parameters of a selected configuration name."""
    suffix = f" + {SELECTION_PREDICTOR}"
    if name.endswith(suffix):
        return {**CANDIDATES[name[: -len(suffix)]], "predictor": SELECTION_PREDICTOR}
    return dict(CANDIDATES[name])


def run_selection(args, seeds, datasets, out) -> int:
    """``--select``: the cross-validation of every candidate, resumable, and ``selection.md``."""
    names = (
        [*args.candidates.split(","), SELECTION_REFERENCE] if args.candidates else [*CANDIDATES, SELECTION_REFERENCE]
    )
    for name in names:
        if name not in CANDIDATES and name != SELECTION_REFERENCE:
            raise SystemExit(f"unknown candidate {name!r}; known: {', '.join(CANDIDATES)}")
    store = ResultStore(out / "selection.jsonl")
    records = store.records()
    done = {(r["dataset"], r["method"], r["seed"], r["fold"]) for r in records}
    for seed in seeds:
        for dataset in datasets:
            for name in names:
                for fold in range(SELECTION_FOLDS):
                    if (dataset, name, seed, fold) in done:
                        continue
                    task = (dataset, name, seed, fold, args.n_jobs, args.quick)
                    record = cross_validate(*task) if args.in_process else run_in_fresh_process(cross_validate, *task)
                    records.append(record)
                    store.append(record)
                    print(
                        f"{dataset} / {name} / seed {seed} / fold {fold}: CV R^2 {record['cv_r2']:.4f}  "
                        f"fit {record['fit_s']:.1f}s",
                        file=sys.stderr,
                        flush=True,
                    )
    kept = [r for r in records if r["seed"] in seeds and r["dataset"] in datasets and r["method"] in names]
    _, text = select(kept, datasets, seeds)
    prov = provenance(script_path("bench_regression.py"), sys.argv[1:] if args.argv is None else args.argv)
    (out / "selection.md").write_text(with_markdown_header(text, prov))
    print(text)
    return 0


def table(records, methods) -> str:
    """Markdown: test R^2 (mean ± std over seeds) and median fit seconds per dataset and method.

    A method without a record on any of the datasets (the default cascade on the tables with categories
    alone) gets no column.
    """
    methods = [m for m in methods if any(r["method"] == m for r in records)]
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
    for cascade in (m for m in methods if m.startswith("CascadeForest")):
        layers = [
            f"{d}: {'/'.join(str(r['layers']) for r in by[(d, cascade)])}" for d in datasets if (d, cascade) in by
        ]
        if layers:
            lines.append(f"{cascade} layers kept per seed: " + "; ".join(layers))
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--datasets",
        default=",".join(DATASETS),
        help="comma-separated subset of "
        + ", ".join(DATASETS + CATEGORY_DATASETS)
        + f" (default: {', '.join(DATASETS)})",
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
    parser.add_argument(
        "--select",
        action="store_true",
        help="cross-validate the candidate configurations on the training rows (selection.jsonl, selection.md)",
    )
    parser.add_argument(
        "--candidates", default="", help="with --select, comma-separated subset of: " + ", ".join(CANDIDATES)
    )
    args = parser.parse_args(argv)
    args.argv = argv
    seeds = [int(s) for s in args.seeds.split(",")]
    datasets = [d for d in args.datasets.split(",") if d]
    for dataset in datasets:
        if dataset not in DATASETS + CATEGORY_DATASETS:
            parser.error(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS + CATEGORY_DATASETS)}")
    if "california" in datasets and not california_cached():
        print(
            "California housing is not in scikit-learn's data folder: it is left out (this script never downloads; "
            "sklearn.datasets.fetch_california_housing() does)",
            file=sys.stderr,
        )
        datasets.remove("california")
    params = json.loads(args.params)
    methods = [m for m in METHODS if m != "LightGBM" or lightgbm_available()]
    if "LightGBM" not in methods:
        print("LightGBM is not installed: its column is left out (pip install lightgbm)", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.select:
        return run_selection(args, seeds, datasets, out)
    store = ResultStore(out / "results.jsonl")
    records = store.records()
    runs = [run for run in pending(records, seeds, datasets, methods) if applies(run[2], run[1])]
    for seed, dataset, method in runs:
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
