"""Issue 90's run of the rule: the designs are today's defaults of 2026-11-29 plus their changes (member changes
combining), the screen fits the designs beside today's defaults only, and the reports say which member loses where a
design loses (docs/benchmarks/ahead-grown.md, "The rule")."""

import numpy as np
import pytest

from benchmarks import ahead, ahead_grown, realdata_suite

RULE = ahead_grown.RULE


def test_member_designs_combine_and_the_others_are_parameters_on_todays_defaults():
    assert RULE.parameters("mdDF")["forest_types"] == ("rf", "rf", "crf", "crf", "gbdt")
    assert RULE.parameters("mdDF-lgbm")["forest_types"] == ("rf", "rf", "crf", "crf", "lgbm_es")
    both = RULE.parameters("mdDF-lgbm+catboost")
    assert both["forest_types"] == ("rf", "rf", "crf", "crf", "lgbm_es", "catboost_es")
    assert RULE.parameters("mdDF-catboost1+ts") == {
        **ahead_grown.TODAY["classification"],
        "first_layer_members": ("catboost_es",),
        "target_statistics": "columns",
    }
    regression = RULE.parameters("CascadeForest-catboost+stop")
    assert regression["forest_types"] == ("rf", "rf", "crf", "crf", "lgbm_es", "catboost_es")
    assert regression["min_gain_se"] == 2.0 and regression["final_mixture"] == "auto"
    assert RULE.split_name("CascadeForest-lgbm") is None  # not a design of the regressor's run
    assert len({RULE.learner_settings(n) for n in ("mdDF", "mdDF-lgbm", "mdDF-catboost")}) == 3


def test_the_screen_fits_the_designs_beside_todays_defaults_and_the_full_run_the_five_peers():
    assert set(RULE.study("screen").default_methods) == set(RULE.singles())
    assert RULE.study("full").default_methods == ("mdDF", "CascadeForest", *ahead.PEERS, *ahead.README_PEERS)
    assert RULE.suite == "grown" and ahead_grown.LETTER_PRICE == {"letter": (8, 5)}


def _records(learner, scores, members, tables=("t1",)):
    return [
        {"dataset": t, "method": learner, "repeat": 0, "fold": f, "accuracy": a, "task": "classification"}
        | {"fit_s": 1.0, "predict_s": 1.0, "log_loss": 0.3, "member_scores": [members, members]}
        for t in tables
        for f, a in enumerate(scores)
    ]


def test_a_design_that_loses_a_table_is_reported_with_its_first_layers_members_beside_todays():
    members = [0.9, 0.9, 0.85, 0.85, 0.93]
    records = _records("mdDF", [0.93, 0.94, 0.95, 0.94, 0.93], members)
    records += _records("mdDF-lgbm", [0.90, 0.91, 0.92, 0.91, 0.90], [0.9, 0.9, 0.85, 0.85, 0.80])
    found = RULE.screen(records, "classification")
    assert "t1" in found["measures"]["mdDF-lgbm"]["worse"]
    lines = RULE.member_lines(records, "classification", found["measures"])
    assert lines == [
        "- `mdDF-lgbm` on t1: first layer's members rf 0.9, rf 0.9, crf 0.85, crf 0.85, lgbm_es 0.8; "
        "today's rf 0.9, rf 0.9, crf 0.85, crf 0.85, gbdt 0.93."
    ]


def test_the_suites_records_hold_each_layers_members_own_scores():
    from mddf import MDDFClassifier

    rng = np.random.RandomState(0)
    X = rng.rand(120, 3)
    y = (X[:, 0] > 0.5).astype(int)
    model = MDDFClassifier(n_estimators=4, max_layers=2, forest_types=("rf", "crf"), random_state=0).fit(X, y)
    out = realdata_suite.describe(model, None, {})
    assert len(out["member_scores"]) == len(model.train_history_) and len(out["member_scores"][0]) == 2
    assert out["member_scores"][0] == pytest.approx(model.train_history_[0]["forest_oof_accuracy"])
