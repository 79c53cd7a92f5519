"""mddf.PAPER_CONFIG: the paper's mdDF by name, every parameter that shapes it written out, usable wherever a set of
parameters is (clone, get_params, grid search) and what the paper's protocol builds."""

import types

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import mddf
from mddf import PAPER_CONFIG, MDDFClassifier

LEFT_TO_THE_CALLER = {"n_jobs", "random_state", "verbose", "model_dir", "categorical_features", "background_rows"}


def test_every_parameter_but_the_callers_is_written_out_and_the_mapping_is_read_only():
    assert set(MDDFClassifier().get_params()) - set(PAPER_CONFIG) == LEFT_TO_THE_CALLER
    assert set(PAPER_CONFIG) <= set(MDDFClassifier().get_params())
    assert isinstance(PAPER_CONFIG, types.MappingProxyType)
    with pytest.raises(TypeError):
        PAPER_CONFIG["min_error_reduction"] = 0.5
    paper = dict(PAPER_CONFIG)
    assert paper["min_error_reduction"] == 0.0 and paper["categorical_splits"] == "ordinal"
    assert paper["forest_types"] == ("rf", "rf", "crf", "crf") and paper["margin_mean"] == 0.8
    assert paper["pair_features"] is None and paper["calibration"] is None and paper["predictor"] is None


def test_the_paper_config_clones_and_searches_like_any_parameters():
    from sklearn.datasets import make_classification

    model = MDDFClassifier(**PAPER_CONFIG, random_state=0)
    assert clone(model).get_params() == model.get_params()
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    grid = {"margin_mean": [0.7, 0.9], "n_estimators": [5], "max_layers": [2]}
    search = GridSearchCV(MDDFClassifier(**{**PAPER_CONFIG, "n_estimators": 5}), grid, cv=2).fit(X, y)
    assert search.best_estimator_.min_error_reduction == 0.0


def test_the_papers_protocol_builds_the_paper_config_and_the_practitioners_the_defaults():
    from mddf.experiments.methods import BuildContext, build_mddf

    paper = BuildContext(0, 1, "paper", 4, 2, task="classification", protocol="paper")
    practitioner = BuildContext(0, 1, "paper", 4, 2, task="classification", protocol="practitioner")
    built = build_mddf(paper).get_params()
    assert all(built[k] == v for k, v in PAPER_CONFIG.items())
    assert build_mddf(practitioner).get_params() == MDDFClassifier(random_state=0, n_jobs=1).get_params()
    assert build_mddf(paper, forest_types=("rf",) * 4).forest_types == ("rf",) * 4  # Table 3's mdDF_SF


def test_the_name_is_exported():
    assert "PAPER_CONFIG" in mddf.__all__ and mddf.PAPER_CONFIG is PAPER_CONFIG
    assert np.isclose(PAPER_CONFIG["margin_tradeoff"], 0.05)
