"""One run (:func:`run_one`): load a dataset, build a method, choose its hyper-parameters, fit, predict, measure; and
what its record says of the fitted model (:func:`describe_model`)."""

from __future__ import annotations

import json
import threading
import time
import traceback
import warnings
from collections import OrderedDict
from contextlib import contextmanager, suppress

import numpy as np
from joblib import effective_n_jobs

from mddf.datasets.user_data import load_source, register_all, registered
from mddf.utils import thread_limits

from .defaults import protocol_of
from .early_stopped import EarlyStopped
from .methods import FALLBACK_TREES_K, adapt_to_small_classes, default_registry
from .methods import trees_per_layer as layer_trees
from .metrics import full_probabilities, predict_once, run_scores
from .protocols import cv_run_data, deepboost_run_data, split_run_data
from .provenance import PeakMemory, current_rss_mb, record_stamp, utc_now
from .registry import BuildContext, Registry, learner_task
from .store import Binding, dataset_sha256, new_record, run_key

DATASET_CACHE_SIZE = 2  #: Datasets kept in a long-lived process (inline execution, Dask workers), most recent last.
_DATASET_CACHE: OrderedDict[object, object] = OrderedDict()
_DATASET_CACHE_LOCK = threading.Lock()  # a Dask worker with several threads runs several runs at once


class DatasetUnavailable(Exception):
    """The dataset's files are not on this machine (the run is reported as skipped)."""


def load(dataset: str, cache: bool = False, download: bool = False):
    """``mddf.datasets.load_dataset(dataset)``, or the user file registered as ``dataset``; missing files or a failed
    download: :class:`DatasetUnavailable` (the loader's message)."""
    source = registered(dataset)  # a user file is cached under its content and options
    key = dataset if source is None else (dataset, json.dumps(source.as_dict(), sort_keys=True))
    if cache:
        with _DATASET_CACHE_LOCK:
            if key in _DATASET_CACHE:
                _DATASET_CACHE.move_to_end(key)
                return _DATASET_CACHE[key]
    from mddf.datasets import load_dataset

    try:
        ds = load_source(source) if source is not None else load_dataset(dataset, download=download, verbose=0)
    except (FileNotFoundError, ConnectionError) as exc:
        raise DatasetUnavailable(command_line_wording(str(exc))) from exc
    if cache:
        with _DATASET_CACHE_LOCK:
            _DATASET_CACHE[key] = ds
            while len(_DATASET_CACHE) > DATASET_CACHE_SIZE:
                _DATASET_CACHE.popitem(last=False)
    return ds


def command_line_wording(message: str) -> str:
    """A loader's message with its Python keywords (``download=True``, ``data_home=``) as the command line's options."""
    return (
        message.replace("allow downloading (download=True)", "allow downloading (--download)")
        .replace("(download=False)", "(--download was not given)")
        .replace("pass data_home= /", "pass --data-home /")
        .replace(" (data_home)\n", " (--data-home or $MDDF_DATA)\n")
        .replace("<data_home>/", "<--data-home folder>/")
    )


def run_one(
    dataset: str,
    method: str,
    seed: int = 0,
    *,
    fold: int | None = None,
    fraction: float = 1.0,
    profile: str = "paper",
    protocol: str = "paper",
    n_folds: int | None = None,
    n_jobs: int | None = -1,
    trees_k: int | None = None,
    trees_per_layer: int | None = None,
    trees_k_source: str | None = None,
    registry: Registry | None = None,
    validation_fraction: float = 0.2,
    cache_dataset: bool = False,
    download: bool = False,
    user_data: dict | None = None,
    binding: Binding | None = None,
) -> dict:
    """The result record of one (dataset, method, seed[, fold, fraction]) run; never raises. ``dataset``: a name, or a
    file of ``user_data`` (``{name: UserDataSource.as_dict()}``); ``seed`` seeds the estimator, hold-outs, sub-sample
    and folds; ``fold``: of the DeepBoost protocol or the practitioner's ``n_folds`` (None: the split); ``n_jobs``:
    the estimator's threads; ``trees_per_layer * trees_k``: a tree-budget method's trees; ``cache_dataset`` keeps the
    last :data:`DATASET_CACHE_SIZE` datasets; ``binding``: the data and settings planned. ``status`` is ``"ok"``
    (every metric of its task and the ``*_seconds``), ``"error"`` (``error``, ``traceback``) or ``"skipped"``."""
    registry = registry or default_registry()
    memory = PeakMemory().start()
    key = run_key(dataset, method, seed, fold, fraction, profile, protocol)
    shown = protocol_of(dataset) if protocol == "paper" else protocol
    fields = dict(fraction=float(fraction), profile=profile, protocol=shown, started_at=utc_now(), n_jobs=n_jobs)
    record = new_record(key, dataset, method, int(seed), fold, status="error", binding=binding, stamped=False, **fields)
    caught = []
    try:
        spec = registry.get(method)
        record["method"] = spec.name
        ds = _load_bound(dataset, record, user_data, cache_dataset, download, binding)
        if ds is None:  # the dataset's files are missing: the run is skipped
            return record
        task = record["task"] = task_of(ds)
        targets = (ds.extra or {}).get("targets") or ()
        if targets:
            record["targets"] = targets
        data = _run_data(ds, protocol, seed, fold, fraction, n_folds, task, validation_fraction)
        n_classes = 0 if learner_task(task) == "regression" else int(len(np.unique(ds.y)))
        if task not in spec.tasks:
            raise ValueError(f"{spec.name} does not handle {task}")
        if spec.binary_only and n_classes != 2:
            raise ValueError(f"{spec.name} handles two-class problems only; {dataset} has {n_classes} classes")
        n_trees = None
        if spec.tree_budget:  # trees_per_layer * trees_k: the fallback k without trees_k, the profile's per layer
            if trees_k is None:
                trees_k, trees_k_source = FALLBACK_TREES_K, "fallback (no mdDF result for this run)"
            trees_per_layer = trees_per_layer or layer_trees(profile)
            n_trees = int(trees_per_layer * trees_k)
            record.update(trees_k=int(trees_k), trees_per_layer=int(trees_per_layer), trees_k_source=trees_k_source)
            record["n_trees_budget"] = n_trees
        run = dict(seed=int(seed), n_jobs=n_jobs, profile=profile, n_trees=n_trees, task=task, protocol=protocol)
        ctx = BuildContext.of(ds, n_classes, **run)
        labels = _Labels(data.y_train, task)
        record.update(
            n_train=len(data.y_train), n_test=len(data.y_test), n_features=ctx.n_features, n_classes=n_classes
        )
        record.update(split=data.description, rss_before_fit_mb=current_rss_mb())
        if not labels.plain:
            record.update(n_train_classes=len(labels.present), min_class_rows=labels.min_rows)
        with _fit_conditions(n_jobs) as caught:
            estimator = _fitted_estimator(spec, ctx, data, labels, record, ds.classes)
            y_pred, proba = _test_predictions(estimator, data.X_test, labels, n_classes, record)
        record.update(run_scores(task, data.y_test, y_pred, proba, targets))
        describe_model(record, estimator, monotone=getattr(spec.build, "about", None))
        record["status"] = "ok"
    except Exception as exc:  # one failing run must not stop the others
        record["error"] = f"{type(exc).__name__}: {exc}"
        record["traceback"] = traceback.format_exc()
    finally:  # the peak memory, the first five distinct warnings and the provenance stamp
        record.update(peak_rss_mb=memory.peak_mb(), memory_method=memory.method)
        messages = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
        if messages:
            record["warnings"] = messages[:5] + ([f"... {len(messages) - 5} more"] if len(messages) > 5 else [])
        record.update(record_stamp())
    return record


def _load_bound(dataset, record, user_data, cache_dataset, download, binding):
    """The run's dataset (:func:`load`), ``user_data`` registered first; None when its files are missing (``record``
    says so); a ``ValueError`` for data whose hash is not ``binding``'s."""
    register_all(user_data)
    if registered(dataset) is not None:
        record["data_source"] = registered(dataset).as_dict()
    try:
        ds = load(dataset, cache=cache_dataset, download=download)
    except DatasetUnavailable as exc:
        record.update(status="skipped", message=str(exc))
        return None
    if binding is not None and dataset_sha256(ds) != binding.data_sha256:
        raise ValueError(f"the data of {dataset} changed since the command started (sha256 {dataset_sha256(ds)}, "
                         f"was {binding.data_sha256})")  # fmt: skip
    return ds


@contextmanager
def _fit_conditions(n_jobs):
    """What the fit and the prediction run under: every warning recorded (in the list yielded), ``n_jobs`` threads."""
    with warnings.catch_warnings(record=True) as caught, thread_limits(effective_n_jobs(n_jobs)):
        warnings.simplefilter("always")
        yield caught


def _fitted_estimator(spec, ctx, data, labels, record, classes):
    """The model the run tests: warmed up, selected (:func:`_select`), adapted to the smallest class and refitted on
    every training row unless the protocol tests the selected model; times in ``record``."""
    if spec.warm_up is not None:
        record.update(_warm_up(spec, ctx, data.X_train, labels))
    estimator, selection = _select(spec, ctx, data, record, labels)
    if estimator is None:
        params = selection["chosen"] if selection else {}
        estimator = spec.build(ctx, **params)
        if adapted := adapt_to_small_classes(estimator, len(data.y_train) if labels.plain else labels.min_rows):
            why = f"{len(data.y_train)} training rows" if labels.plain else labels.smallest(classes)
            record.update(adapted=adapted, adapted_because=why)
        t0, c0 = time.perf_counter(), time.process_time()
        estimator.fit(data.X_train, labels.encoded)
        record.update(train_seconds=time.perf_counter() - t0, train_cpu_seconds=time.process_time() - c0)
    _split_search_time(estimator, record)
    return estimator


def _test_predictions(estimator, X_test, labels, n_classes, record):
    """``(labels, probabilities of every class code or None)`` of the test rows, timed in ``record``."""
    t0 = time.perf_counter()
    try:
        y_pred, proba = predict_once(estimator, X_test, probabilities=not labels.plain)
    except Exception as exc:  # a method without working probabilities has no log-loss
        record["log_loss_error"] = f"{type(exc).__name__}: {exc}"
        y_pred, proba = estimator.predict(X_test), None
    record["predict_seconds"] = time.perf_counter() - t0
    y_pred = labels.decode(y_pred)
    if proba is None:
        return y_pred, None
    model_classes = labels.decode(np.asarray(estimator.classes_).astype(np.int64))
    return y_pred, full_probabilities(proba, model_classes, n_classes)


def task_of(dataset) -> str:
    """The task of a dataset's ``extra["task"]`` (``"regression"``, several targets'), else ``"classification"``."""
    return (dataset.extra or {}).get("task", "classification")


def _run_data(ds, protocol, seed, fold, fraction, n_folds, task, validation_fraction):
    """The rows of one run under ``protocol`` (see :func:`run_one`)."""
    if protocol == "practitioner" and fold is not None:
        if fraction != 1.0:
            raise ValueError("fraction < 1 is only supported on a train/test split, not in cross-validation")
        if not n_folds:
            raise ValueError("a cross-validation run needs its number of folds (n_folds)")
        return cv_run_data(ds, seed, fold, n_folds, task, validation_fraction)
    if protocol == "paper" and protocol_of(ds.name) == "deepboost":
        if fold is None:
            raise ValueError(f"{ds.name} is evaluated with the DeepBoost fold protocol: pass fold=0..9")
        if fraction != 1.0:
            raise ValueError("fraction < 1 is only supported on datasets with a train/test split")
        return deepboost_run_data(ds, seed, fold)
    if fold is not None:
        raise ValueError(f"{ds.name} is evaluated on its train/test split: fold must be None, got {fold}")
    return split_run_data(ds, seed, fraction, validation_fraction, task)


class _Labels:
    """The class codes ``0 .. m-1`` a model trains on, and back; other targets pass through (``plain``)."""

    def __init__(self, y_train, task):
        self.plain = task != "classification"
        y_train = np.asarray(y_train)
        if self.plain:
            self.present, self.encoded, self.min_rows = None, y_train, None
            return
        self.present, counts = np.unique(y_train, return_counts=True)
        self.identity = np.array_equal(self.present, np.arange(len(self.present)))
        self.encoded = self.encode(y_train)
        self.counts = counts
        self.min_rows = int(counts.min())

    def encode(self, y):
        """The training codes of labels ``y`` (each one of the present classes)."""
        if self.plain or self.identity:
            return y  # the dataset's own codes, untouched
        return np.searchsorted(self.present, y).astype(np.int64)

    def decode(self, predicted):
        """The dataset's codes of predicted training codes."""
        if self.plain or self.identity:
            return np.asarray(predicted)
        return self.present[np.asarray(predicted).astype(np.int64)]

    def smallest(self, classes) -> str:
        """``"class 'x' has 2 training rows"``: why a cascade was adapted."""
        code = int(self.present[int(self.counts.argmin())])
        return f"class {str(classes[code])!r} has {self.min_rows} training row(s)"

    def warm_up_rows(self, per_class: int = 30, regression_rows: int = 60) -> np.ndarray:
        """Rows of a warm-up fit: the first ``per_class`` of each class (or the first rows of plain targets)."""
        if self.plain:
            return np.arange(min(len(self.encoded), regression_rows))
        return np.sort(np.concatenate([np.flatnonzero(self.encoded == c)[:per_class] for c in np.unique(self.encoded)]))


def _warm_up(spec, ctx, X_train, labels) -> dict:
    """Fit and apply a tiny model of ``spec``'s kind on a few training rows (numba's compilation, not timed with the
    fit): ``{"compile_seconds": s}``, or ``{"compile_seconds": None, "warm_up_error": ...}``."""
    rows = labels.warm_up_rows()
    X, y = X_train[rows], labels.encoded[rows]
    try:
        model = spec.warm_up(ctx)
        if not labels.plain:
            y = np.unique(y, return_inverse=True)[1]
            adapt_to_small_classes(model, int(np.bincount(y).min()))
        t0 = time.perf_counter()
        model.fit(X, y)
        (model.predict_proba if hasattr(model, "predict_proba") else model.predict)(X)
        return {"compile_seconds": time.perf_counter() - t0}
    except Exception as exc:
        return {"compile_seconds": None, "warm_up_error": f"{type(exc).__name__}: {exc}"}


def _split_search_time(estimator, record) -> None:
    """A fit that searches its own hyper-parameters (``search_seconds_``) spent that time on selection."""
    searched = getattr(estimator, "search_seconds_", None)
    if searched is not None and "train_seconds" in record:
        searched = min(float(searched), record["train_seconds"])
        record["selection_seconds"] = record.get("selection_seconds", 0.0) + searched
        record["train_seconds"] -= searched
    record.setdefault("selection_seconds", 0.0)
    record["total_seconds"] = record["selection_seconds"] + record.get("train_seconds", 0.0)


def _select(spec, ctx, data, record, labels):
    """``(the selected fitted model, or None to refit, selection)`` of the candidates scored on the validation rows."""
    candidates = spec.grid(ctx) if spec.grid is not None else []
    if len(candidates) == 0:
        return None, None
    if len(candidates) == 1 and data.refit:
        record["selection"] = {"chosen": candidates[0], "candidates": []}
        return None, record["selection"]
    trials, best, best_model = [], None, None
    t_sel = time.perf_counter()
    for params in candidates:
        model = spec.build(ctx, **params)
        t0, c0 = time.perf_counter(), time.process_time()
        model.fit(data.X_fit, labels.encode(data.y_fit))
        fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
        acc = float(np.mean(labels.decode(model.predict(data.X_val)) == data.y_val))
        trials.append({"params": jsonable_params(params), "val_accuracy": acc, "fit_seconds": fit_s})
        # Strictly better only: ties keep the earlier (simpler) candidate of the grid.
        if best is None or acc > best[0]:
            best = (acc, params, fit_s, fit_cpu)
            best_model = None if data.refit else model
    record["selection_seconds"] = time.perf_counter() - t_sel
    selection = {"chosen": jsonable_params(best[1]), "val_accuracy": best[0], "candidates": trials}
    record["selection"] = selection
    if data.refit:
        return None, {"chosen": best[1]}
    record["train_seconds"], record["train_cpu_seconds"] = best[2], best[3]
    record["selection_seconds"] -= best[2]
    return best_model, selection


def jsonable_params(params: dict) -> dict:
    """``params`` with JSON-safe values: numbers, strings and lists of them as they are, anything else as its repr."""
    out = {}
    for key, value in params.items():
        if value is None or isinstance(value, (bool, int, float, str)):
            out[key] = value
        elif isinstance(value, (np.integer, np.floating)):
            out[key] = value.item()
        elif isinstance(value, (tuple, list)) and all(isinstance(v, (bool, int, float, str)) for v in value):
            out[key] = list(value)
        else:
            out[key] = repr(value)
    return out


def estimator_params(estimator) -> dict:
    """Hyper-parameters of a fitted estimator (the final step's for a Pipeline), JSON-safe."""
    final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    try:
        return jsonable_params(final.get_params(deep=False))
    except Exception:  # estimators outside scikit-learn's API
        return {}


def model_size(estimator) -> dict:
    """A fitted model's size: its trees and nodes (the baselines' own statistics) or MLP weights, else {}."""
    if hasattr(estimator, "steps"):
        estimator = estimator.steps[-1][1]
    coefs = getattr(estimator, "coefs_", None)
    if coefs is not None:
        return {"n_weights": int(sum(c.size for c in coefs) + sum(b.size for b in estimator.intercepts_))}
    if callable(getattr(estimator, "tree_stats", None)):  # DeepBoost / AdaBoost: the paper's tree counts
        try:
            return dict(estimator.tree_stats())
        except Exception:  # a statistic is not worth failing a finished run for
            pass
    if hasattr(estimator, "n_voters_"):  # QuadBoost: stumps with a non-zero weight
        return {"n_voters": int(estimator.n_voters_)}
    if hasattr(estimator, "booster_"):  # LightGBM: one tree per class and round (one per round if binary)
        return {"n_trees": int(estimator.booster_.num_trees())}
    if hasattr(estimator, "n_trees_per_iteration_") and hasattr(estimator, "n_iter_"):  # HistGradientBoosting
        return {"n_trees": int(estimator.n_iter_ * estimator.n_trees_per_iteration_)}
    if hasattr(estimator, "get_booster"):  # XGBoost
        n_groups = 1 if getattr(estimator, "n_classes_", 2) <= 2 else estimator.n_classes_
        return {"n_trees": int(estimator.get_booster().num_boosted_rounds() * n_groups)}
    counts = {"n_trees": 0, "n_tree_nodes": 0}
    seen: set[int] = set()

    def visit(obj, depth):
        if depth > 8 or id(obj) in seen:
            return
        seen.add(id(obj))
        tree = getattr(obj, "tree_", None)
        if tree is not None and hasattr(tree, "node_count"):
            counts["n_trees"] += 1
            counts["n_tree_nodes"] += int(tree.node_count)
            return
        if isinstance(obj, (list, tuple)):
            for item in obj:
                visit(item, depth + 1)
        elif isinstance(obj, dict):
            for item in obj.values():
                visit(item, depth + 1)
        elif type(obj).__module__.split(".")[0] in ("sklearn", "mddf"):
            for value in getattr(obj, "__dict__", {}).values():
                if not isinstance(value, (np.ndarray, str, bytes, int, float, type(None))):
                    visit(value, depth + 1)

    visit(estimator, 0)
    return {k: v for k, v in counts.items() if counts["n_trees"] > 0}


def cascade_summary(estimator) -> dict:
    """Layers, weights, per-layer history and what predicts (``predictor_input``) of a fitted cascade, else {}."""
    if not hasattr(estimator, "n_layers_"):
        return {}
    out = {"n_layers": int(estimator.n_layers_)}
    alphas = getattr(estimator, "alphas_", None)
    if alphas is not None:
        out["alphas"] = [float(a) for a in np.asarray(alphas).ravel()]
    if hasattr(estimator, "stop_reason_"):
        out["stop_reason"] = str(estimator.stop_reason_)
    out.update(predictor_choice(estimator))
    history = getattr(estimator, "train_history_", None)
    if history:
        out["history"] = [jsonable_params(dict(h)) for h in history]
        out["n_layers_grown"] = len(history)
        kept_bytes = [h.get("model_bytes") for h in history[: out["n_layers"]]]
        if kept_bytes and all(isinstance(b, (int, np.integer)) for b in kept_bytes):
            out["model_bytes"] = int(sum(kept_bytes))  # what the kept layers' forests occupy
    return out


def predictor_choice(estimator) -> dict:
    """``predictor_input``, ``predictor_weight`` and ``predictor_input_scores`` of a cascade's predictor, else {}."""
    chosen = getattr(estimator, "predictor_input_", None)
    if chosen is None:
        return {}
    out = {"predictor_input": chosen, "predictor_weight": float(estimator.predictor_weight_)}
    if estimator.predictor_input_scores_ is not None:
        out["predictor_input_scores"] = {k: float(v) for k, v in estimator.predictor_input_scores_.items()}
    return out


def search_summary(estimator) -> dict:
    """The values a parameter search (``mddf.MDDFGridSearch``) selected and the compute it spent, else {}."""
    if not hasattr(estimator, "best_params_"):
        return {}
    results = estimator.cv_results_
    search = dict(selection_score=float(estimator.best_score_), n_candidates=len(results["params"]))
    search["n_completed"] = int(sum(1 for p in results["pruned_at_layer"] if p == 0))
    search.update(n_layer_fits=int(estimator.n_layer_fits_), seconds=float(estimator.search_seconds_))
    return {"selected_params": jsonable_params(dict(estimator.best_params_)), "search": search}


def describe_model(record, estimator, monotone=None) -> None:
    """Write in ``record`` what the fitted model is: parameters, early stopping, size, search, cascade, ``monotone``."""
    record["params"] = estimator_params(inner_model(estimator))
    if isinstance(estimator, EarlyStopped):
        stopping = ("rounds", "n_rounds_"), ("validation_rows", "n_validation_"), ("patience", "patience")
        record["early_stopping"] = {key: getattr(estimator, name) for key, name in stopping}
        record["early_stopping"]["validation_fraction"] = estimator.validation_fraction
        if getattr(estimator, "categories_as_codes_", None):  # HistGradientBoosting: too many categories
            record["categories_as_codes"] = estimator.categories_as_codes_
    record.update(model_size(inner_model(estimator)))
    record.update(search_summary(estimator))
    cascade = cascade_summary(getattr(estimator, "best_estimator_", estimator))
    if cascade:
        record["n_layers"] = cascade.pop("n_layers")
        if "model_bytes" in cascade:
            record["model_bytes"] = cascade.pop("model_bytes")
        if monotone:
            cascade["monotone"] = dict(monotone)
        record["cascade"] = cascade
        params = getattr(estimator, "best_estimator_", estimator).get_params(deep=False)
        with suppress(KeyError, TypeError):
            record["trees_per_layer"] = int(params["n_estimators"]) * len(params["forest_types"])


def inner_model(estimator):
    """The model an :class:`~.early_stopped.EarlyStopped` wraps, else ``estimator``."""
    return estimator.estimator_ if isinstance(estimator, EarlyStopped) else estimator
