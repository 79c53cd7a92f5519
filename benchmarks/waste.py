"""Where a cascade's fit time goes that the model does not keep: the layers grown after the best and discarded.

Issue 64: every fit grows ``n_tolerant_layers`` layers after its best one and throws them away. Per dataset (the
real-data suite's tables, both tasks, on a seeded 80% of their rows; letter, satimage, adult and yeast on their
training rows) one fit of each cascade configuration (:data:`CASCADES`: today's defaults of both estimators), with
the seconds of every grown layer (``train_history_``), the layers kept, and the share of the fit spent on the
layers discarded; and the seconds before the first layer (validation, binning, the pair search) and after the last
(the predictor, calibration), the fit's seconds the layers do not account for.

Examples
--------
MDDF_DATA=/path/to/data MDDF_REALDATA=/path/to/realdata python -m benchmarks.waste --n-jobs 2
python -m benchmarks.waste --quick
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.data import frames
from benchmarks.harness import Dataset, Study, TrainTest, not_run
from benchmarks.pair_search_cost import PAPER, suite_table
from mddf.experiments.tables import markdown_table

#: name -> the cascade's parameters (its estimator by the dataset's task): the defaults.
CASCADES = {"default": {}}
QUICK_CASCADE = {"n_estimators": 4, "max_layers": 4}


def cascade(params):
    def build(ctx):
        from mddf import CascadeForestRegressor, MDDFClassifier

        cls = MDDFClassifier if ctx.task == "classification" else CascadeForestRegressor
        return cls(random_state=ctx.seed, n_jobs=ctx.n_jobs, **(QUICK_CASCADE if ctx.quick else {}), **params)

    return build


def datasets(options):
    from benchmarks import realdata

    try:
        tasks = {e["name"]: e["task"] for e in realdata.manifest()}
    except (realdata.RealDataError, OSError):
        tasks = {}
    return [Dataset(n, suite_table(n), task=task) for n, task in tasks.items()] + [frames(n) for n in PAPER]


def describe(model, ctx, record) -> dict:
    """The layers grown and kept, each grown layer's seconds, and the seconds outside the layers."""
    layers = [float(h["fit_seconds"]) for h in model.train_history_]
    kept = int(model.n_layers_)
    return {
        "layers_grown": len(layers),
        "layers_kept": kept,
        "layer_seconds": layers,
        "discarded_s": sum(layers[kept:]),
        "outside_layers_s": max(0.0, record["fit_s"] - sum(layers)),
    }


def table(results) -> str:
    """Per dataset: layers grown and kept, the fit's seconds, the share discarded and the share outside the layers."""
    rows, shares = [], []
    for r in results.records:
        share = r["discarded_s"] / r["fit_s"] if r["fit_s"] > 0 else 0.0
        shares.append(share)
        rows.append(
            [
                r["dataset"],
                r["method"],
                f"{r['layers_grown']}",
                f"{r['layers_kept']}",
                f"{r['fit_s']:.1f}",
                f"{r['discarded_s']:.1f}",
                f"{share:.0%}",
                f"{r['outside_layers_s'] / r['fit_s']:.0%}" if r["fit_s"] > 0 else "",
            ]
        )
    head = ["dataset", "cascade", "layers grown", "kept", "fit s", "discarded s", "discarded share", "outside layers"]
    summary = ""
    if shares:
        summary = (
            f"\nMedian share of a fit spent on discarded layers: {statistics.median(shares):.0%} "
            f"(from {min(shares):.0%} to {max(shares):.0%}, {len(shares)} fits).\n"
        )
    return "\n".join(markdown_table(head, rows)) + "\n" + summary + not_run(results)


STUDY = Study(
    "waste",
    __doc__,
    datasets=datasets,
    methods={name: cascade(params) for name, params in CASCADES.items()},
    protocol=TrainTest(seeds=(0,)),
    quick={"datasets": ("satimage",)},
    describe=describe,
    table=table,
    report="waste",
    limit_threads=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
