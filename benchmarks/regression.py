"""Regression: CascadeForestRegressor against RF400, ExtraTrees400, HistGradientBoosting and LightGBM.

Datasets: scikit-learn's diabetes data (442 rows, a quarter held out by the seed); the synthetic Friedman #1 (10
features, 5 of them noise; noise sd 1.0) and Friedman #3 (4 features; noise sd 0.1, the 3:1 signal-to-noise ratio
of Breiman's bagging experiments), each with 10,000 training rows and an independent test set of 10,000 rows drawn
with another seed; California housing (a quarter held out by the seed, the first 10,000 of the rest trained on)
when it is already in scikit-learn's data folder (never downloaded here: it is left out with a message
otherwise). Two tables with category columns and missing values, run when named in ``--datasets``:
``mixed_regression`` (the columns of ``mixed_categories`` with a continuous target,
:func:`benchmarks.data.mixed_categories_regression`, 10,000 training and 10,000 test rows drawn with the seed) and
``adult_age`` (adult's age from its other 13 columns, 8 categorical; its standard split). On them, the cascade,
HistGradientBoosting and LightGBM get the categories as pandas ``category`` columns, the cascade with each
``categorical_splits`` named (``CascadeForest-ordinal``, ``CascadeForest-subset``, in place of the defaults);
RF400 and ExtraTrees400 get the ordinal codes (a missing category as NaN). Each fit runs in a fresh process
(``--in-process``: in this one); scores: the test R² and RMSE.

``--select`` chooses the cascade's configuration without the test rows: every candidate of :data:`CANDIDATES`
(``--methods``; each also scored with ``predictor="hgb"`` on the same fit) and HistGradientBoosting as a reference
get a 3-fold cross-validation of the training rows, repeated with every seed (``--repeats``); ``selection.md``
gives the mean CV R² per configuration and dataset and chooses the highest mean over the datasets. Then run the
test comparison with the chosen parameters (``--params``).

Examples
--------
python -m benchmarks.regression --seeds 0,1,2
python -m benchmarks.regression --datasets friedman1 --params '{"forest_types": ["rf", "rf", "et", "et"]}'
python -m benchmarks.regression --select --repeats 3 --in-process
python -m benchmarks.regression --datasets mixed_regression,adult_age --seeds 0,1,2,3,4
python -m benchmarks.regression --quick
"""

import json
import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.data import load_frames, mixed_categories_regression, ordinal_codes
from benchmarks.harness import (
    CrossValidation,
    Data,
    Dataset,
    Study,
    TrainTest,
    load_data,
    main_by_flag,
    mean_std,
    not_run,
    summary,
    timed_fit,
)
from benchmarks.harness.report import number
from mddf.experiments.runner import predictor_choice
from mddf.experiments.tables import markdown_table

NUMERIC = ("diabetes", "friedman1", "friedman3", "california")
#: The tables with category columns (pandas DataFrames), run when named in ``--datasets``.
CATEGORIES = ("mixed_regression", "adult_age")
#: The cascade with each ``categorical_splits`` named, fitted on the tables with categories only.
CATEGORY_METHODS = {"CascadeForest-ordinal": "ordinal", "CascadeForest-subset": "subset"}
N_ROWS = 10_000
QUICK_ROWS = 300
QUICK_CASCADE = {"n_estimators": 5, "max_layers": 2}

#: The configurations ``--select`` compares (all parameters explicit, so that a name keeps its meaning when the
#: defaults change). Each is also scored with ``predictor="hgb"`` on the same cascade.
_RF2_CRF2 = {"forest_types": ["rf", "rf", "crf", "crf"], "categorical_splits": "ordinal"}
_GBDT = {"forest_types": ["rf", "rf", "crf", "gbdt"]}
CANDIDATES = {
    "rf2-crf2": {**_RF2_CRF2, "target": "y", "max_features": 1.0},
    "rf2-crf-gbdt": {**_RF2_CRF2, **_GBDT, "target": "y", "max_features": 1.0},
    "rf-crf-gbdt2": {**_RF2_CRF2, "forest_types": ["rf", "crf", "gbdt", "gbdt"], "target": "y", "max_features": 1.0},
    "rf2-crf2 residual": {**_RF2_CRF2, "target": "residual", "max_features": 1.0},
    "rf2-crf-gbdt residual": {**_RF2_CRF2, **_GBDT, "target": "residual", "max_features": 1.0},
    # the random forests' candidate features per split: all of them (scikit-learn's regression default), half
    # (the default now), or Breiman's p/3 for regression
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
SELECTION_PREDICTOR = "hgb"
SELECTION_REFERENCE = "HistGradientBoosting"


# ------------------------------------------------------------------------------------------ data
def make_data(dataset: str, seed: int, n_rows: int = N_ROWS):
    """``X_train, y_train, X_test, y_test`` of ``dataset`` for ``seed`` (a DataFrame for the tables with categories)."""
    from sklearn.datasets import fetch_california_housing, load_diabetes, make_friedman1, make_friedman3
    from sklearn.model_selection import train_test_split

    if dataset == "mixed_regression":
        X, y = mixed_categories_regression(2 * n_rows, random_state=seed)
        return X.iloc[:n_rows], y[:n_rows], X.iloc[n_rows:], y[n_rows:]
    if dataset == "adult_age":
        X_train, _, X_test, _ = load_frames("adult")
        if n_rows < N_ROWS:
            X_train, X_test = X_train.iloc[:n_rows], X_test.iloc[:n_rows]
        y_train, y_test = (X["age"].to_numpy(dtype="float64") for X in (X_train, X_test))
        return X_train.drop(columns="age"), y_train, X_test.drop(columns="age"), y_test
    if dataset in ("diabetes", "california"):
        loaded = load_diabetes if dataset == "diabetes" else fetch_california_housing
        X, y = loaded(return_X_y=True, **({} if dataset == "diabetes" else {"download_if_missing": False}))
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed)
        return (
            (X_train[:n_rows], y_train[:n_rows], X_test, y_test)
            if dataset == "california"
            else (X_train, y_train, X_test, y_test)
        )
    make = {
        "friedman1": lambda n, s: make_friedman1(n, n_features=10, noise=1.0, random_state=s),
        "friedman3": lambda n, s: make_friedman3(n, noise=0.1, random_state=s),
    }[dataset]
    return (*make(n_rows, seed), *make(n_rows, seed + 10_000))


def california_cached() -> bool:
    """Whether scikit-learn's California housing data is in its data folder (never downloads it)."""
    from sklearn.datasets import fetch_california_housing

    try:
        fetch_california_housing(download_if_missing=False)
    except OSError:
        return False
    return True


def dataset(name: str) -> Dataset:
    def load(ctx):
        return Data(*make_data(name, ctx.seed, QUICK_ROWS if ctx.quick else N_ROWS))

    return Dataset(name, load, task="regression", seeded=name != "adult_age")


# ------------------------------------------------------------------------------------------ methods
def cascade(params=None, splits=None):
    def build(ctx):
        from mddf import CascadeForestRegressor

        given = {**(QUICK_CASCADE if ctx.quick else {}), **(params or ctx.options.params)}
        if splits:
            given["categorical_splits"] = splits
        return CascadeForestRegressor(random_state=ctx.seed, n_jobs=ctx.n_jobs, **given)

    return build


def forest(kind):
    def build(ctx):
        from sklearn import ensemble
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import FunctionTransformer

        cls = getattr(ensemble, f"{kind}Regressor")
        model = cls(n_estimators=20 if ctx.quick else 400, random_state=ctx.seed, n_jobs=ctx.n_jobs)
        frame = hasattr(load_data(ctx).X_train, "columns")  # a DataFrame's categories as their codes
        return make_pipeline(FunctionTransformer(ordinal_codes), model) if frame else model

    return build


def hist_gradient_boosting(ctx):
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(random_state=ctx.seed)


def lightgbm(ctx):
    from lightgbm import LGBMRegressor

    return LGBMRegressor(random_state=ctx.seed, n_jobs=ctx.n_jobs, verbose=-1)


METHODS = {
    "CascadeForest": cascade(),
    **{name: cascade(splits=splits) for name, splits in CATEGORY_METHODS.items()},
    "RF400": forest("RandomForest"),
    "ExtraTrees400": forest("ExtraTrees"),
    "HistGradientBoosting": hist_gradient_boosting,
    "LightGBM": lightgbm,
}


def applies(method, dataset, options) -> bool:
    """The cascade with its ``categorical_splits`` named on the tables with categories, the default cascade on the
    others, every other method on all."""
    if method in CATEGORY_METHODS:
        return dataset in CATEGORIES
    return method != "CascadeForest" or dataset not in CATEGORIES


def describe(model, ctx, record):
    if not hasattr(model, "n_layers_"):
        return {}
    history = model.train_history_
    out = {"params": {**(QUICK_CASCADE if ctx.quick else {}), **ctx.options.params}, "layers": int(model.n_layers_)}
    return {**out, "grown": len(history), "oof_r2": [h["oof_r2"] for h in history], **predictor_choice(model)}


def table(results) -> str:
    """Test R² (mean ± std over seeds) and median fit seconds per dataset and method; the cascades' layers."""
    methods = [m for m in results.methods if results.of(method=m)]
    r2 = summary(results, "r2")
    lines = []
    for title, cell in (
        ("Test R^2, mean ± std over seeds", lambda d, m: mean_std(r2.get((d, m), []), 4)),
        (
            "Fit seconds, median over seeds",
            lambda d, m: f"{statistics.median(r['fit_s'] for r in results.of(d, m)):.2f}" if results.of(d, m) else "",
        ),
    ):
        rows = [[d, *(cell(d, m) for m in methods)] for d in results.datasets if results.of(d)]
        lines += [f"{title}:", "", *markdown_table(["dataset", *methods], rows), ""]
    for name in (m for m in methods if m.startswith("CascadeForest")):
        layers = [
            f"{d}: {'/'.join(str(r['layers']) for r in results.of(d, name))}"
            for d in results.datasets
            if results.of(d, name)
        ]
        lines.append(f"{name} layers kept per seed: " + "; ".join(layers))
    return "\n".join(lines).rstrip() + not_run(results) + "\n"


def check(options, parser):
    options.params = json.loads(options.params)
    if "california" in options.dataset_names and not california_cached():
        print(
            "California housing is not in scikit-learn's data folder: it is left out (this study never downloads; "
            "sklearn.datasets.fetch_california_housing() does)",
            file=sys.stderr,
        )
        options.dataset_names.remove("california")


def options(parser):
    parser.add_argument("--params", default="{}", help="JSON of CascadeForestRegressor parameters")
    parser.add_argument(
        "--select", action="store_true", help="cross-validate the candidate configurations on the training rows"
    )


# ------------------------------------------------------------------------------------------ the selection
def cross_validate(ctx, X, y, X_eval, y_eval):
    """A candidate fitted once with ``predictor="hgb"``: ``r2`` scores its own prediction, ``r2_predictor`` the
    predictor's; the reference is scored as it is."""
    from sklearn.metrics import r2_score

    if ctx.method == SELECTION_REFERENCE:
        predicted, fit_s, _ = timed_fit(hist_gradient_boosting(ctx), X, y, X_eval)
        return {"r2": float(r2_score(y_eval, predicted)), "fit_s": fit_s}
    params = {**CANDIDATES[ctx.method], "predictor": SELECTION_PREDICTOR}
    model = cascade(params)(ctx)
    with_predictor, fit_s, _ = timed_fit(model, X, y, X_eval)
    *_, own = model.staged_predict(X_eval)
    return {
        "r2": float(r2_score(y_eval, own)),
        "r2_predictor": float(r2_score(y_eval, with_predictor)),
        "fit_s": fit_s,
        "params": params,
        "layers": int(model.n_layers_),
    }


def selection_scores(results) -> dict:
    """``{(configuration, dataset): [mean CV R² per repeat]}``; a candidate with the predictor is named
    ``"<candidate> + hgb"``."""
    scores = {}
    for key, name in (("r2", "{}"), ("r2_predictor", "{} + " + SELECTION_PREDICTOR)):
        for (d, m), values in summary(results, key).items():
            scores[(name.format(m), d)] = values
    return scores


def chosen_params(name: str) -> dict:
    """The CascadeForestRegressor parameters of a selected configuration name."""
    suffix = f" + {SELECTION_PREDICTOR}"
    if name.endswith(suffix):
        return {**CANDIDATES[name[: -len(suffix)]], "predictor": SELECTION_PREDICTOR}
    return dict(CANDIDATES[name])


def selection_table(results) -> str:
    scores = selection_scores(results)
    repeats = results.options.repeats
    names = list(dict.fromkeys(n for n, _ in scores))
    complete = [n for n in names if all(len(scores.get((n, d), [])) == repeats for d in results.datasets)]
    means = {n: {d: statistics.fmean(scores[(n, d)]) for d in results.datasets} for n in complete}
    overall = {n: statistics.fmean(means[n].values()) for n in complete}
    chosen = max((n for n in complete if not n.startswith(SELECTION_REFERENCE)), key=overall.get, default=None)
    rows = [
        [n + (" (chosen)" if n == chosen else ""), *(number(means[n][d]) for d in results.datasets), number(overall[n])]
        for n in complete
    ]
    lines = [f"CV R^2 on the training rows ({results.options.folds} folds), mean over {repeats} repeats:", ""]
    lines += markdown_table(["configuration", *results.datasets, "mean"], rows)
    lines += [
        "",
        f"Chosen: {chosen} ({json.dumps(chosen_params(chosen))})"
        if chosen
        else "No candidate has every dataset, repeat and fold done yet.",
    ]
    return "\n".join(lines) + not_run(results) + "\n"


COMMON = dict(
    datasets=[dataset(d) for d in NUMERIC + CATEGORIES],
    default_datasets=NUMERIC,
    quick={"seeds": (0,), "repeats": 1},
    options=options,
    check=check,
    settings=lambda options: {"params": options.params},
    fresh_process=True,
)
STUDY = Study(
    "regression",
    __doc__,
    methods=METHODS,
    protocol=TrainTest(seeds=(0, 1, 2)),
    optional={"LightGBM": "lightgbm"},
    applies=applies,
    describe=describe,
    table=table,
    **COMMON,
)
SELECTION = Study(
    "regression",
    __doc__,
    methods={**dict.fromkeys(CANDIDATES, None), SELECTION_REFERENCE: None},
    protocol=CrossValidation(n_folds=3, repeats=3),
    fit=cross_validate,
    table=selection_table,
    report="selection",
    **COMMON,
)


main = main_by_flag("--select", SELECTION, STUDY)


if __name__ == "__main__":
    sys.exit(main())
