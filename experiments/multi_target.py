"""``mddf benchmark --data PATH --target a,b``: several targets of one table, predicted together.

Several numeric targets are a multi-output regression (:class:`mddf.CascadeForestRegressor` on a 2-D y); several
yes/no columns (each of two values, ``--task auto`` reading them as classes) a multi-label classification
(:class:`mddf.MDDFClassifier` on a 0/1 indicator, 1 the column's second value in sorted order); a mix is refused. The
methods that take several targets are :data:`METHODS`; any other ``--methods`` name is skipped with a one-line note.
Every method is cross-validated on the same folds (``--folds``, default 5, shuffled, for each of ``--seeds``): R^2
per target (regression), or Hamming loss, subset accuracy and micro and macro F1 (multi-label), and the seconds.
Each (method, seed, fold) is recorded in ``<out>/results.jsonl`` as it finishes and a rerun resumes
(:mod:`.multi_target_runs`); the means are printed as a table and written to ``<out>/several_targets.json`` with the
figure ``several_targets.png`` (default ``--out``: ``results/<file stem>-<sha256 prefix>-targets``). The options of
the one-target runner that do not apply (``--test``, ``--protocol paper``, ``--suite``, ``--datasets``) are refused.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from . import multi_target_runs as runs
from .binding import estimator_settings, files_binding, set_aside_foreign, set_aside_stale
from .defaults import DEFAULT_FOLDS, DEFAULT_SEEDS
from .exit_status import EXIT_OK
from .outfolder import OutputFiles, probe, write_text, writing
from .outlock import hold
from .provenance import provenance
from .store import ResultStore, new_record
from .studies import NothingToRun, UsageError, check_out, logger

#: The methods of ``--target a,b``, in the order they run (``Baseline``: the mean, or each label's commoner value).
METHODS = ("Baseline", "mdDF", "RF", "HGB")
#: The figure's name without its suffix, and the files made of the records: the summary and the figure.
FIGURE_STEM = "several_targets"
MADE = (f"{FIGURE_STEM}.json", f"{FIGURE_STEM}.png")


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


def fit_one(unit, data, quick, names):
    """The record of one unit (:class:`~.runbook.Task`: method, seed, fold) fitted and scored on its fold."""
    from sklearn.model_selection import KFold

    X, categorical, Y, task, _ = data
    train, test = list(KFold(unit.n_folds, shuffle=True, random_state=unit.seed).split(X))[unit.fold]
    model = build(unit.method, task, categorical, unit.seed, quick)
    start = time.perf_counter()
    model.fit(X[train], Y[train])
    fit = time.perf_counter() - start
    start = time.perf_counter()
    predicted = model.predict(X[test])
    seconds = {"train_seconds": fit, "predict_seconds": time.perf_counter() - start}
    context = {"targets": names, "task": task, "profile": unit.profile, "protocol": unit.protocol}
    return new_record(
        unit.key, unit.dataset, unit.method, unit.seed, unit.fold, status="ok", binding=unit.binding,
        **context, n_folds=unit.n_folds, **scores(task, Y[test], predicted), **seconds,
    )  # fmt: skip


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


def run(args, names, registry, *, command: str = "mddf benchmark") -> int:
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
    data = read(args, names)  # read and checked before anything is written
    folds, seeds = args.folds or DEFAULT_FOLDS, args.seeds if args.seeds is not None else list(DEFAULT_SEEDS)
    task = "multi-output regression" if data[3] == "regression" else "multi-label classification"
    say(f"read {args.data}: {len(data[0])} rows, {data[0].shape[1]} features; {task} of {', '.join(names)}")
    say(f"{folds}-fold cross-validation x {len(seeds)} seed(s)")
    from mddf.datasets.user_data import file_sha256

    sha = file_sha256(args.data)
    out = args.out or Path("results") / f"{Path(args.data).stem}-{sha[:8]}-targets"
    check_out(out)
    tasks = units(args, names, data, sha, methods, folds, seeds)
    with hold(out, command):
        probe(out)  # before any fit: a full disk or a read-only folder stops here, in one line
        return _run_in(out, args, names, data, tasks, methods, folds, seeds, command, say)


def units(args, names, data, sha, methods, folds, seeds):
    """The planned units (:func:`~.multi_target_runs.plan`), bound to the table's ``sha`` and the run's settings."""
    quick = args.profile == "quick"
    reading = {"sep": args.sep, "decimal": args.decimal or ".", "task": args.task or "auto"}
    reading.update(drop=list(args.drop or ()), na_values=list(args.na_values or ()))
    settings = {"targets": names, "task": data[3], "n_folds": folds, "profile": args.profile, "reading": reading}
    settings["scores"] = list(runs.SCORES[data[3]])

    def settings_of(method):
        return estimator_settings(build(method, data[3], data[1], 0, quick))

    bound = runs.bindings(methods, settings, sha, settings_of)
    return runs.plan(Path(args.data).stem, methods, seeds, folds, args.profile, bound)


def _run_in(out, args, names, data, tasks, methods, folds, seeds, command, say) -> int:
    """Fit the units not yet in ``<out>/results.jsonl``, then write the summary and the figure from its records."""

    def warn(text):
        print(text, file=sys.stderr)

    store = ResultStore(out / "results.jsonl")
    set_aside_foreign(store, warn)
    quick, task = args.profile == "quick", data[3]
    with writing(out, f"appending to {store.path.name}", named_only=True):
        set_aside_stale(store, tasks, warn, alone=True, made=MADE)
        runs.fit_units(tasks, store, lambda unit: fit_one(unit, data, quick, names), task, len(names), say)
    results = runs.summary(tasks, store, methods, task, len(names))
    print(table(task, names, results))
    record = {"data": str(args.data), "targets": names, "task": task, "folds": folds, "seeds": list(seeds)}
    prov = provenance(command=command, data=f"{data[4]} (sha256 {tasks[0].binding.data_sha256})")
    how = "multi-output regression" if task == "regression" else "multi-label classification"
    title = f"{data[4]}: {how}, {folds}-fold cross-validation x {len(seeds)} seed(s); bars: mean ± 1 sd"
    from .figures import save_figure

    with OutputFiles(out, files_binding(tasks), force=args.force).replacing(MADE, command):
        write_text(out / MADE[0], json.dumps({**record, "results": results}, indent=1) + "\n")
        save_figure(runs.plot(results, task, names, title), out, FIGURE_STEM, prov, formats=("png",))
    say(f"results: {store.path}\nsummary: {out / MADE[0]}; figure: {out / MADE[1]}")
    return EXIT_OK
