"""Mixed data: mdDF configurations with categorical subset splits against gradient boosting, and one chosen by CV.

Datasets (``--datasets``; :mod:`mddf.experiments.bench.mixed_data`): adult with its categorical columns as
pandas categories and ``'?'`` as NaN, the stratified 15,000-row Fashion-MNIST subset of the extensions
benchmark (``--fmnist-rows``), letter, satimage, and the synthetic ``mixed_categories`` (category
interactions, missing values) and ``numeric_interaction`` (a loan grade read from amount, term and
instalment). Every method gets the same DataFrames.

Methods (``--methods``, any subset of :data:`METHODS`; by default all but the ablations of
:data:`ABLATIONS` and the references given :class:`mddf.PCAFeatures`, :data:`FEATURE_REFERENCES`): the mdDF
configurations of :data:`CONFIGURATIONS`,
HistGradientBoosting and XGBoost with their native categorical support, LightGBM (optional: ``pip install
mddf[bench]``; without it its column is left out with a message) and a random forest of 400 trees on the
categories' ordinal codes (missing values as NaN, which scikit-learn's trees route). Every fit runs in this
process with ``--n-jobs`` threads (OpenMP and BLAS pools limited to as many).

Each finished fit is appended to ``<out>/results.jsonl`` at once (``"stage": "test"``: the test accuracy and
the fit seconds) and a rerun skips the finished ones, so an interrupted run resumes where it stopped; a fit
the estimator refuses with a ``ValueError`` is recorded with its message, left blank and listed under the
table, and not tried again. Seeds are interleaved (every dataset and method for seed 0, then seed 1, ...).

``--select`` chooses a recommended configuration without the test rows: for every mdDF configuration,
dataset and seed, a stratified ``--cv-folds``-fold cross-validation on the training rows alone (shuffled
with the seed) gives a CV accuracy (``"stage": "cv"`` records, resumable as well). On every dataset of
``--cv-datasets`` (by default all of ``--datasets``) the configurations are ranked by their CV accuracy
averaged over the seeds; the configuration of the best mean CV rank over those datasets is recommended
(ties: the higher mean CV accuracy, then the order of :data:`CONFIGURATIONS`), and the tables report its
test accuracy and rank beside the others.

``--report-only`` fits nothing: it writes the tables from the records already in ``<out>``, and lists
under them the fits still pending (a run that is to be resumed later can be reported as it stands).

``<out>/table.md`` holds the mean ± std test accuracy over the seeds per dataset and method, each method's
mean rank over the datasets (1 is best; ties share their mean rank), the median fit seconds, each mdDF
configuration's mean rank against the reference learners of :data:`REFERENCES` alone and, with
``--select``, the recommended configuration's column and the CV table; ``<out>/table.csv`` the same per
(dataset, method).

Examples
--------
MDDF_DATA=/path/to/data python scripts/bench_mixed.py --seeds 0,1,2,3,4 --select --n-jobs 2
python scripts/bench_mixed.py --quick --select
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer
from threadpoolctl import threadpool_limits
from xgboost import XGBClassifier

from mddf import MDDFClassifier, PCAFeatures
from mddf.experiments.bench.fitting import lightgbm_available, pending, timed_fit
from mddf.experiments.bench.mixed_data import load_frames, ordinal_codes
from mddf.experiments.provenance import provenance, record_stamp, script_path, with_markdown_header
from mddf.experiments.runner import predictor_choice
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, mean_ranks, mean_std, write_rows
from mddf.forests import make_gbdt

DATASETS = ("adult", "fashion-mnist", "letter", "satimage", "mixed_categories", "numeric_interaction")
QUICK_DATASETS = ("mixed_categories", "numeric_interaction", "iris")

#: name -> the parameters of an mdDF configuration (beside ``random_state``, ``n_jobs`` and, with
#: ``--quick``, a tiny size); ``"pca_features": True`` puts :class:`mddf.PCAFeatures` (its defaults) in
#: front of the cascade. ``--select`` chooses among these.
CONFIGURATIONS = {
    "mdDF": {"categorical_splits": "ordinal"},  # the default's categories as codes, whatever the default
    "mdDF-subset": {"categorical_splits": "subset"},
    "mdDF-subset-gbdt": {"categorical_splits": "subset", "forest_types": ("rf", "rf", "crf", "gbdt")},
    "mdDF-subset-xgbpred": {"categorical_splits": "subset", "predictor": "xgboost"},
    "mdDF-subset-hgbpred": {"categorical_splits": "subset", "predictor": "hgb"},
    "mdDF-documented": {"forest_types": ("rf", "rf", "et", "et"), "predictor": "xgboost"},
    "mdDF-subset-pca": {"categorical_splits": "subset", "pca_features": True},
    "mdDF-subset-hgbpred-pca": {"categorical_splits": "subset", "predictor": "hgb", "pca_features": True},
    "mdDF-subset-hgbpred-auto": {"categorical_splits": "subset", "predictor": "hgb", "predictor_input": "auto"},
}

#: name -> the parameters of an mdDF variant that isolates one design choice, run only when named in
#: ``--methods`` (never by default); ``--select`` cross-validates it beside the configurations but never
#: chooses it. The ``-codes`` variants give the
#: cascade's XGBoost models as instances, which are used as given: they split the categorical columns'
#: ordinal codes at thresholds, as the named ``"gbdt"`` and ``predictor="xgboost"`` did before they
#: followed ``categorical_splits``.
ABLATIONS = {
    "mdDF-subset-gbdt-codes": {"categorical_splits": "subset", "forest_types": ("rf", "rf", "crf", make_gbdt())},
    "mdDF-subset-xgbpred-codes": {"categorical_splits": "subset", "predictor": make_gbdt()},
}


def _mddf(params):
    params = dict(params)
    pca_features = params.pop("pca_features", False)

    def build(seed, n_jobs, quick):
        size = {"n_estimators": 4, "max_layers": 2} if quick else {}
        model = MDDFClassifier(random_state=seed, n_jobs=n_jobs, **size, **params)
        return make_pipeline(PCAFeatures(), model) if pca_features else model

    return build


def _random_forest(seed, n_jobs, quick):
    forest = RandomForestClassifier(n_estimators=20 if quick else 400, n_jobs=n_jobs, random_state=seed)
    return make_pipeline(FunctionTransformer(ordinal_codes), forest)


def _hist_gradient_boosting(seed, n_jobs, quick):
    return HistGradientBoostingClassifier(
        categorical_features="from_dtype", random_state=seed, **({"max_iter": 20} if quick else {})
    )


def _xgboost(seed, n_jobs, quick):
    return XGBClassifier(
        enable_categorical=True,
        tree_method="hist",
        n_jobs=n_jobs,
        random_state=seed,
        **({"n_estimators": 20} if quick else {}),
    )


def _lightgbm(seed, n_jobs, quick):
    from lightgbm import LGBMClassifier

    return LGBMClassifier(n_jobs=n_jobs, random_state=seed, verbose=-1, **({"n_estimators": 20} if quick else {}))


#: name -> builder(seed, n_jobs, quick) of an unfitted classifier that takes the benchmark's DataFrames.
METHODS = {
    **{name: _mddf(params) for name, params in CONFIGURATIONS.items()},
    "HGB": _hist_gradient_boosting,
    "XGBoost": _xgboost,
    "LightGBM": _lightgbm,
    "RF400": _random_forest,
    **{name: _mddf(params) for name, params in ABLATIONS.items()},
    "HGB-pca": lambda seed, n_jobs, quick: make_pipeline(PCAFeatures(), _hist_gradient_boosting(seed, n_jobs, quick)),
}
#: Reference learners given :class:`mddf.PCAFeatures` in front, run only when named in ``--methods``: what the
#: features give a learner other than the cascade.
FEATURE_REFERENCES = ("HGB-pca",)
#: The methods run when ``--methods`` is not given: all but the ablations and the feature references.
DEFAULT_METHODS = tuple(m for m in METHODS if m not in ABLATIONS and m not in FEATURE_REFERENCES)
#: The reference learners each mdDF configuration is also ranked against on its own
#: (:func:`reference_rank_table`).
REFERENCES = ("HGB", "XGBoost", "LightGBM", "RF400")


def fit_and_score(method: str, dataset: str, data, seed: int, n_jobs: int, quick: bool) -> dict:
    """Fit ``method`` on the training rows of ``data`` and score it on the test rows: one ``"test"`` record."""
    X, y, X_test, y_test = data
    model = METHODS[method](seed, n_jobs, quick)
    with threadpool_limits(limits=n_jobs):
        predicted, fit_s, predict_s = timed_fit(model, X, y, X_test)
    record = {
        "stage": "test",
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "accuracy": float(np.mean(predicted == y_test)),
        "fit_s": fit_s,
        "predict_s": predict_s,
        "n_train": len(y),
        "n_test": len(y_test),
    }
    cascade = _cascade(model)
    if cascade is not None:
        record["n_layers"] = int(cascade.n_layers_)
        record.update(predictor_choice(cascade))
    return record


def _cascade(model):
    """The fitted :class:`~mddf.MDDFClassifier` of ``model`` (the last step of a pipeline), else None."""
    cascade = model[-1] if isinstance(model, Pipeline) else model
    return cascade if isinstance(cascade, MDDFClassifier) else None


def cross_validate(method: str, dataset: str, X_train, y_train, seed: int, n_jobs: int, quick: bool, n_folds: int):
    """The stratified ``n_folds``-fold CV accuracy of ``method`` on the training rows: one ``"cv"`` record.

    The folds split ``X_train`` alone (shuffled with ``random_state=seed``); every model is fitted on
    all folds but one and scored on that one.
    """
    folds = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    accuracies, fit_s, predicted_by, weights = [], 0.0, [], []
    for fit_rows, held_out in folds.split(X_train, y_train):
        model = METHODS[method](seed, n_jobs, quick)
        with threadpool_limits(limits=n_jobs):
            predicted, seconds, _ = timed_fit(model, X_train.iloc[fit_rows], y_train[fit_rows], X_train.iloc[held_out])
        accuracies.append(float(np.mean(predicted == y_train[held_out])))
        fit_s += seconds
        cascade = _cascade(model)
        predicted_by.append(getattr(cascade, "predictor_input_", None))
        weights.append(getattr(cascade, "predictor_weight_", None))
    record = {
        "stage": "cv",
        "dataset": dataset,
        "method": method,
        "seed": seed,
        "n_folds": n_folds,
        "cv_accuracy": statistics.fmean(accuracies),
        "fold_accuracies": accuracies,
        "fit_s": fit_s,
    }
    if any(predicted_by):
        record["fold_predictor_inputs"] = predicted_by  # per fold, as in the test records' predictor_input
        record["fold_predictor_weights"] = weights  # and the predictor's weight against the cascade's output
    return record


def select(cv_records, configurations, datasets):
    """The recommended configuration: the best mean rank of CV accuracy over the datasets.

    Only datasets where every configuration has a CV record count. Ties go to the higher mean CV
    accuracy, then to the earlier configuration.

    Parameters
    ----------
    cv_records : iterable of dict
        ``"cv"`` records (``dataset``, ``method``, ``cv_accuracy``).
    configurations, datasets : sequences of str

    Returns
    -------
    recommended : str or None
        None when no dataset has a CV record of every configuration.
    ranks : dict
        ``{configuration: mean CV rank}`` over those datasets.
    """
    cv_records = [r for r in cv_records if "cv_accuracy" in r]
    complete = [
        d
        for d in datasets
        if all(any(r["dataset"] == d and r["method"] == m for r in cv_records) for m in configurations)
    ]
    if not complete:
        return None, {}
    # a single configuration has no other to be ranked against: it ranks first
    ranks = {m: 1.0 for m in configurations} | mean_ranks(cv_records, configurations, complete, key="cv_accuracy")

    def mean_cv(m):
        return statistics.fmean(r["cv_accuracy"] for r in cv_records if r["method"] == m and r["dataset"] in complete)

    order = sorted(configurations, key=lambda m: (ranks[m], -mean_cv(m), configurations.index(m)))
    return order[0], ranks


def _cells(records, dataset, method, key):
    return [r[key] for r in records if r["dataset"] == dataset and r["method"] == method and key in r]


def accuracy_table(records, methods, datasets, recommended=None) -> str:
    """Markdown: test accuracy (%) mean ± std per dataset and method, the mean rank and median fit seconds.

    With ``recommended``, a last column repeats that configuration's numbers (its rank is the one it has
    among ``methods``).
    """
    columns = list(methods) + ([recommended] if recommended else [])
    header = ["dataset", *methods] + ([f"recommended: {recommended}"] if recommended else [])
    rows = [[d, *(mean_std(_cells(records, d, m, "accuracy"), scale=100) for m in columns)] for d in datasets]
    ranks = mean_ranks(records, methods, datasets)
    rows.append(["mean rank", *(f"{ranks[m]:.2f}" if m in ranks else "" for m in columns)])
    fits = []
    for m in columns:
        values = [r["fit_s"] for r in records if r["method"] == m and r["dataset"] in datasets]
        fits.append(f"{statistics.median(values):.1f}" if values else "")
    rows.append(["median fit s", *fits])
    return "\n".join(markdown_table(header, rows))


def reference_rank_table(records, configurations, references, datasets) -> str:
    """Markdown: each mdDF configuration ranked against the reference learners alone.

    For every configuration ``c``, the methods ``[c, *references]`` are ranked on every dataset by their
    mean test accuracy (ties share their mean rank) and the ranks averaged over the datasets, as in
    :func:`accuracy_table`, but without the other mdDF configurations and on the datasets where ``c`` has
    a record. A row gives ``c``'s mean rank, the best reference learner's mean rank in the same ranking,
    and whether ``c`` is first (``"tied"`` when a reference learner has the same mean rank).
    Configurations without a record are left out.
    """
    rows = []
    for c in configurations:
        own = [d for d in datasets if any(r["dataset"] == d and r["method"] == c for r in records)]
        ranks = mean_ranks(records, [c, *references], own)
        if c not in ranks:
            continue
        ranked = [m for m in references if m in ranks]
        if not ranked:
            continue
        best = min(ranked, key=lambda m: (ranks[m], references.index(m)))
        first = "yes" if ranks[c] < ranks[best] else "tied" if ranks[c] == ranks[best] else "no"
        rows.append([c, f"{ranks[c]:.2f}", best, f"{ranks[best]:.2f}", first])
    header = ["configuration", "its mean rank", "best reference learner", "that learner's mean rank", "first"]
    return "\n".join(markdown_table(header, rows))


def cv_table(cv_records, configurations, datasets, recommended, ranks, ablations=()) -> str:
    """Markdown: CV accuracy (%) on the training rows per dataset and configuration, and the mean CV rank.

    ``ablations`` get columns of their CV accuracy after the configurations', without a rank.
    """
    columns = [*configurations, *ablations]
    rows = [[d, *(mean_std(_cells(cv_records, d, m, "cv_accuracy"), scale=100) for m in columns)] for d in datasets]
    rows.append(["mean CV rank", *(f"{ranks[m]:.2f}" if m in ranks else "" for m in columns)])
    head = [f"{m} (recommended)" if m == recommended else f"{m} (ablation)" if m in ablations else m for m in columns]
    return "\n".join(markdown_table(["dataset", *head], rows))


def csv_rows(records, cv_records, methods, datasets, recommended=None) -> list[dict]:
    """One row per (dataset, method): test accuracy mean, std and seeds, rank on the dataset, CV accuracy."""
    out = []
    for d in datasets:
        ranks = mean_ranks(records, methods, [d])
        for m in methods:
            acc = _cells(records, d, m, "accuracy")
            cv = _cells(cv_records, d, m, "cv_accuracy")
            fits = _cells(records, d, m, "fit_s")
            out.append(
                {
                    "dataset": d,
                    "method": m,
                    "accuracy_mean": statistics.fmean(acc) if acc else None,
                    "accuracy_std": statistics.stdev(acc) if len(acc) > 1 else None,
                    "n_seeds": len(acc),
                    "rank": ranks.get(m),
                    "median_fit_s": statistics.median(fits) if fits else None,
                    "cv_accuracy_mean": statistics.fmean(cv) if cv else None,
                    "recommended": m == recommended,
                }
            )
    return out


def not_fitted(records) -> str:
    """Markdown list of the (dataset, method, stage) the estimator refused, with its message (empty if none)."""
    errors = {(r["dataset"], r["method"], r["stage"]): r["error"] for r in records if "error" in r}
    if not errors:
        return ""
    lines = [f"- {dataset} / {method} ({stage}): {message}" for (dataset, method, stage), message in errors.items()]
    return "\n\nNot fitted (left blank above, and out of the ranks on that dataset):\n\n" + "\n".join(lines)


def pending_fits(runs) -> str:
    """Markdown list of the ``(stage, seed, dataset, method)`` runs not fitted yet, one line per stage and dataset."""
    if not runs:
        return ""
    groups = {}
    for stage, seed, dataset, method in runs:
        groups.setdefault((dataset, stage), {}).setdefault(method, []).append(seed)
    lines = []
    for (dataset, stage), by_method in groups.items():
        fits = "; ".join(f"{m} (seeds {','.join(map(str, seeds))})" for m, seeds in by_method.items())
        lines.append(f"- {dataset} ({stage}): {fits}")
    return "\n\nPending (not fitted yet, so left out of the tables above):\n\n" + "\n".join(lines)


def _run(stage, method, dataset, data, seed, args):
    start = time.perf_counter()
    try:
        if stage == "test":
            record = fit_and_score(method, dataset, data, seed, args.n_jobs, args.quick)
            outcome = f"{100 * record['accuracy']:.2f}%  fit {record['fit_s']:.1f}s"
        else:
            record = cross_validate(method, dataset, data[0], data[1], seed, args.n_jobs, args.quick, args.cv_folds)
            outcome = f"CV {100 * record['cv_accuracy']:.2f}%  fits {record['fit_s']:.1f}s"
    except ValueError as exc:  # the estimator rejects this data (e.g. too few rows of a class)
        record = {"stage": stage, "dataset": dataset, "method": method, "seed": seed, "error": str(exc)}
        if stage == "cv":
            record["n_folds"] = args.cv_folds
        outcome = f"not fitted: {exc}"
    record.update(record_stamp())
    print(
        f"{dataset} / {method} / seed {seed} / {stage}: {outcome}  ({time.perf_counter() - start:.0f}s)",
        file=sys.stderr,
        flush=True,
    )
    return record


def _parser():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", help=f"comma-separated dataset names (default: {','.join(DATASETS)})")
    parser.add_argument(
        "--methods",
        default=",".join(DEFAULT_METHODS),
        help="comma-separated subset of the methods (run only when named: the ablations "
        f"{','.join(ABLATIONS)} and {','.join(FEATURE_REFERENCES)})",
    )
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--select", action="store_true", help="choose a recommended mdDF configuration by CV")
    parser.add_argument("--cv-folds", type=int, default=3, help="folds of the training-row CV of --select")
    parser.add_argument("--cv-seeds", help="seeds of the CV of --select (default: --seeds)")
    parser.add_argument(
        "--cv-datasets",
        help="comma-separated datasets of the CV of --select, a subset of --datasets (default: all of them); "
        "the test tables keep every dataset",
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--fmnist-rows", type=int, default=15_000, help="stratified Fashion-MNIST training rows")
    parser.add_argument("--out", default="results/mixed")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="fit nothing: write the tables from the records in --out and list the pending fits",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"tiny models on small slices (default datasets: {','.join(QUICK_DATASETS)}; a smoke test)",
    )
    return parser


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    cv_seeds = [int(s) for s in args.cv_seeds.split(",")] if args.cv_seeds else seeds
    datasets = tuple(args.datasets.split(",")) if args.datasets else (QUICK_DATASETS if args.quick else DATASETS)
    cv_datasets = tuple(args.cv_datasets.split(",")) if args.cv_datasets else datasets
    if not set(cv_datasets) <= set(datasets):
        parser.error(f"--cv-datasets {sorted(set(cv_datasets) - set(datasets))} are not among --datasets")
    methods = args.methods.split(",")
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown methods {unknown}; choose among {list(METHODS)}")
    if "LightGBM" in methods and not lightgbm_available():
        methods.remove("LightGBM")
        print("LightGBM is not installed: its column is left out (pip install lightgbm)", file=sys.stderr)
    configurations = [m for m in methods if m in CONFIGURATIONS]
    ablations = [m for m in methods if m in ABLATIONS]  # cross-validated with --select, never selected
    if args.select and not configurations:
        parser.error(f"--select needs at least one mdDF configuration among the methods: {list(CONFIGURATIONS)}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    records = store.records()
    tests = [r for r in records if r.get("stage") == "test"]
    cvs = [r for r in records if r.get("stage") == "cv" and r.get("n_folds") == args.cv_folds]
    runs = [("test", *run) for run in pending(tests, seeds, datasets, methods)]
    if args.select:
        runs += [("cv", *run) for run in pending(cvs, cv_seeds, cv_datasets, configurations + ablations)]
    runs.sort(key=lambda run: run[1])  # seeds outermost: the test fits of a seed, then its CV fits
    to_fit, left = ([], runs) if args.report_only else (runs, [])
    data = {}
    for stage, seed, dataset, method in to_fit:
        if dataset not in data:
            data[dataset] = load_frames(dataset, fmnist_rows=args.fmnist_rows, quick=args.quick)
        record = _run(stage, method, dataset, data[dataset], seed, args)
        (tests if stage == "test" else cvs).append(record)
        store.append(record)

    def kept(rs, seed_list, dataset_list, names):
        return [r for r in rs if r["seed"] in seed_list and r["dataset"] in dataset_list and r["method"] in names]

    tests = kept(tests, seeds, datasets, methods)
    cvs = kept(cvs, cv_seeds, cv_datasets, configurations + ablations)
    fitted_tests, fitted_cvs = [r for r in tests if "error" not in r], [r for r in cvs if "error" not in r]
    candidates = [r for r in fitted_cvs if r["method"] in configurations]
    recommended, cv_ranks = select(candidates, configurations, cv_datasets) if args.select else (None, {})
    text = accuracy_table(fitted_tests, methods, datasets, recommended)
    references = tuple(m for m in REFERENCES if m in methods)
    if references and configurations + ablations:
        text += (
            f"\n\nEach mdDF configuration ranked against {', '.join(references)} alone (mean rank over the "
            f"datasets):\n\n{reference_rank_table(fitted_tests, configurations + ablations, references, datasets)}"
        )
    heading = f"Test accuracy (%), mean ± std over seeds {args.seeds}; mean rank over the datasets (1 is best); median fit seconds."
    if args.select:
        on = "" if cv_datasets == datasets else f", datasets {','.join(cv_datasets)}"
        chosen = (
            f"Recommended by {args.cv_folds}-fold CV on the training rows (seeds {','.join(map(str, cv_seeds))}{on}): "
            + (f"**{recommended}** (mean CV rank {cv_ranks[recommended]:.2f})." if recommended else "none yet.")
        )
        cv_text = cv_table(fitted_cvs, configurations, cv_datasets, recommended, cv_ranks, ablations)
        text += f"\n\n{chosen}\n\nCV accuracy (%) on the training rows, mean ± std over the seeds:\n\n{cv_text}"
    text += not_fitted(tests + cvs) + pending_fits(left)
    prov = provenance(script_path("bench_mixed.py"), sys.argv[1:] if argv is None else argv)
    (out / "table.md").write_text(with_markdown_header(f"{heading}\n\n{text}\n", prov))
    write_rows(csv_rows(fitted_tests, fitted_cvs, methods, datasets, recommended), out / "table.csv", prov)
    print(text)
    return 0
