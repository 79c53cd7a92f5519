"""The rule of the ahead study run again (issue 90) on the grown suite, with the repaired members and a CatBoost member.

The rule, the stages and their bounds are those of :mod:`benchmarks.ahead` (docs/benchmarks/ahead.md, "The rule"),
written for this run on docs/benchmarks/ahead-grown.md before it ran. What differs: the suite is ``"grown"``, the 51
tables of the three real-data suites (33 classification, 18 regression); today's defaults are those of 2026-11-29
(:data:`TODAY`: the classifier ``mdDF``, the regressor ``CascadeForest`` as the first run's rule made it), pinned; the
designs (:data:`DESIGNS`) are the repaired LightGBM member, CatBoost in every layer and in the first layer only, and
the designs of the first run that the issue names again (weighted members, later-layer trees, ``fold_trees="share"``,
cross-fitted target statistics) and layers kept only beyond their noise (``min_gain_se=2``); the screen fits the
designs beside today's defaults only (the peers are fitted in the full run). A design's parameters are a dict, or a
function of today's (a member added or replaced), so that designs that change the members combine.

Records carry each grown layer's members' own out-of-fold scores (``member_scores``), and the reports say, per table
where a design loses beyond its bound, the first layer's member scores beside today's default's.

Examples
--------
python -m benchmarks.ahead_grown --n-jobs 2                      # the screen (results/ahead_grown-screen)
python -m benchmarks.ahead_grown --report-only                   # its buyers, savers, combinations and candidates
python -m benchmarks.ahead_grown --stage full --n-jobs 2 --learners mdDF,CascadeForest,<candidates>,HGB-es,...
MDDF_DATA=/path/to/data python -m benchmarks.ahead_grown --check paper --learners mdDF,<candidate> --n-jobs 2
MDDF_DATA=/path/to/data python -m benchmarks.ahead_grown --against-rf --learners mdDF,<candidate>,RF-400
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks import price
from benchmarks.ahead import Rule

SUITE = "grown"
#: Today's defaults (2026-11-29, after the first run's rule), written out: the reference of every ratio.
TODAY = {
    "classification": {
        "forest_types": (*price.FORESTS, "gbdt"),
        "calibration": "temperature",
        "class_vectors": "kfold",
        "fold_trees": "all",
        "n_estimators": 100,
        "probe_trees": None,
        "later_layer_trees": None,
        "final_mixture": "cascade",
        "member_weights": "equal",
        "target_statistics": None,
        "min_gain_se": 0.0,
        "first_layer_members": (),
    },
    "regression": {
        "forest_types": (*price.FORESTS, "lgbm_es"),
        "pair_features": "all_operations",
        "probe_trees": 0.25,
        "fold_trees": "all",
        "n_estimators": 100,
        "later_layer_trees": 0.5,
        "final_mixture": "auto",
        "member_weights": "equal",
        "target_statistics": None,
        "min_gain_se": 0.0,
        "first_layer_members": (),
    },
}


def lgbm_for_gbdt(params: dict) -> dict:
    """The repaired LightGBM member stopped early in the place of XGBoost's."""
    return {"forest_types": tuple("lgbm_es" if kind == "gbdt" else kind for kind in params["forest_types"])}


def catboost_in_every_layer(params: dict) -> dict:
    """CatBoost stopped early beside the layer's members, in every layer."""
    return {"forest_types": (*params["forest_types"], "catboost_es")}


CATBOOST_FIRST = {"first_layer_members": ("catboost_es",)}
STOP = {"min_gain_se": 2.0}
TARGET_STATISTICS = {"ts": {"target_statistics": "columns"}, "tsp": {"target_statistics": "pairs"}}
#: task -> design -> its parameters on top of today's default (the page's table of designs).
DESIGNS = {
    "classification": {
        "lgbm": lgbm_for_gbdt,
        "catboost": catboost_in_every_layer,
        "catboost1": CATBOOST_FIRST,
        "weighted": {"member_weights": "loss"},
        "later": {"later_layer_trees": 0.5},
        "share": {"fold_trees": "share"},
        **TARGET_STATISTICS,
        "stop": STOP,
    },
    "regression": {
        "catboost": catboost_in_every_layer,
        "catboost1": CATBOOST_FIRST,
        **TARGET_STATISTICS,
        "stop": STOP,
    },
}
#: The issue's targets of letter's price: fit and prediction at most these times a 400-tree random forest's.
LETTER_PRICE = {"letter": (8, 5)}

RULE = Rule("ahead_grown", __doc__, SUITE, TODAY, DESIGNS, screen_peers=(), letter_price=LETTER_PRICE)


def main(argv=None) -> int:
    return RULE.main(argv)


if __name__ == "__main__":
    sys.exit(main())
