"""Beyond the paper: mdDF with other block members and a predictor against strong tabular learners.

Datasets: adult, letter, satimage, yeast and a stratified subset of Fashion-MNIST's training split (``--fmnist-rows``,
drawn once with ``random_state=0``; tested on the full test split); a dataset without a test split is split 70/30,
stratified. Methods: the paper's mdDF; mdDF with extremely-randomised forests, XGBoost members or a predictor on top;
XGBoost and LightGBM at their defaults (LightGBM optional: ``pip install lightgbm``), ExtraTrees and random forests
of 400 trees (the method registry's), and scikit-learn's HistGradientBoosting. Categorical columns are given to
every method as their ordinal codes. Fits run in this process, seeds interleaved; a fit the estimator refuses (a
``ValueError``) is recorded, left blank and listed under the table.

``<out>/table.md``: mean ± std test accuracy over the seeds, each method's mean rank over the datasets (1 is best),
the median fit and predict seconds.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.extensions --seeds 0,1,2 --n-jobs 2
python -m benchmarks.extensions --quick
"""

import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.data import registry, split
from benchmarks.harness import Study, TrainTest


def mddf(**params):
    def build(ctx):
        from mddf import MDDFClassifier

        size = {"n_estimators": 4, "max_layers": 2} if ctx.quick else {}
        return MDDFClassifier(random_state=ctx.seed, n_jobs=ctx.n_jobs, **size, **params)

    return build


def trees(name):
    def build(ctx):
        return registry(name, n_trees=20 if ctx.quick else 400)(ctx)

    return build


def mddf_five_folds_extra_trees(ctx):
    # Five folds: each fold model sees 4/5 of the rows (3 folds: 2/3), so the class vectors the next layers and
    # the predictor learn from are closer to those of a model fitted on every row. On top: the ExtraTrees400
    # reference learner (the cascade reseeds its random_state from its own).
    return mddf(n_folds=5, predictor=trees("ExtraTrees")(ctx))(ctx)


def xgboost(ctx):
    from xgboost import XGBClassifier

    return XGBClassifier(n_jobs=ctx.n_jobs, random_state=ctx.seed, **({"n_estimators": 20} if ctx.quick else {}))


def hist_gradient_boosting(ctx):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(random_state=ctx.seed, **({"max_iter": 20} if ctx.quick else {}))


METHODS = {
    "mdDF": mddf(),
    "mdDF-ET": mddf(forest_types=("rf", "rf", "et", "et")),
    "mdDF-ET+xgboost": mddf(forest_types=("rf", "rf", "et", "et"), predictor="xgboost"),
    "mdDF-gbdt": mddf(forest_types=("rf", "et", "crf", "gbdt")),
    "mdDF+forest": mddf(predictor="forest"),
    "mdDF-5fold+ET": mddf_five_folds_extra_trees,
    "XGBoost": xgboost,
    "LightGBM": registry("LightGBM"),
    "ExtraTrees400": trees("ExtraTrees"),
    "RF400": trees("RF"),
    "HistGradientBoosting": hist_gradient_boosting,
}


def datasets(options):
    fmnist = split("fashion-mnist", train_rows=options.fmnist_rows)
    return [split(d) for d in ("adult", "letter", "satimage", "yeast", "iris", "wine")] + [fmnist]


STUDY = Study(
    "extensions",
    __doc__,
    datasets=datasets,
    methods=METHODS,
    protocol=TrainTest(seeds=(0, 1, 2)),
    metrics=("accuracy",),
    default_datasets=["adult", "letter", "satimage", "yeast", "fashion-mnist"],
    quick={"datasets": ["iris", "wine"], "seeds": (0,)},
    optional={"LightGBM": "lightgbm"},
    options=lambda parser: parser.add_argument(
        "--fmnist-rows", type=int, default=15_000, help="stratified Fashion-MNIST training rows (default: 15000)"
    ),
    settings=lambda options: {"fmnist_rows": options.fmnist_rows},
    describe=lambda model, ctx, record: {"n_layers": int(model.n_layers_)} if hasattr(model, "n_layers_") else {},
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
