"""Fewer trees for each new row: the designs of ``docs/benchmarks/prediction-cost.md``, their accuracy and cost.

The rules this study implements were written on that page before it ran. Two halves, one command each:

- **accuracy** (the default): per seed s in 0-4, a stratified 3-fold cross-validation of the training rows
  shuffled with s, every fit with ``random_state=s``, the test rows never read: on letter, satimage, adult (its
  category columns as categories) and yeast, whose classes with fewer than five training rows (ERL) stay in every
  fit's training part and are not scored (:func:`benchmarks.realdata_suite.keep_small_classes`), and on the
  real-data suite's twelve classification tables (all their rows are training rows). A seed's score on a dataset
  is the accuracy of its three held-out parts together; the suite's is the mean over the twelve tables.
  ``<out>/prediction_cost_accuracy.md``: per dataset (and the suite), each design's mean over the seeds and its
  paired difference to the default ± the SE over the seeds, and whether it is within one paired SE (condition 1).
- **timing** (``--timing``): the DF21 comparison of :mod:`benchmarks.df21` (its datasets, seeds, rounds and
  fresh processes) with every design in place of its two mdDF modes, beside DF21 and a 400-tree random forest:
  test accuracy (condition 2), fit and predict seconds and their ratios to DF21's, pair by pair; then the page's
  choice rule applied to both halves (:func:`choose`; condition 1 is read from the accuracy half's records in the
  same ``--out``, so its data must be found) and the accuracy/time frontier of every design against DF21
  (:func:`frontier`). ``<out>/prediction_cost_timing.md`` and ``.png``.

Designs (:data:`DESIGNS`): the default; ``fold_trees="refit"`` and ``"share"``; confidence screening at 0.995
and 0.98 (``screening_accuracy``); out-of-bag class vectors; and the combinations the page names.

Examples
--------
MDDF_DATA=/path/to/data MDDF_REALDATA=/path/to/realdata python -m benchmarks.prediction_cost --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.prediction_cost --timing --rounds 3
python -m benchmarks.prediction_cost --report-only
python -m benchmarks.prediction_cost --quick
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import sys
from fractions import Fraction
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import df21, realdata, realdata_statistics, realdata_suite
from benchmarks.data import split
from benchmarks.harness import CrossValidation, Study, main_by_flag, not_run
from mddf.experiments.tables import markdown_table

#: name -> the ``MDDFClassifier`` parameters of a design (the page's table, in its order).
DESIGNS = {
    "default": {},
    "refit": {"fold_trees": "refit"},
    "share": {"fold_trees": "share"},
    "screen-995": {"screening_accuracy": 0.995},
    "screen-98": {"screening_accuracy": 0.98},
    "refit+screen-995": {"fold_trees": "refit", "screening_accuracy": 0.995},
    "share+screen-995": {"fold_trees": "share", "screening_accuracy": 0.995},
    "oob": {"class_vectors": "oob"},
    "oob+screen-995": {"class_vectors": "oob", "screening_accuracy": 0.995},
}
DEFAULT = "default"
#: The paper's datasets of the accuracy condition; the real-data suite's score is :data:`SUITE`.
PAPER = realdata_suite.PAPER_CLASSIFICATION
SUITE = "suite mean"
FOLDS = 3
SEEDS = 5
QUICK_CASCADE = {"n_estimators": 4, "max_layers": 2, "forest_types": ("rf", "rf", "crf", "crf")}  # no boosted rounds


def timing_flag(parser):
    """``--timing``: the option that chooses the timing half (:func:`benchmarks.harness.main_by_flag`)."""
    parser.add_argument("--timing", action="store_true", help="run the timing half (the DF21 comparison)")


def timing_options(parser):
    df21.options(parser)
    timing_flag(parser)


def design(params: dict):
    """A builder of ``MDDFClassifier(**params)`` with the unit's seed and ``--n-jobs`` (``--quick``: a small one)."""

    def build(ctx):
        from mddf import MDDFClassifier

        small = QUICK_CASCADE if ctx.quick else {}
        return MDDFClassifier(random_state=ctx.seed, n_jobs=ctx.n_jobs, **small, **params)

    return build


# ------------------------------------------------------------------------------------------ accuracy half
def accuracy_datasets(options) -> list:
    """The paper's four classification datasets (rare classes kept in training), then the suite's twelve
    classification tables, smallest first (none when the suite is not found); ``--quick``: digits (bundled)."""
    if options.quick:
        return [split("digits")]
    paper = [d for d in realdata_suite.paper_datasets(options) if d.name in PAPER]
    try:
        entries = {e["name"]: e for e in realdata.manifest()}
        tables = sorted(realdata.datasets("classification"), key=lambda d: (entries[d.name]["rows"], d.name))
    except realdata.RealDataError:
        tables = []
    return paper + tables


def design_parameters() -> dict:
    """Every design's full ``MDDFClassifier`` parameters (defaults included, as text): the records are bound to
    them, so that a change of a default does not reuse fits of the old one."""
    from mddf import MDDFClassifier

    return {name: repr(sorted(MDDFClassifier(**params).get_params().items())) for name, params in DESIGNS.items()}


def accuracy_settings(options) -> dict:
    """The designs' parameters (the suite's tables are bound to its files by their datasets'
    :func:`~benchmarks.realdata.digest`, the paper's datasets to their rows)."""
    return {"designs": design_parameters()}


def complete_records(records, folds: int) -> list:
    """The records of the (dataset, design, seed) whose ``folds`` held-out parts are all recorded."""
    count = {}
    for r in records:
        key = (r["dataset"], r["method"], r["repeat"])
        count[key] = count.get(key, 0) + 1
    return [r for r in records if count[(r["dataset"], r["method"], r["repeat"])] == folds]


def suite_tables(records) -> set:
    """The real-data suite's classification tables: the manifest's (every one counts in the suite's mean, recorded
    or not), else those of the records."""
    try:
        return set(realdata.names("classification"))
    except realdata.RealDataError:
        return {r["dataset"] for r in records if r.get("suite") == "realdata"}


def suite_scores(scores: dict, tables, designs) -> dict:
    """``{(SUITE, design): {seed: mean over the tables}}`` for the seeds that every one of ``tables`` has."""
    out = {}
    for m in designs:
        per_table = [scores.get((t, m), {}) for t in tables]
        if not tables or not all(per_table):
            continue
        seeds = set.intersection(*(set(s) for s in per_table))
        if seeds:
            out[(SUITE, m)] = {s: statistics.fmean(p[s] for p in per_table) for s in sorted(seeds)}
    return out


def paired_difference(scores: dict, row: str, candidate: str) -> tuple:
    """``(mean, SE, seeds)`` of a design's per-seed score minus the default's on one row, over the seeds both have."""
    a, b = scores.get((row, candidate), {}), scores.get((row, DEFAULT), {})
    diffs = [a[s] - b[s] for s in sorted(set(a) & set(b))]
    return (*realdata_statistics.mean_se(diffs), len(diffs))


def condition_one(scores: dict, candidate: str, rows, seeds: int) -> tuple:
    """``(verdict, {row: (mean difference, SE, seeds)})`` of the accuracy condition's first half: on every row
    (dataset, or the suite), the mean over the seeds of the paired difference to the default is at least minus
    one SE; ``verdict`` is None until every row has ``seeds`` paired seeds."""
    out = {row: paired_difference(scores, row, candidate) for row in rows}
    if any(n < seeds for _, _, n in out.values()):
        return None, out
    return all(mean >= -se for mean, se, _ in out.values()), out


def condition_one_of(results) -> tuple:
    """``(scores, rows, designs, verdicts)`` of the accuracy half's results: the per-seed scores (the suite mean's
    too), the rows of condition 1 (the paper's datasets, then the suite), the designs recorded, and
    ``{design: (verdict, {row: (mean, SE, seeds)})}`` for every design but the default (:func:`condition_one`)."""
    records = complete_records(results.records, results.options.folds)
    scores = realdata_statistics.seed_scores(records)
    designs = [m for m in results.methods if any(k[1] == m for k in scores)]
    in_suite = suite_tables(results.records)
    tables = [d for d in results.datasets if d in in_suite]
    scores.update(suite_scores(scores, tables, designs))
    rows = [d for d in results.datasets if d not in in_suite] + ([SUITE] if tables else [])
    verdicts = {m: condition_one(scores, m, rows, results.options.repeats) for m in designs if m != DEFAULT}
    return scores, rows, designs, verdicts


def below_one_se(per_row: dict) -> list:
    """The rows where a design's mean paired difference is below minus one SE."""
    return [row for row, (mean, se, _) in per_row.items() if math.isfinite(se) and mean < -se]


def accuracy_table(results) -> str:
    """Per dataset and the suite mean: each design's mean accuracy over the seeds, its paired difference to the
    default ± SE, and the verdict of condition 1."""
    scores, rows, designs, verdicts = condition_one_of(results)
    n_tables = sum(d in suite_tables(results.records) for d in results.datasets)

    def cell(row, m):
        values = scores.get((row, m), {})
        if not values:
            return ""
        text = f"{100 * statistics.fmean(values.values()):.2f}"
        if m != DEFAULT:
            mean, se, _ = paired_difference(scores, row, m)
            if math.isfinite(mean):
                text += f" ({100 * mean:+.2f}" + (f" ± {100 * se:.2f}" if math.isfinite(se) else "") + ")"
        return text + f" [{len(values)}]"

    lines = [
        "# Fewer trees for each new row: accuracy in a cross-validation of the training rows",
        "",
        f"Per dataset, and the mean of the real-data suite's {n_tables} classification tables: the accuracy (%) of "
        f"a seed's {results.options.folds} held-out parts together, mean over the seeds [seeds]; in brackets the "
        f"mean paired difference to {DEFAULT} ± its SE over the seeds.",
        "",
        *markdown_table(["dataset", *designs], [[row, *(cell(row, m) for m in designs)] for row in rows]),
        "",
        f"Condition 1 (within one paired SE of {DEFAULT} on each row, over {results.options.repeats} seeds):",
        "",
    ]
    lines += markdown_table(["design", "condition 1"], [[m, verdict_text(*v)] for m, v in verdicts.items()])
    return "\n".join(lines) + not_run(results) + "\n"


def verdict_text(verdict, per_row) -> str:
    """Condition 1's verdict in words: met, not met (and where), or pending (and where it is below so far)."""
    below = below_one_se(per_row)
    if verdict is None:
        return "pending (not every row has all its seeds)" + (f"; below so far: {', '.join(below)}" if below else "")
    return "met" if verdict else f"not met (below one SE on {', '.join(below)})"


ACCURACY = Study(
    "prediction_cost",
    __doc__,
    datasets=accuracy_datasets,
    methods={name: design(params) for name, params in DESIGNS.items()},
    protocol=CrossValidation(n_folds=FOLDS, repeats=SEEDS),
    metrics=("accuracy",),
    quick={"methods": ("default", "refit", "screen-995"), "repeats": 2, "folds": 2},
    options=timing_flag,
    settings=accuracy_settings,
    fit=realdata_suite.fit,
    table=accuracy_table,
    report="prediction_cost_accuracy",
)

# ------------------------------------------------------------------------------------------ the choice
#: The cost condition's bound on a design's fit time over DF21's, on every dataset.
FIT_BOUND = 1.5
#: The issue's prediction target for the new default: at most DF21's prediction time on every dataset.
PREDICT_TARGET = 1.0
REFERENCE = "DF21"


def paired_ratio(records, dataset: str, method: str, other: str, what: str) -> float:
    """Median over the (seed, round) pairs both ran on ``dataset`` of ``method``'s ``what`` seconds over
    ``other``'s (NaN when they share none): fitted in the same round, the pair saw the same machine."""
    by_run = {(r["method"], r["seed"], r["round"]): r[what] for r in records if r["dataset"] == dataset}
    ratios = [
        seconds / by_run[(other, seed, run)]
        for (m, seed, run), seconds in by_run.items()
        if m == method and by_run.get((other, seed, run), 0) > 0
    ]
    return statistics.median(ratios) if ratios else math.nan


def mean_test_accuracy(records, dataset: str, method: str) -> Fraction | float:
    """Mean over the seeds of a method's test accuracy on ``dataset`` (each seed's mean over its rounds), exact:
    each accuracy is read as its correct rows over the dataset's test rows (``n_test`` of any of its records;
    DF21's records before ``n_test`` was added to them do not carry it), so that equal accuracies compare equal
    (condition 2's "at least DF21's" includes a tie, which float means can break). NaN when the method has no
    records."""
    sizes = {r["n_test"] for r in records if r["dataset"] == dataset and r.get("n_test")}
    n = sizes.pop() if len(sizes) == 1 else None
    per_seed = {}
    for r in records:
        if r["dataset"] == dataset and r["method"] == method:
            exact = Fraction(round(r["accuracy"] * n), n) if n else Fraction(r["accuracy"])
            per_seed.setdefault(r["seed"], []).append(exact)
    if not per_seed:
        return math.nan
    return sum(sum(v) / len(v) for v in per_seed.values()) / len(per_seed)


@dataclasses.dataclass
class Standing:
    """Where a design stands against the page's choice rule, over ``datasets``."""

    design: str
    condition_1: bool | None  # within one paired SE of the default (the accuracy half; None: pending)
    below_df21: list  # datasets whose test accuracy is below DF21's (condition 2)
    not_faster: list  # datasets where it does not predict faster than the default
    fit_ratios: dict  # {dataset: fit seconds over DF21's}
    predict_ratios: dict  # {dataset: predict seconds over DF21's}

    @property
    def complete(self) -> bool:
        values = [*self.fit_ratios.values(), *self.predict_ratios.values()]
        return self.condition_1 is not None and bool(values) and all(math.isfinite(v) for v in values)

    @property
    def fit_within_bound(self) -> bool:
        return not any(v > FIT_BOUND for v in self.fit_ratios.values())

    @property
    def qualifies(self) -> bool | None:
        """True: it meets every condition; False: it fails one already measured (whatever is pending);
        None: not known yet (its accuracy half or a timing is pending)."""
        if self.condition_1 is False or self.below_df21 or self.not_faster or not self.fit_within_bound:
            return False
        return True if self.complete else None

    @property
    def predict_geomean(self) -> float:
        """Geometric mean over the datasets of the prediction time over DF21's (the rule's order)."""
        values = list(self.predict_ratios.values())
        return math.exp(statistics.fmean(math.log(v) for v in values)) if values else math.nan


def standings(verdicts: dict, records, datasets) -> list:
    """Each design's :class:`Standing` (the default's first, for reference) from condition 1's ``verdicts``
    (``{design: verdict}``) and the timing half's records on ``datasets``."""
    out = []
    for m in DESIGNS:
        if not any(r["method"] == m for r in records):
            continue
        accuracy = {d: (mean_test_accuracy(records, d, m), mean_test_accuracy(records, d, REFERENCE)) for d in datasets}
        out.append(
            Standing(
                design=m,
                condition_1=True if m == DEFAULT else verdicts.get(m),
                below_df21=[d for d, (a, ref) in accuracy.items() if a < ref],
                not_faster=[]
                if m == DEFAULT
                else [d for d in datasets if paired_ratio(records, d, m, DEFAULT, "predict_s") >= 1],
                fit_ratios={d: paired_ratio(records, d, m, REFERENCE, "fit_s") for d in datasets},
                predict_ratios={d: paired_ratio(records, d, m, REFERENCE, "predict_s") for d in datasets},
            )
        )
    return out


def choose(table: list) -> str | None:
    """The page's rule: of the designs other than the default that meet conditions 1 and 2, predict faster than
    the default on every dataset and fit within :data:`FIT_BOUND` times DF21's, the one with the smallest
    geometric mean of its prediction time over DF21's; a tie goes to the one that changes fewer parameters.
    None: none qualifies, and the default stays."""
    qualified = [s for s in table if s.design != DEFAULT and s.qualifies is True]
    if not qualified:
        return None
    return min(qualified, key=lambda s: (s.predict_geomean, len(DESIGNS[s.design]))).design


def accuracy_verdicts(out: Path, quick: bool = False) -> dict:
    """``{design: condition 1's verdict}`` from the accuracy half's records in ``out``, read with its settings
    (the designs' parameters and the suite's digest: records of other settings are not read; ``quick``: its
    ``--quick`` run's); empty when its data cannot be found."""
    try:
        results = ACCURACY.recorded(["--out", str(out), *(["--quick"] if quick else [])])
    except (realdata.RealDataError, OSError, SystemExit):
        return {}
    return {m: verdict for m, (verdict, _) in condition_one_of(results)[3].items()}


def choice_section(results) -> str:
    """The rule applied: each design's standing and the design chosen, or why the default stays."""
    datasets = [d for d in results.datasets if results.of(d, REFERENCE)]
    if not datasets:
        return "\n## The choice\n\nNot made: DF21 did not run, and conditions 2 and the cost are read against it.\n"
    table = standings(accuracy_verdicts(results.options.out, results.options.quick), results.records, datasets)

    def yes_no(flag, where=()):
        return "pending" if flag is None else ("yes" if flag else "no" + (f" ({', '.join(where)})" if where else ""))

    cells = [
        [
            s.design,
            yes_no(s.condition_1),
            yes_no(not s.below_df21, s.below_df21),
            "" if s.design == DEFAULT else yes_no(not s.not_faster, s.not_faster),
            f"{max(s.fit_ratios.values()):.2f}",
            f"{s.predict_geomean:.2f}",
            f"{max(s.predict_ratios.values()):.2f}",
            "" if s.design == DEFAULT else yes_no(s.qualifies),
        ]
        for s in table
    ]
    chosen = choose(table)
    pending = [s.design for s in table if s.design != DEFAULT and s.qualifies is None]
    if pending:
        verdict = f"Not made yet: waiting for the accuracy half or the timings of {', '.join(pending)}."
    elif chosen:
        best = next(s for s in table if s.design == chosen)
        target = "meets" if max(best.predict_ratios.values()) <= PREDICT_TARGET else "does not meet"
        verdict = (
            f"Chosen: **{chosen}**; it {target} the prediction target ({PREDICT_TARGET:g}x DF21 on every dataset)."
        )
    else:
        verdict = "No design qualifies: the default stays."
    lines = [
        "",
        "## The choice",
        "",
        f"By the page's rule over {', '.join(datasets)}: condition 1 (the accuracy half), condition 2 (test accuracy "
        f"at least DF21's), a faster prediction than {DEFAULT}'s on every dataset (paired ratios), fit within "
        f"{FIT_BOUND:g}x DF21's; of those that qualify, the smallest geometric mean of prediction over DF21's.",
        "",
        *markdown_table(
            [
                "design",
                "condition 1",
                "condition 2",
                "predicts faster",
                "fit / DF21, worst",
                "predict / DF21, geomean",
                "predict / DF21, worst",
                "qualifies",
            ],
            cells,
        ),
        "",
        verdict,
    ]
    return "\n".join(lines) + "\n"


def timing_table(results) -> str:
    """The DF21 comparison's tables, then the choice."""
    return df21.table(results) + choice_section(results)


def frontier(results):
    """The accuracy/time frontier against DF21: per dataset, each design's prediction time over DF21's (paired,
    log axis) against its test accuracy less DF21's, filled when it meets condition 1; DF21 at (1, 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    datasets = [d for d in results.datasets if results.of(d, REFERENCE)]
    verdicts = accuracy_verdicts(results.options.out, results.options.quick)
    fig, axes = plt.subplots(1, max(len(datasets), 1), figsize=(3.6 * max(len(datasets), 1), 3.6), squeeze=False)
    for ax, dataset in zip(axes[0], datasets):
        reference = mean_test_accuracy(results.records, dataset, REFERENCE)
        for m in results.methods:
            if m == REFERENCE or not results.of(dataset, m):
                continue
            x = paired_ratio(results.records, dataset, m, REFERENCE, "predict_s")
            y = 100 * float(mean_test_accuracy(results.records, dataset, m) - reference)
            met = m == DEFAULT or verdicts.get(m) is True
            colour = "tab:red" if m == DEFAULT else ("tab:blue" if m in DESIGNS else "tab:gray")
            ax.scatter(x, y, s=28, color=colour if met else "white", edgecolors=colour, zorder=3)
            ax.annotate(m, (x, y), textcoords="offset points", xytext=(3, 3), fontsize=6)
        ax.scatter(1, 0, marker="*", s=90, color="black", zorder=3)
        ax.axvline(PREDICT_TARGET, color="black", lw=0.6, ls="--")
        ax.axhline(0, color="black", lw=0.6, ls="--")
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator([0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(dataset, fontsize=10)
        ax.set_xlabel("predict time / DF21's (log)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("test accuracy - DF21's (points)")
    fig.suptitle(
        "Filled: within one paired SE of the default (condition 1); hollow: not, or still pending; star: DF21",
        fontsize=8,
    )
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------------------ timing half
TIMING = dataclasses.replace(
    df21.STUDY,
    name="prediction_cost",
    doc=__doc__,
    methods={
        **{name: df21.mddf(**params) for name, params in DESIGNS.items()},
        "DF21": None,
        "RF400": df21.STUDY.methods["RF400"],
    },
    quick={**df21.STUDY.quick, "methods": ("default", "refit", "DF21", "RF400")},
    options=timing_options,
    settings=lambda options: {**df21.STUDY.settings(options), "designs": design_parameters()},
    table=timing_table,
    figure=frontier,
    report="prediction_cost_timing",
)
main = main_by_flag("--timing", TIMING, ACCURACY)

if __name__ == "__main__":
    sys.exit(main())
