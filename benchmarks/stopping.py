"""Stopping rules of the cascade compared offline: one full-depth fit per (dataset, seed), every rule replayed.

Growth is deterministic given the seed, and a stopping rule decides only how many layers to grow and which prefix
of them to keep: layer t of a fit that stops early is layer t of a fit that grows them all. So each (dataset,
seed) is fitted once, ``MDDFClassifier(random_state=seed, n_jobs=--n-jobs, max_layers=--max-layers, **--params)``
growing and keeping every layer (:class:`benchmarks._internals.FullDepthClassifier`), and every rule is replayed on
what that fit recorded per layer: the ``train_history_`` entry (out-of-fold accuracy, margin-distribution loss,
``fit_seconds``, ``model_bytes``), the rows early stopping reads (which training rows the prediction after the
layer classifies right, out-of-fold; the held-out rows with ``validation_fraction``), so McNemar's paired test
replays exactly, and the test accuracy and cumulative predict seconds of the staged prediction after the layer.

Rules (:func:`study_rules`; each replay returns the layers grown and the layers kept):

- ``plain``: ``EarlyStopping(n_tolerant_layers=2, tol=0, min_gain_se=0, min_error_reduction=0)``, gcForest's rule;
- ``min_gain_se=s`` and ``min_error_reduction=r`` (patience 2): mddf's own rules, replayed by its early stopping
  fed the recorded rows as a live fit feeds it (:class:`MddfRule`);
- DF21's rule with a relative delta (:class:`PatienceRule`) on the monitored accuracy (``acc``) or error
  (``err``), kept up to the last layer that improved (DF21's) or the first of highest accuracy (mddf's);
- a rule on the margin-distribution loss (:class:`PatienceRule`, ``loss``).

Per rule and (dataset, seed): layers grown and kept, the kept prefix's test accuracy, fit seconds (the sum of the
grown layers' ``fit_seconds``), predict seconds and model bytes. Per rule and dataset: means over the seeds, the
standard error of the mean accuracy, and the paired difference to ``plain``. A rule **keeps accuracy** on a dataset
when its mean test accuracy is at least the plain rule's mean minus the standard error of that mean; beside the
verdict, the mean layers and fit seconds on the focus dataset (adult when it is in the study, else the first).

Datasets: letter, satimage, adult and yeast with their standard splits; each fit in a fresh process, seeds
outermost; before it, a tiny fit loads the compiled tree code (:func:`load_compiled_code`), so the first layer's
``fit_seconds`` are its own. ``stopping.md`` (the verdict per rule, then every rule and dataset), ``stopping.csv``,
``stopping_verdicts.csv`` and ``stopping_runs.csv``.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.stopping
python -m benchmarks.stopping --datasets adult --seeds 0,1
python -m benchmarks.stopping --params '{"class_vectors": "oob"}' --out results/stopping-oob
python -m benchmarks.stopping --quick
"""

import base64
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks import _internals
from benchmarks.data import split
from benchmarks.harness import Study, TrainTest
from mddf import MDDFClassifier
from mddf.experiments.metrics import standard_error
from mddf.experiments.tables import markdown_table, plus_minus

DATASETS = ("letter", "satimage", "adult", "yeast")
MAX_LAYERS = 20
#: The dataset whose layers the verdict table shows with their fit seconds.
FOCUS = "adult"
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


def pack_rows(rows) -> str:
    """A boolean vector as base64 of its packed bits (:func:`unpack_rows` reads it back given its length)."""
    return base64.b64encode(np.packbits(np.asarray(rows, dtype=bool)).tobytes()).decode("ascii")


def unpack_rows(text: str, n: int) -> np.ndarray:
    """The boolean vector of length ``n`` that :func:`pack_rows` wrote."""
    return np.unpackbits(np.frombuffer(base64.b64decode(text), dtype=np.uint8), count=n).astype(bool)


def record_fit(X_train, y_train, X_test, y_test, seed, *, n_jobs=2, max_layers=MAX_LAYERS, params=None) -> dict:
    """Fit :class:`~benchmarks._internals.FullDepthClassifier` and return what the rules are replayed on.

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
    model = _internals.FullDepthClassifier(random_state=seed, n_jobs=n_jobs, max_layers=max_layers, **params)
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


def fit(ctx, X_train, y_train, X_test, y_test) -> dict:
    """:func:`load_compiled_code`, then :func:`record_fit` (in a fresh process)."""
    o = ctx.options
    load_compiled_code(X_train, y_train, o.mddf, ctx.n_jobs)
    return record_fit(
        X_train, y_train, X_test, y_test, ctx.seed, n_jobs=ctx.n_jobs, max_layers=o.max_layers, params=o.mddf
    )


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
        stopping = _internals.EarlyStopping(
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


def table_note(datasets, seeds, options) -> str:
    params = json.dumps(options.mddf) if options.mddf else "defaults"
    return (
        f"One fit per (dataset, seed) growing and keeping all {options.max_layers} layers "
        f"(MDDFClassifier parameters: {params}, n_jobs={options.n_jobs}); every rule replayed on its "
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


def table(results) -> str:
    parts = tables(results)
    return markdown(parts["summary"], parts["verdicts"], parts["focus"], parts["note"])


def tables(results) -> dict:
    """The replayed runs, their summary per rule and dataset, the verdicts, the focus dataset and the note."""
    rules = study_rules()
    runs = replay_all(results.records, rules)
    summary = summarise(runs, rules, results.datasets)
    shown = [d for d in results.datasets if any(r["dataset"] == d for r in summary)]
    focus = FOCUS if FOCUS in shown else (shown[0] if shown else FOCUS)
    seeds = {d: sorted(r["seed"] for r in results.records if r["dataset"] == d) for d in shown}
    note = table_note(shown, seeds, results.options)
    failed = [r for r in results.failed if r.get("status") == "failed"]
    if failed:
        note += f" Failed fits (left out): {len(failed)}, see results.jsonl."
    return {"runs": runs, "summary": summary, "verdicts": verdicts(summary, rules, focus), "focus": focus, "note": note}


def options(parser):
    parser.add_argument("--max-layers", type=int, default=None, help=f"layers grown per fit (default {MAX_LAYERS})")
    parser.add_argument("--params", default="{}", help="JSON of further MDDFClassifier parameters")
    parser.add_argument("--data-home", default=None, help="dataset files (default: $MDDF_DATA, else the cache)")


def check(options, parser):
    params = json.loads(options.params)
    reserved = sorted(set(params) & set(RESERVED_PARAMS))
    if reserved:
        parser.error("--params: " + "; ".join(f"{name}: {RESERVED_PARAMS[name]}" for name in reserved))
    options.mddf = {**(QUICK_PARAMS if options.quick else {}), **params}
    options.max_layers = options.max_layers or (QUICK_MAX_LAYERS if options.quick else MAX_LAYERS)


def csv_rows(results) -> dict:
    parts = tables(results)
    return {"stopping": parts["summary"], "stopping_verdicts": parts["verdicts"], "stopping_runs": parts["runs"]}


STUDY = Study(
    "stopping",
    __doc__,
    datasets=[split(d) for d in (*DATASETS, "digits")],
    methods={"full-depth": None},
    protocol=TrainTest(seeds=(0, 1, 2, 3, 4)),
    default_datasets=DATASETS,
    quick={"datasets": ["digits"], "seeds": (0, 1)},
    options=options,
    check=check,
    settings=lambda o: {"params": o.mddf, "max_layers": o.max_layers, "n_jobs": o.n_jobs},
    fit=fit,
    table=table,
    rows=csv_rows,
    report="stopping",
    fresh_process=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
