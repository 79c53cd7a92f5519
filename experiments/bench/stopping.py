"""Stopping rules of the cascade compared offline: one full-depth fit per (dataset, seed), every rule replayed.

Growth is deterministic given the seed, and a stopping rule decides only how many layers to grow and
which prefix of them to keep: layer t of a fit that stops early is layer t of a fit that grows them all.
So each (dataset, seed) is fitted once, ``MDDFClassifier(random_state=seed, n_jobs=--n-jobs,
max_layers=--max-layers, **--params)`` growing and keeping every layer (:class:`FullDepthClassifier`), and
every rule is replayed on what that fit recorded per layer: the ``train_history_`` entry (out-of-fold
accuracy, margin-distribution loss, margin statistics, ``fit_seconds``, ``model_bytes``), the rows early
stopping reads (which training rows the prediction after the layer classifies right, out-of-fold; the
held-out rows with ``validation_fraction``), so McNemar's paired test replays exactly, and the test
accuracy and cumulative predict seconds of the staged prediction after the layer (``staged_predict_proba``,
the prediction of the model that keeps that prefix).

Rules (:func:`study_rules`; each replay returns the layers grown and the layers kept):

- ``plain``: ``EarlyStopping(n_tolerant_layers=2, tol=0, min_gain_se=0, min_error_reduction=0)``, gcForest's
  rule, mddf's default before ``min_error_reduction``;
- ``min_gain_se=s``, s in 0.5, 1, 2 (patience 2): an improvement must also pass McNemar's paired test,
  ``b - c > s * sqrt(b + c)``. Both are replayed by mddf's own ``EarlyStopping`` (:class:`MddfRule`), fed
  the recorded rows as a live fit feeds it; the kept prefix is the first layer of highest out-of-fold
  accuracy among those grown;
- DF21's rule with a relative delta (:class:`PatienceRule`): a layer improves when its monitored value
  beats the best so far by the margin, and growth stops once ``patience`` layers in a row have not.
  ``acc``: ``acc >= best_acc * (1 + delta)``; ``err``: ``err <= best_err * (1 - delta)`` with err = 1 -
  out-of-fold accuracy (DF21 compares ``new >= best + delta``, delta absolute). delta in 0.001, 0.005,
  0.01, 0.02; patience 2 for ``acc``, 2 and 1 for ``err``. Kept: ``keep=improved``, the last layer that
  improved (DF21's), or ``keep=max-acc``, the first layer of highest out-of-fold accuracy grown (mddf's);
- a rule on the margin-distribution loss ``train_history_[t]["loss"]`` (:class:`PatienceRule`): a layer
  improves when ``loss < best_loss * (1 - delta)``, delta in 0, 0.005, 0.01, 0.02, patience 2; kept:
  ``keep=min-loss``, the first layer of lowest loss grown, or ``keep=max-acc``.

Per rule and (dataset, seed): layers grown (the fit's cost), layers kept (the prediction's cost), the test
accuracy of the kept prefix, the fit seconds the rule would take (the sum of the grown layers'
``fit_seconds``), and the predict seconds on the test rows and the model bytes of the kept prefix. Per rule and dataset: their
means over the seeds, the standard error of the mean test accuracy, and the mean and standard error of
the paired difference to ``plain`` (seed by seed). Standard errors are the sample standard deviation over
seeds (``ddof=1``) divided by the square root of the number of seeds. A rule **keeps accuracy** on a
dataset when its mean test accuracy is at least the plain rule's mean minus the standard error of the plain rule's mean
over the seeds (the seeds' own spread, not the paired one: a rule may lose less than the seed-to-seed
noise of the plain rule's accuracy); the verdict is "keeps accuracy" when that holds on every dataset, else it
names the datasets where it does not. Beside it, the mean layers kept and grown and the fit seconds on
the focus dataset (adult when it is in the study, else the first), and their ratios to the plain rule's.

Datasets: letter, satimage, adult and yeast with their standard splits (``mddf.datasets.load_dataset``,
files from ``--data-home``, else ``$MDDF_DATA``, else the cache; yeast's split is the loader's fixed one,
so every seed fits the same rows with its own ``random_state``). Each fit runs in a fresh process
(``mddf.experiments.environment.run_in_fresh_process``), seeds outermost, so a partial run has every
dataset for its first seeds; before it, a tiny fit on a few rows loads the compiled tree code
(:func:`load_compiled_code`), so the first layer's ``fit_seconds`` are the layer's own.

Files in ``--out``: ``results.jsonl`` (one record per (dataset, seed), appended as it finishes; a rerun
with the same configuration skips the finished ones and retries failed ones), ``stopping.md`` (the verdict
per rule, then every rule and dataset), ``stopping.csv`` (one row per rule and dataset),
``stopping_verdicts.csv`` (one row per rule) and ``stopping_runs.csv`` (one row per rule, dataset and
seed); every file starts with its provenance (``mddf.experiments.provenance``). The tables are rewritten
from every finished record at the end of each run.

Examples
--------
MDDF_DATA=/path/to/data python scripts/bench_stopping.py
python scripts/bench_stopping.py --datasets adult --seeds 0,1
python scripts/bench_stopping.py --params '{"class_vectors": "oob"}' --out results/stopping-oob
python scripts/bench_stopping.py --quick
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mddf import MDDFClassifier
from mddf.experiments.bench.loading import train_test_arrays
from mddf.experiments.tables import markdown_table, plus_minus, standard_error
from mddf.utils import EarlyStopping

DATASETS = ("letter", "satimage", "adult", "yeast")
SEEDS = (0, 1, 2, 3, 4)
MAX_LAYERS = 20
#: The dataset whose layers the issue asks to cut; the verdict table shows its layers and fit seconds.
FOCUS = "adult"

QUICK_DATASET = "digits"
QUICK_SEEDS = (0, 1)
QUICK_MAX_LAYERS = 6
QUICK_PARAMS = {"n_estimators": 5}

#: MDDFClassifier parameters the study sets itself (options of their own) or that would change what is replayed.
RESERVED_PARAMS = {
    "random_state": "the seed is --seeds",
    "n_jobs": "use --n-jobs",
    "max_layers": "use --max-layers",
    "n_tolerant_layers": "every layer is grown; the rules are replayed",
    "tol": "every layer is grown; the rules are replayed",
    "min_gain_se": "every layer is grown; the rules are replayed",
    "min_error_reduction": "every layer is grown; the rules are replayed",
    "predictor": "the staged predictions are the cascade's own, without a predictor",
}


# ------------------------------------------------------------------------------------ the recording fit
class _GrowEveryLayer(EarlyStopping):
    """Early stopping that never stops and keeps every grown layer, and remembers the rows of each.

    ``rows`` holds, per grown layer, a copy of the per-row results a live fit's early stopping reads.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.rows = []

    def update(self, rows, score=None):
        self.rows.append(np.array(rows, copy=True))
        self.scores.append(self.measure.score(rows, self.sample_weight) if score is None else score)
        return False

    @property
    def n_kept(self):
        return len(self.scores)


class FullDepthClassifier(MDDFClassifier):
    """:class:`mddf.MDDFClassifier` that grows ``max_layers`` layers and keeps them all (study only).

    The public estimator keeps only the prefix its early stopping chooses and discards the layers grown
    beyond it, so the staged prediction of a longer prefix is lost. This subclass swaps the growth's
    early stopping for one that never stops and keeps every layer, and records the per-row results the
    live early stopping would have read (``monitored_rows_``): whether the argmax of the float64 mixture
    is the row's class, which ``oof_features_`` (float32) cannot always tell where rounding ties two
    classes. Nothing else changes: the layers are those of a live fit with the same parameters and seed,
    so the prefix any rule keeps is that fit.

    Attributes
    ----------
    monitored_rows_ : list of ndarray of bool
        Per grown layer, which monitored rows (training rows out-of-fold, or the held-out rows with
        ``validation_fraction``) the prediction after the layer classifies right.
    monitored_ : str
        ``"out-of-fold"`` or ``"validation"``.
    """

    def _begin_growth(self, X, y, sample_weight, rng=None):
        growth = super()._begin_growth(X, y, sample_weight, rng)
        live = growth.stopping
        growth.stopping = _GrowEveryLayer(
            live.n_tolerant_layers,
            tol=live.tol,
            min_gain_se=live.min_gain_se,
            min_error_reduction=live.min_error_reduction,
            monitored=live.monitored,
            sample_weight=live.sample_weight,
            measure=live.measure,
        )
        self.monitored_rows_ = growth.stopping.rows
        self.monitored_ = live.monitored
        return growth


def pack_rows(rows) -> str:
    """A boolean vector as base64 of its packed bits (:func:`unpack_rows` reads it back given its length)."""
    return base64.b64encode(np.packbits(np.asarray(rows, dtype=bool)).tobytes()).decode("ascii")


def unpack_rows(text: str, n: int) -> np.ndarray:
    """The boolean vector of length ``n`` that :func:`pack_rows` wrote."""
    return np.unpackbits(np.frombuffer(base64.b64decode(text), dtype=np.uint8), count=n).astype(bool)


def record_fit(X_train, y_train, X_test, y_test, seed, *, n_jobs=2, max_layers=MAX_LAYERS, params=None) -> dict:
    """Fit :class:`FullDepthClassifier` and return what the rules are replayed on.

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
    seed : int
        ``random_state`` of the fit.
    n_jobs, max_layers : int
    params : dict or None
        Further :class:`mddf.MDDFClassifier` parameters (none of :data:`RESERVED_PARAMS`).

    Returns
    -------
    dict
        ``n_train``, ``n_test``, ``monitored``, ``n_monitored``, ``fit_s`` (the whole fit, wall-clock),
        ``layers`` (per grown layer: its ``train_history_`` entry plus ``test_accuracy`` and
        ``predict_seconds``, the cumulative seconds of the staged prediction up to it, input validation
        included) and ``monitored_correct`` (per grown layer, :func:`pack_rows` of the monitored rows'
        correctness).
    """
    params = dict(params or {})
    reserved = sorted(set(params) & set(RESERVED_PARAMS))
    if reserved:
        raise ValueError("params: " + "; ".join(f"{name}: {RESERVED_PARAMS[name]}" for name in reserved))
    model = FullDepthClassifier(random_state=seed, n_jobs=n_jobs, max_layers=max_layers, **params)
    start = time.perf_counter()
    model.fit(X_train, y_train)
    fit_s = time.perf_counter() - start
    y_test = np.asarray(y_test)
    layers = [dict(entry) for entry in model.train_history_]
    seconds = 0.0
    start = time.perf_counter()
    stages = model.staged_predict_proba(X_test)  # validates X_test now
    for layer in layers:
        proba = next(stages)
        seconds += time.perf_counter() - start
        layer["test_accuracy"] = float(np.mean(model.classes_[proba.argmax(axis=1)] == y_test))
        layer["predict_seconds"] = seconds
        start = time.perf_counter()
    return {
        "n_train": int(len(y_train)),
        "n_test": int(len(y_test)),
        "monitored": model.monitored_,
        "n_monitored": int(len(model.monitored_rows_[0])),
        "fit_s": fit_s,
        "layers": layers,
        "monitored_correct": [pack_rows(rows) for rows in model.monitored_rows_],
    }


def load_compiled_code(X, y, params=None, n_jobs=2):
    """Fit and apply a two-layer cascade of two trees per forest on a few rows of every class.

    The tree code compiled by numba is loaded (from its disk cache) at its first call in a process; done
    here, before the measured fit, its first layer's ``fit_seconds`` do not include the loading.

    Parameters
    ----------
    X, y : array-like
        The training rows; at most 20 of each class are used.
    params : dict or None
        The measured fit's further parameters, so that the same code paths are loaded.
    n_jobs : int
    """
    y = np.asarray(y)
    rows = np.concatenate([np.flatnonzero(y == label)[:20] for label in np.unique(y)])
    small = {**(params or {}), "n_estimators": 2, "max_layers": 2, "model_dir": None}
    model = MDDFClassifier(random_state=0, n_jobs=n_jobs, **small).fit(X[rows], y[rows])
    model.predict(X[rows])


def fit_dataset(dataset, seed, n_jobs, max_layers, params, data_home=None) -> dict:
    """Load ``dataset``'s standard split, :func:`load_compiled_code`, then :func:`record_fit` (a fresh process runs it).

    A dataset without a standard test split (the DeepBoost paper's, which it cross-validates) is split
    once, stratified, its train_share=0.7 trained on (:func:`~mddf.experiments.bench.loading.train_test_arrays`).
    """
    X_train, y_train, X_test, y_test = train_test_arrays(dataset, data_home=data_home, train_share=0.7)
    load_compiled_code(X_train, y_train, params, n_jobs)
    return record_fit(X_train, y_train, X_test, y_test, seed, n_jobs=n_jobs, max_layers=max_layers, params=params)


# ------------------------------------------------------------------------------------ the rules
@dataclass(frozen=True)
class Layers:
    """One recorded fit's per-layer results, as the rules read them (:meth:`from_record`).

    Parameters
    ----------
    accuracy : ndarray (n_layers,)
        The monitored accuracy after each layer, the one early stopping reads: out-of-fold on the
        training rows (on the held-out rows with ``validation_fraction``).
    loss : ndarray (n_layers,)
        The margin-distribution loss of ``train_history_``.
    correct : list of ndarray of bool
        Per layer, which monitored rows the prediction after it classifies right.
    test_accuracy, fit_seconds, predict_seconds, model_bytes : ndarray (n_layers,)
        As :func:`record_fit` records them (``predict_seconds`` cumulative).
    """

    accuracy: np.ndarray
    loss: np.ndarray
    correct: list
    test_accuracy: np.ndarray
    fit_seconds: np.ndarray
    predict_seconds: np.ndarray
    model_bytes: np.ndarray

    @classmethod
    def from_record(cls, record):
        """The layers of a :func:`record_fit` result (a loss stored as null, not finite, reads as ``inf``)."""
        layers = record["layers"]

        def column(key):
            return np.array([np.inf if layer[key] is None else layer[key] for layer in layers], dtype=float)

        n = record["n_monitored"]
        correct = [unpack_rows(text, n) for text in record["monitored_correct"]]
        return cls(
            accuracy=np.array([float(np.mean(rows)) for rows in correct]),
            loss=column("loss"),
            correct=correct,
            test_accuracy=column("test_accuracy"),
            fit_seconds=column("fit_seconds"),
            predict_seconds=column("predict_seconds"),
            model_bytes=column("model_bytes"),
        )

    def __len__(self):
        return len(self.accuracy)


@dataclass(frozen=True)
class MddfRule:
    """mddf's own early stopping: :class:`mddf.MDDFClassifier`'s ``n_tolerant_layers``, ``tol``, ``min_gain_se`` and
    ``min_error_reduction``.

    Replayed by the estimator's ``EarlyStopping`` fed the recorded rows, as a live fit feeds it, so the
    layers grown and kept are those of a live fit with :attr:`params` and the same seed.

    Parameters
    ----------
    n_tolerant_layers : int >= 1
    tol, min_gain_se, min_error_reduction : float >= 0
    label : str or None
        The rule's name in the tables; None names it by its parameters that differ from the defaults.
    """

    n_tolerant_layers: int = 2
    tol: float = 0.0
    min_gain_se: float = 0.0
    min_error_reduction: float = 0.0
    label: str | None = None

    family = "mddf"

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        parts = [f"n_tolerant_layers={self.n_tolerant_layers}"] if self.n_tolerant_layers != 2 else []
        parts += [f"tol={self.tol:g}"] if self.tol else []
        parts += [f"min_gain_se={self.min_gain_se:g}"] if self.min_gain_se else []
        parts += [f"min_error_reduction={self.min_error_reduction:g}"] if self.min_error_reduction else []
        return " ".join(parts) or "n_tolerant_layers=2"

    @property
    def params(self) -> dict:
        """The :class:`mddf.MDDFClassifier` parameters that run this rule live."""
        return {
            "n_tolerant_layers": self.n_tolerant_layers,
            "tol": self.tol,
            "min_gain_se": self.min_gain_se,
            "min_error_reduction": self.min_error_reduction,
        }

    def replay(self, layers: Layers) -> tuple[int, int]:
        """``(layers grown, layers kept)``."""
        stopping = EarlyStopping(
            self.n_tolerant_layers,
            tol=self.tol,
            min_gain_se=self.min_gain_se,
            min_error_reduction=self.min_error_reduction,
        )
        grown = 0
        for rows in layers.correct:
            grown += 1
            if stopping.update(rows):
                break
        return grown, stopping.n_kept


#: ``PatienceRule.series`` -> (what the layer is judged by, read from Layers).
_SERIES = {
    "acc": lambda layers: layers.accuracy,
    "err": lambda layers: 1.0 - layers.accuracy,
    "loss": lambda layers: layers.loss,
}
_FAMILIES = {"acc": "DF21, relative to accuracy", "err": "DF21, relative to error", "loss": "margin loss"}
_KEEPS = ("improved", "max-acc", "min-loss")


@dataclass(frozen=True)
class PatienceRule:
    """Grow until ``patience`` layers in a row fail to improve on the best by a relative ``delta``.

    The first layer is the first best. A later layer improves when, ``v`` its value and ``best`` the value
    of the last layer that improved: ``acc``, ``v >= best * (1 + delta)`` (the monitored accuracy,
    :attr:`Layers.accuracy`; DF21's comparison ``new >= best + delta`` with the delta made relative);
    ``err``, ``v <= best * (1 - delta)`` (the monitored error, one minus that accuracy); ``loss``,
    ``v < best * (1 - delta)`` (the margin-distribution loss of ``train_history_``, which the cascade's
    layer weights minimise).

    Parameters
    ----------
    series : {"acc", "err", "loss"}
    delta : float >= 0
    patience : int >= 1
    keep : {"improved", "max-acc", "min-loss"}
        The kept prefix: up to the last layer that improved (DF21's), the first layer of highest
        monitored accuracy grown (mddf's), or the first of lowest loss grown.
    """

    series: str
    delta: float
    patience: int = 2
    keep: str = "improved"

    def __post_init__(self):
        if self.series not in _SERIES or self.keep not in _KEEPS:
            raise ValueError(f"series in {sorted(_SERIES)}, keep in {_KEEPS}; got {self.series!r}, {self.keep!r}")

    @property
    def family(self) -> str:
        return _FAMILIES[self.series]

    @property
    def name(self) -> str:
        return f"{self.series} delta={self.delta:g} patience={self.patience} keep={self.keep}"

    def improves(self, value, best) -> bool:
        if self.series == "acc":
            return bool(value >= best * (1 + self.delta))
        if self.series == "err":
            return bool(value <= best * (1 - self.delta))
        return bool(value < best * (1 - self.delta))

    def replay(self, layers: Layers) -> tuple[int, int]:
        """``(layers grown, layers kept)``."""
        values = _SERIES[self.series](layers)
        best, best_layer, since_best, grown = values[0], 1, 0, 1
        for t in range(2, len(values) + 1):
            if since_best >= self.patience:
                break
            grown = t
            if self.improves(values[t - 1], best):
                best, best_layer, since_best = values[t - 1], t, 0
            else:
                since_best += 1
        if self.keep == "improved":
            return grown, best_layer
        if self.keep == "max-acc":
            return grown, int(np.argmax(layers.accuracy[:grown])) + 1
        return grown, int(np.argmin(layers.loss[:grown])) + 1


TODAY = MddfRule(label="plain")


def study_rules() -> list:
    """The rules the study compares, the plain rule's first."""
    rules = [TODAY] + [MddfRule(min_gain_se=s) for s in (0.5, 1.0, 2.0)]
    rules += [MddfRule(min_error_reduction=r) for r in (0.001, 0.005, 0.01)]
    deltas = (0.001, 0.005, 0.01, 0.02)
    for series, patience in (("acc", 2), ("err", 2), ("err", 1)):
        rules += [PatienceRule(series, d, patience, keep) for keep in ("improved", "max-acc") for d in deltas]
    rules += [PatienceRule("loss", d, 2, keep) for keep in ("min-loss", "max-acc") for d in (0.0, *deltas[1:])]
    return rules


def outcome(rule, layers: Layers) -> dict:
    """What ``rule`` does to one recorded fit: layers grown and kept, test accuracy, fit and predict seconds, model MB.

    ``fit_s`` sums the grown layers' ``fit_seconds``; ``predict_s`` is the kept prefix's staged prediction of the
    test rows; ``model_mb`` the kept layers' ``model_bytes`` in megabytes (1e6 bytes).
    """
    grown, kept = rule.replay(layers)
    return {
        "grown": grown,
        "kept": kept,
        "test_accuracy": float(layers.test_accuracy[kept - 1]),
        "fit_s": float(np.sum(layers.fit_seconds[:grown])),
        "predict_s": float(layers.predict_seconds[kept - 1]),
        "model_mb": float(np.sum(layers.model_bytes[:kept]) / 1e6),
    }


# ------------------------------------------------------------------------------------ tables
def _mean_se(values) -> tuple[float, float]:
    return float(np.mean(values)), standard_error(values)


def _seeds_text(values) -> str:
    return " ".join(str(v) for v in values)


def replay_all(records, rules) -> list[dict]:
    """One row per (rule, dataset, seed) with its :func:`outcome`."""
    rows = []
    for record in records:
        layers = Layers.from_record(record)
        for rule in rules:
            rows.append({"rule": rule.name, "dataset": record["dataset"], "seed": record["seed"]})
            rows[-1].update(outcome(rule, layers))
    return rows


def summarise(runs, rules, datasets) -> list[dict]:
    """One row per (rule, dataset): means over seeds, standard errors, and whether the rule keeps accuracy.

    Accuracies and their differences are in percent (points). Only the seeds every rule was replayed on
    (those of the plain rule's rule) count.
    """
    by = {(r["rule"], r["dataset"], r["seed"]): r for r in runs}
    rows = []
    for dataset in datasets:
        seeds = sorted(s for (rule, d, s) in by if rule == TODAY.name and d == dataset)
        if not seeds:
            continue
        today = [by[(TODAY.name, dataset, s)] for s in seeds]
        today_mean, today_se = _mean_se([100 * r["test_accuracy"] for r in today])
        for rule in rules:
            mine = [by[(rule.name, dataset, s)] for s in seeds]
            accuracy, accuracy_se = _mean_se([100 * r["test_accuracy"] for r in mine])
            diff, diff_se = _mean_se([100 * (r["test_accuracy"] - t["test_accuracy"]) for r, t in zip(mine, today)])
            keeps = "" if np.isnan(today_se) else accuracy >= today_mean - today_se - 1e-9
            rows.append(
                {
                    "rule": rule.name,
                    "family": rule.family,
                    "dataset": dataset,
                    "seeds": _seeds_text(seeds),
                    "accuracy": round(accuracy, 4),
                    "accuracy_se": round(accuracy_se, 4),
                    "diff_vs_today": round(diff, 4),
                    "diff_se": round(diff_se, 4),
                    "today_se": round(today_se, 4),
                    "keeps_accuracy": keeps,
                    "grown": round(float(np.mean([r["grown"] for r in mine])), 2),
                    "kept": round(float(np.mean([r["kept"] for r in mine])), 2),
                    "grown_per_seed": _seeds_text(r["grown"] for r in mine),
                    "kept_per_seed": _seeds_text(r["kept"] for r in mine),
                    "fit_s": round(float(np.mean([r["fit_s"] for r in mine])), 3),
                    "predict_s": round(float(np.mean([r["predict_s"] for r in mine])), 4),
                    "model_mb": round(float(np.mean([r["model_mb"] for r in mine])), 3),
                }
            )
    return rows


def _ratio(value, reference):
    return round(value / reference, 3) if reference else ""


def verdicts(summary, rules, focus) -> list[dict]:
    """One row per rule: its verdict over the datasets, and its cost on ``focus`` against the plain rule's."""
    by = {(r["rule"], r["dataset"]): r for r in summary}
    datasets = list(dict.fromkeys(r["dataset"] for r in summary))
    today = by.get((TODAY.name, focus))
    rows = []
    for rule in rules:
        mine = [by[(rule.name, d)] for d in datasets if (rule.name, d) in by]
        if not mine:
            continue
        if any(r["keeps_accuracy"] == "" for r in mine):
            verdict = "n/a (fewer than two seeds)"
        else:
            below = [r["dataset"] for r in mine if not r["keeps_accuracy"]]
            verdict = "keeps accuracy" if not below else "below on " + ", ".join(below)
        row = {"rule": rule.name, "family": rule.family, "verdict": verdict}
        row.update({f"diff_{r['dataset']}": r["diff_vs_today"] for r in mine})
        focused = by.get((rule.name, focus))
        if focused and today:
            for what in ("kept", "grown", "fit_s"):
                row[f"{focus}_{what}"] = focused[what]
                row[f"{focus}_{what}_vs_today"] = _ratio(focused[what], today[what])
        rows.append(row)
    return rows


def markdown(summary, verdict_rows, focus, note) -> str:
    """The verdict per rule, then every rule and dataset, as Markdown."""
    datasets = list(dict.fromkeys(r["dataset"] for r in summary))
    by = {(r["rule"], r["dataset"]): r for r in summary}
    lines = ["# Stopping rules replayed on full-depth fits", "", note, "", "## Verdict", ""]
    head = ["rule", *[f"{d} Δ acc (pp)" for d in datasets], "verdict"]
    head += [f"{focus} kept", f"{focus} grown", f"{focus} fit s"]
    rows = []
    for row in verdict_rows:
        cells = [row["rule"]]
        for d in datasets:
            r = by.get((row["rule"], d))
            cells.append(plus_minus(r["diff_vs_today"], r["diff_se"], signed=True) if r else "")
        cells.append(row["verdict"])
        for what in ("kept", "grown", "fit_s"):
            value, ratio = row.get(f"{focus}_{what}"), row.get(f"{focus}_{what}_vs_today")
            cells.append("" if value is None else f"{value:.1f}" + (f" ({ratio:.2f}x)" if ratio != "" else ""))
        rows.append(cells)
    lines += markdown_table(head, rows)
    lines += ["", "## Every rule and dataset", ""]
    head = ["rule", "dataset", "test accuracy (%)", "Δ vs plain (pp)", "grown", "kept", "kept per seed", "fit s"]
    head += ["predict s", "model MB"]
    rows = [
        [r["rule"], r["dataset"], plus_minus(r["accuracy"], r["accuracy_se"])]
        + [plus_minus(r["diff_vs_today"], r["diff_se"], signed=True), f"{r['grown']:.1f}", f"{r['kept']:.1f}"]
        + [r["kept_per_seed"], f"{r['fit_s']:.1f}", f"{r['predict_s']:.3f}", f"{r['model_mb']:.1f}"]
        for r in summary
    ]
    lines += markdown_table(head, rows)
    return "\n".join(lines) + "\n"


def table_note(datasets, seeds, config) -> str:
    params = json.dumps(config["params"]) if config["params"] else "defaults"
    return (
        f"One fit per (dataset, seed) growing and keeping all {config['max_layers']} layers "
        f"(MDDFClassifier parameters: {params}, n_jobs={config['n_jobs']}); every rule replayed on its "
        "recorded layers. Seeds: " + "; ".join(f"{d} {_seeds_text(seeds[d])}" for d in datasets) + ". "
        "Test accuracy: mean ± standard error over seeds; Δ: mean ± standard error of the paired per-seed "
        "difference to the plain rule (n_tolerant_layers=2, tol=0, min_gain_se=0, min_error_reduction=0), in points. Standard error: "
        "the sample standard deviation over seeds (ddof=1) over the square root of their number. A rule keeps "
        "accuracy on a dataset when its mean is at least the plain rule's mean minus the standard error of the plain rule's mean; "
        "the verdict says whether it does on every dataset. Layers grown and kept, fit seconds (the sum of the "
        "grown layers' fit_seconds), predict seconds (the staged prediction of the kept prefix on the test "
        "rows) and model MB (the kept layers' model_bytes): means over seeds; in the verdict table, in "
        "parentheses, as a multiple of the plain rule's."
    )


# ------------------------------------------------------------------------------------ main
def _key(dataset, seed) -> str:
    return f"{dataset}|seed={seed}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated dataset names")
    parser.add_argument("--seeds", default=None, help="comma-separated seeds (default 0,1,2,3,4; --quick 0,1)")
    parser.add_argument("--max-layers", type=int, default=None, help=f"layers grown per fit (default {MAX_LAYERS})")
    parser.add_argument("--params", default="{}", help="JSON of further MDDFClassifier parameters")
    parser.add_argument("--n-jobs", type=int, default=2, help="n_jobs of every fit")
    parser.add_argument("--data-home", default=None, help="dataset files (default: $MDDF_DATA, else the cache)")
    parser.add_argument("--out", default="results/stopping", type=Path, help="output folder")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke test: {QUICK_DATASET} (bundled), seeds 0,1, {QUICK_MAX_LAYERS} layers of tiny models",
    )
    args = parser.parse_args(argv)
    params = json.loads(args.params)
    reserved = sorted(set(params) & set(RESERVED_PARAMS))
    if reserved:
        parser.error("--params: " + "; ".join(f"{name}: {RESERVED_PARAMS[name]}" for name in reserved))
    if args.quick:
        datasets = [QUICK_DATASET]
        params = {**QUICK_PARAMS, **params}
    else:
        datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    seed_list = [int(s) for s in args.seeds.split(",")] if args.seeds else list(QUICK_SEEDS if args.quick else SEEDS)
    max_layers = args.max_layers or (QUICK_MAX_LAYERS if args.quick else MAX_LAYERS)

    from mddf.experiments.environment import run_in_fresh_process
    from mddf.experiments.provenance import provenance, record_stamp, script_path, with_markdown_header
    from mddf.experiments.store import ResultStore
    from mddf.experiments.tables import write_rows

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    config = {"params": params, "max_layers": max_layers, "n_jobs": args.n_jobs, "quick": bool(args.quick)}
    latest = {r["key"]: r for r in store.records() if r.get("config") == config and "key" in r}
    for seed in seed_list:
        for dataset in datasets:
            key = _key(dataset, seed)
            if latest.get(key, {}).get("status") == "ok":
                continue
            record = {"key": key, "dataset": dataset, "seed": seed}
            try:
                task = (dataset, seed, args.n_jobs, max_layers, params, args.data_home)
                record.update(run_in_fresh_process(fit_dataset, *task), status="ok")
                message = f"{len(record['layers'])} layers in {record['fit_s']:.1f}s"
            except Exception as exc:  # noqa: BLE001  (recorded, and the study goes on)
                record.update(status="failed", error=f"{type(exc).__name__}: {exc}"[-2000:])
                message = "FAILED: " + record["error"].splitlines()[0]
            record.update(config=config, **record_stamp())
            store.append(record)
            latest[key] = record
            print(f"{dataset} seed {seed}: {message}", file=sys.stderr, flush=True)

    wanted = {_key(d, s) for d in datasets for s in seed_list}
    finished = [r for key, r in latest.items() if key in wanted and r.get("status") == "ok"]
    failed = [r for key, r in latest.items() if key in wanted and r.get("status") != "ok"]
    rules = study_rules()
    runs = replay_all(finished, rules)
    summary = summarise(runs, rules, datasets)
    shown = [d for d in datasets if any(r["dataset"] == d for r in summary)]
    focus = FOCUS if FOCUS in shown else (shown[0] if shown else FOCUS)
    verdict_rows = verdicts(summary, rules, focus)
    seeds = {d: sorted(r["seed"] for r in finished if r["dataset"] == d) for d in shown}
    note = table_note(shown, seeds, config)
    if failed:
        note += f" Failed fits (left out): {len(failed)}, see results.jsonl."
    prov = provenance(script_path("bench_stopping.py"), sys.argv[1:] if argv is None else argv)
    text = markdown(summary, verdict_rows, focus, note)
    (out / "stopping.md").write_text(with_markdown_header(text, prov))
    if summary:
        write_rows(summary, out / "stopping.csv", prov)
        write_rows(verdict_rows, out / "stopping_verdicts.csv", prov)
        write_rows(runs, out / "stopping_runs.csv", prov)
    print(text)
    return 1 if failed else 0
