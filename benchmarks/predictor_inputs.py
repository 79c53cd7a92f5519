"""What a model after the cascade gains from its class vectors.

On the training rows of each dataset alone (never its test rows), a stratified k-fold CV (``--folds``, default 2,
``--repeats`` of it): on each CV-training part one :class:`mddf.MDDFClassifier` (its defaults, no ``predictor``;
``--params`` adds parameters) is fitted once, and every *variant* below is fitted on that part and scored on the
held-out part, so that the variants are compared on the same cascades, pair by pair:

- ``cascade``: the cascade's own prediction, ``argmax f_T`` (eq. 9);
- ``hgb[x,f]``: HistGradientBoosting on ``[x, f_T]`` with the out-of-fold ``f_T`` of the part's rows, as
  ``predictor="hgb"`` trains it (the category columns of ``x`` split into subsets), its ``random_state`` the seed;
- ``xgb[x,f]``: the same with ``predictor="xgboost"``'s XGBoost;
- ``hgb[x]``: HistGradientBoosting on ``x`` alone, the cascade's encoding of the same columns: what the class
  vectors add to the first variant;
- ``xgb-margin[x]`` and ``xgb-margin[x,f]``: XGBoost *boosted from the cascade*: its starting margin is the log of
  the out-of-fold class vector (for two classes the logit of the second class's share; shares clipped to [1e-6,
  1 - 1e-6]), on ``x`` or ``[x, f_T]``, learning rate 0.1 and at most 1000 rounds, stopped after 20 rounds without
  gain on a stratified tenth of the part's rows. New rows start from the log of their ``f_T``.

``<out>/predictor_inputs.md``: per dataset, each variant's mean CV accuracy over the repeats (each the mean of its
folds) with its standard error, and the mean rank of each variant over the datasets.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.predictor_inputs --repeats 3
python -m benchmarks.predictor_inputs --quick
"""

import json
import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks import _internals
from benchmarks.data import frames
from benchmarks.harness import CrossValidation, Study, mean_ranks
from mddf.experiments.metrics import standard_error
from mddf.experiments.tables import markdown_table, plus_minus

DATASETS = ("adult", "mixed_categories", "numeric_interaction", "satimage", "letter")
VARIANTS = ("cascade", "hgb[x,f]", "xgb[x,f]", "hgb[x]", "xgb-margin[x]", "xgb-margin[x,f]")
#: The boosted-from-the-cascade variants' settings beside make_gbdt's trees.
MARGIN_BOOSTING = dict(learning_rate=0.1, n_estimators=1000, early_stopping_rounds=20)
MARGIN_VALIDATION = 0.1
_CLIP = 1e-6


def start_margin(shares):
    """XGBoost's starting margin for class shares ``(n, k)``: the logit of class 1 for k = 2, else the logs."""
    p = np.clip(np.asarray(shares, dtype=np.float64), _CLIP, 1 - _CLIP)
    if p.shape[1] == 2:
        return np.log(p[:, 1] / p[:, 0])
    return np.log(p)


def boost_from_margin(Z, y, margin, Z_new, margin_new, categorical, seed):
    """XGBoost boosted from ``margin`` on ``Z``, early-stopped on a stratified tenth; ``(predicted, rounds)``."""
    from sklearn.model_selection import train_test_split
    from xgboost import XGBClassifier

    params = {**_internals.make_gbdt(random_state=seed, categorical=categorical).get_params(), **MARGIN_BOOSTING}
    fit_rows, stop_rows = train_test_split(
        np.arange(len(y)), test_size=MARGIN_VALIDATION, random_state=seed, stratify=y
    )
    model = XGBClassifier(**params)
    model.fit(
        Z[fit_rows],
        y[fit_rows],
        base_margin=margin[fit_rows],
        eval_set=[(Z[stop_rows], y[stop_rows])],
        base_margin_eval_set=[margin[stop_rows]],
        verbose=False,
    )
    return model.predict_proba(Z_new, base_margin=margin_new).argmax(axis=1), int(model.best_iteration) + 1


def score_variants(X_fit, y_fit, X_held, y_held, seed, n_jobs, params, quick=False):
    """Accuracy of every variant on the held-out rows, from one cascade fitted on ``X_fit``; one dict."""
    from mddf import MDDFClassifier

    make_gbdt, make_hgb = _internals.make_gbdt, _internals.make_hgb
    size = {"n_estimators": 4, "max_layers": 2} if quick else {}
    cascade = MDDFClassifier(**{**params, **size, "predictor": None, "random_state": seed, "n_jobs": n_jobs})
    cascade.fit(X_fit, y_fit)
    y_fit = np.searchsorted(cascade.classes_, y_fit)  # class indices, as XGBoost wants them
    y_held = np.searchsorted(cascade.classes_, y_held)

    # [x, f_T] of the held-out rows as predictor="hgb" would read it, and predict_proba's output, from one pass
    z_held, proba = _internals.stacked_input(cascade, X_held)
    x_fit = _internals.validate_tabular(cascade, X_fit, reset=False, dtype=np.float32, ensure_all_finite="allow-nan")
    x_held = z_held[:, : cascade.n_features_in_]
    f_fit, f_held = cascade.oof_features_[-1], z_held[:, cascade.n_features_in_ :]
    z_fit = np.hstack([x_fit, f_fit])
    mask = _internals.categorical_prefix(cascade, z_fit.shape[1])
    x_mask = None if mask is None else mask[: x_fit.shape[1]]
    m_fit, m_held = start_margin(f_fit), start_margin(f_held)

    def accuracy(predicted):
        return float(np.mean(np.asarray(predicted) == y_held))

    scores = {"cascade": accuracy(proba.argmax(axis=1))}  # predict's argmax, as a class index
    scores["hgb[x,f]"] = accuracy(make_hgb(seed, categorical=mask).fit(z_fit, y_fit).predict(z_held))
    scores["xgb[x,f]"] = accuracy(make_gbdt(seed, categorical=mask).fit(z_fit, y_fit).predict(z_held))
    scores["hgb[x]"] = accuracy(make_hgb(seed, categorical=x_mask).fit(x_fit, y_fit).predict(x_held))
    rounds = {}
    for name, (a, b, m) in {"xgb-margin[x]": (x_fit, x_held, x_mask), "xgb-margin[x,f]": (z_fit, z_held, mask)}.items():
        predicted, rounds[name] = boost_from_margin(a, y_fit, m_fit, b, m_held, m, seed)
        scores[name] = accuracy(predicted)
    return {"accuracy": scores, "rounds": rounds, "layers": int(cascade.n_layers_)}


def summary(records, datasets=None):
    """Per dataset and variant: mean CV accuracy (%) over the seeds ± its standard error; then mean ranks.

    Returns ``(rows, ranks)``: rows of ``{"dataset", "seeds", <variant>: (mean, se)}`` and
    ``{variant: mean rank over the datasets}`` (1 is best; ties share their mean rank).
    """
    datasets = datasets or list(dict.fromkeys(r["dataset"] for r in records))
    rows = []
    for dataset in datasets:
        by_seed = {}
        for r in records:
            if r["dataset"] == dataset:
                by_seed.setdefault(r["seed"], []).append(r["accuracy"])
        if not by_seed:
            continue
        row = {"dataset": dataset, "seeds": len(by_seed)}
        for variant in VARIANTS:
            per_seed = [100 * statistics.fmean(folds[variant] for folds in f) for f in by_seed.values()]
            row[variant] = (statistics.fmean(per_seed), standard_error(per_seed))
        rows.append(row)
    means = [{"dataset": r["dataset"], "method": v, "accuracy": r[v][0]} for r in rows for v in VARIANTS]
    ranks = mean_ranks(means, VARIANTS, [r["dataset"] for r in rows])
    return rows, ranks


def markdown(rows, ranks):
    head = ["dataset", "seeds", *VARIANTS]
    body = [[r["dataset"], r["seeds"], *(plus_minus(*r[v]) for v in VARIANTS)] for r in rows]
    body.append(["mean rank", "", *(f"{ranks[v]:.2f}" for v in VARIANTS)])
    return (
        "# What a model after the cascade gains from its class vectors\n\n"
        "CV accuracy (%) on the training rows, mean ± standard error over the seeds (each seed the mean "
        "of its folds); the variants of one fold share one cascade. Mean rank over the datasets, 1 best.\n\n"
        + "\n".join(markdown_table(head, body))
        + "\n"
    )


def fit(ctx, X, y, X_held, y_held) -> dict:
    return score_variants(
        X, np.asarray(y), X_held, np.asarray(y_held), ctx.seed, ctx.n_jobs, ctx.options.mddf, ctx.quick
    )


def options(parser):
    parser.add_argument("--params", default="{}", help="JSON parameters of MDDFClassifier")
    parser.add_argument("--data-home", default=None, help="folder of the dataset files (default: $MDDF_DATA)")


def check(options, parser):
    options.mddf = json.loads(options.params)


STUDY = Study(
    "predictor_inputs",
    __doc__,
    datasets=[frames(d) for d in DATASETS],
    methods={"variants": None},
    protocol=CrossValidation(n_folds=2, repeats=1),
    quick={"datasets": ["mixed_categories"]},
    options=options,
    check=check,
    settings=lambda o: {"params": o.mddf},
    fit=fit,
    table=lambda results: markdown(*summary(results.records, results.datasets)),
    report="predictor_inputs",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
