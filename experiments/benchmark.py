"""The benchmark: every method on a suite of datasets (or a user's file), tables like the papers'.

``mddf benchmark`` and ``python scripts/run_uci.py`` parse their arguments
(:mod:`.cli`) and call :func:`run`. It plans one run per (dataset, method, seed[, fold]),
executes them (:mod:`.executor`, or a Dask cluster: :mod:`.cluster`) into the resumable
``<out>/results.jsonl`` and writes ``table.md`` / ``table.csv`` (``ablation.*`` with the mdDF
structures, ``peers.*`` with today's peers), each headed by its provenance. Random forest and
XGBoost use 400 x k trees, k = the number of layers mdDF kept on the same dataset and seed.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from mddf.datasets import DatasetError
from mddf.datasets import published as paper_results
from mddf.datasets.user_data import TEST_FRACTION, UserDataError, registered, summary

from .binding import set_aside_stale
from .cluster import run_from_args
from .comparison import comparison_of
from .comparison import plot as plot_comparison
from .comparison import to_csv as comparison_csv
from .comparison import to_markdown as to_comparison_markdown
from .defaults import DEFAULT_SEEDS
from .exit_status import EXIT_NOTHING_TO_RUN, EXIT_OK, EXIT_RUN_FAILED
from .methods import FALLBACK_TREES_K, default_registry
from .metrics import METRICS
from .outlock import hold
from .planning import available as usable_methods
from .planning import (
    bindings,
    check_out_folder,
    check_task,
    describe,
    metric_for,
    practitioner_folds,
    ranking_metric,
    unusable_folds,
)
from .protocols.practitioner import TooFewRows
from .provenance import provenance, with_csv_header
from .registry import unavailable_reason
from .runbook import applicable, bound_records, plan, unfinished
from .runner import DatasetUnavailable, load, task_of
from .store import ResultStore, new_record
from .studies import UsageError, open_user_data
from .suites import DEEPBOOST_N_FOLDS, SUITES, paper_of, protocol_of
from .tables import build_table, method_notes, summarize, to_csv, to_markdown, write_markdown

BASELINE = "Baseline"
#: The figure beside table.md.
FIGURE_STEM = "figure"
FIGURE = f"{FIGURE_STEM}.png"

TABLE2_ORDER = tuple(
    "MLP RF XGBoost gcForest gcForest-MGS mdDF mdDF-tuned AdaBoost DeepBoost DeepBoost-log QuadBoost".split()
)
TABLE3_ORDER = ("mdDF_SF", "mdDF_ST", "mdDF_NP", "mdDF")
# Today's peers beside the paper's tree ensembles, on the same splits and seeds.
PEERS_ORDER = ("mdDF", "RF", "XGBoost", "ExtraTrees", "HGB", "LightGBM")
PEERS_COMPARED = ("mdDF", "RF", "XGBoost")
#: The notes on the mdDF structures of the paper's Table 3 (ablation.md).
ABLATION_NOTES = (
    (("mdDF_SF",), "mdDF_SF: 4 random forests per layer."),
    (("mdDF_ST",), "mdDF_ST: stacking (previous layer's feature only)."),
    (("mdDF_NP",), "mdDF_NP: no preconc (raw input only)."),
)


def list_registry(registry, out=sys.stdout):
    """Print the suites and the methods (with availability and why a method is unavailable)."""
    print("Suites:", file=out)
    for suite in SUITES.values():
        print(f"  {suite.name:<10} {', '.join(suite.datasets)}\n  {'':<10} {suite.description}", file=out)
    print("Methods:", file=out)
    for spec in registry:
        reason = unavailable_reason(spec)
        opt_in = not (spec.default or spec.ablation or spec.peer or spec.practitioner)
        flags = ("binary only", "regression too", "practitioner", "--ablation", "--peers", "opt-in")
        ons = (spec.binary_only, "regression" in spec.tasks, spec.practitioner, spec.ablation, spec.peer, opt_in)
        flags = [flag for flag, on in zip(flags, ons) if on]
        state = "available" if reason is None else "UNAVAILABLE"
        print(
            f"  {spec.name:<14} {state:<12} {spec.description}" + (f" [{', '.join(flags)}]" if flags else ""), file=out
        )
        if reason:
            print(f"  {'':<14} {reason}", file=out)


def _short(message: str, limit: int = 200) -> str:
    """A loader message on one line, cut to ``limit`` characters (results.jsonl keeps it whole)."""
    text = " ".join(message.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ordered(names, order):
    known = [m for m in order if m in names]
    return known + [m for m in names if m not in known]


def _tabulated(rec, datasets, seeds, profile) -> bool:
    """Whether ``rec`` is a successful full-training-set run of the tables' datasets, seeds and profile."""
    return (
        rec.get("status") == "ok"
        and rec.get("dataset") in datasets
        and (rec.get("profile"), rec.get("fraction", 1.0)) == (profile, 1.0)
        and rec.get("seed") in seeds
    )


def fit_seconds(records, datasets, methods, seeds, profile) -> dict:
    """``{method: {dataset: "mean fit seconds"}}`` over the successful runs (latest record per run)."""
    latest = {r["key"]: r for r in records if "key" in r and r.get("method")}
    seconds: dict = {}
    for rec in latest.values():
        if (
            _tabulated(rec, datasets, seeds, profile)
            and rec["method"] in methods
            and rec.get("train_seconds") is not None
        ):
            seconds.setdefault(rec["method"], {}).setdefault(rec["dataset"], []).append(rec["train_seconds"])
    return {m: {d: f"{sum(v) / len(v):.2f}" for d, v in per.items()} for m, per in seconds.items()}


def write_tables(
    records, out: Path, datasets, methods, seeds, profile, n_classes, image_shapes, skipped, registry, prov=None
):
    """Write table.md / table.csv (and ablation.md / .csv, peers.md / .csv) from the records.

    ``prov`` (:func:`mddf.experiments.provenance.provenance`) heads every file. Returns the
    Markdown of the tables (without that header).
    """
    cells = summarize(records, profile=profile, seeds=set(seeds))
    specs = {m: registry.get(m) for m in methods}
    tables = _Tables(
        records,
        datasets,
        seeds,
        profile,
        cells,
        papers={paper_of(d) for d in datasets} - {None},
        k_column=_k_column(records, datasets, seeds, profile),
        not_applicable=_not_applicable(datasets, methods, specs, n_classes, image_shapes),
        skipped=skipped,
    )
    main_methods, peer_methods, ablation_methods = _table_methods(methods, specs)
    accuracy_note = _accuracy_note(datasets, seeds, profile)
    markdown = _write(tables.main(main_methods, accuracy_note), out, "table", prov)
    if ablation_methods:
        markdown += "\n" + _write(tables.ablation(ablation_methods), out, "ablation", prov)
    if peer_methods:
        markdown += "\n" + _write(tables.peers(peer_methods, accuracy_note), out, "peers", prov)
    return markdown


#: How the tree-budget methods' trees are counted (``{methods}``: those of a table that ran).
K_NOTE = "400·k trees / boosting rounds for {methods}, with k = layers kept by mdDF on the same dataset and seed"


def _not_applicable(datasets, methods, specs, n_classes, image_shapes) -> set:
    """The ``(dataset, method)`` cells shown as "n/a": a method that does not apply to a dataset whose classes are known
    (:func:`~.runbook.applicable`)."""
    return {
        (d, m)
        for d in datasets
        if d in n_classes
        for m in methods
        if not applicable(specs[m], n_classes[d], image_shapes.get(d))
    }


def _table_methods(methods, specs):
    """The methods of each table: the main table's (Table 2's order first), the peers' (none without a peer; the
    compared methods beside them, in :data:`PEERS_ORDER`) and the ablation's (Table 3's, none without one of them)."""
    main = _ordered([m for m in methods if not specs[m].ablation and not specs[m].peer], TABLE2_ORDER)
    peers = (
        _ordered([m for m in methods if specs[m].peer or m in PEERS_COMPARED], PEERS_ORDER)
        if any(specs[m].peer for m in methods)
        else []
    )
    ablation = [m for m in TABLE3_ORDER if m in methods] if any(specs[m].ablation for m in methods) else []
    return main, peers, ablation


def _k_column(records, datasets, seeds, profile) -> dict:
    """The tables' column ``k``: ``{"k": {dataset: k values}}`` of the tabulated runs with a tree budget, each k
    ``/``-joined and marked ``*`` when it is the fallback; {} when no run has one."""
    ks = {}
    for rec in records:
        if _tabulated(rec, datasets, seeds, profile) and rec.get("trees_k") is not None:
            fallback = str(rec.get("trees_k_source", "")).startswith("fallback")
            ks.setdefault(rec["dataset"], set()).add(f"{rec['trees_k']}{'*' if fallback else ''}")
    return {"k": {d: "/".join(sorted(v)) for d, v in ks.items()}} if ks else {}


def _accuracy_note(datasets, seeds, profile) -> str:
    """The first note of the main and peers tables: what a cell is, over which seeds (and folds), and the bold."""
    folds = (
        " x 10 folds (DeepBoost protocol: test fold i, validation fold i+1, train on the rest)"
        if "deepboost" in {protocol_of(d) for d in datasets}
        else ""
    )
    return (
        f"Test accuracy (%), mean ± sample std over {len(seeds)} seed(s)"
        + folds
        + f"; profile '{profile}'. Bold: best of its group."
    )


@dataclass(frozen=True)
class _Tables:
    """What the tables of :func:`write_tables` are built from, and how each is built.

    Attributes
    ----------
    records : list of dict
        The results' records.
    datasets, seeds : list
        The tables' rows and the seeds averaged over.
    profile : str
    cells : dict
        ``{(dataset, method): Cell}`` (:func:`~mddf.experiments.tables.summarize`).
    papers : set of str
        The papers that published results on the datasets (``"mddf"``, ``"deepboost"``).
    k_column : dict
        :func:`_k_column`: the column ``k``, or {}.
    not_applicable : set
        The ``(dataset, method)`` cells shown as "n/a".
    skipped : dict
        ``{dataset: loader message}`` of the datasets whose files are missing.
    """

    records: list
    datasets: list
    seeds: list
    profile: str
    cells: dict
    papers: set
    k_column: dict
    not_applicable: set
    skipped: dict

    def main(self, methods, accuracy_note):
        """The main table (the papers' Table 2): our columns, the published ones, the column ``k`` and the notes."""
        k_note = K_NOTE + (" (column 'k')." if self.k_column else ".")
        descriptions = [
            (("RF", "XGBoost"), k_note),
            (("MLP",), "MLP: the adam solver (scikit-learn has no adadelta), architecture chosen on validation rows."),
        ]
        notes = [accuracy_note]
        if any("*" in v for per in self.k_column.values() for v in per.values()):
            notes.append(f"k marked * : no mdDF result for that run, so the fallback k = {FALLBACK_TREES_K} was used.")
        paper, paper_std, paper_notes = self._published(methods)
        title, data_note = self._main_title()
        notes += paper_notes + ([data_note] if data_note else [])
        table = build_table(
            title,
            self.datasets,
            methods,
            self.cells,
            paper=paper,
            paper_std=paper_std,
            not_applicable=self.not_applicable,
            skipped=self.skipped,
            notes=notes,
            extra=self.k_column,
        )
        table.notes[1:1] = method_notes(table, descriptions)
        return table

    def _published(self, methods):
        """The published columns beside the main table's ``methods``, their std and the notes on them (lists)."""
        paper, paper_std, notes = {}, {}, []
        if "mddf" in self.papers and any(m in methods for m in paper_results.MDDF_TABLE2["adult"]):
            paper.update(paper_results.mddf_paper_columns())
            published = ", ".join(f"{m} {r:.3f}" for m, r in paper_results.MDDF_TABLE2_PUBLISHED_RANK.items())
            notes.append(
                f"The mdDF paper prints Avg. Rank {published}; the rank row recomputes it from the "
                "printed accuracies of the rows shown."
            )
        if "deepboost" in self.papers:
            paper.update(paper_results.deepboost_paper_columns())
            paper_std.update(paper_results.deepboost_paper_std())
            notes.append(
                "DeepBoost paper: published error e shown as accuracy 100·(1 − e), ± its std; "
                "T1 boosted stumps (exponential loss), T2 trees (exponential), T3 trees (logistic)."
            )
        return paper, paper_std, notes

    def _main_title(self):
        """The main table's title, and the note on the user's data file (``--data``) or None."""
        own = [registered(d) for d in self.datasets]
        if own and all(own):  # --data: the user's file
            title = "Test accuracy (%) on " + ", ".join(Path(s.path).name for s in own)
            data_note = "Data: " + "; ".join(s.describe() for s in own) + f". Split: {_split_note(own[0])}."
        else:
            title = "Test accuracy (%) on " + (
                " and ".join(f"the {p} paper's datasets" for p in sorted(self.papers))
                or "scikit-learn's bundled datasets"
            )
            data_note = None
        return title + ", papers' protocol", data_note

    def ablation(self, methods):
        """The table of the mdDF structures (the paper's Table 3), with its published column on the mdDF datasets."""
        paper = paper_results.mddf_paper_columns(ablation=True) if "mddf" in self.papers else {}
        title = "mdDF structures (the paper's Table 3), test accuracy (%), papers' protocol"
        table = build_table(title, self.datasets, methods, self.cells, paper=paper, skipped=self.skipped)
        table.notes[:0] = method_notes(table, ABLATION_NOTES)
        return table

    def peers(self, methods, accuracy_note):
        """Today's peers on the same splits and seeds: their accuracy, the column ``k`` and their mean fit seconds."""
        seconds = fit_seconds(self.records, self.datasets, methods, self.seeds, self.profile)
        extra = {"k": self.k_column["k"]} if self.k_column else {}
        extra.update({f"{m} fit s": seconds.get(m, {}) for m in methods})
        title = "Today's peers: test accuracy (%) on the same splits and seeds, papers' protocol"
        seconds_note = (
            "fit s: mean wall-clock seconds of the final fit over the seeds (without hyper-parameter search)."
        )
        shown = dict(not_applicable=self.not_applicable, skipped=self.skipped)
        table = build_table(
            title, self.datasets, methods, self.cells, **shown, notes=[accuracy_note, seconds_note], extra=extra
        )
        quick = "; quick profile: 10 rounds" if self.profile == "quick" else ""
        table.notes[1:1] = method_notes(
            table,
            [
                (("RF", "XGBoost", "ExtraTrees"), K_NOTE + (" (column 'k')." if self.k_column else ".")),
                (("LightGBM",), f"LightGBM: LGBMClassifier with lightgbm's defaults (verbose=-1){quick}."),
                (
                    ("HGB",),
                    "HGB: scikit-learn's HistGradientBoostingClassifier with its defaults, categorical columns "
                    f"declared{quick}.",
                ),
                (("ExtraTrees",), "ExtraTrees: scikit-learn's ExtraTreesClassifier."),
                (("ExtraTrees", "HGB", "LightGBM"), "No published numbers for {methods}: neither paper ran them."),
            ],
        )
        return table


def _write(table, out: Path, stem: str, prov) -> str:
    """Write ``table`` as ``<stem>.md`` and ``<stem>.csv`` in ``out``, each headed by ``prov``; return the Markdown."""
    markdown = to_markdown(table)
    write_markdown(markdown, out / f"{stem}.md", prov)
    (out / f"{stem}.csv").write_text(with_csv_header(to_csv(table), prov))
    return markdown


def run(args, registry=None, *, command: str) -> int:
    """Run the benchmark the parsed arguments (:func:`~.options.benchmark_options`) describe.

    ``registry`` holds the methods (default: :func:`~.methods.default_registry`; tests add doubles);
    ``command`` is recorded in the lock and the tables' provenance. Returns the exit status; raises
    :class:`~.studies.UsageError`, :class:`~mddf.datasets.user_data.UserDataError`, :class:`~.outlock.FolderLocked`
    and :class:`~.outlock.FolderUnwritable` for the command line to report.
    """
    registry = registry or default_registry()
    if args.data_home is not None:
        os.environ["MDDF_DATA"] = str(args.data_home.resolve())
    if args.list:
        list_registry(registry)
        return EXIT_OK
    if args.data is not None and (args.suite or args.datasets):
        raise UsageError("--data and --suite/--datasets are alternatives: give one")
    protocol = args.protocol or ("practitioner" if args.data is not None else "paper")
    seeds = args.seeds if args.seeds is not None else (list(DEFAULT_SEEDS) if protocol == "practitioner" else [0])
    source = open_user_data(args, builtin_option="--datasets")

    suite = SUITES[args.suite or "default"]
    if source is not None:
        datasets = [source.name]
        default_out = source.slug + ("-paper" if protocol == "paper" else "")
    else:
        datasets = args.datasets or list(suite.datasets)
        default_out = args.suite or ("custom" if args.datasets else "default")
        if protocol == "practitioner":
            default_out += "-practitioner"
    out = args.out or Path("results") / default_out
    check_out_folder(out)
    try:
        specs = registry.select(args.methods, ablation=args.ablation, peers=args.peers, protocol=protocol)
        if protocol == "practitioner" and BASELINE not in {s.name for s in specs}:
            specs = [registry.get(BASELINE), *specs]  # the baseline row is always there
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    # A --data file is read and checked before anything is written: a bad file leaves nothing on disk.
    user_ds = load(source.name) if source is not None else None
    if user_ds is not None:
        say = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr))
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
    asked = {registry.get(name).name for name in args.methods or ()}
    available = usable_methods(specs, task_of(user_ds) if user_ds is not None else None, asked=asked)
    if not available:
        print("nothing to run: no requested method is available", file=sys.stderr)
        return EXIT_NOTHING_TO_RUN
    with hold(out, command):
        return _run_in(out, args, registry, datasets, available, source, command, protocol, seeds, user_ds)


def _run_in(out, args, registry, datasets, available, source, command, protocol, seeds, user_ds) -> int:
    store = ResultStore(out / "results.jsonl")
    say = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr))
    n_classes, image_shapes, skipped, usable = {}, {}, {}, []
    infos, n_folds, tasks_of, too_small, rankings = [], {}, {}, set(), {}
    unloadable = {}  # dataset -> why its files could not be loaded (a failure, unlike missing files)
    for name in datasets:
        try:
            ds = user_ds if user_ds is not None else load(name, download=args.download)
        except DatasetUnavailable as exc:
            skipped[name] = _short(str(exc))
            print(f"skipped dataset {name}: {exc}", file=sys.stderr)
            store.append(_dataset_record(name, "skipped", message=str(exc)))
            continue
        except DatasetError as exc:
            # A corrupt or tampered file (mddf.datasets.CorruptFileError, ChecksumError): report it and
            # go on with the other datasets.
            message = f"could not be loaded ({type(exc).__name__}: {exc})"
            skipped[name] = unloadable[name] = _short(message)
            print(f"dataset {name} {message}", file=sys.stderr)
            store.append(_dataset_record(name, "error", error=message))
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
        infos.append(info)
        n_classes[name], image_shapes[name], tasks_of[name] = info.n_classes, info.image_shape, info.task
        usable.append(name)
        del ds

    bound = bindings(infos, available, protocol=protocol, profile=args.profile, n_folds=n_folds)
    planned = dict(n_classes=n_classes, image_shapes=image_shapes, profile=args.profile, protocol=protocol)
    tasks = plan(usable, available, seeds, **planned, n_folds=n_folds, tasks=tasks_of, bindings=bound)
    tasks = [t for t in tasks if (t.dataset, t.method) not in too_small]
    if not tasks:
        if usable:
            why = f"none of {', '.join(s.name for s in available)} applies to {', '.join(usable)}"
        else:
            why = "no dataset could be loaded"
        print(f"nothing to run: {why}", file=sys.stderr)
        _print_skipped(skipped)
        return EXIT_NOTHING_TO_RUN
    set_aside_stale(store, tasks, lambda text: print(text, file=sys.stderr))
    code = run_from_args(tasks, store, args, registry)
    if code != EXIT_OK:
        return code

    records = bound_records(tasks, store)
    prov = provenance(command=command, data=source.describe() if source else None)
    methods = [s.name for s in available]
    if protocol == "practitioner":
        markdown = write_comparison(
            records, out, usable, methods, rankings, tasks_of, n_folds, seeds, registry, source, prov
        )
    else:
        shapes = (n_classes, image_shapes, skipped)
        markdown = write_tables(records, out, datasets, methods, seeds, args.profile, *shapes, registry, prov=prov)
        write_paper_figure(records, out, usable, methods, prov)
    print(markdown)
    not_ok = unfinished(tasks, store)
    failed = [r for r in not_ok if r.get("status") != "skipped"]
    counts = [f"{len(tasks) - len(not_ok)} of {len(tasks)} runs ok"]
    if failed:
        counts.append(f"{len(failed)} failed")
    if len(not_ok) > len(failed):
        counts.append(f"{len(not_ok) - len(failed)} skipped (dataset files missing where they ran)")
    if skipped:
        counts.append(
            f"{len(skipped)} dataset(s) skipped" + (f" ({len(unloadable)} could not be loaded)" if unloadable else "")
        )
    print(f"summary: {', '.join(counts)}", file=sys.stderr)
    _print_skipped(skipped)
    for rec in not_ok:
        if rec.get("status") == "skipped":
            print(f"skipped run: {rec['key']}: {_short(str(rec.get('message', '')))}", file=sys.stderr)
        else:
            print(f"failed: {rec['key']}: {rec.get('error')}", file=sys.stderr)
    print(
        f"results: {store.path}\ntables: {out / 'table.md'}, {out / 'table.csv'}; figure: {out / FIGURE}",
        file=sys.stderr,
    )
    return EXIT_RUN_FAILED if not_ok or unloadable else EXIT_OK


def write_comparison(records, out, datasets, methods, ranks, tasks_of, n_folds, seeds, registry, source, prov) -> str:
    """Write the practitioner protocol's table.md / table.csv and figure (:mod:`.comparison`), each dataset ranked by
    its metric of ``ranks`` (``{dataset: metric}``, :func:`~.planning.ranking_metric`); return the Markdown."""
    comparisons, titles = [], {}
    for dataset in datasets:
        task = tasks_of[dataset]
        ranking = ranks[dataset]
        k = n_folds.get(dataset)
        ratio = 1.0 / (k - 1) if k else 0.0
        comparisons.append(comparison_of(records, dataset, methods, ranking, task, test_train_ratio=ratio))
        name = Path(source.path).name if source is not None else dataset
        how = (
            f"{k}-fold cross-validation x {len(seeds)} seed(s)"
            if k
            else f"the fixed test file {Path(source.test_path).name} x {len(seeds)} seed(s)"
        )
        titles[dataset] = f"{name}: {METRICS[ranking].shown}, practitioner protocol, {how}"
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
    described = {c.method for comp in comparisons for c in comp.ranking}
    notes += [f"{m}: {registry.get(m).description}." for m in methods if m in described]
    markdown = to_comparison_markdown(comparisons, titles, notes)
    write_markdown(markdown, out / "table.md", prov)
    (out / "table.csv").write_text(with_csv_header(comparison_csv(comparisons), prov))
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


def _dataset_record(name: str, status: str, **why) -> dict:
    """The record saying why a dataset could not be loaded (``why``: its ``message`` or ``error``)."""
    return new_record(f"{name}|dataset", name, None, status=status, **why)


def _split_note(source) -> str:
    if source.test_path:
        return f"the fixed test file {Path(source.test_path).name}"
    return f"each seed's stratified {100 - 100 * TEST_FRACTION:g}/{100 * TEST_FRACTION:g} split of the rows"


def _print_skipped(skipped: dict) -> None:
    for name, why in skipped.items():
        print(f"skipped dataset {name}: {why}", file=sys.stderr)
