"""Explain mdDF's predictions on a table: each column's attribution to each prediction, as a CSV and a figure.

``mddf explain`` fits the benchmark's mdDF row (as ``mddf export-features`` does: ``MDDFClassifier`` with its
defaults and the categorical columns declared, ``CascadeForestRegressor`` for a regression target, seeded with
``--seed``) on the training rows, then explains the first ``--rows`` held-out rows (the ``--test`` file's, else
those of the seeded 70/30 split of ``--data``, or the built-in dataset's test split) with ``explain()``: exact
TreeSHAP through the layers (``--fast``: path contributions). It writes into ``--out``:

    attributions.csv   one line per explained row (and, for a classifier, per class): ``row`` (the row's position
                       among the data rows of its file), ``class``, ``base``, ``prediction`` (the probability of
                       the class, or the predicted value) and one column per input column, its attribution;
                       ``base`` plus the attributions is ``prediction``
    summary.png        the mean absolute attribution of each column (per class for a classifier)

Existing files are not overwritten unless ``--force`` is given. ``mddf explain`` parses its arguments
(:mod:`.cli`) and calls :func:`run`.
"""

from __future__ import annotations

from pathlib import Path

#: The files ``mddf explain`` writes into ``--out``.
OUTPUTS = ("attributions.csv", "summary.png")


def _out_folder(args, ds):
    """The folder written, checked: a folder (not a file), whose outputs exist only with ``--force``."""
    from mddf.datasets.user_data import UserDataSource

    from .studies import OutputError

    user = ds.extra.get("user_data")
    out = args.out or Path("results/explain") / (UserDataSource(**user).slug if user else ds.name)
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out} is a file; give the folder to write {' and '.join(OUTPUTS)} into")
    existing = [name for name in OUTPUTS if (out / name).exists()]
    if existing and not args.force:
        raise OutputError(f"{out} already holds {', '.join(existing)}; give --force to overwrite, or another --out")
    return out


def attribution_table(explained, rows, feature_names, class_names=None):
    """The lines of ``attributions.csv`` (see the module) as a DataFrame; ``class_names`` name the classifier's
    outputs (default: its ``output_names``)."""
    import numpy as np
    import pandas as pd

    values = np.asarray(explained.values)
    base = np.asarray(explained.base_values)
    if values.ndim == 2:  # a regressor: one output
        values, base = values[:, :, None], base[:, None]
        classes = [""]
    else:
        classes = list(explained.output_names if class_names is None else class_names)
    frames = []
    for c, name in enumerate(classes):
        frame = pd.DataFrame(values[:, :, c], columns=feature_names)
        frame.insert(0, "prediction", base[:, c] + values[:, :, c].sum(axis=1))
        frame.insert(0, "base", base[:, c])
        frame.insert(0, "class", name)
        frame.insert(0, "row", rows)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    table = table.sort_values(["row", "class"], kind="stable", ignore_index=True)
    return table if classes != [""] else table.drop(columns="class")


def summary_figure(explained, feature_names, path, class_names=None):
    """The mean absolute attribution of each column (stacked per class), largest first, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    values = np.abs(np.asarray(explained.values))
    values = values[:, :, None] if values.ndim == 2 else values
    mean = values.mean(axis=0)  # (columns, outputs)
    order = np.argsort(mean.sum(axis=1))
    names = ["prediction"] if explained.output_names is None else list(class_names or explained.output_names)
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(order) + 1.5))
    left = np.zeros(len(order))
    for c, name in enumerate(names):
        ax.barh(np.arange(len(order)), mean[order, c], left=left, label=name)
        left += mean[order, c]
    ax.set_yticks(np.arange(len(order)), [feature_names[i] for i in order])
    ax.set_xlabel("mean |attribution| over the explained rows")
    if explained.output_names is not None:
        ax.legend(title="class", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(args, *, command: str) -> int:
    """Fit mdDF on the training rows, explain ``--rows`` held-out rows and write the outputs; returns 0 (the folder
    is printed on stdout)."""
    import numpy as np

    from .studies import OptionError, fit_mddf, logger, resolve_dataset

    log = logger(args)
    if args.rows < 1:
        raise OptionError(f"--rows {args.rows}: give a positive number of rows to explain")
    ds = resolve_dataset(args, log, seed=args.seed)
    out = _out_folder(args, ds)
    model, _ = fit_mddf(ds, args, log)
    held_out = ds.has_test_split
    X = ds.X_test if held_out else ds.X_train
    rows = np.arange(min(args.rows, len(X)))
    log(f"explaining {len(rows)} {'held-out' if held_out else 'training'} rows ({'fast' if args.fast else 'exact'})")
    explained = model.explain(X[rows], fast=args.fast)
    positions = (ds.extra.get("rows") or {}).get("test" if held_out else "train")
    file_rows = np.asarray(positions)[rows] if positions is not None else rows
    names = [str(name) for name in ds.feature_names]
    labels = None if explained.output_names is None else [str(ds.classes[int(c)]) for c in model.classes_]
    out.mkdir(parents=True, exist_ok=True)
    attribution_table(explained, file_rows, names, labels).to_csv(out / "attributions.csv", index=False)
    summary_figure(explained, names, out / "summary.png", labels)
    log(f"wrote {out / 'attributions.csv'} and {out / 'summary.png'}")
    print(out)
    return 0
