"""``mddf benchmark --data PATH --target a,b``: several targets of one table, predicted together.

Several numeric targets are a multi-output regression (:class:`mddf.CascadeForestRegressor` on a 2-D y); several
yes/no columns (each of two values, ``--task auto`` reading them as classes) a multi-label classification
(:class:`mddf.MDDFClassifier` on a 0/1 indicator, 1 the column's second value in sorted order); a mix is refused. The
methods that take several targets are :data:`METHODS`; any other ``--methods`` name is skipped with a one-line note.
Every method is cross-validated on the same folds (``--folds``, default 5, shuffled, for each of ``--seeds``): R^2
per target and their mean (regression), or Hamming loss, subset accuracy and micro and macro F1 (multi-label), and
the seconds, printed as a table and, with ``--out``, written to ``<out>/several_targets.json``. The options of the
one-target runner that do not apply (``--test``, ``--protocol paper``, ``--suite``, ``--datasets``) are refused.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from .defaults import DEFAULT_FOLDS, DEFAULT_SEEDS
from .exit_status import EXIT_OK
from .studies import NothingToRun, UsageError, logger

#: The methods of ``--target a,b``, in the order they run (``Baseline``: the mean, or each label's commoner value).
METHODS = ("Baseline", "mdDF", "RF", "HGB")


def several_targets(target):
    """The target columns of ``--target`` when it names several (comma-separated), else None."""
    if target is None or "," not in target:
        return None
    names = [name.strip() for name in target.split(",")]
    if len(names) < 2 or not all(names) or len(set(names)) < len(names):
        raise UsageError(f"--target {target!r}: name two or more different columns, separated by commas")
    return names


def read(args, names):
    """``(X codes, categorical mask, Y, task, file name)`` of the ``--data`` table with targets ``names``."""
    from mddf.datasets.table_files import near_match, read_table
    from mddf.datasets.user_data import UserDataError, resolve_task, tidy_features

    path = Path(args.data)
    if not path.is_file():
        raise UserDataError(f"--data {args.data}: no such file")
    frame = read_table(path, sep=args.sep, na_values=tuple(args.na_values or ()), decimal=args.decimal or ".")
    for name in [*names, *(args.drop or ())]:
        if name not in frame.columns:
            raise UserDataError(f"{name!r} is not a column of {path.name}" + near_match(name, frame.columns))
        if name in names and frame[name].isna().any():
            raise UserDataError(f"--target column {name!r} of {path.name} has empty cells; give every row a value")
    tasks = {name: resolve_task(frame[name], args.task or "auto", name, path.name) for name in names}
    two_valued = all(frame[name].nunique() == 2 for name in names)
    if set(tasks.values()) == {"regression"}:
        task, Y = "regression", frame[names].to_numpy(np.float64)
    elif set(tasks.values()) == {"classification"} and two_valued:
        task = "multilabel"
        Y = np.column_stack([(frame[n] == np.sort(frame[n].unique())[1]).to_numpy(int) for n in names])
    else:
        kinds = ", ".join(f"{n}: {t} of {frame[n].nunique()} values" for n, t in tasks.items())
        raise UserDataError(
            f"--target {','.join(names)}: several targets must all be numbers (a multi-output regression) or all "
            f"yes/no columns of two values (a multi-label classification); found {kinds}"
        )
    features = tidy_features(frame.drop(columns=[*names, *(args.drop or ())]), path.name)
    categorical = np.array([str(features[c].dtype) == "category" for c in features.columns])
    X = np.column_stack(
        [features[c].cat.codes.replace(-1, np.nan) if mask else features[c] for c, mask in zip(features, categorical)]
    ).astype(np.float64)
    return X, categorical, Y, task, path.name


def build(method, task, categorical, seed, quick):
    """The unfitted model of ``method`` for ``task`` (``"regression"`` or ``"multilabel"``)."""
    from sklearn.dummy import DummyClassifier, DummyRegressor
    from sklearn.ensemble import (
        HistGradientBoostingClassifier,
        HistGradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.multioutput import MultiOutputClassifier, MultiOutputRegressor

    from mddf import CascadeForestRegressor, MDDFClassifier

    regression = task == "regression"
    trees = 10 if quick else 100
    if method == "Baseline":
        return DummyRegressor() if regression else DummyClassifier(strategy="most_frequent")
    if method == "mdDF":
        settings = dict(categorical_features=categorical, random_state=seed, n_estimators=trees)
        if quick:
            settings["max_layers"] = 2
        return CascadeForestRegressor(**settings) if regression else MDDFClassifier(**settings)
    if method == "RF":
        forest = RandomForestRegressor if regression else RandomForestClassifier
        return forest(n_estimators=trees, random_state=seed)
    hgb = (HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier)(
        categorical_features=categorical, random_state=seed, max_iter=trees
    )
    return MultiOutputRegressor(hgb) if regression else MultiOutputClassifier(hgb)


def scores(task, Y, predicted):
    """The held-out scores of ``predicted`` for ``Y``."""
    from sklearn.metrics import accuracy_score, f1_score, hamming_loss, r2_score

    if task == "regression":
        return {"r2": r2_score(Y, predicted, multioutput="raw_values").tolist()}
    predicted = np.asarray(predicted).astype(int)
    return {
        "hamming_loss": hamming_loss(Y, predicted),
        "subset_accuracy": accuracy_score(Y, predicted),
        "f1_micro": f1_score(Y, predicted, average="micro", zero_division=0),
        "f1_macro": f1_score(Y, predicted, average="macro", zero_division=0),
    }


def evaluate(method, data, folds, seeds, quick):
    """The mean over every seed and fold of ``method``'s scores and seconds."""
    from sklearn.model_selection import KFold

    X, categorical, Y, task, _ = data
    found = []
    for seed in seeds:
        for train, test in KFold(folds, shuffle=True, random_state=seed).split(X):
            model = build(method, task, categorical, seed, quick)
            start = time.perf_counter()
            model.fit(X[train], Y[train])
            fit = time.perf_counter() - start
            start = time.perf_counter()
            predicted = model.predict(X[test])
            found.append({**scores(task, Y[test], predicted), "fit_s": fit, "predict_s": time.perf_counter() - start})
    return {key: np.mean([f[key] for f in found], axis=0).tolist() for key in found[0]}


def table(task, names, results):
    """The results as a Markdown table."""
    if task == "regression":
        lines = ["| method | " + " | ".join(f"R² {n}" for n in names) + " | mean R² | fit s | predict s |"]
        lines.append("| --- |" + " ---: |" * (len(names) + 3))
        for method, r in results.items():
            cells = [f"{v:.4f}" for v in r["r2"]] + [f"{np.mean(r['r2']):.4f}", f"{r['fit_s']:.2f}"]
            lines.append(f"| {method} | " + " | ".join(cells) + f" | {r['predict_s']:.3f} |")
        return "\n".join(lines)
    lines = ["| method | Hamming loss | subset accuracy | micro F1 | macro F1 | fit s | predict s |"]
    lines.append("| --- |" + " ---: |" * 6)
    for method, r in results.items():
        keys = ("hamming_loss", "subset_accuracy", "f1_micro", "f1_macro", "fit_s")
        lines.append(f"| {method} | " + " | ".join(f"{r[k]:.4f}" for k in keys) + f" | {r['predict_s']:.3f} |")
    return "\n".join(lines)


def run(args, names, registry) -> int:
    """Run ``mddf benchmark --target a,b`` (see the module); return the exit status."""
    for option, given in (("--test", args.test), ("--suite", args.suite), ("--datasets", args.datasets)):
        if given:
            raise UsageError(f"{option} is not supported with several targets (--target {','.join(names)}) yet")
    if args.data is None:
        raise UsageError("--target a,b goes with --data PATH")
    if args.protocol == "paper":
        raise UsageError("--protocol paper has no several-target methods: leave it out (the practitioner protocol)")
    say = logger(args)
    try:
        asked = [registry.get(name).name for name in args.methods] if args.methods else list(METHODS)
    except ValueError as exc:  # an unknown name
        raise UsageError(str(exc)) from None
    methods = [m for m in asked if m in METHODS]
    for skipped in (m for m in asked if m not in METHODS):
        print(f"skipped {skipped}: it fits one target (several-target methods: {', '.join(METHODS)})", file=sys.stderr)
    if not methods:
        raise NothingToRun("no requested method fits several targets")
    data = read(args, names)
    folds, seeds = args.folds or DEFAULT_FOLDS, args.seeds if args.seeds is not None else list(DEFAULT_SEEDS)
    task = "multi-output regression" if data[3] == "regression" else "multi-label classification"
    say(f"read {args.data}: {len(data[0])} rows, {data[0].shape[1]} features; {task} of {', '.join(names)}")
    say(f"{folds}-fold cross-validation x {len(seeds)} seed(s)")
    results = {}
    for method in methods:
        results[method] = evaluate(method, data, folds, seeds, args.profile == "quick")
        say(f"  {method}: {json.dumps(results[method])}")
    print(table(data[3], names, results))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        record = {"data": str(args.data), "targets": names, "task": data[3], "folds": folds, "seeds": list(seeds)}
        (args.out / "several_targets.json").write_text(json.dumps({**record, "results": results}, indent=1) + "\n")
    return EXIT_OK
