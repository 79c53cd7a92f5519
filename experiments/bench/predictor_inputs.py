"""What a model after the cascade gains from its class vectors: ``scripts/bench_predictor_inputs.py``.

On the training rows of each dataset alone (never its test rows), a stratified k-fold CV
(``--cv-folds``, default 2, shuffled with the seed): on each CV-training part one
:class:`mddf.MDDFClassifier` (its defaults, no ``predictor``; ``--params`` adds parameters) is fitted
once, and every *variant* below is fitted on that part and scored on the held-out part, so that the
variants are compared on the same cascades, pair by pair:

- ``cascade``: the cascade's own prediction, ``argmax f_T`` (eq. 9);
- ``hgb[x,f]``: HistGradientBoosting on ``[x, f_T]`` with the out-of-fold ``f_T`` of the part's rows, as
  ``predictor="hgb"`` trains it (:func:`mddf.forests.make_hgb`, the category columns of ``x`` split
  into subsets), its ``random_state`` the seed rather than a draw from the cascade's stream;
- ``xgb[x,f]``: the same with ``predictor="xgboost"``'s XGBoost (:func:`mddf.forests.make_gbdt`);
- ``hgb[x]``: HistGradientBoosting on ``x`` alone, the cascade's encoding of the same columns: what the
  class vectors add to the first variant;
- ``xgb-margin[x]`` and ``xgb-margin[x,f]``: XGBoost *boosted from the cascade*: its starting margin
  is the log of the out-of-fold class vector (for two classes the logit of the second class's share;
  shares clipped to [1e-6, 1 - 1e-6]), on ``x`` or ``[x, f_T]``, with ``make_gbdt``'s trees, learning
  rate 0.1 and at most 1000 rounds, stopped after 20 rounds without gain on a stratified tenth of the
  part's rows. New rows start from the log of their ``f_T``.

Results go to ``<out>/results.jsonl`` (one record per dataset, seed and CV fold, appended as it
finishes; a rerun skips the finished ones) and ``<out>/predictor_inputs.md``: per dataset, each
variant's mean CV accuracy over the seeds (each seed the mean of its folds) with its standard error,
and the mean rank of each variant over the datasets.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np

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

    from mddf.forests import make_gbdt

    params = {**make_gbdt(random_state=seed, categorical=categorical).get_params(), **MARGIN_BOOSTING}
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
    from mddf.forests import make_gbdt, make_hgb
    from mddf.utils import validate_tabular

    size = {"n_estimators": 4, "max_layers": 2} if quick else {}
    cascade = MDDFClassifier(**{**params, **size, "predictor": None, "random_state": seed, "n_jobs": n_jobs})
    cascade.fit(X_fit, y_fit)
    y_fit = np.searchsorted(cascade.classes_, y_fit)  # class indices, as XGBoost wants them
    y_held = np.searchsorted(cascade.classes_, y_held)

    # [x, f_T] of the held-out rows as predictor="hgb" would read it, and predict_proba's output, from one pass
    z_held, proba = cascade._stacked_input(X_held)
    x_fit = validate_tabular(cascade, X_fit, reset=False, dtype=np.float32, ensure_all_finite="allow-nan")
    x_held = z_held[:, : cascade.n_features_in_]
    f_fit, f_held = cascade.oof_features_[-1], z_held[:, cascade.n_features_in_ :]
    z_fit = np.hstack([x_fit, f_fit])
    mask = cascade._categorical_prefix(z_fit.shape[1])
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
    from mddf.experiments.tables import mean_ranks, standard_error

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
    from mddf.experiments.tables import markdown_table, plus_minus

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


def _parser():
    parser = argparse.ArgumentParser(prog="bench_predictor_inputs.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--seeds", default="0", help="comma-separated seeds (default: %(default)s)")
    parser.add_argument("--cv-folds", type=int, default=2, help="folds of the CV on the training rows (default: 2)")
    parser.add_argument("--params", default="{}", help="JSON parameters of MDDFClassifier")
    parser.add_argument("--n-jobs", type=int, default=2, help="threads of each fit (default: 2)")
    parser.add_argument("--data-home", default=None, help="folder of the dataset files (default: $MDDF_DATA)")
    parser.add_argument("--quick", action="store_true", help="smoke test: small slices and tiny cascades")
    parser.add_argument("--out", default="results/predictor_inputs", help="output folder (default: %(default)s)")
    return parser


def main(argv=None):
    """Command line of ``scripts/bench_predictor_inputs.py``; returns the exit status."""
    from sklearn.model_selection import StratifiedKFold

    from mddf.experiments.bench.mixed_data import load_frames
    from mddf.experiments.provenance import provenance, record_stamp, script_path, with_markdown_header
    from mddf.experiments.store import ResultStore

    args = _parser().parse_args(argv)
    params = json.loads(args.params)
    datasets = args.datasets.split(",")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")

    def same_run(r):
        return r.get("params") == params and r.get("n_folds") == args.cv_folds and r.get("quick") == args.quick

    done = {(r["dataset"], r["seed"], r["fold"]) for r in store.records() if same_run(r)}
    for dataset in datasets:
        X, y, _, _ = load_frames(dataset, quick=args.quick, data_home=args.data_home)
        y = np.asarray(y)
        for seed in (int(s) for s in args.seeds.split(",")):
            folds = StratifiedKFold(n_splits=args.cv_folds, shuffle=True, random_state=seed).split(X, y)
            for fold, (fit_rows, held_out) in enumerate(folds):
                if (dataset, seed, fold) in done:
                    continue
                result = score_variants(
                    X.iloc[fit_rows], y[fit_rows], X.iloc[held_out], y[held_out], seed, args.n_jobs, params, args.quick
                )
                record = {"dataset": dataset, "seed": seed, "fold": fold, "n_folds": args.cv_folds}
                store.append({**record, "params": params, "quick": args.quick, **result, **record_stamp()})
                shown = ", ".join(f"{k} {100 * v:.2f}" for k, v in result["accuracy"].items())
                print(f"{dataset} seed {seed} fold {fold}: {shown}", flush=True)
    records = [r for r in store.records() if same_run(r) and r["dataset"] in datasets]
    text = markdown(*summary(records, datasets))
    (out / "predictor_inputs.md").write_text(
        with_markdown_header(text, provenance(script_path("bench_predictor_inputs.py"), argv))
    )
    print(text)
    return 0
