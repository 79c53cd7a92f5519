"""The runs of ``mddf benchmark --target a,b`` in ``<out>/results.jsonl``, as the one-target benchmark keeps its own:
one record per (method, seed, fold) appended as it finishes, bound to the table's sha256 and the run's settings
(:func:`bindings`); a rerun fits only the units without a checked record of the same data and settings
(:func:`fit_units`); the summary and the figure are made of the records read back (:func:`summary`, :func:`plot`)."""

from __future__ import annotations

import math

import numpy as np

from .binding import RESULT_VERSION, Binding, latest_bound, settings_sha256
from .runbook import Task

#: The scores a record holds, by task (``r2``: one per target).
SCORES = {
    "regression": ("r2",),
    "multilabel": ("hamming_loss", "subset_accuracy", "f1_micro", "f1_macro"),
}
#: The protocol in the units' keys and records.
PROTOCOL = "several-targets"
#: The seconds a record holds (the summary's ``fit_s`` and ``predict_s``).
SECONDS = {"fit_s": "train_seconds", "predict_s": "predict_seconds"}


def bindings(methods, settings: dict, data_sha256: str, estimator_settings) -> dict:
    """``{method: Binding}``: the table's ``data_sha256`` and the sha256 of ``settings`` (targets, task, folds,
    profile, how the file is read) with the method's ``estimator_settings(method)``."""
    out = {}
    for method in methods:
        bound = {"result_version": RESULT_VERSION, "several_targets": settings, "method": method}
        bound["estimator"] = estimator_settings(method)
        out[method] = Binding(data_sha256, settings_sha256(bound))
    return out


def plan(dataset: str, methods, seeds, folds: int, profile: str, bound: dict) -> list[Task]:
    """One :class:`~.runbook.Task` per method, seed and fold, in that order, bound as ``bound[method]``; its key ends
    in ``|protocol=several-targets``: not a run of the one-target benchmark on that table."""
    common = dict(profile=profile, protocol=PROTOCOL, n_folds=folds)
    units = [(method, int(seed), fold) for method in methods for seed in seeds for fold in range(folds)]
    return [Task(dataset, method, seed, fold, **common, binding=bound[method]) for method, seed, fold in units]


def _number(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value))


def checked(record: dict, task: str, n_targets: int) -> bool:
    """Whether ``record`` (read back from disk) is a finished unit with every score of ``task`` and its seconds: the
    numbers where numbers belong, one R² per target."""
    if record.get("status") != "ok":
        return False
    for key in SCORES[task]:
        value = record.get(key)
        if key == "r2":
            if not (isinstance(value, list) and len(value) == n_targets and all(map(_number, value))):
                return False
        elif value is None or not _number(value):
            return False
    return all(_number(record.get(key)) and record.get(key) is not None for key in SECONDS.values())


def done(tasks, store, task: str, n_targets: int) -> dict:
    """``{key: record}`` of the units of ``tasks`` whose latest record bound as planned passes :func:`checked`."""
    bound = latest_bound(store.records(), {t.key: t.binding for t in tasks})
    return {key: record for key, record in bound.items() if checked(record, task, n_targets)}


def shown(record: dict, task: str) -> str:
    """A unit's scores and fit time on one line."""
    if task == "regression":
        text = "R² " + ", ".join("nan" if v is None else f"{v:.4f}" for v in record["r2"])
    else:
        text = ", ".join(f"{key.replace('_', ' ')} {record[key]:.4f}" for key in SCORES[task])
    return f"{text}  fit {record['train_seconds']:.1f}s"


def fit_units(tasks, store, fit, task: str, n_targets: int, say) -> None:
    """Fit every unit of ``tasks`` without a checked record in ``store`` (``fit(task)``: its record), appending each
    record as it finishes; ``say`` how many are resumed and each unit's scores."""
    store.repair()  # a record cut short by an interrupted run is removed once, with a warning
    finished = done(tasks, store, task, n_targets)
    if finished:
        say(f"resuming: {len(finished)} of {len(tasks)} runs already finished in {store.path}")
    for unit in tasks:
        if unit.key in finished:
            continue
        record = fit(unit)
        store.append(record)
        say(f"{unit.label}: {shown(record, task)}")


def summary(tasks, store, methods, task: str, n_targets: int) -> dict:
    """``{method: {score: mean, ..., "fit_s", "predict_s", "sd": {score: standard deviation}}}`` over the checked
    records of ``tasks`` read back from ``store`` (R²: a list, one per target)."""
    records = done(tasks, store, task, n_targets)
    out = {}
    for method in methods:
        mine = [records[t.key] for t in tasks if t.method == method and t.key in records]
        if not mine:
            continue
        keys = {**{key: key for key in SCORES[task]}, **SECONDS}
        values = {name: np.array([r[key] for r in mine], dtype=np.float64) for name, key in keys.items()}
        result = {name: np.nanmean(v, axis=0).tolist() for name, v in values.items()}
        result["sd"] = {name: np.nanstd(values[name], axis=0).tolist() for name in SCORES[task]}
        out[method] = result
    return out


def plot(results: dict, task: str, names, title: str):
    """The figure: per method, each target's R² (regression) or the four multi-label scores, the mean over the
    folds and seeds with ±1 standard deviation as error bars."""
    from .figures import plt

    methods = list(results)
    if task == "regression":
        bars = [(f"R² {name}", [r["r2"][i] for r in results.values()], [r["sd"]["r2"][i] for r in results.values()])
                for i, name in enumerate(names)]  # fmt: skip
        label = "R² (held-out folds)"
    else:
        bars = [(key.replace("_", " "), [r[key] for r in results.values()], [r["sd"][key] for r in results.values()])
                for key in SCORES[task]]  # fmt: skip
        label = "score (held-out folds)"
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(methods) * max(1, len(bars)) / 2), 3.6))
    width = 0.8 / len(bars)
    x = np.arange(len(methods))
    for i, (name, means, sds) in enumerate(bars):
        ax.bar(x + (i - (len(bars) - 1) / 2) * width, means, width, yerr=sds, capsize=3, label=name)
    ax.set_xticks(x, methods)
    ax.set_ylabel(label)
    ax.axhline(0.0, color="black", linewidth=0.5)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="best")
    return fig
