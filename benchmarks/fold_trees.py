"""Every fold model's trees against a share of them for new rows.

One :class:`mddf.MDDFClassifier` fit per (dataset, seed) with ``fold_trees="all"``; its test rows are then
predicted twice by the same fitted layers: with every tree of the k fold models (``"all"``, Algorithm 1's mean of
the k fold models) and with the first trees of each fold model that ``fold_trees="share"`` keeps
(:func:`share_predict_proba`, which gives what a fit with ``fold_trees="share"`` predicts: the layers are the same,
only the trees kept for new rows differ). Test accuracy and prediction seconds of both, per seed; a summary with the
mean and standard error over the seeds of each, the paired difference, and whether the share keeps the accuracy of
every tree within one standard error of the latter's mean.

With ``--cv`` the test rows are not read: each (dataset, repeat) is a stratified ``--folds``-fold CV of the
training rows, one fit per fold, both ways scored on its held-out fold (the comparison on which a default is
chosen). A dataset without a standard test split is split once, stratified, 70/30. ``<out>/fold_trees.md``.

Examples
--------
MDDF_DATA=/path/to/data python -m benchmarks.fold_trees
MDDF_DATA=/path/to/data python -m benchmarks.fold_trees --cv --folds 3 --repeats 5
"""

import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks import _internals
from benchmarks.data import split
from benchmarks.harness import CrossValidation, Study, TrainTest, main_by_flag
from mddf.experiments.metrics import standard_error
from mddf.experiments.tables import markdown_table, plus_minus

DATASETS = ("yeast", "satimage", "letter", "adult")


@contextmanager
def _share_of_each_fold_model(model):
    """Within the block, the binned forests of ``model`` predict with the trees ``fold_trees="share"`` keeps."""
    from mddf.forests import BinnedForest

    kept = {}
    for block in model.layers_:
        for models in block.models_:
            for fold, forest in enumerate(models):
                if len(models) > 1:
                    kept[id(forest)] = _internals.fold_share(forest.n_trees, block.n_folds, fold)
    original = BinnedForest.predict_proba_binned

    def predict_proba_binned(self, codes, has_missing=True):
        stop = kept.get(id(self), self.n_trees)
        out = self.route(codes, has_missing=has_missing, stop=stop)
        out /= stop
        return out

    BinnedForest.predict_proba_binned = predict_proba_binned
    try:
        yield
    finally:
        BinnedForest.predict_proba_binned = original


def share_predict_proba(model, X):
    """``model.predict_proba(X)`` (a fit with ``fold_trees="all"``) as a fit with ``fold_trees="share"`` predicts."""
    with _share_of_each_fold_model(model):
        return model.predict_proba(X)


def fit(ctx, X, y, X_held, y_held) -> dict:
    """Fit on ``X, y`` with every tree, score ``X_held`` both ways: the accuracy and seconds of each, the layers."""
    from mddf import PAPER_CONFIG, MDDFClassifier

    # the paper's four forests a layer unless --params says otherwise: the study shares out forests' trees (a
    # boosted member has none)
    params = {
        "forest_types": PAPER_CONFIG["forest_types"],
        **ctx.options.mddf,
        "fold_trees": "all",
        "random_state": ctx.seed,
        "n_jobs": ctx.n_jobs,
    }
    model = MDDFClassifier(**params).fit(X, y)
    record = {"layers": int(model.n_layers_)}
    for name, predict in (("all", model.predict_proba), ("share", lambda X: share_predict_proba(model, X))):
        start = time.perf_counter()
        proba = predict(X_held)
        record[f"{name}_seconds"] = time.perf_counter() - start
        record[f"{name}_accuracy"] = float(np.mean(model.classes_[proba.argmax(axis=1)] == y_held))
    return record


def per_seed(records) -> list:
    """One record per (dataset, seed): a CV's folds averaged (accuracies) or summed (seconds), layers joined by /."""
    groups = {}
    for r in records:
        groups.setdefault((r["dataset"], r["seed"]), []).append(r)
    out = []
    for (dataset, seed), folds in groups.items():
        record = {"dataset": dataset, "seed": seed, "layers": "/".join(str(r["layers"]) for r in folds)}
        for name in ("all", "share"):
            record[f"{name}_accuracy"] = float(np.mean([r[f"{name}_accuracy"] for r in folds]))
            record[f"{name}_seconds"] = float(np.sum([r[f"{name}_seconds"] for r in folds]))
        out.append(record)
    return out


def summary(records):
    """Per dataset: the mean ± standard error of each reading over the seeds, the paired difference, the verdict."""
    rows = []
    for dataset in dict.fromkeys(r["dataset"] for r in records):
        mine = [r for r in records if r["dataset"] == dataset]
        every = 100 * np.array([r["all_accuracy"] for r in mine])
        share = 100 * np.array([r["share_accuracy"] for r in mine])
        n = len(mine)
        se = standard_error(every)
        diff = share - every
        diff_se = standard_error(diff)
        ratio = float(np.median([r["share_seconds"] / r["all_seconds"] for r in mine]))
        rows.append(
            {
                "dataset": dataset,
                "seeds": n,
                "all": float(every.mean()),
                "all_se": se,
                "share": float(share.mean()),
                "diff": float(diff.mean()),
                "diff_se": diff_se,
                "keeps_accuracy": bool(n > 1 and share.mean() >= every.mean() - se - 1e-9),
                "predict_ratio": ratio,
                "layers": " ".join(str(r["layers"]) for r in mine),
            }
        )
    return rows


def markdown(rows, cv_folds=None):
    body = [
        [
            r["dataset"],
            r["seeds"],
            plus_minus(r["all"], r["all_se"]),
            f"{r['share']:.2f}",
            plus_minus(r["diff"], r["diff_se"], signed=True),
            "yes" if r["keeps_accuracy"] else "no",
            f"{r['predict_ratio']:.2f}",
            r["layers"],
        ]
        for r in rows
    ]
    head = [
        "dataset",
        "seeds",
        "all (%)",
        "share (%)",
        "share − all (pp)",
        "keeps accuracy",
        "predict s, share / all",
        "layers",
    ]
    what = (
        "Test accuracy"
        if cv_folds is None
        else f"CV accuracy on the training rows ({cv_folds} folds, mean over the folds)"
    )
    return (
        "# Every fold model's trees against a share of them for new rows\n\n"
        + what
        + " of the same fits predicting with every tree of the k fold models (`all`) and with the trees "
        '`fold_trees="share"` keeps (`share`): mean ± standard error over the seeds, the paired difference, '
        "whether the share's mean is at least the other's minus one standard error, and the median ratio of "
        "their prediction seconds.\n\n" + "\n".join(markdown_table(head, body)) + "\n"
    )


def table(results) -> str:
    return markdown(summary(per_seed(results.records)), results.options.folds if results.options.cv else None)


def options(parser):
    parser.add_argument("--params", default="{}", help="JSON parameters of MDDFClassifier")
    parser.add_argument(
        "--cv", action="store_true", help="score by a stratified CV of the training rows, not on the test rows"
    )
    parser.add_argument("--data-home", default=None, help="folder of the dataset files (default: $MDDF_DATA)")


def check(options, parser):
    options.mddf = json.loads(options.params)
    options.folds = getattr(options, "folds", None)


COMMON = dict(
    datasets=[split(d) for d in (*DATASETS, "iris")],
    methods={"mdDF": None},
    default_datasets=DATASETS,
    quick={"datasets": ["iris"], "seeds": (0,), "repeats": 1, "folds": 2},
    options=options,
    check=check,
    settings=lambda o: {"params": o.mddf},
    fit=fit,
    table=table,
    report="fold_trees",
)
STUDY = Study("fold_trees", __doc__, protocol=TrainTest(seeds=(0, 1, 2, 3, 4)), **COMMON)
CV = Study("fold_trees", __doc__, protocol=CrossValidation(n_folds=3, repeats=5), **COMMON)


main = main_by_flag("--cv", CV, STUDY)


if __name__ == "__main__":
    sys.exit(main())
