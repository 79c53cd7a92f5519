"""Mixed data: mdDF configurations with categorical subset splits against gradient boosting, and one chosen by CV.

Datasets (:mod:`benchmarks.data`): adult with its categorical columns as pandas categories and ``'?'`` as NaN, a
stratified 15,000-row Fashion-MNIST subset (``--fmnist-rows``), letter, satimage, and the synthetic
``mixed_categories`` (category interactions, missing values) and ``numeric_interaction`` (a loan grade read from
amount, term and instalment). Every method gets the same DataFrames.

Methods: the mdDF configurations of :data:`CONFIGURATIONS`; HistGradientBoosting and XGBoost with their native
categorical support, LightGBM (optional: ``pip install lightgbm``) and a random forest of 400 trees on the
categories' ordinal codes (missing values as NaN); when named in ``--methods`` only, the ablations of
:data:`ABLATIONS` and HistGradientBoosting given :class:`mddf.PCAFeatures` (``HGB-pca``). Every fit runs in
this process with ``--n-jobs`` threads (OpenMP and BLAS pools limited to as many).

Two commands share ``--out``:

- ``--select`` cross-validates the mdDF configurations (and the ablations named) on the training rows alone:
  ``--repeats`` x ``--folds`` stratified folds (default 3 x 3); on every dataset the configurations are ranked
  by their CV accuracy, and the best mean CV rank over the datasets is recommended (ties: the higher mean CV
  accuracy, then the order of :data:`CONFIGURATIONS`; ablations are never recommended). ``selection.md``.
- without it, every method is fitted on the training rows and tested, seeds interleaved. ``table.md``: test
  accuracy (%), mean ± std over the seeds, mean ranks over the datasets, median fit seconds, each configuration
  ranked against the reference learners (HGB, XGBoost, LightGBM, RF400) alone, and the configuration the
  selection in ``--out`` recommends, in a column of its own.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.mixed --select --repeats 3 --folds 2 --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.mixed --seeds 0,1,2,3,4 --n-jobs 2
python -m benchmarks.mixed --quick --select && python -m benchmarks.mixed --quick
"""

import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import _internals
from benchmarks.data import frames, registry
from benchmarks.harness import CrossValidation, Study, TrainTest, main_by_flag, mean_ranks, mean_std, not_run, summary
from mddf.experiments.runner import predictor_choice
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table

DATASETS = ("adult", "fashion-mnist", "letter", "satimage", "mixed_categories", "numeric_interaction")
QUICK_DATASETS = ("mixed_categories", "numeric_interaction", "iris")

#: name -> the parameters of an mdDF configuration; ``"pca_features": True`` puts :class:`mddf.PCAFeatures` (its
#: defaults) in front of the cascade. ``--select`` chooses among these.
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

#: name -> an mdDF variant that isolates one design choice: its XGBoost models given as instances, used as given,
#: split the categorical columns' ordinal codes at thresholds. Run only when named; never recommended.
ABLATIONS = {
    "mdDF-subset-gbdt-codes": {
        "categorical_splits": "subset",
        "forest_types": ("rf", "rf", "crf", _internals.make_gbdt()),
    },
    "mdDF-subset-xgbpred-codes": {"categorical_splits": "subset", "predictor": _internals.make_gbdt()},
}
#: The reference learners each configuration is also ranked against on its own.
REFERENCES = ("HGB", "XGBoost", "LightGBM", "RF400")


def mddf(params):
    def build(ctx):
        from sklearn.pipeline import make_pipeline

        from mddf import MDDFClassifier, PCAFeatures

        given = dict(params)
        pca = given.pop("pca_features", False)
        size = {"n_estimators": 4, "max_layers": 2} if ctx.quick else {}
        model = MDDFClassifier(random_state=ctx.seed, n_jobs=ctx.n_jobs, **size, **given)
        return make_pipeline(PCAFeatures(), model) if pca else model

    return build


def hgb(ctx):
    from sklearn.ensemble import HistGradientBoostingClassifier

    quick = {"max_iter": 20} if ctx.quick else {}
    return HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=ctx.seed, **quick)


def hgb_pca(ctx):
    from sklearn.pipeline import make_pipeline

    from mddf import PCAFeatures

    return make_pipeline(PCAFeatures(), hgb(ctx))


def xgboost(ctx):
    from xgboost import XGBClassifier

    quick = {"n_estimators": 20} if ctx.quick else {}
    return XGBClassifier(enable_categorical=True, tree_method="hist", n_jobs=ctx.n_jobs, random_state=ctx.seed, **quick)


METHODS = {
    **{name: mddf(params) for name, params in CONFIGURATIONS.items()},
    "HGB": hgb,
    "XGBoost": xgboost,
    "LightGBM": registry("LightGBM"),
    "RF400": lambda ctx: registry("RF", n_trees=20 if ctx.quick else 400)(ctx),  # the categories' codes
    **{name: mddf(params) for name, params in ABLATIONS.items()},
    "HGB-pca": hgb_pca,
}
DEFAULT_METHODS = [m for m in METHODS if m not in ABLATIONS and m != "HGB-pca"]


def describe(model, ctx, record):
    cascade = model[-1] if hasattr(model, "steps") else model
    if not hasattr(cascade, "n_layers_"):
        return {}
    return {"n_layers": int(cascade.n_layers_), **predictor_choice(cascade)}


def datasets(options):
    return [frames(d, fmnist_rows=options.fmnist_rows) for d in dict.fromkeys(DATASETS + QUICK_DATASETS)]


def options(parser):
    parser.add_argument("--fmnist-rows", type=int, default=15_000, help="stratified Fashion-MNIST training rows")
    parser.add_argument("--select", action="store_true", help="cross-validate the configurations on the training rows")


# ------------------------------------------------------------------------------------------ the selection
def select(cv, configurations, datasets):
    """The recommended configuration and ``{configuration: mean CV rank}`` over the datasets every one has.

    ``cv``: ``{(dataset, configuration): [CV accuracy per repeat]}``. Ties go to the higher mean CV accuracy,
    then to the earlier configuration; ``(None, {})`` when no dataset has every configuration.
    """
    complete = [d for d in datasets if all((d, m) in cv for m in configurations)]
    if not complete:
        return None, {}
    means = [
        {"dataset": d, "method": m, "accuracy": statistics.fmean(cv[(d, m)])} for d in complete for m in configurations
    ]
    ranks = {m: 1.0 for m in configurations} | mean_ranks(means, configurations, complete)

    def mean_cv(m):
        return statistics.fmean(statistics.fmean(cv[(d, m)]) for d in complete)

    order = sorted(configurations, key=lambda m: (ranks[m], -mean_cv(m), list(configurations).index(m)))
    return order[0], ranks


def selection_table(results) -> str:
    configurations = [m for m in results.methods if m in CONFIGURATIONS]
    cv = summary(results, "accuracy")
    chosen, ranks = select(cv, configurations, results.datasets)
    rows = [[d, *(mean_std(cv.get((d, m), []), scale=100) for m in results.methods)] for d in results.datasets]
    rows.append(["mean CV rank", *(f"{ranks[m]:.2f}" if m in ranks else "" for m in results.methods)])
    head = [
        f"{m} (recommended)" if m == chosen else f"{m} (ablation)" if m in ABLATIONS else m for m in results.methods
    ]
    o = results.options
    verdict = f"**{chosen}** (mean CV rank {ranks[chosen]:.2f})." if chosen else "none yet."
    return (
        f"Recommended by {o.repeats} x {o.folds}-fold CV on the training rows: {verdict}\n\n"
        "CV accuracy (%) on the training rows, mean ± std over the repeats (each the mean of its folds):\n\n"
        + "\n".join(markdown_table(["dataset", *head], rows))
        + not_run(results)
        + "\n"
    )


def recommended(options):
    """The configuration the selection recorded in ``--out`` recommends (its latest settings), or None."""
    records = [r for r in ResultStore(options.out / "results.jsonl").records() if r.get("status") == "ok"]
    cv = [
        r
        for r in records
        if r.get("config", {}).get("protocol") == "cross-validation" and r["config"]["quick"] == options.quick
    ]
    if not cv:
        return None
    cv = [r for r in cv if r["config"] == cv[-1]["config"]]
    scores = {}
    for r in cv:
        scores.setdefault((r["dataset"], r["method"], r["seed"]), []).append(r["accuracy"])
    per_repeat = {}
    for (d, m, _), values in scores.items():
        per_repeat.setdefault((d, m), []).append(statistics.fmean(values))
    configurations = [m for m in CONFIGURATIONS if any(key[1] == m for key in per_repeat)]
    return select(per_repeat, configurations, list(dict.fromkeys(r["dataset"] for r in cv)))[0]


# ------------------------------------------------------------------------------------------ the test table
def reference_rank_table(records, configurations, references, datasets) -> str:
    """Each mdDF configuration ranked against the reference learners alone, on the datasets where it has a record.

    A row gives the configuration's mean rank, the best reference learner's mean rank in the same ranking, and
    whether the configuration is first (``"tied"`` when a reference learner has the same mean rank).
    """
    rows = []
    for c in configurations:
        own = [d for d in datasets if any(r["dataset"] == d and r["method"] == c for r in records)]
        ranks = mean_ranks(records, [c, *references], own)
        ranked = [m for m in references if m in ranks]
        if c not in ranks or not ranked:
            continue
        best = min(ranked, key=lambda m: (ranks[m], references.index(m)))
        first = "yes" if ranks[c] < ranks[best] else "tied" if ranks[c] == ranks[best] else "no"
        rows.append([c, f"{ranks[c]:.2f}", best, f"{ranks[best]:.2f}", first])
    return "\n".join(
        markdown_table(
            ["configuration", "its mean rank", "best reference learner", "that learner's mean rank", "first"], rows
        )
    )


def test_table(results) -> str:
    chosen = recommended(results.options)
    methods = results.methods
    columns = methods + ([chosen] if chosen else [])
    accuracy = summary(results, "accuracy")
    rows = [[d, *(mean_std(accuracy.get((d, m), []), scale=100) for m in columns)] for d in results.datasets]
    ranks = mean_ranks(results.records, methods, results.datasets)
    rows.append(["mean rank", *(f"{ranks[m]:.2f}" if m in ranks else "" for m in columns)])
    fits = [[r["fit_s"] for r in results.of(method=m)] for m in columns]
    rows.append(["median fit s", *(f"{statistics.median(f):.1f}" if f else "" for f in fits)])
    head = ["dataset", *methods] + ([f"recommended: {chosen}"] if chosen else [])
    seeds = ",".join(map(str, sorted({r["seed"] for r in results.records})))
    text = f"Test accuracy (%), mean ± std over seeds {seeds}; mean rank over the datasets (1 is best); median fit seconds.\n\n"
    text += "\n".join(markdown_table(head, rows))
    configurations = [m for m in methods if m in CONFIGURATIONS or m in ABLATIONS]
    references = tuple(m for m in REFERENCES if m in methods)
    if references and configurations:
        text += (
            f"\n\nEach mdDF configuration ranked against {', '.join(references)} alone (mean rank over the datasets):\n\n"
            + reference_rank_table(results.records, configurations, references, results.datasets)
        )
    return text + not_run(results) + "\n"


def check_selection(options, parser):
    if not any(m in CONFIGURATIONS for m in options.method_names):
        parser.error(f"--select needs at least one mdDF configuration among the methods: {list(CONFIGURATIONS)}")


COMMON = dict(
    datasets=datasets,
    methods=METHODS,
    metrics=("accuracy",),
    default_datasets=DATASETS,
    optional={"LightGBM": "lightgbm"},
    options=options,
    settings=lambda options: {"fmnist_rows": options.fmnist_rows},
    describe=describe,
    limit_threads=True,
)
STUDY = Study(
    "mixed",
    __doc__,
    protocol=TrainTest(seeds=(0, 1, 2, 3, 4)),
    default_methods=DEFAULT_METHODS,
    quick={"datasets": QUICK_DATASETS, "seeds": (0,)},
    table=test_table,
    **COMMON,
)
SELECTION = Study(
    "mixed",
    __doc__,
    protocol=CrossValidation(n_folds=3, repeats=3),
    default_methods=list(CONFIGURATIONS),
    quick={"datasets": QUICK_DATASETS, "repeats": 1, "folds": 2},
    check=check_selection,
    table=selection_table,
    report="selection",
    **COMMON,
)


main = main_by_flag("--select", SELECTION, STUDY)


if __name__ == "__main__":
    sys.exit(main())
