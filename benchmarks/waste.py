"""What a cascade's fit spends on layers it throws away, and what layer probes save of it (issue 64).

Every fit grows ``n_tolerant_layers`` layers after its best one and throws them away. Per fit: the seconds of every
grown layer (``train_history_``), the layers kept, the share of the fit spent on the layers discarded, and the
seconds outside the layers (validation, binning, the pair search; the predictor, calibration). Beside each design
(:data:`CLASSIFIERS`, :data:`REGRESSORS`: the base of the realdata page's second rule, and with the boosted
member) its probed twin, ``probe_trees=0.25`` (:mod:`mddf.cascade.probing`), fitted on the same rows in turn: the share of
fits whose predictions are identical (the same kept layers; the SHA-256 of the held-out rows' outputs), the
accuracy (R^2) difference per dataset with its standard error, and the paired ratios of fit and predict seconds.

The adoption rule of issue 64: over the suite's fits and the paper datasets' seeds, the predictions are identical
in at least 98% of fits and no dataset is worse beyond two SE of the paired per-fit differences.

Two runs: the suite's tables (5-fold cross-validation, one repeat; ``MDDF_REALDATA``) and, with ``--paper``, the
paper's datasets on their training and test rows, seeds 0-4 (letter, satimage, adult, yeast; the regressor's
diabetes, Friedman #1 and #3).

Examples
--------
MDDF_REALDATA=/path/to/realdata python -m benchmarks.waste --n-jobs 2 --out results/waste
MDDF_DATA=/path/to/data python -m benchmarks.waste --paper --n-jobs 2 --out results/waste
python -m benchmarks.waste --paper --quick
"""

from __future__ import annotations

import dataclasses
import hashlib
import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks import realdata_suite
from benchmarks.data import frames
from benchmarks.harness import CrossValidation, Study, TrainTest, main_by_flag, not_run
from benchmarks.realdata_suite import BASE, BOOSTED_MEMBER
from benchmarks.regression import dataset as regression_dataset
from mddf.experiments.tables import markdown_table

#: The share of a forest's trees a probe grows.
PROBE_SHARE = 0.25
PROBES = {"probe_trees": PROBE_SHARE}
#: name -> MDDFClassifier parameters: the realdata page's base (every layer grown in full: it pins
#: ``probe_trees=None``), the boosted member, and each probed.
CLASSIFIERS = {
    "mdDF": dict(BASE),
    "mdDF-probes": {**BASE, **PROBES},
    "mdDF-gbdt": {**BASE, "forest_types": BOOSTED_MEMBER},
    "mdDF-gbdt-probes": {**BASE, "forest_types": BOOSTED_MEMBER, **PROBES},
}
#: name -> CascadeForestRegressor parameters.
REGRESSORS = {
    "CascadeForest": dict(BASE),
    "CascadeForest-probes": {**BASE, **PROBES},
    "CascadeForest-gbdt": {**BASE, "forest_types": BOOSTED_MEMBER},
    "CascadeForest-gbdt-probes": {**BASE, "forest_types": BOOSTED_MEMBER, **PROBES},
}
#: A probed design -> the design it must reproduce.
REFERENCE = {name: name.removesuffix("-probes") for name in (*CLASSIFIERS, *REGRESSORS) if name.endswith("-probes")}
DEFAULT_LEARNERS = ("mdDF", "mdDF-probes", "CascadeForest", "CascadeForest-probes")
#: The adoption rule: the least share of fits with identical predictions, and the SEs a dataset may lose by.
MIN_IDENTICAL = 0.98
MAX_LOSS_SE = 2.0
PAPER_CLASSIFICATION = ("letter", "satimage", "adult", "yeast")
PAPER_REGRESSION = ("diabetes", "friedman1", "friedman3")
PAPER_SEEDS = (0, 1, 2, 3, 4)


#: ``--quick``: small cascades, with enough trees for a probe (4 of 12).
QUICK_CASCADE = {"n_estimators": 12, "max_layers": 4}


def learner(method):
    """A builder of the learner's cascade (``--quick``: a small one)."""
    params = CLASSIFIERS[method] if method in CLASSIFIERS else REGRESSORS[method]

    def build(ctx):
        from mddf import CascadeForestRegressor, MDDFClassifier

        cls = MDDFClassifier if method in CLASSIFIERS else CascadeForestRegressor
        return cls(random_state=ctx.seed, n_jobs=ctx.n_jobs, **(QUICK_CASCADE if ctx.quick else {}), **params)

    return build


def learner_settings(method):
    from mddf import CascadeForestRegressor, MDDFClassifier

    cls, params = (
        (MDDFClassifier, CLASSIFIERS[method]) if method in CLASSIFIERS else (CascadeForestRegressor, REGRESSORS[method])
    )
    given = cls(**params).get_params(deep=False)
    return repr(sorted((k, v) for k, v in given.items() if k not in ("random_state", "n_jobs")))


def applies(method, dataset, options):
    """A learner of the dataset's task."""
    return (method in CLASSIFIERS) == (realdata_suite.task_of_dataset(dataset) == "classification")


def suite_datasets(options):
    return [dataclasses.replace(d, repeats=1) for d in realdata_suite.suite_datasets(options)]


def paper_datasets(options):
    return [frames(n) for n in PAPER_CLASSIFICATION] + [regression_dataset(n) for n in PAPER_REGRESSION]


def options(parser):
    parser.add_argument("--paper", action="store_true", help="the paper's datasets, seeds 0-4, instead of the suite")
    parser.add_argument("--learners", dest="methods", help="comma-separated learners (the same as --methods)")


# ------------------------------------------------------------------------------------------ one fit
def describe(model, ctx, record) -> dict:
    """The layers grown and kept, each grown layer's seconds, the seconds outside the layers, the layers probed and
    decided on their probes, and the SHA-256 of the held-out rows' outputs (probabilities, or predictions)."""
    cascade = model[-1] if hasattr(model, "steps") else model
    layers = [float(h["fit_seconds"]) for h in cascade.train_history_]
    kept = int(cascade.n_layers_)
    probed = [h for h in cascade.train_history_ if "probe_trees" in h]
    X_eval = ctx.rows[2]
    outputs = model.predict_proba(X_eval) if ctx.task == "classification" else model.predict(X_eval)
    return {
        **realdata_suite.describe(model, ctx, record),
        "layers_grown": len(layers),
        "layers_kept": kept,
        "layer_seconds": layers,
        "discarded_s": sum(layers[kept:]),
        "outside_layers_s": max(0.0, record["fit_s"] - sum(layers)),
        "probed": len(probed),
        "decided_on_probe": sum(not h["finished"] for h in probed),
        "outputs_sha256": hashlib.sha256(np.ascontiguousarray(outputs, dtype=np.float64).tobytes()).hexdigest(),
    }


# ------------------------------------------------------------------------------------------ the tables
def _score(record):
    return record["accuracy"] if "accuracy" in record and record["accuracy"] is not None else record.get("r2")


def _unit(record):
    return (record["dataset"], record.get("repeat", record.get("seed")), record.get("fold"), record.get("round"))


def waste_table(results) -> str:
    """Per dataset and design without probes: layers grown and kept, fit seconds, the shares discarded and outside
    the layers; the median share over the fits."""
    rows, shares = [], []
    designs = [m for m in results.methods if m not in REFERENCE]
    for dataset in results.datasets:
        for method in designs:
            fits = results.of(dataset, method)
            if not fits:
                continue
            fit_s = sum(r["fit_s"] for r in fits)
            shares += [r["discarded_s"] / r["fit_s"] for r in fits if r["fit_s"] > 0]
            rows.append(
                [
                    dataset,
                    method,
                    f"{statistics.fmean(r['layers_grown'] for r in fits):.1f}",
                    f"{statistics.fmean(r['layers_kept'] for r in fits):.1f}",
                    f"{statistics.fmean(r['fit_s'] for r in fits):.1f}",
                    f"{sum(r['discarded_s'] for r in fits) / fit_s:.0%}",
                    f"{sum(r['outside_layers_s'] for r in fits) / fit_s:.0%}",
                ]
            )
    head = ["dataset", "design", "layers grown", "kept", "fit s", "discarded", "outside layers"]
    summary = ""
    if shares:
        summary = (
            f"\nMedian share of a fit spent on discarded layers: {statistics.median(shares):.0%} "
            f"(from {min(shares):.0%} to {max(shares):.0%}, {len(shares)} fits).\n"
        )
    return "\n".join(markdown_table(head, rows)) + "\n" + summary


@dataclasses.dataclass(frozen=True)
class Comparison:
    """A probed design against its reference on the fits both have: per dataset, and over every fit."""

    design: str
    reference: str
    rows: list
    n_fits: int
    n_identical: int
    worse: list
    fit_ratio: float
    predict_ratio: float

    @property
    def adopted(self):
        return self.n_fits > 0 and self.n_identical >= MIN_IDENTICAL * self.n_fits and not self.worse


def compare(results, design, reference) -> Comparison:
    """:class:`Comparison` of ``design`` with ``reference``, paired fit by fit."""
    rows, worse, fit_ratios, predict_ratios, n_fits, n_identical = [], [], [], [], 0, 0
    for dataset in results.datasets:
        mine = {_unit(r): r for r in results.of(dataset, design)}
        theirs = {_unit(r): r for r in results.of(dataset, reference)}
        pairs = [(mine[u], theirs[u]) for u in sorted(mine.keys() & theirs.keys(), key=repr)]
        if not pairs:
            continue
        same = sum(a["outputs_sha256"] == b["outputs_sha256"] for a, b in pairs)
        diffs = [_score(a) - _score(b) for a, b in pairs]
        se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
        mean = statistics.fmean(diffs)
        if len(diffs) > 1 and mean < -MAX_LOSS_SE * se:
            worse.append(dataset)
        ratios = [a["fit_s"] / b["fit_s"] for a, b in pairs if b["fit_s"] > 0]
        fit_ratios += ratios
        predict_ratios += [a["predict_s"] / b["predict_s"] for a, b in pairs if b["predict_s"] > 0]
        n_fits, n_identical = n_fits + len(pairs), n_identical + same
        scale = 100 if "accuracy" in pairs[0][0] else 1
        rows.append(
            [
                dataset,
                f"{same}/{len(pairs)}",
                f"{scale * mean:+.3f} ± {scale * se:.3f}",
                f"{statistics.median(ratios):.2f}" if ratios else "",
                f"{statistics.fmean(a['decided_on_probe'] for a, _ in pairs):.1f}",
            ]
        )
    median = statistics.median
    return Comparison(
        design,
        reference,
        rows,
        n_fits,
        n_identical,
        worse,
        median(fit_ratios) if fit_ratios else float("nan"),
        median(predict_ratios) if predict_ratios else float("nan"),
    )


def comparison_section(comparison: Comparison) -> str:
    c = comparison
    head = ["dataset", "identical fits", "difference ± SE (points; R²)", "fit ratio (median)", "layers on probes"]
    verdict = "meets" if c.adopted else "does not meet"
    return (
        f"\n**{c.design} against {c.reference}.** Identical predictions in {c.n_identical} of {c.n_fits} fits "
        f"({c.n_identical / c.n_fits:.1%}); datasets worse beyond {MAX_LOSS_SE:g} SE: "
        f"{', '.join(c.worse) or 'none'}; median fit time {c.fit_ratio:.2f}x, median predict time "
        f"{c.predict_ratio:.2f}x the reference's. It {verdict} the adoption rule (at least {MIN_IDENTICAL:.0%} "
        f"identical, no dataset worse beyond {MAX_LOSS_SE:g} SE).\n\n" + "\n".join(markdown_table(head, c.rows)) + "\n"
    )


def table(results) -> str:
    sections = [waste_table(results)]
    for design, reference in REFERENCE.items():
        if design in results.methods and reference in results.methods:
            comparison = compare(results, design, reference)
            if comparison.n_fits:
                sections.append(comparison_section(comparison))
    return "\n".join(sections) + not_run(results)


#: What the suite's run and the paper datasets' run share.
SHARED = dict(
    default_methods=DEFAULT_LEARNERS,
    options=options,
    applies=applies,
    fit=realdata_suite.fit,
    describe=describe,
    learner_settings=learner_settings,
    table=table,
    limit_threads=True,
)
SUITE = Study(
    "waste",
    __doc__,
    datasets=suite_datasets,
    methods={name: learner(name) for name in (*CLASSIFIERS, *REGRESSORS)},
    protocol=CrossValidation(n_folds=realdata_suite.FOLDS, repeats=1),
    quick={"datasets": realdata_suite.QUICK_TABLES, "folds": 2},
    report="waste",
    **SHARED,
)
PAPER = Study(
    "waste",
    __doc__,
    datasets=paper_datasets,
    methods=SUITE.methods,
    protocol=TrainTest(seeds=PAPER_SEEDS),
    quick={"datasets": ("satimage", "diabetes"), "seeds": (0,)},
    settings=lambda options: {"datasets": "paper"},
    report="waste-paper",
    **SHARED,
)
main = main_by_flag("--paper", PAPER, SUITE)

if __name__ == "__main__":
    sys.exit(main())
