"""Where a default cascade's fit and prediction time goes: member by member, layer by layer.

One fit of each design of :mod:`benchmarks.price` (today's defaults by default) on one thread (``--n-jobs 1``, so
that the parts add up to the fit), on letter and adult (their training and test rows; adult's categories as
categories) and on every table of the real-data suite (a seeded stratified split: four fifths to fit, a fifth to
predict), with timers on the parts of the fit and of the prediction of the held-out rows:

- fit: the forests' tree loops (:class:`mddf.forests.growing.StagedForest`'s ``grow``: growing the trees, their
  draws and their out-of-fold outputs), the boosted member's fits (XGBoost's ``fit``), the pair search
  (:meth:`mddf.PairFeatures.fit_task`) and the rest (checking the input, binning, margins and layer weights,
  calibration); and the layers: each grown layer's seconds (``train_history_``), the share of the fit spent on the
  layers grown after the kept ones, and on layers decided on their probes;
- prediction: routing the forests (:meth:`mddf.forests.BinnedForest.predict_proba_binned` and the regression
  forests' ``predict_binned``), the boosted member (XGBoost's ``predict_proba`` and ``predict``), binning the
  layers' inputs (:meth:`mddf.trees.FeatureBinner.transform`) and the rest; and the trees a new row passes: the
  forests' trees and the boosted trees (rounds times the trees of a round) of the kept layers.

Outputs in ``--out``: ``time_split.md`` (a row per dataset and design: seconds and shares) and ``time_split.csv``.

Examples
--------
MDDF_DATA=/path/to/data MDDF_REALDATA=/path/to/realdata python -m benchmarks.time_split --n-jobs 1
python -m benchmarks.time_split --n-jobs 1 --datasets letter,adult --methods mdDF,mdDF-oob-es-refit
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
from sklearn.model_selection import train_test_split

from benchmarks import price, realdata
from benchmarks.data import frames
from benchmarks.harness import Data, Dataset, Study, TrainTest, scores
from benchmarks.profile import _Timers
from mddf.experiments.tables import markdown_table

FIT_PARTS = ("forests", "boosted member", "pair search", "other")
PREDICT_PARTS = ("forests", "boosted member", "binning", "other")
#: The suite tables' held-out share.
TEST_SHARE = 0.2


def fit_timers():
    """``(owner, attribute, part)`` of the callables timed during a fit."""
    import xgboost

    from mddf import PairFeatures
    from mddf.forests.growing import StagedForest

    return [
        (StagedForest, "grow", "forests"),
        (xgboost.XGBClassifier, "fit", "boosted member"),
        (xgboost.XGBRegressor, "fit", "boosted member"),
        (PairFeatures, "fit_task", "pair search"),
    ]


def predict_timers():
    """``(owner, attribute, part)`` of the callables timed during a prediction."""
    import xgboost

    from mddf.forests import BinnedForest, BinnedRegressionForest
    from mddf.trees import FeatureBinner

    return [
        (BinnedForest, "predict_proba_binned", "forests"),
        (BinnedRegressionForest, "predict_binned", "forests"),
        (xgboost.XGBClassifier, "predict_proba", "boosted member"),
        (xgboost.XGBRegressor, "predict", "boosted member"),
        (FeatureBinner, "transform", "binning"),
    ]


def timed(call, timers_of):
    """``(result, seconds, {part: seconds})`` of ``call()`` with the timers of ``timers_of()``; ``"other"`` is the
    rest."""
    timers = _Timers()
    for owner, name, part in timers_of():
        timers.wrap(owner, name, part)
    try:
        start = time.perf_counter()
        result = call()
        seconds = time.perf_counter() - start
    finally:
        timers.restore()
    parts = dict(timers.seconds)
    parts["other"] = max(seconds - sum(parts.values()), 0.0)
    return result, seconds, parts


def trees_a_row_passes(model) -> dict:
    """The trees of the kept layers a new row passes: the forests' and the boosted members' (rounds up to the best
    one times the trees of a round)."""
    forests = boosted = 0
    for block in model.layers_:
        for models in block.models_:
            for m in models:
                loaded = m.load() if hasattr(m, "load") else m
                if hasattr(loaded, "n_trees"):
                    forests += loaded.n_trees
                elif getattr(loaded, "estimator", None) is not None and hasattr(loaded.estimator, "get_booster"):
                    booster = loaded.estimator.get_booster()
                    best = getattr(loaded.estimator, "best_iteration", None)
                    rounds = booster.num_boosted_rounds() if best is None else best + 1
                    boosted += rounds * max(1, len(booster.get_dump()) // booster.num_boosted_rounds())
    return {"forest_trees": forests, "boosted_trees": boosted}


def fit(ctx, X, y, X_eval, y_eval) -> dict:
    """Fit and predict with the timers; the record holds the parts, the layers and the trees a row passes."""
    model = ctx.build()
    price.realdata_suite.warm_up(model, X, y, ctx.task)
    _, fit_s, fit_parts = timed(lambda: model.fit(X, y), fit_timers)
    predicted, predict_s, predict_parts = timed(lambda: model.predict(X_eval), predict_timers)
    history = model.train_history_
    layer_seconds = [r["fit_seconds"] for r in history]
    record = {**scores(ctx.study.metrics_for(ctx.dataset), model, X_eval, y_eval, predicted)}
    record.update(
        fit_s=fit_s,
        predict_s=predict_s,
        fit_parts=fit_parts,
        predict_parts=predict_parts,
        layer_seconds=layer_seconds,
        layers_kept=model.n_layers_,
        discarded_s=float(sum(layer_seconds[model.n_layers_ :])),
        probe_decided=sum(1 for r in history if r.get("finished") is False),
        n_train=len(y),
        n_test=len(y_eval),
        **trees_a_row_passes(model),
    )
    return record


def suite_split(entry) -> Dataset:
    """A suite table split once: a stratified (classification) fifth held out, seed 0."""

    def load(ctx):
        table = realdata.load_table(entry["name"])
        stratify = table.y if entry["task"] == "classification" else None
        X_fit, X_out, y_fit, y_out = train_test_split(
            table.X, table.y, test_size=TEST_SHARE, random_state=0, stratify=stratify
        )
        return Data(X_fit, np.asarray(y_fit), X_out, np.asarray(y_out))

    return Dataset(entry["name"], load, task=entry["task"], fields={"suite": "realdata"})


def datasets(options) -> list:
    paper = [frames("letter"), frames("adult")]
    try:
        suite = [suite_split(e) for e in sorted(realdata.manifest(), key=lambda e: e["rows"])]
    except realdata.RealDataError:
        suite = []
    return paper + suite


def _share(part, parts, total) -> str:
    return f"{100 * parts.get(part, 0.0) / total:.0f}%" if total else ""


def table(results) -> str:
    header = ["dataset", "design", "fit s"] + [f"fit: {p}" for p in FIT_PARTS]
    header += ["layers grown (kept)", "discarded", "predict s"] + [f"predict: {p}" for p in PREDICT_PARTS]
    header += ["forest trees a row", "boosted trees a row"]
    body = []
    for r in sorted(results.records, key=lambda r: (r["dataset"], r["method"])):
        fit_s, predict_s = r["fit_s"], r["predict_s"]
        body.append(
            [r["dataset"], r["method"], f"{fit_s:.2f}"]
            + [_share(p, r["fit_parts"], fit_s) for p in FIT_PARTS]
            + [f"{len(r['layer_seconds'])} ({r['layers_kept']})", f"{100 * r['discarded_s'] / fit_s:.0f}%"]
            + [f"{predict_s:.3f}"]
            + [_share(p, r["predict_parts"], predict_s) for p in PREDICT_PARTS]
            + [f"{r['forest_trees']:,}", f"{r['boosted_trees']:,}"]
        )
    return "\n".join(markdown_table(header, body)) + "\n"


def rows(results) -> list:
    out = []
    for r in results.records:
        row = {"dataset": r["dataset"], "design": r["method"], "fit_s": r["fit_s"], "predict_s": r["predict_s"]}
        row.update({f"fit_{p}": r["fit_parts"].get(p, 0.0) for p in FIT_PARTS})
        row.update({f"predict_{p}": r["predict_parts"].get(p, 0.0) for p in PREDICT_PARTS})
        row.update(forest_trees=r["forest_trees"], boosted_trees=r["boosted_trees"], discarded_s=r["discarded_s"])
        out.append(row)
    return out


def applies(method, dataset, options) -> bool:
    task = "regression" if dataset in [e["name"] for e in _regression_tables()] else "classification"
    return price.task_of(method) == task


def _regression_tables():
    try:
        return [e for e in realdata.manifest() if e["task"] == "regression"]
    except realdata.RealDataError:
        return []


STUDY = Study(
    "time_split",
    __doc__,
    datasets=datasets,
    methods={name: price.METHODS[name] for name in (*price.CLASSIFIERS, *price.REGRESSORS)},
    protocol=TrainTest(),
    default_methods=tuple(price.DEFAULTS.values()),
    quick={"datasets": ("olive", "miceweights"), "methods": tuple(price.DEFAULTS.values())},
    learner_settings=price.learner_settings,
    applies=applies,
    fit=fit,
    table=table,
    rows=rows,
    report="time_split",
    limit_threads=True,
)


def main(argv=None) -> int:
    return STUDY.main(argv)


if __name__ == "__main__":
    sys.exit(main())
