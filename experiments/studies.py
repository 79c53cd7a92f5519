"""What the subcommands share once their arguments are parsed: the dataset (built-in or ``--data``), mdDF fitting."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from mddf.datasets.user_data import UserDataError, UserDataSource, register, seeded_split, source_for, summary

from .defaults import FALLBACK_DATASET, PAPER_DEFAULT_DATASET, QUICK_DATASET
from .protocols import TooFewRows, fold_count
from .provenance import one_line
from .runner import DatasetUnavailable, load


class UsageError(ValueError):
    """The command line is inconsistent (unknown method or dataset, an option without the one it needs, ...)."""


class NothingToRun(RuntimeError):
    """Nothing can run: the dataset's files are missing, or no requested method is available."""


class OptionError(ValueError):
    """An option's value cannot be used: ``--n-jobs 0``, an ``--out`` of the wrong kind, ... (exit status 2)."""


def check_options(args, out_kind: str) -> None:
    """Refuse (:class:`OptionError`) a ``--workers`` or ``--n-jobs`` that cannot run, an ``--out`` not ``out_kind``."""
    from mddf.utils import N_JOBS_CONSTRAINT

    if getattr(args, "workers", 1) < 1:
        raise OptionError(f"--workers {args.workers} would run nothing: give 1 or more")
    value, bounds = getattr(args, "n_jobs", None), [c for c in N_JOBS_CONSTRAINT if c is not None]
    if value is not None and not any(c.is_satisfied_by(value) for c in bounds):
        most = max(c.right for c in bounds if c.right is not None)
        why = "would run nothing" if value == 0 else f"is beyond {most} threads"
        raise OptionError(f"--n-jobs {value} {why}: give a number of threads (1 to {most}), or -1 for all cores")
    if getattr(args, "out", None) is not None:
        check_out(args.out, out_kind)


def check_out(out: Path, kind: str = "folder") -> None:
    """Refuse an ``--out`` that is a file where ``kind`` is ``"folder"``, or a folder where it names a file."""
    if out.exists() and out.is_dir() != (kind == "folder"):
        what = "a file; give a folder (it is created if missing)" if out.is_file() else f"a folder; give the {kind}"
        raise OptionError(f"--out {out} is {what}")


def open_user_data(args, *, builtin_option: str = "--dataset", several_targets=False) -> UserDataSource | None:
    """The ``--data`` file of the arguments (None without), checked, hashed and registered, also as ``args.user_data``
    (``{name: source dict}``); :class:`UsageError` or :class:`~mddf.datasets.user_data.UserDataError`."""
    args.user_data = None
    if args.data is None:
        for option in ("target", "test", "sep", "decimal", "drop", "na_values"):
            if getattr(args, option, None) is not None:
                raise UsageError(f"--{option.replace('_', '-')} goes with --data PATH")
        return None
    builtin = getattr(args, builtin_option.lstrip("-").replace("-", "_"), None)
    if builtin:
        raise UsageError(f"--data and {builtin_option} are alternatives: give one")
    if args.target is None:
        raise UsageError("--data needs --target COLUMN, the name of the label column")
    reading = {option: tuple(getattr(args, option, None) or ()) for option in ("drop", "na_values")}
    task = getattr(args, "task", None) or "auto"
    reading.update(sep=getattr(args, "sep", None), decimal=getattr(args, "decimal", None) or ".", task=task)
    source = source_for(args.data, args.target, args.test, **reading, several_targets=several_targets)
    register(source)
    args.user_data = {source.name: source.as_dict()}
    return source


def resolve_dataset(args, log=print, *, seed=None):
    """The dataset the arguments ask for (the paper's HAR, else satimage); a ``--data`` file read, ``log`` saying
    what, and given a ``seed`` split into training and test rows unless it has a ``--test`` file."""

    source = open_user_data(args)
    if source is not None:
        ds = load(source.name)
        if seed is not None and ds.extra.get("task") != "regression":
            try:  # a class of one row: refused by its label, in one line, as the benchmark refuses it
                fold_count(ds.y, requested=2, labels=ds.classes)
            except TooFewRows as exc:
                raise UserDataError(f"{Path(source.path).name}: {exc}") from None
        log(f"read {source.path}: {summary(ds)}")
        for warning in ds.extra.get("warnings", []):
            print(f"warning: {warning}", file=sys.stderr)
        return ds if seed is None else seeded_split(ds, seed)
    if getattr(args, "task", "auto") not in (None, "auto"):
        raise UsageError("--task goes with --data PATH")
    if args.dataset:
        try:
            return load(args.dataset, download=args.download)
        except DatasetUnavailable as exc:
            raise NothingToRun(f"dataset {args.dataset} is not available:\n{exc}") from None
        except ValueError as exc:  # an unknown name
            hint = " (your own file? use --data PATH --target COLUMN)" if Path(args.dataset).suffix else ""
            raise UsageError(f"{exc}{hint}") from None
    if getattr(args, "quick", False):
        return load(QUICK_DATASET)
    try:
        return load(PAPER_DEFAULT_DATASET, download=args.download)
    except DatasetUnavailable as exc:
        first = one_line(exc)[:160]
        log(f"{PAPER_DEFAULT_DATASET} (the paper's dataset) is not available ({first}...); using {FALLBACK_DATASET}")
    try:
        return load(FALLBACK_DATASET, download=args.download)
    except DatasetUnavailable as exc:
        raise NothingToRun(
            f"the dataset is not available: neither {PAPER_DEFAULT_DATASET} nor {FALLBACK_DATASET}:\n{exc}"
        ) from None


#: What the single-fit subcommands (export-features, plot-layers, plot-tsne) fit: the benchmark's mdDF row.
MDDF_CONFIGURATION = "the benchmark's mdDF (practitioner protocol: the estimator's defaults, categories declared)"


def mddf_params(args) -> dict:
    """The estimator parameters given by ``--n-estimators``, ``--max-layers`` and ``--n-tolerant-layers``."""
    names = ("n_estimators", "max_layers", "n_tolerant_layers")
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def mddf_model(dataset, args):
    """The benchmark's mdDF row for ``dataset`` (:func:`~.methods.build_mddf`) with the options' settings."""
    from .methods import build_mddf
    from .registry import BuildContext

    task = (dataset.extra or {}).get("task") or "classification"
    profile = "quick" if getattr(args, "quick", False) else "paper"
    run = dict(seed=args.seed, n_jobs=args.n_jobs, profile=profile, task=task, protocol="practitioner")
    ctx = BuildContext.of(dataset, 0 if task == "regression" else dataset.n_classes, **run)
    return build_mddf(ctx, **mddf_params(args))


def fit_mddf(dataset, args, log=print, *, check=None):
    """``(model, fit seconds)`` of :func:`mddf_model` fitted on the training split, once ``check`` has seen it."""
    from .methods import adapt_to_small_classes

    try:
        model = mddf_model(dataset, args)
    except ImportError as exc:
        raise NothingToRun(f"mdDF is not available: {exc}") from None
    if check is not None:
        check(model)
    given = mddf_params(args)
    log(
        f"fitting {type(model).__name__} on {dataset.name} ({len(dataset.y_train)} training rows): "
        f"{MDDF_CONFIGURATION}" + (f", {given}" if given else "")
    )
    if (dataset.extra or {}).get("task") != "regression":
        codes, counts = np.unique(dataset.y_train, return_counts=True)
        adapted = adapt_to_small_classes(model, int(counts.min()))
        if adapted:
            small = dataset.classes[int(codes[counts.argmin()])]
            log(f"  adapted to class {str(small)!r}, of {counts.min()} training row(s): {', '.join(adapted)}")
    t0 = time.perf_counter()
    model.fit(dataset.X_train, dataset.y_train)
    seconds = time.perf_counter() - t0
    log(f"  {model.n_layers_} layers kept ({len(getattr(model, 'train_history_', []))} grown) in {seconds:.1f}s; "
        f"stop: {getattr(model, 'stop_reason_', '?')}")  # fmt: skip
    return model, seconds


def fitted_classifier(args, what: str, log=print, *, check=None):
    """The dataset and mdDF fitted on it (:func:`fit_mddf`) for ``what``, which draws classes on the test rows (a
    :class:`UsageError` for a regression or no test split)."""
    dataset = resolve_dataset(args, log, seed=args.seed)
    if (dataset.extra or {}).get("task") == "regression":
        raise UsageError(f"{what} draws classes; the --target of {dataset.name} is a regression target "
                         "(pass --task classification to take its values as classes)")  # fmt: skip
    if not dataset.has_test_split:
        raise UsageError(f"{dataset.name} has no test split; choose a dataset with one")
    return dataset, fit_mddf(dataset, args, log, check=check)[0]


def logger(args):
    """``print`` to stderr, or a no-op with ``--quiet``."""
    quiet = getattr(args, "quiet", False)
    return (lambda *a, **k: None) if quiet else (lambda *a, **k: print(*a, **k, file=sys.stderr))
