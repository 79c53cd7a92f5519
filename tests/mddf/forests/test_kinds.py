"""The forest-kind table that both blocks and the reference estimators read."""

import pytest
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from mddf.forests import FOREST_KINDS, forest_kind
from mddf.trees import BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD


def test_each_kind_is_defined_once():
    rf, crf, et = (forest_kind(name) for name in FOREST_KINDS)
    assert (rf.bootstrap, crf.bootstrap, et.bootstrap) == (True, False, False)
    assert (rf.split_rule, crf.split_rule, et.split_rule) == (BEST, COMPLETELY_RANDOM, RANDOM_THRESHOLD)
    assert (rf.exact_tree, crf.exact_tree, et.exact_tree) == (
        DecisionTreeClassifier,
        ExtraTreeClassifier,
        ExtraTreeClassifier,
    )
    assert [kind.n_candidates("sqrt", 16) for kind in (rf, crf, et)] == [4, 1, 4]
    assert [kind.n_candidates(0.5, 16) for kind in (rf, crf, et)] == [8, 1, 8]


def test_make_gives_the_equivalent_scikit_learn_forests():
    rf, crf, et = (forest_kind(name) for name in FOREST_KINDS)
    assert type(rf.make("classification", 3, 5, "sqrt", 0)) is RandomForestClassifier
    assert type(rf.make("regression", 3, 5, 1.0, 0)) is RandomForestRegressor
    assert crf.make("classification", 3, 5, "sqrt", 0).get_params()["max_features"] == 1
    assert type(crf.make("regression", 3, 5, 1.0, 0)) is ExtraTreesRegressor
    forest = et.make("classification", 3, 5, "sqrt", 0)
    assert type(forest) is ExtraTreesClassifier and forest.get_params()["n_jobs"] == 1
    with pytest.raises(ValueError, match="unknown forest type 'gbdt'"):
        forest_kind("gbdt")
