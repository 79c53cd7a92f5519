"""Where a fit's time goes, phase by phase.

One :class:`mddf.MDDFClassifier` fit per dataset (defaults unless ``--params``), on one thread (``n_jobs=1``, so
that the phases' seconds add up to the fit's), with the functions that make each phase wrapped in timers for the
length of the fit (:func:`benchmarks._internals.fit_phases`):

- *binning*: quantising the layer input;
- *tree growth*: :func:`mddf.trees.grow_tree`;
- *packing*: storing each grown tree and joining a forest's trees (:meth:`mddf.forests.ForestBuilder.add`,
  :meth:`~mddf.forests.ForestBuilder.finish`);
- *out-of-fold prediction*: routing each tree's held-out (or out-of-bag) rows as it is grown;
- *resampling*: the rest of the forests' tree loop (the bootstrap and weighted draws, the row counts);
- *margins and alpha*: the margins of eq. 46 and the layer weight of eq. 48;
- *reweighting*: D_{t+1} (eq. 47);
- *other*: the rest of the fit (validation, folds, class-vector mixtures, the layers' records).

The fitted model then predicts the test rows in ``--predict-rounds`` rounds, one thread, with two phases timed:
*binning* (:meth:`mddf.trees.FeatureBinner.transform`) and *routing* (the forests'
:meth:`~mddf.forests.BinnedForest.predict_proba_binned`); *other* is the rest. Each round also predicts with the
*reference binning*, the binning before the compiled kernel (:func:`reference_transform`, every column of every
layer's input binned by the layer), in turn with today's (an interleaved timing pair); the predictions are checked
equal and the ratio is the median over rounds of the two predict times.

The timers cost a few microseconds a call; the tree code is compiled by a small fit before. ``<out>/profile.md``
(a table per dataset, seconds and shares of the fit) and ``<out>/results.jsonl``.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.profile --datasets letter,adult
"""

import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from unittest import mock

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks import _internals
from benchmarks.data import split
from benchmarks.harness import Study, interleave, paired_ratios
from mddf.experiments.tables import markdown_table

PHASES = (
    "binning",
    "tree growth",
    "packing",
    "out-of-fold prediction",
    "resampling",
    "margins and alpha",
    "reweighting",
    "other",
)


PREDICT_PHASES = ("binning", "routing", "other")


def reference_transform(binner, X):
    """Bin codes as :meth:`mddf.trees.FeatureBinner.transform` computed them before its compiled kernel:
    :func:`numpy.searchsorted` column by column, then the missing code for NaN."""
    X = np.asarray(X, dtype=np.float32)
    missing = np.isnan(X)
    missing_columns = np.flatnonzero(missing.any(axis=0))
    wide = len(missing_columns) and binner.missing_bins_[missing_columns].max() > np.iinfo(np.uint8).max
    out = np.empty(X.shape, dtype=np.uint16 if wide else np.uint8)
    for j, edges in enumerate(binner.edges_):
        out[:, j] = np.searchsorted(edges, X[:, j], side="left")
    for j in missing_columns:
        out[missing[:, j], j] = binner.missing_bins_[j]
    return out


class _Timers:
    """Seconds spent in wrapped callables, by phase; nested calls of a phase count once."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self._patches = []

    def wrap(self, owner, name, phase):
        original = getattr(owner, name)
        timers = self

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                timers.seconds[phase] += time.perf_counter() - start

        self._patches.append((owner, name, original))
        setattr(owner, name, timed)

    def restore(self):
        for owner, name, original in reversed(self._patches):
            setattr(owner, name, original)
        self._patches.clear()


def profile_fit(X, y, params=None):
    """Fit ``MDDFClassifier(n_jobs=1, **params)`` on ``X, y`` with the phase timers; return seconds by phase.

    The returned dict holds every phase of :data:`PHASES` and ``"fit"``, the fit's wall-clock seconds.
    """
    return fit_profiled(X, y, params)[0]


def fit_profiled(X, y, params=None):
    """:func:`profile_fit`'s seconds by phase, and the fitted model."""
    from mddf import MDDFClassifier

    params = {**(params or {}), "n_jobs": 1}
    timers = _Timers()
    for owner, name, phase in _internals.fit_phases():
        timers.wrap(owner, name, phase)
    try:
        start = time.perf_counter()
        model = MDDFClassifier(**params).fit(X, y)
        fit = time.perf_counter() - start
    finally:
        timers.restore()
    seconds = {phase: timers.seconds.get(phase, 0.0) for phase in PHASES}
    inside = sum(seconds[p] for p in ("tree growth", "packing", "out-of-fold prediction"))
    seconds["resampling"] = max(timers.seconds.get("forest loop", 0.0) - inside, 0.0)
    seconds["other"] = max(fit - sum(seconds[p] for p in PHASES if p != "other"), 0.0)
    seconds["fit"] = fit
    seconds["layers grown"] = len(model.train_history_)
    return seconds, model


def profile_predict(model, X, rounds=3):
    """Predict ``X`` with ``model`` (one thread) ``rounds`` times with today's binning and with the reference's.

    The two run in turn, round after round (:func:`benchmarks.harness.interleave`). Returns a dict: the median
    seconds of each phase of :data:`PREDICT_PHASES` and ``"predict"`` (today's), ``"reference predict"`` (the median
    with :func:`reference_transform` and no reuse of ``x``'s codes), ``"ratio"`` (median over rounds of today's over
    the reference's) and ``"layers kept"``. Raises ``AssertionError`` if the two give different predictions.
    """
    from mddf.forests import BinnedForest
    from mddf.trees import FeatureBinner

    model.set_params(n_jobs=1)
    runs = []

    def today():
        timers = _Timers()
        timers.wrap(FeatureBinner, "transform", "binning")
        timers.wrap(BinnedForest, "predict_proba_binned", "routing")
        try:
            start = time.perf_counter()
            proba = model.predict_proba(X)
            seconds = time.perf_counter() - start
        finally:
            timers.restore()
        phases = {phase: timers.seconds.get(phase, 0.0) for phase in PREDICT_PHASES}
        phases["other"] = max(seconds - phases["binning"] - phases["routing"], 0.0)
        runs.append({**phases, "predict": seconds})
        return proba

    def reference():
        with (
            mock.patch.object(FeatureBinner, "transform", reference_transform),
            mock.patch.object(_internals.PrefixCodes, "transform", lambda self, binner, X: binner.transform(X)),
        ):
            return model.predict_proba(X)

    seconds, last = interleave({"today": today, "reference": reference}, rounds)
    assert np.array_equal(last["today"], last["reference"]), "the reference binning predicts otherwise"
    result = {key: float(np.median([run[key] for run in runs])) for key in (*PREDICT_PHASES, "predict")}
    result.update(
        {"reference predict": float(np.median(seconds["reference"]))},
        ratio=float(np.median(paired_ratios(seconds, "today", "reference"))),
        **{"layers kept": model.n_layers_, "rounds": rounds},
    )
    return result


def markdown(rows):
    """One table per dataset: each phase's seconds and share of the fit."""
    parts = []
    for row in rows:
        fit = row["seconds"]["fit"]
        body = [
            [phase, f"{row['seconds'][phase]:.2f}", f"{100 * row['seconds'][phase] / fit:.1f}%"] for phase in PHASES
        ]
        body.append(["fit", f"{fit:.2f}", "100%"])
        parts.append(
            f"### {row['dataset']} ({row['rows']} training rows, {row['seconds']['layers grown']} layers grown)\n\n"
            + "\n".join(markdown_table(["phase", "seconds", "share of the fit"], body, align=[":---", "---:", "---:"]))
        )
        predict = row.get("predict")
        if predict:
            total = predict["predict"]
            body = [[p, f"{predict[p]:.3f}", f"{100 * predict[p] / total:.1f}%"] for p in PREDICT_PHASES]
            body.append(["predict", f"{total:.3f}", "100%"])
            parts.append(
                f"Prediction of {row['test rows']} test rows by the {predict['layers kept']} kept layers, one thread, "
                f"median of {predict['rounds']} rounds:\n\n"
                + "\n".join(markdown_table(["phase", "seconds", "share"], body, align=[":---", "---:", "---:"]))
                + f"\n\nWith the reference binning: {predict['reference predict']:.3f} s; today's over the "
                f"reference's, median over rounds: {predict['ratio']:.2f}."
            )
    return "\n\n".join(parts) + "\n"


def fit(ctx, X, y, X_test, y_test) -> dict:
    """Compile the tree code with a small fit, then profile the fit and the prediction."""
    params = {**ctx.options.mddf, "random_state": ctx.seed}
    small = np.concatenate([np.flatnonzero(y == label)[:20] for label in np.unique(y)])
    fit_profiled(X[small], y[small], {**params, "n_estimators": 2, "max_layers": 2})
    seconds, model = fit_profiled(X, y, params)
    record = {"rows": len(y), "params": params, "seconds": seconds, "fit_s": seconds["fit"]}
    if ctx.options.predict_rounds > 0:
        record.update({"test rows": len(X_test), "predict": profile_predict(model, X_test, ctx.options.predict_rounds)})
    return record


def options(parser):
    parser.add_argument("--params", default="{}", help="JSON parameters of MDDFClassifier (n_jobs is 1)")
    parser.add_argument("--train-rows", type=int, default=None, help="a stratified subset of this many training rows")
    parser.add_argument("--predict-rounds", type=int, default=3, help="rounds of the prediction profile (0: none)")
    parser.add_argument("--data-home", default=None, help="folder of the dataset files (default: $MDDF_DATA)")


def check(options, parser):
    options.mddf = json.loads(options.params)


STUDY = Study(
    "profile",
    __doc__,
    datasets=lambda o: [split(d, train_rows=o.train_rows) for d in ("letter", "adult", "iris")],
    methods={"mdDF": None},
    default_datasets=["letter", "adult"],
    quick={"datasets": ["iris"]},
    options=options,
    check=check,
    settings=lambda o: {"params": o.mddf, "train_rows": o.train_rows, "predict_rounds": o.predict_rounds},
    fit=fit,
    table=lambda results: markdown([{"dataset": r["dataset"], **r} for r in results.records]),
    report="profile",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
