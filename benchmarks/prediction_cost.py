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
  test accuracy (condition 2), fit and predict seconds and their ratios to DF21's, pair by pair.
  ``<out>/prediction_cost_timing.md``.

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
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import df21, realdata, realdata_report, realdata_suite
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
QUICK_CASCADE = {"n_estimators": 4, "max_layers": 2}


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
    """The designs' parameters and the real-data suite's digest (the records are bound to its files)."""
    try:
        suite = realdata_suite.suite_digest()
    except (realdata.RealDataError, OSError):
        suite = None
    return {"suite": suite, "designs": design_parameters()}


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
    return (*realdata_report.mean_se(diffs), len(diffs))


def condition_one(scores: dict, candidate: str, rows, seeds: int) -> tuple:
    """``(verdict, {row: (mean difference, SE, seeds)})`` of the accuracy condition's first half: on every row
    (dataset, or the suite), the mean over the seeds of the paired difference to the default is at least minus
    one SE; ``verdict`` is None until every row has ``seeds`` paired seeds."""
    out = {row: paired_difference(scores, row, candidate) for row in rows}
    if any(n < seeds for _, _, n in out.values()):
        return None, out
    return all(mean >= -se for mean, se, _ in out.values()), out


def accuracy_table(results) -> str:
    """Per dataset and the suite mean: each design's mean accuracy over the seeds, its paired difference to the
    default ± SE, and the verdict of condition 1."""
    records = complete_records(results.records, results.options.folds)
    scores = realdata_report.seed_scores(records)
    designs = [m for m in results.methods if any(k[1] == m for k in scores)]
    in_suite = suite_tables(results.records)
    tables = [d for d in results.datasets if d in in_suite]
    scores.update(suite_scores(scores, tables, designs))
    rows = [d for d in results.datasets if d not in in_suite] + ([SUITE] if tables else [])
    seeds = results.options.repeats

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
        f"Per dataset, and the mean of the real-data suite's {len(tables)} classification tables: the accuracy (%) of "
        f"a seed's {results.options.folds} held-out parts together, mean over the seeds [seeds]; in brackets the "
        f"mean paired difference to {DEFAULT} ± its SE over the seeds.",
        "",
        *markdown_table(["dataset", *designs], [[row, *(cell(row, m) for m in designs)] for row in rows]),
        "",
        f"Condition 1 (within one paired SE of {DEFAULT} on each row, over {seeds} seeds):",
        "",
    ]
    verdicts = []
    for m in designs:
        if m == DEFAULT:
            continue
        verdict, per_row = condition_one(scores, m, rows, seeds)
        below = [row for row, (mean, se, _) in per_row.items() if math.isfinite(se) and mean < -se]
        if verdict is None:
            text = "pending (not every row has all its seeds)" + (
                f"; below so far: {', '.join(below)}" if below else ""
            )
        else:
            text = "met" if verdict else f"not met (below one SE on {', '.join(below)})"
        verdicts.append([m, text])
    lines += markdown_table(["design", "condition 1"], verdicts)
    return "\n".join(lines) + not_run(results) + "\n"


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
    report="prediction_cost_timing",
)
main = main_by_flag("--timing", TIMING, ACCURACY)

if __name__ == "__main__":
    sys.exit(main())
