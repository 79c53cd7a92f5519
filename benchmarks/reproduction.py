"""The reproduction report: our results beside the mdDF paper's Tables 2 and 3, cell by cell.

:func:`reproduction_rows` turns the runner's result records into one row per (dataset,
method): our mean and sample standard deviation over seeds, the published number, their
difference and that difference in standard errors of our mean (``(ours - paper) / (std /
sqrt(n))``; the paper gives no spread for these tables, so the published number is taken as
exact). :func:`selected_values` lists what ``mdDF-tuned`` chose per dataset and seed.
:func:`unavailable_datasets` asks the loaders why a dataset of the paper's Table 1 cannot be
run here. ``scripts/publish_results.py`` writes them as Markdown and CSV.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from mddf.datasets import published as paper_results

#: Datasets of the mdDF paper's Table 1, in its order.
TABLE1_DATASETS = ("adult", "yeast", "letter", "protein", "har", "sensit", "satimage", "mnist")
#: Our columns of Table 2 (the paper's, plus the tuned cascade) and of Table 3.
TABLE2_METHODS = ("mdDF", "mdDF-tuned", "gcForest", "RF", "XGBoost", "MLP")
TABLE3_METHODS = ("mdDF_SF", "mdDF_ST", "mdDF_NP", "mdDF")
#: The published column each of our methods is compared with.
PUBLISHED_AS = {"mdDF-tuned": "mdDF"}


def latest_records(records, profile="paper"):
    """The last record of every run key that finished ok under ``profile`` on the full training split."""
    latest = {}
    for record in records:
        if record.get("key") and record.get("method"):
            latest[record["key"]] = record
    return [
        r
        for r in latest.values()
        if r.get("status") == "ok" and r.get("profile") == profile and r.get("fraction", 1.0) == 1.0
    ]


def reproduction_rows(records, table=2, datasets=TABLE1_DATASETS, methods=None, profile="paper"):
    """One dict per (dataset, method) with results: ours against the paper's Table ``table``.

    Keys: ``dataset, method, n_seeds, seeds, mean, std, se, paper, diff, diff_se, fit_seconds``
    (accuracies in percent; ``fit_seconds`` the median over seeds of the choice of hyper-parameters and the final
    fit). ``paper``, ``diff`` and
    ``diff_se`` are None where nothing was published; ``std``, ``se`` and ``diff_se`` need at
    least two seeds.
    """
    published = paper_results.MDDF_TABLE2 if table == 2 else paper_results.MDDF_TABLE3
    methods = methods or (TABLE2_METHODS if table == 2 else TABLE3_METHODS)
    by_cell = {}
    for record in latest_records(records, profile):
        by_cell.setdefault((record["dataset"], record["method"]), []).append(record)
    rows = []
    for dataset in datasets:
        for method in methods:
            runs = sorted(by_cell.get((dataset, method), []), key=lambda r: r["seed"])
            if not runs:
                continue
            accuracies = np.array([100.0 * r["accuracy"] for r in runs])
            n = len(accuracies)
            std = float(np.std(accuracies, ddof=1)) if n > 1 else None
            se = std / math.sqrt(n) if std is not None else None
            paper = published.get(dataset, {}).get(PUBLISHED_AS.get(method, method))
            mean = float(accuracies.mean())
            diff = None if paper is None else mean - paper
            rows.append(
                {
                    "dataset": dataset,
                    "method": method,
                    "n_seeds": n,
                    "seeds": [int(r["seed"]) for r in runs],
                    "mean": mean,
                    "std": std,
                    "se": se,
                    "paper": paper,
                    "diff": diff,
                    "diff_se": None if diff is None or not se else diff / se,
                    "fit_seconds": float(np.median([_fit_seconds(r) for r in runs])),
                    "n_layers": [r.get("n_layers") for r in runs],
                }
            )
    return rows


def _fit_seconds(record):
    """What a run spent to get its model: choosing hyper-parameters (mdDF-tuned's search, the MLP's architecture)
    and the final fit (``total_seconds``; an earlier runner's records count both in ``train_seconds``)."""
    return record.get("total_seconds", record.get("train_seconds", np.nan))


def selected_values(records, method="mdDF-tuned", profile="paper"):
    """What ``method`` selected per (dataset, seed), with its search's compute.

    Returns a list of dicts: ``dataset, seed, accuracy`` (percent), the selected parameter
    values, ``selection_score`` (out-of-fold accuracy, percent), ``n_layers``,
    ``n_layer_fits``, ``search_seconds``.
    """
    rows = []
    for record in latest_records(records, profile):
        if record["method"] != method or "selected_params" not in record:
            continue
        search = record.get("search", {})
        rows.append(
            {
                "dataset": record["dataset"],
                "seed": int(record["seed"]),
                "accuracy": 100.0 * record["accuracy"],
                **record["selected_params"],
                "selection_score": 100.0 * search.get("selection_score", float("nan")),
                "n_layers": record.get("n_layers"),
                "n_layer_fits": search.get("n_layer_fits"),
                "search_seconds": search.get("seconds"),
            }
        )
    order = {d: i for i, d in enumerate(TABLE1_DATASETS)}
    return sorted(rows, key=lambda r: (order.get(r["dataset"], len(order)), r["dataset"], r["seed"]))


def most_common_values(selected, names=("margin_mean", "margin_tradeoff", "max_depth_factor")):
    """Per dataset, how often each combination of ``names`` was selected over the seeds."""
    out = {}
    for row in selected:
        out.setdefault(row["dataset"], Counter())[tuple(row.get(n) for n in names)] += 1
    return out


def unavailable_datasets(datasets=TABLE1_DATASETS, loader=None, data_home=None):
    """``{dataset: reason}`` for the datasets whose files cannot be loaded here (the loader's message).

    The default loader reads ``data_home`` (or ``$MDDF_DATA``) and the cache, and never downloads.
    """
    if loader is None:
        from mddf.datasets import load_dataset

        def loader(name):
            return load_dataset(name, data_home=data_home, download=False, verbose=0)

    reasons = {}
    for name in datasets:
        try:
            loader(name)
        except Exception as exc:  # the loader's own message says what is missing and where
            message = " ".join(str(exc).split())
            missing = missing_files(message)
            reasons[name] = f"missing file(s): {', '.join(missing)}" if missing else message
    return reasons


def missing_files(message):
    """The file names a loader's "``<file> is missing:``" message lists, in order."""
    files = []
    for before in message.split(" is missing:")[:-1]:
        files.append(re.split(r": |\. ", before)[-1].strip())
    return files
