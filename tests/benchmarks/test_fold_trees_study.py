"""The fold-trees study: the share of a fit with every tree predicts as a fit that keeps only the share."""

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold
from study_helpers import read_records

from benchmarks import fold_trees
from benchmarks.harness import Data, Dataset
from mddf import PAPER_CONFIG, MDDFClassifier


def test_the_share_of_an_all_trees_fit_predicts_as_a_share_fit():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)
    common = dict(n_estimators=7, n_folds=3, max_layers=2, forest_types=PAPER_CONFIG["forest_types"], random_state=0)
    every = MDDFClassifier(fold_trees="all", **common).fit(X, y)
    share = MDDFClassifier(fold_trees="share", **common).fit(X, y)
    assert np.array_equal(fold_trees.share_predict_proba(every, X), share.predict_proba(X))
    assert np.array_equal(every.predict_proba(X), MDDFClassifier(fold_trees="all", **common).fit(X, y).predict_proba(X))


def test_the_summary_says_whether_the_share_keeps_the_accuracy():
    records = [
        {"dataset": "d", "seed": s, "layers": 2, "all_accuracy": a, "share_accuracy": b}
        | {"all_seconds": 2.0, "share_seconds": 1.0}
        for s, (a, b) in enumerate([(0.90, 0.90), (0.92, 0.91), (0.94, 0.93)])
    ]
    (row,) = fold_trees.summary(fold_trees.per_seed(records))
    assert row["all"] == 92.0 and row["keeps_accuracy"] is True  # 91.33 >= 92 - 1.155
    assert row["predict_ratio"] == 0.5 and "| d | 3 |" in fold_trees.markdown([row])


def test_the_cv_mode_scores_both_ways_on_the_training_rows_alone(tmp_path, monkeypatch):
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)
    X_test = np.full((50, 6), np.nan)  # the CV must never read the test rows
    toy = Dataset("toy", lambda ctx: Data(X, y, X_test, np.zeros(50)))
    monkeypatch.setattr(fold_trees.CV, "datasets", [toy])
    params = '{"n_estimators": 6, "max_layers": 2}'
    argv = ["--cv", "--datasets", "toy", "--repeats", "1", "--folds", "2", "--params", params, "--out", str(tmp_path)]
    assert fold_trees.main(argv) == 0
    records = read_records(tmp_path)
    assert [(r["repeat"], r["fold"]) for r in records] == [(0, 0), (0, 1)]
    assert all(0.5 < r["all_accuracy"] <= 1.0 and 0.5 < r["share_accuracy"] <= 1.0 for r in records)
    assert "CV accuracy on the training rows (2 folds" in (tmp_path / "fold_trees.md").read_text()
    # the same fits as the study makes one fold at a time: each fold's model predicts its held-out rows so
    common = dict(n_estimators=6, max_layers=2, forest_types=PAPER_CONFIG["forest_types"], random_state=0)
    folds = StratifiedKFold(2, shuffle=True, random_state=0).split(X, y)
    accuracies = [MDDFClassifier(**common).fit(X[a], y[a]).score(X[b], y[b]) for a, b in folds]
    assert [r["all_accuracy"] for r in records] == accuracies
    assert fold_trees.main(argv) == 0  # a rerun finds the folds done
    assert len(read_records(tmp_path)) == 2
