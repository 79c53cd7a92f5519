"""Every fold model's trees against a share of them for new rows: ``scripts/bench_fold_trees.py``.

One :class:`mddf.MDDFClassifier` fit per (dataset, seed) with ``fold_trees="all"``; its test rows are
then predicted twice by the same fitted layers: with every tree of the k fold models (``"all"``,
Algorithm 1's mean of the k fold models) and with the first trees of each fold model that
``fold_trees="share"`` keeps (:func:`share_predict_proba`, which gives what a fit with
``fold_trees="share"`` predicts, as the tests check: the layers are the same, only the trees kept
for new rows differ). Test accuracy and prediction seconds of both, per seed; a summary table with
the mean and standard error over the seeds of each, the paired difference, and whether the share
keeps the accuracy of every tree within one standard error of the latter's mean.

With ``--cv-folds k`` the test rows are not read: each (dataset, seed) is a stratified k-fold CV of the
training rows (shuffled with the seed), one fit per fold, both ways scored on its held-out fold, and
the record holds the mean over the folds: the comparison on which a default is chosen.

A dataset without a standard test split is split once, stratified, ``train_share=0.7``
(:func:`~mddf.experiments.bench.loading.train_test_arrays`). Results go to ``<out>/results.jsonl``
(one record per dataset and seed, appended as it finishes; a rerun skips the finished ones) and
``<out>/fold_trees.md``.
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

DATASETS = ("yeast", "satimage", "letter", "adult")


@contextmanager
def _share_of_each_fold_model(model):
    """Within the block, the binned forests of ``model`` predict with the trees ``fold_trees="share"`` keeps."""
    from mddf.forests import BinnedForest, fold_share

    kept = {}
    for block in model.layers_:
        for models in block.models_:
            for fold, forest in enumerate(models):
                if len(models) > 1:
                    kept[id(forest)] = fold_share(forest.n_trees, block.n_folds, fold)
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


def _fit_and_score(X, y, X_held, y_held, seed, n_jobs, params):
    """Fit on ``X, y`` with every tree, score ``X_held`` both ways: ``(layers, {name: (accuracy, seconds)})``."""
    from mddf import MDDFClassifier

    model = MDDFClassifier(**{**params, "fold_trees": "all", "random_state": seed, "n_jobs": n_jobs}).fit(X, y)
    scores = {}
    for name, predict in (("all", model.predict_proba), ("share", lambda X: share_predict_proba(model, X))):
        start = time.perf_counter()
        proba = predict(X_held)
        seconds = time.perf_counter() - start
        scores[name] = (float(np.mean(model.classes_[proba.argmax(axis=1)] == y_held)), seconds)
    return model.n_layers_, scores


def run(dataset, seed, n_jobs, params, data_home=None, cv_folds=None):
    """Fit and score both ways; the record of one (dataset, seed).

    Without ``cv_folds``, one fit on the training rows scored on the test rows. With it, a stratified
    ``cv_folds``-fold CV of the training rows alone (shuffled with ``random_state=seed``; the test rows
    are not read): one fit per fold, the accuracies the mean over the folds, the seconds their sum and
    ``layers`` the layers kept per fold.
    """
    from sklearn.model_selection import StratifiedKFold

    from mddf.experiments.bench.loading import train_test_arrays

    X, y, X_test, y_test = train_test_arrays(dataset, data_home=data_home, train_share=0.7)
    record = {"dataset": dataset, "seed": seed, "params": params}
    if cv_folds is None:
        layers, scores = _fit_and_score(X, y, X_test, y_test, seed, n_jobs, params)
        record["layers"] = layers
        for name, (accuracy, seconds) in scores.items():
            record[f"{name}_accuracy"], record[f"{name}_seconds"] = accuracy, seconds
        return record
    folds = StratifiedKFold(n_splits=cv_folds, shuffle=True, random_state=seed).split(X, y)
    results = [_fit_and_score(X[a], y[a], X[b], y[b], seed, n_jobs, params) for a, b in folds]
    record["cv_folds"] = cv_folds
    record["layers"] = "/".join(str(layers) for layers, _ in results)
    for name in ("all", "share"):
        record[f"{name}_accuracy"] = float(np.mean([scores[name][0] for _, scores in results]))
        record[f"{name}_seconds"] = float(np.sum([scores[name][1] for _, scores in results]))
    return record


def summary(records):
    """Per dataset: the mean ± standard error of each reading, the paired difference, the verdict."""
    from mddf.experiments.tables import standard_error

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
    from mddf.experiments.tables import markdown_table, plus_minus

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


def main(argv=None):
    """Command line of ``scripts/bench_fold_trees.py``; returns the exit status."""
    from mddf.experiments.provenance import provenance, record_stamp, script_path, with_markdown_header
    from mddf.experiments.store import ResultStore

    parser = argparse.ArgumentParser(prog="bench_fold_trees.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated seeds (default: %(default)s)")
    parser.add_argument("--params", default="{}", help="JSON parameters of MDDFClassifier")
    parser.add_argument("--n-jobs", type=int, default=2, help="threads of each fit (default: 2)")
    parser.add_argument(
        "--cv-folds",
        type=int,
        default=None,
        help="score by a stratified CV of this many folds on the training rows alone instead of on the test rows",
    )
    parser.add_argument("--data-home", default=None, help="folder of the dataset files (default: $MDDF_DATA)")
    parser.add_argument("--out", default="results/fold_trees", help="output folder (default: %(default)s)")
    args = parser.parse_args(argv)
    params = json.loads(args.params)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")

    def same_run(r):
        return r.get("params") == params and r.get("cv_folds") == args.cv_folds

    done = {(r["dataset"], r["seed"]) for r in store.records() if same_run(r)}
    for dataset in args.datasets.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            if (dataset, seed) in done:
                continue
            record = run(dataset, seed, args.n_jobs, params, args.data_home, args.cv_folds)
            store.append({**record, **record_stamp()})
            print(
                f"{dataset} seed {seed}: all {record['all_accuracy']:.4f}, share {record['share_accuracy']:.4f}",
                flush=True,
            )
    records = [r for r in store.records() if same_run(r)]
    (out / "fold_trees.md").write_text(
        with_markdown_header(
            markdown(summary(records), args.cv_folds), provenance(script_path("bench_fold_trees.py"), argv)
        )
    )
    return 0
