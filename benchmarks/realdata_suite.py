"""Where mdDF wins: the cascade, its candidate defaults and today's boosting and forests on the real-data suite.

The rules this study implements were written before it ran (``docs/benchmarks/realdata.md``, "Rules, written
before the runs"); :mod:`benchmarks.realdata_report` reads its records by them.

The suite (:mod:`benchmarks.realdata`, ``$MDDF_REALDATA``): twelve classification and eight regression tables with
their category columns (pandas ``category``) and missing values. Each table is cross-validated on all its rows:
stratified 5-fold (classification) or plain 5-fold (regression) cross-validation repeated 3 times, once on the
tables of :data:`ONE_REPEAT`; repeat ``r`` shuffles the folds with seed ``r`` and gives every learner
``random_state=r``. Every learner of a table's task is fitted on the same training folds and scored on the same
held-out fold: accuracy, balanced accuracy and log-loss, or R² and RMSE, with fit and predict seconds.

Learners (:data:`CLASSIFIERS`, :data:`REGRESSORS`, :data:`PEERS`), those of the rule of 2026-11-27 (a boosted
member, pair features, calibration):

- the base ``MDDFClassifier`` and ``CascadeForestRegressor`` (``mdDF-base``, ``CascadeForest-base``: four forests a
  layer, nothing appended, probabilities as they are: the defaults of 2026-11-27) and the candidates, each
  setting every knob of the rule (:data:`BASE`) so that a change of a default changes none: a boosted member
  (:data:`BOOSTED_MEMBER`, ``-gbdt``), pair features (``pair_features="auto"``, ``-pairs``; with differences,
  ``-pairs3``), both (``-gbdt-pairs``), for the classifier ``calibration="temperature"`` (``mdDF-cal``) and, for
  the cost page's targets, the regressor's default with layer probes (``CascadeForest-pairs3-probes``);
  given the DataFrames as they are (their ``category`` columns split natively). A cascade's records are bound
  to its full parameters (:func:`learner_settings`): a changed default is fitted again;
- HistGradientBoosting, LightGBM, XGBoost and CatBoost with their defaults, up to 1000 rounds stopped early on
  10% of the training rows (:class:`mddf.experiments.early_stopped.EarlyStopped`, the practitioner protocol's
  ``HGB-es``, ``LightGBM-es``, ``XGBoost-es``, ``CatBoost-es``), a random forest and extra trees of 400 trees,
  and the majority class (class shares as probabilities) or the mean (``Baseline``); these get the category
  columns as ordinal codes (a missing value as NaN), declared categorical to the four boosting libraries.

Order of the run: repeats outermost, then the tables from the smallest, then the folds, every learner of a fold
before the next fold, so that an interrupted run leaves whole folds and whole repeats. Every fit is appended to
``<out>/results.jsonl`` as it finishes, with the settings that change it, bound to the suite's digest (every
table file and the manifest: its ``data_sha256``) and to its settings, and the commit, machine and date; a rerun
resumes what is missing. ``--report-only`` rewrites the page from the records.

``--check paper`` runs the paper's datasets check of the rule instead: by default the bases (:data:`PAPER_LEARNERS`;
a candidate when named in ``--learners``, once it meets the rule's other conditions on the suite): the
classifier's on letter, satimage, adult (its category columns as categories) and yeast, the regressor's on diabetes, Friedman #1 and
Friedman #3 (the regression benchmark's data of each seed); per seed s in 0-4 a 3-fold cross-validation of the
training rows (stratified for the classifier) shuffled with s, each fit with ``random_state=s``, the test rows
never read. The training rows of a class with fewer than five of them (yeast's ERL) stay in every fit's
training part and are not scored. Its records go to the same ``results.jsonl``; the page reads them.

Outputs in ``--out``: ``realdata.md`` (the results block of ``docs/benchmarks/realdata.md``, headed by its
provenance), ``realdata.csv`` (per table and learner), the critical-difference diagrams
``realdata_cd_<task>.png`` and the scatters ``realdata_fit_time_<task>.png`` (and PDFs; named to sit beside the
page in ``docs/benchmarks``); ``paper_check.md`` after ``--check paper``.

Examples
--------
MDDF_REALDATA=/path/to/realdata python -m benchmarks.realdata_suite --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.realdata_suite --check paper --n-jobs 2
python -m benchmarks.realdata_suite --report-only
python -m benchmarks.realdata_suite --tables olive,solder --learners mdDF,CascadeForest,HGB-es --repeats 1
python -m benchmarks.realdata_suite --quick
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
import pandas as pd

from benchmarks import realdata, realdata_report, realdata_rule
from benchmarks.data import categorical_mask, frames, ordinal_codes
from benchmarks.harness import CrossValidation, Data, Dataset, Study, fit_and_score, load_data, main_by_flag
from benchmarks.mixed import describe as describe_cascade
from benchmarks.regression import dataset as regression_dataset

FOLDS = 5
REPEATS = 3
#: The tables of 20,000 rows (about), cross-validated once.
ONE_REPEAT = ("mplsstops", "ratsex", "gsswages", "storms")
#: ``--quick``: one small table of each task, two folds, one repeat, a few small learners.
QUICK_TABLES = ("olive", "miceweights")
QUICK_LEARNERS = ("mdDF-base", "mdDF-pairs", "CascadeForest-base", "CascadeForest-pairs", "HGB-es", "Baseline")
QUICK_CASCADE = {"n_estimators": 4, "max_layers": 2}
#: Trees of the random forest and extra trees (the trees of one mdDF layer); ``--quick``: 20.
FOREST_TREES = 400

#: The four forests of a layer of the base design, and the boosted-member design: an XGBoost member (``"gbdt"``)
#: beside them in every layer, whose splits on the raw features and the class vectors can follow directions the
#: forests need many splits for.
FORESTS = ("rf", "rf", "crf", "crf")
BOOSTED_MEMBER = (*FORESTS, "gbdt")
#: The pair features with differences (``a - b``) beside log-ratios and products: ``PairFeatures(operations=...)``.
PAIRS3 = "pairs3"
#: The base design of the second rule (the defaults of 2026-11-27), every knob a candidate is about set, so that a
#: change of a default changes none of the learners.
BASE = {"forest_types": FORESTS, "pair_features": None, "probe_trees": None}
#: name -> MDDFClassifier parameters (``pair_features=PAIRS3``: :data:`PAIRS3`).
CLASSIFIERS = {
    "mdDF-base": {**BASE, "calibration": None},
    "mdDF-gbdt": {**BASE, "calibration": None, "forest_types": BOOSTED_MEMBER},
    "mdDF-pairs": {**BASE, "calibration": None, "pair_features": "auto"},
    "mdDF-pairs3": {**BASE, "calibration": None, "pair_features": PAIRS3},
    "mdDF-gbdt-pairs": {**BASE, "calibration": None, "forest_types": BOOSTED_MEMBER, "pair_features": "auto"},
    "mdDF-cal": {**BASE, "calibration": "temperature"},
    # the new default as the rule made it: the boosted member, calibrated (its labels are mdDF-gbdt's)
    "mdDF-gbdt-cal": {**BASE, "calibration": "temperature", "forest_types": BOOSTED_MEMBER},
}
#: name -> CascadeForestRegressor parameters.
REGRESSORS = {
    "CascadeForest-base": dict(BASE),
    "CascadeForest-gbdt": {**BASE, "forest_types": BOOSTED_MEMBER},
    "CascadeForest-pairs": {**BASE, "pair_features": "auto"},
    "CascadeForest-pairs3": {**BASE, "pair_features": PAIRS3},
    "CascadeForest-gbdt-pairs": {**BASE, "forest_types": BOOSTED_MEMBER, "pair_features": "auto"},
    # the new default as the cost page's probe rule made it: pair features with differences, layer probes
    "CascadeForest-pairs3-probes": {**BASE, "pair_features": PAIRS3, "probe_trees": 0.25},
}
#: Candidates fitted on the tables with category columns only (none in the second rule).
CATEGORY_ONLY = ()

#: The paper's datasets check: the datasets of each task, its folds and seeds.
PAPER_CLASSIFICATION = ("letter", "satimage", "adult", "yeast")
PAPER_REGRESSION = ("diabetes", "friedman1", "friedman3")
PAPER_FOLDS = 3
PAPER_SEEDS = 5
#: A class with fewer training rows than this stays in every training part and is not scored (yeast's ERL).
MIN_SCORED_CLASS_ROWS = 5
PAPER_QUICK_LEARNERS = ("mdDF-base", "mdDF-pairs", "CascadeForest-base", "CascadeForest-pairs")
#: The check's learners by default: the bases; a candidate when named in ``--learners``, once it meets the rule's
#: conditions (a), (c) and (d) on the suite.
PAPER_LEARNERS = ("mdDF-base", "CascadeForest-base")


# ------------------------------------------------------------------------------------------ learners
def cascade_parameters(params: dict) -> dict:
    """A learner's cascade parameters, :data:`PAIRS3` made the :class:`mddf.PairFeatures` it names."""
    from mddf import PairFeatures

    if params.get("pair_features") == PAIRS3:
        return {**params, "pair_features": PairFeatures(operations=("log_ratio", "product", "difference"))}
    return dict(params)


def cascade(params: dict):
    """A builder of the task's cascade with ``params`` (``--quick``: a small one)."""

    def build(ctx):
        from mddf import CascadeForestRegressor, MDDFClassifier

        cls = MDDFClassifier if ctx.task == "classification" else CascadeForestRegressor
        quick = QUICK_CASCADE if ctx.quick else {}
        return cls(random_state=ctx.seed, n_jobs=ctx.n_jobs, **quick, **cascade_parameters(params))

    return build


def learner_settings(method: str) -> str | None:
    """A cascade learner's full parameters (defaults included, seed and threads aside), as text: its records are
    bound to them (:class:`benchmarks.harness.Study`'s ``learner_settings``, part of their settings hash); None for
    the peers."""
    from mddf import CascadeForestRegressor, MDDFClassifier

    if method in CLASSIFIERS:
        model = MDDFClassifier(**cascade_parameters(CLASSIFIERS[method]))
    elif method in REGRESSORS:
        model = CascadeForestRegressor(**cascade_parameters(REGRESSORS[method]))
    else:
        return None
    params = model.get_params(deep=False)
    return repr(sorted((k, v) for k, v in params.items() if k not in ("random_state", "n_jobs")))


def _extra_trees(context, **params):
    from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor

    cls = ExtraTreesRegressor if context.task == "regression" else ExtraTreesClassifier
    return cls(
        n_estimators=20 if context.profile == "quick" else FOREST_TREES,
        random_state=context.seed,
        n_jobs=context.n_jobs,
        **params,
    )


def _random_forest(context, **params):
    from mddf.experiments.methods import build_practitioner_forest

    return build_practitioner_forest(context, n_estimators=20 if context.profile == "quick" else FOREST_TREES)


def peer(name: str):
    """A builder of a reference learner, given a DataFrame's category columns as ordinal codes (declared)."""

    def build(ctx):
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import FunctionTransformer

        from mddf.experiments import methods

        builder = {
            "HGB-es": methods.build_hgb_early_stopping,
            "LightGBM-es": methods.build_lightgbm_early_stopping,
            "XGBoost-es": methods.build_xgboost_early_stopping,
            "RF-400": _random_forest,
            "ExtraTrees-400": _extra_trees,
            "CatBoost-es": methods.build_catboost_early_stopping,
            "Baseline": methods.build_baseline,
        }[name]
        data = load_data(ctx)
        classify = ctx.task == "classification"
        context = methods.BuildContext(
            seed=ctx.seed,
            n_jobs=ctx.n_jobs,
            profile="quick" if ctx.quick else "paper",
            n_features=np.shape(data.X_train)[1],
            n_classes=len(np.unique(data.y_train)) if classify else 0,
            categorical_mask=tuple(categorical_mask(data.X_train)),
            task=ctx.task,
            protocol="practitioner",
        )
        model = builder(context)
        return make_pipeline(FunctionTransformer(ordinal_codes), model) if hasattr(data.X_train, "columns") else model

    return build


#: The reference learners: the report's peers of the default, and the majority class or mean.
PEERS = (*realdata_rule.PEERS, "Baseline")
METHODS = {
    **{name: cascade(params) for name, params in CLASSIFIERS.items()},
    **{name: cascade(params) for name, params in REGRESSORS.items()},
    **{name: peer(name) for name in PEERS},
}


def task_of(method: str) -> str | None:
    """The task a learner is for (None: both)."""
    return "classification" if method in CLASSIFIERS else "regression" if method in REGRESSORS else None


# ------------------------------------------------------------------------------------------ datasets
def suite_datasets(options) -> list:
    """The suite's tables, smallest first; the tables of :data:`ONE_REPEAT` repeated once."""
    entries = {e["name"]: e for e in realdata.manifest()}
    found = [
        dataclasses.replace(d, repeats=1 if d.name in ONE_REPEAT else None)
        for d in sorted(realdata.datasets(), key=lambda d: (entries[d.name]["rows"], d.name))
    ]
    return found


def _entry(name: str) -> dict | None:
    return next((e for e in realdata.manifest() if e["name"] == name), None)


def task_of_dataset(name: str) -> str:
    """The task of a dataset of the study (a suite table's by its manifest)."""
    if name in PAPER_CLASSIFICATION:
        return "classification"
    if name in PAPER_REGRESSION:
        return "regression"
    return _entry(name)["task"]


def has_categories(name: str) -> bool:
    """Whether a dataset of the study has category columns (a suite table by its manifest; of the check sets,
    adult)."""
    if name in PAPER_CLASSIFICATION + PAPER_REGRESSION:
        return name == "adult"
    return _entry(name)["n_categorical"] > 0


def applies(method: str, dataset: str, options) -> bool:
    """A learner of the table's task; the category-only candidates on tables with category columns."""
    if task_of(method) not in (None, task_of_dataset(dataset)):
        return False
    return method not in CATEGORY_ONLY or has_categories(dataset)


#: SHA-256 over the suite's manifest and table files: the data its tables' records are bound to.
suite_digest = realdata.digest


@dataclasses.dataclass(frozen=True)
class CheckData(Data):
    """A check dataset's rows: the training rows to cross-validate, and the rows kept in every training part."""

    X_kept: object = None
    y_kept: object = None


def keep_small_classes(data: Data, min_rows: int = MIN_SCORED_CLASS_ROWS) -> CheckData:
    """Split off the training rows of the classes with fewer than ``min_rows`` rows: kept in every training part
    of the cross-validation, never scored. The test rows are dropped (the check never reads them)."""
    y = np.asarray(data.y_train)
    labels, counts = np.unique(y, return_counts=True)
    small = np.isin(y, labels[counts < min_rows])
    rows = data.X_train.iloc if hasattr(data.X_train, "iloc") else data.X_train
    return CheckData(rows[~small], y[~small], X_kept=rows[small], y_kept=y[small])


def paper_datasets(options) -> list:
    """The paper's check sets: the classifier's (as DataFrames, adult's categories as categories) and the
    regressor's (the regression benchmark's data of each seed)."""

    def classification(name):
        base = frames(name)

        def load(ctx):
            return keep_small_classes(base.load(ctx))

        return Dataset(name, load, fields={"suite": "paper"})

    regression = [dataclasses.replace(regression_dataset(n), fields={"suite": "paper"}) for n in PAPER_REGRESSION]
    return [classification(n) for n in PAPER_CLASSIFICATION] + regression


# ------------------------------------------------------------------------------------------ one fit
_WARMED: set = set()


def warm_up(model, X, y, task: str):
    """Fit a two-tree, two-layer copy of a cascade on a few rows once per process, configuration and kind of input
    (with category columns or not), so that the measured fit does not include loading or compiling the tree code
    its paths need."""
    from sklearn.base import clone

    cascade = model[-1] if hasattr(model, "steps") else model
    if not hasattr(cascade, "max_layers"):
        return
    key = (repr(cascade), bool(categorical_mask(X).any()))
    if key in _WARMED:
        return
    _WARMED.add(key)
    y = np.asarray(y)
    if task == "classification":
        rows = np.concatenate([np.flatnonzero(y == label)[:20] for label in np.unique(y)])
    else:
        rows = np.arange(min(len(y), 60))
    small = clone(cascade).set_params(n_estimators=2, max_layers=2)
    part = X.iloc[rows] if hasattr(X, "iloc") else X[rows]
    small.fit(part, y[rows]).predict(part)


def fit(ctx, X, y, X_eval, y_eval) -> dict:
    """Fit the unit's learner on its training part (and the check's kept rows) and score its held-out part.

    Besides the harness's scores and seconds, the record holds the task, the number of category columns, the rows
    kept in training, and what pools the held-out parts of a seed: the rows classified right (``n_correct``), or
    the squared errors' sum and the targets' sum and sum of squares (``sse``, ``y_sum``, ``y_sq_sum``).
    """
    data = load_data(ctx)
    if getattr(data, "X_kept", None) is not None and len(data.y_kept):
        X = pd.concat([X, data.X_kept]) if hasattr(X, "iloc") else np.concatenate([X, data.X_kept])
        y = np.concatenate([y, data.y_kept])
    warm_up(ctx.build(), X, y, ctx.task)
    record = fit_and_score(ctx, X, y, X_eval, y_eval)
    record.update(
        task=ctx.task,
        n_categorical=int(categorical_mask(X).sum()),
        n_kept=int(len(data.y_kept)) if getattr(data, "y_kept", None) is not None else 0,
    )
    n = len(y_eval)
    if record.get("accuracy") is not None:  # the held-out parts of a seed pooled: the paper check's score
        record["n_correct"] = int(round(record["accuracy"] * n))
    if record.get("rmse") is not None:
        y_eval = np.asarray(y_eval, dtype=np.float64)
        record.update(sse=float(record["rmse"] ** 2 * n), y_sum=float(y_eval.sum()), y_sq_sum=float(y_eval @ y_eval))
    return record


def describe(model, ctx, record) -> dict:
    """The cascade's layers and predictor choice, the features its pair search appended, its calibration and each
    grown layer's members' own out-of-fold scores (``member_scores``: accuracy, or mean squared error)."""
    out = describe_cascade(model, ctx, record)
    history = getattr(model, "train_history_", None)
    if history and ("forest_oof_accuracy" in history[0] or "forest_oof_mse" in history[0]):
        key = "forest_oof_accuracy" if "forest_oof_accuracy" in history[0] else "forest_oof_mse"
        out["member_scores"] = [[float(v) for v in layer[key]] for layer in history]
    names = getattr(model, "pair_feature_names_", None)
    if names is not None:
        out.update(n_pairs=len(names), pairs=[str(n) for n in names])
    calibration = getattr(model, "calibration_", None)
    if calibration is not None:
        out.update(temperature=calibration.temperature, smoothing=calibration.smoothing)
    return out


# ------------------------------------------------------------------------------------------ command line
def options(parser):
    parser.add_argument("--tables", dest="datasets", help="comma-separated tables (the same as --datasets)")
    parser.add_argument("--learners", dest="methods", help="comma-separated learners (the same as --methods)")
    parser.add_argument("-q", dest="quiet", action="store_true", help="the same as --quiet")
    parser.add_argument(
        "--check", choices=("paper",), help="run the paper's datasets check of the rules instead of the suite"
    )


def check_options(options, parser):
    tasks = {task_of_dataset(n) for n in options.dataset_names}
    if not any(task_of(m) in (None, *tasks) for m in options.method_names):
        parser.error("no learner of the tables' tasks among --learners")


def _report(results):
    return realdata_report.suite_page(results)


def _check_report(results):
    return realdata_report.check_page(results)


def _rows(results):
    return realdata_report.suite_rows(results)


STUDY = Study(
    "realdata_suite",
    __doc__,
    datasets=suite_datasets,
    methods=METHODS,
    protocol=CrossValidation(n_folds=FOLDS, repeats=REPEATS),
    quick={"datasets": QUICK_TABLES, "methods": QUICK_LEARNERS, "repeats": 1, "folds": 2},
    optional={"LightGBM-es": "lightgbm", "CatBoost-es": "catboost"},
    learner_settings=learner_settings,
    options=options,
    check=check_options,
    applies=applies,
    fit=fit,
    describe=describe,
    table=_report,
    rows=_rows,
    report="realdata",
    limit_threads=True,
)
PAPER_CHECK = Study(
    "realdata_suite",
    __doc__,
    datasets=paper_datasets,
    methods={name: METHODS[name] for name in (*CLASSIFIERS, *REGRESSORS)},
    protocol=CrossValidation(n_folds=PAPER_FOLDS, repeats=PAPER_SEEDS),
    default_methods=PAPER_LEARNERS,
    learner_settings=learner_settings,
    quick={"datasets": ("satimage", "diabetes"), "methods": PAPER_QUICK_LEARNERS, "repeats": 2},
    options=options,
    settings=lambda options: {"check": "paper"},
    check=check_options,
    applies=applies,
    fit=fit,
    describe=describe,
    table=_check_report,
    report="paper_check",
    limit_threads=True,
)

_main = main_by_flag("--check", PAPER_CHECK, STUDY)


def main(argv=None) -> int:
    """Run the suite (or, with ``--check paper``, the paper's datasets check); without the suite's files, or with a
    file that differs from its manifest, one line on stderr and exit status 2."""
    return realdata.run_reporting_errors("realdata_suite", _main, argv)


if __name__ == "__main__":
    sys.exit(main())
