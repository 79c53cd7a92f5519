"""mdDF against a 400-tree random forest on the papers' datasets: accuracy, layers, fit and predict time, memory.

Every fit runs in a fresh process, so the peak memory reported (``ru_maxrss``) is that fit's alone. The random
forest reference (the method registry's RF, 400 trees) is fitted on the same data, in the same run, with the same
``--n-jobs`` and seeds; ``--rounds`` repeats every fit, interleaved, and the times are medians over them. The
accuracy is the mean over seeds (a small test set such as yeast's, 446 rows, moves by a row's 0.22 points from
seed to seed), next to the mdDF paper's Table 2.

Examples
--------
python -m benchmarks.mddf_fit --datasets letter,adult
python -m benchmarks.mddf_fit --datasets satimage --params '{"max_depth_factor": 8}'
python -m benchmarks.mddf_fit --datasets yeast --seeds 0,1,2,3,4
python -m benchmarks.mddf_fit --quick
"""

import json
import resource
import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks.data import registry, split
from benchmarks.harness import Study, TrainTest, fit_and_score, not_run
from mddf.datasets.published import MDDF_TABLE2
from mddf.experiments.tables import markdown_table


def mddf(ctx):
    from mddf import MDDFClassifier

    params = {**({"n_estimators": 5, "max_layers": 2} if ctx.quick else {}), **ctx.options.mddf}
    return MDDFClassifier(n_jobs=ctx.n_jobs, random_state=ctx.seed, **params)


def fit(ctx, X, y, X_test, y_test):
    record = fit_and_score(ctx, X, y, X_test, y_test)
    return {**record, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def describe(model, ctx, record):
    if not hasattr(model, "n_layers_"):
        return {}
    _, _, X_test, y_test = ctx.rows
    return {
        "layers": int(model.n_layers_),
        "grown": len(model.train_history_),
        "alphas": [round(float(a), 4) for a in model.alphas_],
        "model_mb": sum(b.nbytes for b in model.layers_) / 1e6,
        "stop": model.stop_reason_,
        "staged": [
            round(float(np.mean(model.classes_[p.argmax(1)] == y_test)), 4) for p in model.staged_predict_proba(X_test)
        ],
        "oof": [round(h["oof_accuracy"], 4) for h in model.train_history_],
    }


def table(results) -> str:
    """Per dataset: the paper's mdDF, ours and RF400's accuracy (means over seeds), layers, times and memory."""
    rows = []
    for d in results.datasets:
        md, rf = results.of(d, "mdDF"), results.of(d, "RF400")
        if not md:
            continue

        def median(runs, key):
            return statistics.median(r[key] for r in runs)

        def accuracy(runs):
            return 100 * statistics.fmean(
                statistics.fmean(r["accuracy"] for r in runs if r["seed"] == s) for s in {r["seed"] for r in runs}
            )

        paper = MDDF_TABLE2.get(d, {}).get("mdDF")
        rows.append(
            [d, f"{paper:.2f}" if paper else "", f"{accuracy(md):.2f}", f"{accuracy(rf):.2f}" if rf else ""]
            + ["/".join(str(r["layers"]) for r in md if r["round"] == 0), f"{median(md, 'fit_s'):.1f}"]
            + [f"{median(md, 'fit_s') / median(rf, 'fit_s'):.1f}" if rf else "", f"{median(md, 'predict_s'):.2f}"]
            + [f"{median(md, 'peak_rss_mb'):.0f}"]
        )
    seeds = ",".join(map(str, sorted({r["seed"] for r in results.records})))
    head = ["dataset", "paper", "mdDF", "RF400", "layers per seed", "fit s", "x RF", "predict s", "peak MB"]
    return (
        f"Test accuracy (%), means over seeds {seeds}; seconds and peak memory: medians over seeds and rounds.\n\n"
        + "\n".join(markdown_table(head, rows))
        + not_run(results)
        + "\n"
    )


def options(parser):
    parser.add_argument("--params", default="{}", help="JSON dict of MDDFClassifier parameters")


def check(options, parser):
    options.mddf = json.loads(options.params)


STUDY = Study(
    "mddf_fit",
    __doc__,
    datasets=[split(d) for d in ("letter", "satimage", "yeast", "adult", "har", "protein", "sensit", "mnist", "iris")],
    methods={"RF400": lambda ctx: registry("RF", n_trees=400)(ctx), "mdDF": mddf},
    protocol=TrainTest(seeds=(0,)),
    metrics=("accuracy",),
    default_datasets=["letter", "satimage", "yeast", "adult"],
    quick={"datasets": ["iris"]},
    options=options,
    check=check,
    settings=lambda options: {"params": options.mddf, "n_jobs": options.n_jobs},
    fit=fit,
    describe=describe,
    table=table,
    fresh_process=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
