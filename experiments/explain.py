"""``mddf explain``: mdDF fitted as ``mddf export-features`` fits it, and its predictions of ``--rows`` held-out rows
attributed to the columns by ``explain()``, written to ``--out`` as ``attributions.csv`` and ``summary.png`` (the
command-line page says what they hold)."""

from __future__ import annotations

from pathlib import Path

OUTPUTS = ("attributions.csv", "summary.png")  #: the files ``mddf explain`` writes into ``--out``


def attribution_table(explained, rows, feature_names, class_names):
    """The lines of ``attributions.csv`` as a DataFrame (``class_names`` None: a regressor's, one line a row)."""
    import numpy as np
    import pandas as pd

    values, base = np.asarray(explained.values), np.asarray(explained.base_values)
    values, base = (values[:, :, None], base[:, None]) if class_names is None else (values, base)  # a regressor's
    frames = [
        pd.DataFrame({"row": rows, **({} if name is None else {"class": name}), "base": base[:, c]})
        .assign(prediction=base[:, c] + values[:, :, c].sum(axis=1))
        .join(pd.DataFrame(values[:, :, c], columns=feature_names))
        for c, name in enumerate(class_names or [None])
    ]
    return pd.concat(frames, ignore_index=True).sort_values("row", kind="stable", ignore_index=True)


def summary_plot(explained, feature_names, class_names):
    """Each column's mean absolute attribution, largest on top (two classes: the second's; more: stacked per class)."""
    import numpy as np

    from .figures import plt

    values = np.abs(np.asarray(explained.values))
    mean = (values if values.ndim == 3 else values[:, :, None]).mean(axis=0)  # (columns, outputs)
    names = class_names or ["prediction"]
    binary = class_names is not None and len(class_names) == 2
    drawn = [1] if binary else range(len(names))
    order = np.argsort(mean[:, drawn].sum(axis=1))
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(order) + 1.5))
    for k, c in enumerate(drawn):
        ax.barh(np.arange(len(order)), mean[order, c], left=mean[order][:, list(drawn)[:k]].sum(axis=1), label=names[c])
    ax.set_yticks(np.arange(len(order)), [feature_names[i] for i in order])
    if binary:
        label = f"mean |attribution| to P({names[1]}) over the explained rows (P({names[0]})'s: the same, mirrored)"
    else:
        label = "mean |attribution| over the explained rows"
    ax.set_xlabel(label)
    if class_names is not None and not binary:
        ax.legend(title="class", fontsize="small")
    return fig


def run(args, *, command: str) -> int:
    """Fit mdDF, explain ``--rows`` held-out rows and write the outputs (the folder printed); returns 0."""
    import numpy as np

    from mddf.datasets.user_data import UserDataSource

    from .figures import save_figure
    from .outfolder import OutputFiles, probe, whole
    from .store import fit_binding
    from .studies import OptionError, check_out, fit_mddf, logger, resolve_dataset

    log = logger(args)
    if args.rows < 1:
        raise OptionError(f"--rows {args.rows}: give a positive number of rows to explain")
    ds = resolve_dataset(args, log, seed=args.seed)
    user = ds.extra.get("user_data")
    out = args.out or Path("results/explain") / (UserDataSource(**user).slug if user else ds.name)
    check_out(out)  # the default folder too
    probe(out)  # before the fit: a full disk or a read-only folder stops here, in one line
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
    with OutputFiles(out, fit_binding("explain", ds, args), force=args.force).replacing(OUTPUTS, command):
        with whole(out / OUTPUTS[0]) as temporary:
            attribution_table(explained, file_rows, names, classes).to_csv(temporary, index=False)
        save_figure(summary_plot(explained, names, classes), out, "summary", formats=("png",))
    print(out)  # the folder of the two files
    return 0
