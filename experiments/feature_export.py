"""Export the per-layer features of a fitted mdDF to a compressed ``.npz`` for downstream models.

A regression target (``--task regression``, or a continuous ``--target``) fits
``CascadeForestRegressor`` instead: its layer features are each member's out-of-fold prediction
(d = members of a layer), ``y_train`` / ``y_test`` are float64, and there are no ``classes`` and
``alphas``.

Layout of the file (``numpy.load(path)``), with T kept layers, d feature columns per layer
(d = number of classes, or 4 x classes with ``passed_features="per_forest"``):

    train_features  float32 (T, n_train, d)  out-of-fold augmented feature of layer t of the
                                             training rows (oof_features_; train_features[t-1]
                                             is layer t; no row's feature comes from a forest
                                             that trained on it). MDDFClassifier stores the
                                             normalised f_t / sum_{l<=t} alpha_l (rows sum to 1)
    test_features   float32 (T, n_test, d)   the same for the test rows, transform(X_test, layer=t)
                                             (absent for datasets without a test split)
    y_train, y_test int64                    class codes 0..s-1
    train_rows      int64 (n_train,)         the row of the input each feature row is: 0-based among the
    test_rows       int64 (n_test,)          data rows (header aside) of the --data file (the --test
                                             file's for test_rows), else of the dataset's own train
                                             and test splits: pandas.read_csv(path).iloc[train_rows]
    classes         str                      original labels, classes[y]
    layers          int64 (T,)               1..T
    alphas          float64 (T,)             layer weights alpha_t
    X_train, X_test float32                  raw inputs, only with --include-raw
                                             (to rebuild mdDF's "preconc" input [x, f_t])
    meta            str                      JSON: dataset, mdDF parameters, n_layers,
                                             stop reason, package versions, this layout,
                                             the --data file and its sha256 (data_source)

Examples of their use (a downstream model, the features joined back to a --data file's rows):
docs/user_guide/layer_features.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mddf.datasets.user_data import UserDataSource

from .outfolder import OutputFiles, probe, whole
from .provenance import package_versions
from .store import fit_binding
from .studies import MDDF_CONFIGURATION, OptionError, fit_mddf, logger, mddf_params, resolve_dataset

LAYOUT = __doc__[__doc__.index("Layout of the file") : __doc__.index("Examples of their use")].strip()


def layer_features(model, dataset):
    """``(train (T, n, d), test (T, m, d) or None)`` float32 arrays of every kept layer."""
    train = np.stack([np.asarray(f, dtype=np.float32) for f in model.oof_features_])
    if not dataset.has_test_split:
        return train, None
    layers = range(1, model.n_layers_ + 1)
    return train, np.stack([np.asarray(model.transform(dataset.X_test, layer=t), dtype=np.float32) for t in layers])


def run(args, *, command: str) -> int:
    """Fit mdDF and write its layer features (the layout above) to ``--out`` (``.npz`` appended), refusing before the
    fit a file there not its own unless ``--force``; print the file's path and return 0."""
    log = logger(args)
    ds = resolve_dataset(args, log, seed=args.seed)
    user = ds.extra.get("user_data")
    name = UserDataSource(**user).slug if user else ds.name
    out = args.out or Path("results/features") / f"{name}_mddf_features.npz"
    out = out if out.suffix == ".npz" else out.with_name(out.name + ".npz")  # as numpy.savez writes it
    files = OutputFiles(out.parent, fit_binding("export-features", ds, args), force=args.force, log=log)
    files.refuse_foreign([out.name], OptionError)
    files.refuse_foreign_record(OptionError)  # a folder of the user's: its file of that name is not moved aside
    probe(out.parent, shown=out)  # before the fit: a full disk or a read-only folder stops here, in one line
    regression = ds.extra.get("task") == "regression"
    target_type = np.float64 if regression else np.int64
    model, seconds = fit_mddf(ds, args, log)
    train, test = layer_features(model, ds)
    n_test = 0 if ds.y_test is None else len(ds.y_test)
    rows = ds.extra.get("rows") or {"train": np.arange(len(ds.y_train)), "test": np.arange(n_test)}
    arrays = dict(train_features=train, y_train=np.asarray(ds.y_train, dtype=target_type),
                  train_rows=np.asarray(rows["train"], dtype=np.int64),
                  layers=np.arange(1, model.n_layers_ + 1, dtype=np.int64))  # fmt: skip
    if not regression:
        arrays["classes"] = np.asarray([str(c) for c in ds.classes])
        arrays["alphas"] = np.asarray(model.alphas_, dtype=np.float64)
    if test is not None:
        arrays.update(test_features=test, y_test=np.asarray(ds.y_test, dtype=target_type))
        arrays["test_rows"] = np.asarray(rows["test"], dtype=np.int64)
    if args.include_raw:
        arrays["X_train"] = ds.X_train
        if ds.has_test_split:
            arrays["X_test"] = ds.X_test
    task = "regression" if regression else "classification"
    meta = dict(
        dataset=ds.name, task=task, model=type(model).__name__, split=ds.split, configuration=MDDF_CONFIGURATION
    )
    meta["mddf_params"] = {**mddf_params(args), "random_state": args.seed, "n_jobs": args.n_jobs}
    meta.update(n_layers=int(model.n_layers_), stop_reason=str(getattr(model, "stop_reason_", "")))
    meta.update(fit_seconds=round(seconds, 3), versions=package_versions(), command=command, layout=LAYOUT)
    if user:
        meta["data_source"] = user
        meta["feature_names"] = list(ds.feature_names)
    arrays["meta"] = np.asarray(json.dumps(meta, default=str))
    out.parent.mkdir(parents=True, exist_ok=True)
    with files.replacing([out.name], command), whole(out) as temporary:
        np.savez_compressed(temporary, **arrays)
    log(f"wrote {out}: train_features {train.shape}" + (f", test_features {test.shape}" if test is not None else ""))
    print(out)
    return 0
