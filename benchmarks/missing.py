"""Missing values: mdDF with native NaN against imputation + mdDF, RF400, HistGradientBoosting and LightGBM.

Cases (datasets): letter and satimage complete and with 10% and 30% of the values removed completely at random
(``letter-mcar10``, ...; training and test rows alike, the mask seeded by the seed), adult complete (its
``'?'`` a category) and with its own missing values as NaN (``adult-nan``). Methods: mdDF on the data as it is
(NaN routed by its trees), median imputation then mdDF, and the method registry's RF (400 trees), HGB and
LightGBM (optional: ``pip install lightgbm``). Every fit runs in a fresh process, seeds interleaved.

``<out>/table.md``: test accuracy (%), mean ± std over the seeds; mdDF's median fit seconds and their ratio to the
complete data's, in all and per grown layer (missing values change how many layers grow), and per grown layer
against imputation + mdDF on the same data (the cost of routing NaN).

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.missing --seeds 0,1,2
python -m benchmarks.missing --quick
"""

import statistics
import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks.data import registry, train_test_arrays
from benchmarks.harness import Data, Dataset, Study, TrainTest, mean_std, summary
from mddf.experiments.protocols import mask_completely_at_random
from mddf.experiments.tables import markdown_table


def case(dataset: str, fraction: float = 0.0, own: bool = False) -> Dataset:
    """``dataset`` complete, with ``fraction`` of its values removed at random, or with its own NaN (adult)."""
    name = f"{dataset}-mcar{round(100 * fraction)}" if fraction else f"{dataset}-nan" if own else dataset

    def load(ctx):
        options = {"missing": "nan" if own else "category"} if dataset == "adult" else {}
        X, y, X_test, y_test = train_test_arrays(dataset, **options)
        if fraction:
            X = mask_completely_at_random(X, fraction, random_state=ctx.seed)
            X_test = mask_completely_at_random(X_test, fraction, random_state=ctx.seed + 10_000)
        return Data(X, y, X_test, y_test)

    missing = "mcar" if fraction else "own" if own else "complete"
    return Dataset(
        name, load, seeded=bool(fraction), fields={"source": dataset, "missing": missing, "fraction": fraction}
    )


CASES = [case(d) for d in ("letter", "satimage", "adult")]
CASES += [case(d, f) for d in ("letter", "satimage") for f in (0.1, 0.3)] + [case("adult", own=True)]


def mddf_imputed(ctx):
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    return make_pipeline(SimpleImputer(strategy="median"), registry("mdDF")(ctx))


METHODS = {
    "mdDF": registry("mdDF"),
    "SimpleImputer+mdDF": mddf_imputed,
    "RF400": registry("RF", n_trees=400),
    "HistGradientBoosting": registry("HGB"),
    "LightGBM": registry("LightGBM"),
}


def describe(model, ctx, record):
    cascade = model[-1] if hasattr(model, "steps") else model
    out = {"missing_share_train": float(np.isnan(ctx.rows[0]).mean())}
    if hasattr(cascade, "n_layers_"):
        grown = len(cascade.train_history_)
        out.update(layers=int(cascade.n_layers_), grown=grown, fit_s_per_layer=record["fit_s"] / grown)
    return out


def table(results) -> str:
    """Accuracy per case and method; mdDF's fit seconds against the complete data's and imputation's."""
    accuracy = summary(results, "accuracy")

    def median(case, method, key):
        values = [r[key] for r in results.of(case, method) if key in r]
        return statistics.median(values) if values else None

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else ""

    rows = []
    for name in results.datasets:
        complete = next(r for r in results.records if r["dataset"] == name)["source"] if results.of(name) else name
        fit, per_layer = median(name, "mdDF", "fit_s"), median(name, "mdDF", "fit_s_per_layer")
        imputed = median(name, "SimpleImputer+mdDF", "fit_s_per_layer")
        rows.append(
            [name, *(mean_std(accuracy.get((name, m), []), scale=100) for m in results.methods)]
            + [f"{fit:.1f}" if fit else "", ratio(fit, median(complete, "mdDF", "fit_s"))]
            + ["/".join(str(r["grown"]) for r in results.of(name, "mdDF") if "grown" in r)]
            + [ratio(per_layer, median(complete, "mdDF", "fit_s_per_layer"))]
            + [f"{median(name, 'SimpleImputer+mdDF', 'fit_s'):.1f}" if imputed else "", ratio(per_layer, imputed)]
        )
    head = ["case", *results.methods, "mdDF fit s", "x complete", "layers grown", "s/layer x complete"]
    head += ["imputed fit s", "s/layer x imputed"]
    seeds = ",".join(map(str, sorted({r["seed"] for r in results.records})))
    return (
        f"Test accuracy (%), mean ± std over seeds {seeds}; fit seconds: medians.\n\n"
        + "\n".join(markdown_table(head, rows))
        + "\n"
    )


STUDY = Study(
    "missing",
    __doc__,
    datasets=[*CASES, case("iris"), case("iris", 0.2)],
    methods=METHODS,
    protocol=TrainTest(seeds=(0, 1, 2)),
    metrics=("accuracy",),
    default_datasets=[c.name for c in CASES],
    quick={"datasets": ["iris", "iris-mcar20"], "seeds": (0,)},
    optional={"LightGBM": "lightgbm"},
    applies=lambda method, dataset, options: method != "SimpleImputer+mdDF" or "-" in dataset,
    describe=describe,
    table=table,
    fresh_process=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
