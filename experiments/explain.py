"""Explain mdDF's predictions on a table: each column's attribution to each prediction, as a CSV and a figure.

``mddf explain`` fits the benchmark's mdDF row (as ``mddf export-features`` does) on the training rows, then
explains the first ``--rows`` held-out rows (the ``--test`` file's, else those of the seeded 70/30 split of
``--data``) with ``explain()``: exact TreeSHAP through the layers, or path contributions with ``--fast``. It writes
into ``--out``, and overwrites an earlier run's files only with ``--force``:

    attributions.csv   a line per row (and class, for a classifier): ``row`` (its position among the data rows of
                       its file), ``class``, ``base``, ``prediction`` (the class's probability, or the predicted
                       value), then each input column's attribution; ``base`` plus them is ``prediction``
    summary.png        each column's mean absolute attribution over the rows (per class)
"""

from __future__ import annotations

from pathlib import Path

#: The files ``mddf explain`` writes into ``--out``.
OUTPUTS = ("attributions.csv", "summary.png")


def explain_options(parser) -> None:
    """The options of ``mddf explain``: the dataset's, mdDF's (:mod:`.options`) and its own."""
    from .options import add_dataset_arguments, add_mddf_arguments

    add_dataset_arguments(parser)
    add_mddf_arguments(parser)
    parser.add_argument("--rows", type=int, default=200, help="held-out rows explained (default: 200)")
    parser.add_argument("--fast", action="store_true", help="path contributions instead of exact TreeSHAP")
    parser.add_argument("--out", type=Path, help="output folder (default: results/explain/<dataset or file>)")
    parser.add_argument("--force", action="store_true", help="overwrite the files of an earlier run in --out")


def attribution_table(explained, rows, feature_names, class_names):
    """The lines of ``attributions.csv`` as a DataFrame (``class_names`` None: a regressor's, one line a row)."""
    import numpy as np
    import pandas as pd

    values, base = np.asarray(explained.values), np.asarray(explained.base_values)
    if class_names is None:
        values, base = values[:, :, None], base[:, None]
    frames = []
    for c, name in enumerate(class_names or [None]):
        frame = pd.DataFrame(values[:, :, c], columns=feature_names)
        frame.insert(0, "prediction", base[:, c] + values[:, :, c].sum(axis=1))
        frame.insert(0, "base", base[:, c])
        if name is not None:
            frame.insert(0, "class", name)
        frame.insert(0, "row", rows)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True).sort_values("row", kind="stable", ignore_index=True)


def summary_figure(explained, feature_names, class_names, path):
    """Each column's mean absolute attribution (stacked per class), largest on top, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    values = np.abs(np.asarray(explained.values))
    mean = (values if values.ndim == 3 else values[:, :, None]).mean(axis=0)  # (columns, outputs)
    order = np.argsort(mean.sum(axis=1))
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(order) + 1.5))
    for c, name in enumerate(class_names or ["prediction"]):
        ax.barh(np.arange(len(order)), mean[order, c], left=mean[order, :c].sum(axis=1), label=name)
    ax.set_yticks(np.arange(len(order)), [feature_names[i] for i in order])
    ax.set_xlabel("mean |attribution| over the explained rows")
    if class_names is not None:
        ax.legend(title="class", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(args, *, command: str) -> int:
    """Fit mdDF on the training rows, explain ``--rows`` held-out rows and write the outputs; returns 0 (the folder
    is printed on stdout)."""
    import numpy as np

    from mddf.datasets.user_data import UserDataSource

    from .studies import OptionError, OutputError, fit_mddf, logger, resolve_dataset

    log = logger(args)
    if args.rows < 1:
        raise OptionError(f"--rows {args.rows}: give a positive number of rows to explain")
    ds = resolve_dataset(args, log, seed=args.seed)
    user = ds.extra.get("user_data")
    out = args.out or Path("results/explain") / (UserDataSource(**user).slug if user else ds.name)
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out} is a file; give the folder to write {' and '.join(OUTPUTS)} into")
    existing = [name for name in OUTPUTS if (out / name).exists()]
    if existing and not args.force:
        raise OutputError(f"{out} already holds {', '.join(existing)}; give --force to overwrite, or another --out")
    model, _ = fit_mddf(ds, args, log)
    X, part = (ds.X_test, "test") if ds.has_test_split else (ds.X_train, "train")
    rows = np.arange(min(args.rows, len(X)))
    log(f"explaining {len(rows)} {part} rows ({'fast' if args.fast else 'exact'})")
    explained = model.explain(X[rows], fast=args.fast)
    positions = (ds.extra.get("rows") or {}).get(part)
    file_rows = rows if positions is None else np.asarray(positions)[rows]
    names = [str(name) for name in ds.feature_names]
    classes = None if explained.output_names is None else [str(ds.classes[int(c)]) for c in model.classes_]
    out.mkdir(parents=True, exist_ok=True)
    attribution_table(explained, file_rows, names, classes).to_csv(out / "attributions.csv", index=False)
    summary_figure(explained, names, classes, out / "summary.png")
    log(f"wrote {out / 'attributions.csv'} and {out / 'summary.png'}")
    print(out)
    return 0
