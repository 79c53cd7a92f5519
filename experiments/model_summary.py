"""What a run record says of its fitted model: its parameters, its size, the search it ran, its cascade's layers."""

from __future__ import annotations

import contextlib

import numpy as np

from .early_stopped import EarlyStopped


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
        with contextlib.suppress(KeyError, TypeError):
            record["trees_per_layer"] = int(params["n_estimators"]) * len(params["forest_types"])


def inner_model(estimator):
    """The model an :class:`~.early_stopped.EarlyStopped` wraps, else ``estimator``."""
    return estimator.estimator_ if isinstance(estimator, EarlyStopped) else estimator
