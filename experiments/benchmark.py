"""The benchmark: every method on a suite of datasets or a user's file, one run per (dataset, method, seed[, fold])
into the resumable ``<out>/results.jsonl``, then the practitioner's comparison or the papers' tables."""

from __future__ import annotations

import sys
from pathlib import Path

from mddf.datasets import DatasetError
from mddf.datasets.user_data import UserDataError, summary

from .cluster import run_from_args
from .comparison import comparison_of
from .comparison import plot as plot_comparison
from .comparison import to_csv as comparison_csv
from .comparison import to_markdown as to_comparison_markdown
from .cost_estimate import TableSize, announce
from .defaults import DEEPBOOST_N_FOLDS, DEFAULT_SEEDS, SUITES, protocol_of
from .exit_status import EXIT_NOTHING_TO_RUN, EXIT_OK, EXIT_RUN_FAILED
from .methods import default_registry
from .metrics import metric_of
from .monotone_option import with_monotone
from .outfolder import OutputFiles, hold, probe, writing
from .paper_tables import write_tables
from .planning import available as usable_methods
from .planning import bindings, check_task, describe, metric_for, practitioner_folds, ranking_metric, unusable_folds
from .protocols import TooFewRows
from .provenance import one_line, provenance
from .registry import SEVERAL_TARGETS, unavailable_reason
from .runbook import bound_records, plan, report
from .runner import DatasetUnavailable, load, task_of
from .store import ResultStore, files_binding, new_record, set_aside_foreign, set_aside_stale
from .studies import NothingToRun, UsageError, check_out, logger, open_user_data
from .tables import write_csv, write_markdown

FIGURE_STEM = "figure"  #: The figure beside table.md.
FIGURE = f"{FIGURE_STEM}.png"
#: The files of the retired several-target runner, moved aside with its records.
RETIRED = ("several_targets.json", "several_targets.png")


def list_registry(registry, out=sys.stdout):
    """Print the suites and the methods (with availability and why a method is unavailable)."""
    print("Suites:", file=out)
    for suite in SUITES.values():
        print(f"  {suite.name:<10} {', '.join(suite.datasets)}\n  {'':<10} {suite.description}", file=out)
    print("Methods:", file=out)
    for spec in registry:
        reason = unavailable_reason(spec)
        opt_in = not (spec.default or spec.ablation or spec.peer or spec.practitioner)
        flags = ("binary only", "regression too", "several targets", "practitioner", "--ablation", "--peers", "opt-in")
        tasks = ("regression" in spec.tasks, "multioutput" in spec.tasks)
        ons = (spec.binary_only, *tasks, spec.practitioner, spec.ablation, spec.peer, opt_in)
        flags = [flag for flag, on in zip(flags, ons) if on]
        state, shown = "available" if reason is None else "UNAVAILABLE", f" [{', '.join(flags)}]" if flags else ""
        why = f"\n  {'':<14} {reason}" if reason else ""
        print(f"  {spec.name:<14} {state:<12} {spec.description}{shown}{why}", file=out)


def _short(message: str, limit: int = 200) -> str:
    """A loader message on one line, cut to ``limit`` characters (results.jsonl keeps it whole)."""
    text = one_line(message)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run(args, registry=None, *, command: str) -> int:
    """The exit status of the benchmark the parsed ``args`` describe, of ``registry``'s methods."""
    registry = registry or default_registry()
    if args.list:
        list_registry(registry)
        return EXIT_OK
    if args.data is not None and (args.suite or args.datasets):
        raise UsageError("--data and --suite/--datasets are alternatives: give one")
    protocol = args.protocol or ("practitioner" if args.data is not None else "paper")
    seeds = args.seeds if args.seeds is not None else (list(DEFAULT_SEEDS) if protocol == "practitioner" else [0])
    source = open_user_data(args, builtin_option="--datasets", several_targets=True)

    suite = SUITES[args.suite or "default"]
    if source is not None:
        datasets = [source.name]
        default_out = source.slug + ("-paper" if protocol == "paper" else "") + ("-targets" * source.several_targets)
    else:
        datasets = args.datasets or list(suite.datasets)
        default_out = args.suite or ("custom" if args.datasets else "default")
        if protocol == "practitioner":
            default_out += "-practitioner"
    out = args.out or Path("results") / default_out
    check_out(out)
    try:
        specs = registry.select(args.methods, ablation=args.ablation, peers=args.peers, protocol=protocol)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    # A --data file is read and checked before anything is written: a bad file leaves nothing on disk.
    user_ds = load(source.name) if source is not None else None
    if user_ds is not None:
        say = logger(args)
        how = None
        if protocol == "practitioner":
            try:
                k = practitioner_folds(user_ds, args.folds, lambda text: None)
            except TooFewRows as exc:
                raise UserDataError(f"{Path(source.path).name}: {exc}") from None
            if k:
                how = f"practitioner protocol: {k}-fold cross-validation of every row x {len(seeds)} seed(s)"
        say(f"read {source.path}: {summary(user_ds, how)}")
        for warning in user_ds.extra.get("warnings", []):
            print(f"warning: {warning}", file=sys.stderr)
        check_task(protocol, task_of(user_ds))
        metric_for(args.metric, task_of(user_ds))
    # --monotone: constrained cascades, the class they constrain said on stderr
    registry, specs = with_monotone(args.monotone, user_ds, registry, specs, args.monotone_class)
    asked = {registry.get(name).name for name in args.methods or ()}
    available = usable_methods(specs, task_of(user_ds) if user_ds is not None else None, asked=asked)
    if not available:
        raise NothingToRun("no requested method is available")
    with hold(out, command):
        probe(out)  # before any run: a full disk or a read-only folder stops here, in one line
        return _run_in(out, args, registry, datasets, available, source, command, protocol, seeds, user_ds)


def _run_in(out, args, registry, datasets, available, source, command, protocol, seeds, user_ds) -> int:
    store = ResultStore(out / "results.jsonl")
    set_aside_foreign(store, lambda text: print(text, file=sys.stderr))  # before a skipped dataset's record
    say = logger(args)
    n_classes, image_shapes, skipped, usable = {}, {}, {}, []
    infos, n_folds, tasks_of, too_small, rankings = [], {}, {}, set(), {}
    unloadable = {}  # dataset -> why its files could not be loaded (a failure, unlike missing files)
    sizes = {}  # dataset -> its TableSize, for the estimate of the time
    for name in datasets:
        try:
            ds = user_ds if user_ds is not None else load(name, download=args.download)
        except DatasetUnavailable as exc:
            skipped[name] = _short(str(exc))
            print(f"skipped dataset {name}: {exc}", file=sys.stderr)
            store.append(new_record(f"{name}|dataset", name, None, status="skipped", message=str(exc)))
            continue
        except DatasetError as exc:
            # a corrupt or tampered file (CorruptFileError, ChecksumError): said, and the other datasets go on
            message = f"could not be loaded ({type(exc).__name__}: {exc})"
            skipped[name] = unloadable[name] = _short(message)
            print(f"dataset {name} {message}", file=sys.stderr)
            store.append(new_record(f"{name}|dataset", name, None, status="error", error=message))
            continue
        except ValueError as exc:
            raise UsageError(str(exc)) from None  # unknown dataset name
        if protocol == "practitioner":
            try:
                n_folds[name] = practitioner_folds(ds, args.folds, say)
            except TooFewRows as exc:
                skipped[name] = _short(str(exc))
                print(f"skipped dataset {name}: {exc}", file=sys.stderr)
                continue
            for method, reason in unusable_folds(ds, n_folds[name], available, seeds).items():
                too_small.add((name, method))
                print(f"skipped {method} on {name}: {reason}", file=sys.stderr)
            rankings[name] = ranking_metric(ds, args.metric, say)
        info = describe(ds)
        sizes[name] = TableSize.of(ds, info.task)
        infos.append(info)
        n_classes[name], image_shapes[name], tasks_of[name] = info.n_classes, info.image_shape, info.task
        usable.append(name)
        del ds

    bound = bindings(infos, available, protocol=protocol, profile=args.profile, n_folds=n_folds)
    planned = dict(n_classes=n_classes, image_shapes=image_shapes, profile=args.profile, protocol=protocol)
    tasks = plan(usable, available, seeds, **planned, n_folds=n_folds, tasks=tasks_of, bindings=bound, metrics=rankings)
    tasks = [t for t in tasks if (t.dataset, t.method) not in too_small]
    if not tasks:
        why = f"none of {', '.join(s.name for s in available)} applies to {', '.join(usable)}" if usable else None
        print(f"nothing to run: {why or 'no dataset could be loaded'}", file=sys.stderr)
        for name, reason in skipped.items():
            print(f"skipped dataset {name}: {reason}", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    made = [f"{stem}.{kind}" for stem in ("table", "ablation", "peers") for kind in ("md", "csv")] + [FIGURE]
    with writing(out, f"appending to {store.path.name}", named_only=True):  # the runs' own errors pass
        warn, alone = lambda text: print(text, file=sys.stderr), source is not None
        set_aside_stale(store, tasks, warn, alone=alone, made=[*made, *RETIRED])
        announce(tasks, store, sizes, args.workers if args.scheduler is None else None, say)
        code = run_from_args(tasks, store, args, registry)
    if code != EXIT_OK:
        return code

    records = bound_records(tasks, store)
    prov = provenance(command=command, data=source.describe() if source else None)
    methods = [s.name for s in available]
    with OutputFiles(out, files_binding(tasks), force=getattr(args, "force", False)).replacing(made, command):
        if protocol == "practitioner":
            markdown = write_comparison(
                records, out, usable, methods, rankings, tasks_of, n_folds, seeds, registry, source, prov
            )
        else:
            shapes = (n_classes, image_shapes, skipped)
            markdown = write_tables(records, out, datasets, methods, seeds, args.profile, *shapes, registry, prov=prov)
            write_paper_figure(records, out, usable, methods, prov)
    print(markdown)
    loaded = f" ({len(unloadable)} could not be loaded)" if unloadable else ""
    not_ok = report(tasks, store, [f"{len(skipped)} dataset(s) skipped{loaded}"] if skipped else [])
    for name, reason in skipped.items():
        print(f"skipped dataset {name}: {reason}", file=sys.stderr)
    tables = f"{out / 'table.md'}, {out / 'table.csv'}"
    print(f"results: {store.path}\ntables: {tables}; figure: {out / FIGURE}", file=sys.stderr)
    return EXIT_RUN_FAILED if not_ok or unloadable else EXIT_OK


#: The note on several targets below their table.
SEVERAL_NOTE = {
    "multioutput": "Several targets ({targets}), a multi-output regression: ranked by R² averaged over the targets, "
    "each target's R² beside it.",
    "multilabel": "Several targets ({targets}), a multi-label classification (1: each column's second value in sorted "
    "order): ranked by subset accuracy (every label right), with the Hamming loss (the share of labels wrong) and the "
    "micro and macro F1.",
}
TOGETHER = (
    " mdDF, Baseline and RF-400 fit the targets together; the early-stopped boosting methods fit one model per target "
    "(scikit-learn's MultiOutputRegressor or MultiOutputClassifier)."
)


def write_comparison(records, out, datasets, methods, ranks, tasks_of, n_folds, seeds, registry, source, prov) -> str:
    """Write the practitioner protocol's table.md / table.csv and figure (:mod:`.comparison`); the Markdown."""
    comparisons, titles = [], {}
    for dataset in datasets:
        task, ranking, k = tasks_of[dataset], ranks[dataset], n_folds.get(dataset)
        ratio = 1.0 / (k - 1) if k else 0.0
        comparisons.append(comparison_of(records, dataset, methods, ranking, task, test_train_ratio=ratio))
        name = Path(source.path).name if source is not None else dataset
        how = f"{k}-fold cross-validation" if k else f"the fixed test file {Path(source.test_path).name}"
        how += f" x {len(seeds)} seed(s)"
        name += f", targets {', '.join(source.targets)}" if task in SEVERAL_TARGETS else ""
        titles[dataset] = f"{name}: {metric_of(ranking).shown}, practitioner protocol, {how}"
    seed_list = ", ".join(map(str, seeds))
    notes = [
        "Practitioner protocol: each seed shuffles all the rows and cuts them into k folds (stratified by class "
        f"for a classification); each run trains on k-1 folds and tests on the last; seeds {seed_list}. Every "
        "method trains and tests on the same rows in a fold, so the per-fold differences are paired."
        if any(n_folds.get(d) for d in datasets)
        else f"Practitioner protocol on a fixed test file: seeds {seed_list} vary the models only; the standard "
        "errors do not include the test rows' sampling.",
    ]
    if source is not None:
        notes.append("Data: " + source.describe() + ".")
    if source is not None and tasks_of[source.name] in SEVERAL_TARGETS:
        notes.append(SEVERAL_NOTE[tasks_of[source.name]].format(targets=", ".join(source.targets)) + TOGETHER)
    described = {c.method for comp in comparisons for c in comp.ranking}
    notes += [f"{m}: {registry.get(m).description}." for m in methods if m in described]
    markdown = to_comparison_markdown(comparisons, titles, notes)
    write_markdown(markdown, out / "table.md", prov)
    write_csv(comparison_csv(comparisons), out / "table.csv", prov)
    from .figures import save_figure

    save_figure(plot_comparison(comparisons, "practitioner protocol"), out, FIGURE_STEM, prov, formats=("png",))
    return markdown


def write_paper_figure(records, out, datasets, methods, prov) -> None:
    """The papers' protocol's figure: accuracy per method and dataset, ± 2 standard errors over seeds (and folds)."""
    comparisons = []
    for dataset in datasets:
        ratio = 1.0 / (DEEPBOOST_N_FOLDS - 2) if protocol_of(dataset) == "deepboost" else 0.0
        mine = [r for r in records if r.get("fraction", 1.0) == 1.0]
        comparison = comparison_of(mine, dataset, methods, "accuracy", "classification", test_train_ratio=ratio)
        if comparison.ranking:
            comparisons.append(comparison)
    if comparisons:
        from .figures import save_figure

        save_figure(plot_comparison(comparisons, "papers' protocol"), out, FIGURE_STEM, prov, formats=("png",))
