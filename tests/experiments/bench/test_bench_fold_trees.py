"""bench_fold_trees: the share of a fit with every tree predicts as a fit that keeps only the share."""

import numpy as np
from sklearn.datasets import make_classification

from mddf import MDDFClassifier
from mddf.experiments.bench import fold_trees


def test_the_share_of_an_all_trees_fit_predicts_as_a_share_fit():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)
    common = dict(n_estimators=7, n_folds=3, max_layers=2, random_state=0)
    every = MDDFClassifier(fold_trees="all", **common).fit(X, y)
    share = MDDFClassifier(fold_trees="share", **common).fit(X, y)
    assert np.array_equal(fold_trees.share_predict_proba(every, X), share.predict_proba(X))
    assert np.array_equal(
        every.predict_proba(X), MDDFClassifier(**{**common, "fold_trees": "all"}).fit(X, y).predict_proba(X)
    )


def test_the_summary_says_whether_the_share_keeps_the_accuracy():
    records = [
        {
            "dataset": "d",
            "seed": s,
            "layers": 2,
            "all_accuracy": a,
            "share_accuracy": b,
            "all_seconds": 2.0,
            "share_seconds": 1.0,
        }
        for s, (a, b) in enumerate([(0.90, 0.90), (0.92, 0.91), (0.94, 0.93)])
    ]
    (row,) = fold_trees.summary(records)
    assert row["all"] == 92.0 and row["keeps_accuracy"] is True  # 91.33 >= 92 - 1.155
    assert row["predict_ratio"] == 0.5 and "| d | 3 |" in fold_trees.markdown([row])
