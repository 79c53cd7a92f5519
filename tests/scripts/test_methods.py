"""The registry: lookup, selection, and the papers' search grids."""

import numpy as np
import pytest

from mddf.experiments.methods import (
    MLP_ARCHITECTURES,
    adaboost_grid,
    build_mddf_no_preconc,
    build_mddf_same_forests,
    build_mddf_stacking,
    deepboost_grid,
    default_registry,
    mlp_grid,
    quadboost_grid,
)
from mddf.experiments.registry import BuildContext, unavailable_reason

PAPER = BuildContext(seed=0, n_jobs=1, profile="paper", n_features=4, n_classes=2)


def test_lookup_is_case_insensitive_with_aliases_and_unknown_names_are_listed():
    registry = default_registry()
    assert registry.get("random_forest").name == "RF"
    assert registry.get("xgb").name == "XGBoost"
    assert registry.get("MDDF").name == "mdDF"
    with pytest.raises(ValueError, match="unknown method 'nope'; known: mdDF, gcForest, RF"):
        registry.get("nope")


def test_ablation_adds_the_three_table3_structures_after_the_selection():
    registry = default_registry()
    names = [s.name for s in registry.select(["mdDF", "RF"], ablation=True)]
    assert names == ["mdDF", "RF", "mdDF_SF", "mdDF_ST", "mdDF_NP"]


def test_table3_variants_change_only_their_structural_parameter():
    params = {
        b.__name__: b(PAPER).get_params() for b in (build_mddf_same_forests, build_mddf_stacking, build_mddf_no_preconc)
    }
    assert params["build_mddf_same_forests"]["forest_types"] == ("rf",) * 4
    assert params["build_mddf_stacking"]["input_features"] == "stacking"
    assert params["build_mddf_no_preconc"]["input_features"] == "raw"
    assert params["build_mddf_stacking"]["forest_types"] == ("rf", "rf", "crf", "crf")
    assert all(p["n_estimators"] == 100 and p["random_state"] == 0 for p in params.values())


def test_grids_are_the_papers():
    from benchmarks.deepboost_protocol import paper_grid

    ours = {(g["max_depth"], g["lam"], g["beta"]) for g in deepboost_grid(PAPER)}
    theirs = {(g["max_depth"], g["lam"], g["beta"]) for g in paper_grid(2, "DeepBoost")}
    assert ours == theirs and len(ours) == 150
    assert [g["max_depth"] for g in adaboost_grid(PAPER)] == [g["max_depth"] for g in paper_grid(2, "AdaBoost")]
    assert [g["hidden_layer_sizes"] for g in mlp_grid(PAPER)] == list(MLP_ARCHITECTURES)
    assert MLP_ARCHITECTURES == ((1024, 512), (16, 8, 8), (70, 50), (50, 30), (30, 20))
    variants = {g["regularization"] for g in quadboost_grid(PAPER)}
    assert variants == {"l1", "l2", "linf", None}


# Methods whose package is an optional dependency (the 'bench' extra): unavailable without it.
OPTIONAL = {"CatBoost-es": "catboost"}


def test_every_method_is_available_and_builds_a_valid_estimator_for_the_paper_profile():
    from sklearn.base import clone

    images = BuildContext(seed=0, n_jobs=1, profile="paper", n_features=64, n_classes=10, image_shape=(8, 8))
    for spec in default_registry():
        reason = unavailable_reason(spec)
        if spec.name in OPTIONAL and reason is not None:  # not installed: said so, naming the package
            assert f"cannot import {OPTIONAL[spec.name]}." in reason
            continue
        assert reason is None
        ctx = images if spec.image_only else PAPER
        grid = spec.grid(ctx) if spec.grid else [{}]
        for params in grid:
            clone(spec.build(ctx, **params))  # sklearn-style: parameters stored unchanged


def test_gcforest_is_the_cascade_and_scanning_is_opt_in_for_images():
    registry = default_registry()
    cascade = registry.get("gcForest").build(PAPER)
    assert cascade.window_sizes is None and cascade.n_estimators == 100
    assert "gcForest-MGS" not in [s.name for s in registry.select(None)]
    images = BuildContext(seed=0, n_jobs=1, profile="paper", n_features=784, n_classes=10, image_shape=(28, 28))
    mgs = registry.get("gcForest-MGS").build(images)
    assert tuple(mgs.window_sizes) == (7, 10, 13) and mgs.stride == 2 and tuple(mgs.image_shape) == (28, 28)
    with pytest.raises(ValueError, match="image dataset"):
        registry.get("gcForest-MGS").build(PAPER)


def test_tuned_mddf_searches_the_papers_grid_around_the_default_cascade_and_is_opt_in():
    from mddf import PAPER_PARAM_GRID

    registry = default_registry()
    assert "mdDF-tuned" not in [s.name for s in registry.select(None)]
    search = registry.get("mddf_tuned").build(PAPER)
    assert search.param_grid is None  # None is the paper's grid
    assert search._candidates()[0].params.keys() == PAPER_PARAM_GRID.keys()
    assert len(search._candidates()) == 6 * 3 * 4
    assert search.estimator.get_params() == registry.get("mdDF").build(PAPER).get_params()


def test_a_tuned_run_records_the_values_it_selected_and_the_compute_it_spent():
    from mddf.experiments.runner import run_one

    record = run_one("wine", "mdDF-tuned", seed=0, profile="quick", n_jobs=1)
    assert record["status"] == "ok", record.get("error")
    assert set(record["selected_params"]) == {"margin_mean", "max_depth_factor"}
    assert record["search"]["n_candidates"] == 4
    assert record["search"]["n_layer_fits"] >= record["n_layers"]
    assert record["params"]["estimator"].startswith("MDDFClassifier")
    assert record["n_layers"] == len(record["cascade"]["alphas"])


def test_mddf_declares_the_datasets_categorical_columns_as_hgb_does():
    registry = default_registry()
    ctx = BuildContext(
        seed=0, n_jobs=1, profile="paper", n_features=3, n_classes=2, categorical_mask=(True, False, False)
    )
    for name in ("mdDF", "mdDF-plain-stop", "mdDF_ST"):
        np.testing.assert_array_equal(registry.get(name).build(ctx).categorical_features, [True, False, False])
    tuned = registry.get("mdDF-tuned").build(ctx)
    np.testing.assert_array_equal(tuned.estimator.categorical_features, [True, False, False])
    plain = BuildContext(seed=0, n_jobs=1, profile="paper", n_features=3, n_classes=2)
    assert registry.get("mdDF").build(plain).categorical_features == "from_dtype"


def test_mddf_pca_hgb_passes_the_categorical_columns_through_and_declares_them_by_position():
    ctx = BuildContext(
        seed=0, n_jobs=1, profile="quick", n_features=3, n_classes=2, categorical_mask=(False, True, False)
    )
    model = default_registry().get("mdDF-pca-hgb").build(ctx)
    rotation, cascade = model[0], model[-1]
    assert list(rotation.categorical_features) == [1] and list(cascade.categorical_features) == [1]
    assert cascade.predictor == "hgb" and not default_registry().get("mdDF-pca-hgb").default
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=90), rng.integers(0, 3, 90), rng.normal(size=90)])
    y = (X[:, 1] == 2).astype(int)
    model.fit(X, y)
    assert list(model[0].columns_) == [0, 2] and model[-1].is_categorical_.tolist() == [
        False,
        True,
        False,
        False,
        False,
    ]


def test_mddf_hgb_auto_lets_the_predictor_choose_its_input_and_declares_the_categories():
    spec = default_registry().get("mdDF-hgb-auto")
    assert not spec.default
    ctx = BuildContext(
        seed=0, n_jobs=1, profile="quick", n_features=3, n_classes=2, categorical_mask=(False, True, False)
    )
    model = spec.build(ctx)
    assert model.predictor == "hgb" and model.predictor_input == "auto"
    np.testing.assert_array_equal(model.categorical_features, [False, True, False])
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=120), rng.integers(0, 3, 120), rng.normal(size=120)])
    y = (X[:, 1] == 2).astype(int)
    model.fit(X, y)
    choices = {"cascade", "blend", "stacked", "raw"}
    assert model.predictor_input_ in choices and set(model.predictor_input_scores_) == choices


def test_a_cascade_gets_no_more_folds_than_its_smallest_class_has_rows():
    from mddf.experiments.methods import adapt_to_small_classes, build_gcforest_scanning, build_mddf_tuned

    registry = default_registry()
    mddf = registry.get("mdDF").build(PAPER)
    assert adapt_to_small_classes(mddf, 3) == [] and mddf.n_folds == 3  # enough rows: untouched
    assert adapt_to_small_classes(mddf, 2) == ["n_folds=2"] and mddf.n_folds == 2
    single = registry.get("gcForest").build(PAPER)
    assert adapt_to_small_classes(single, 1) == ["class_vectors='oob'"] and single.n_folds == 3
    # the practitioner's mdDF (the defaults: a boosted member, cross-fitted even out of bag) keeps its forests
    from mddf import MDDFClassifier

    boosted = MDDFClassifier()
    assert adapt_to_small_classes(boosted, 1) == ["class_vectors='oob'", "forest_types=('rf', 'rf', 'crf', 'crf')"]
    assert boosted.forest_types == ("rf", "rf", "crf", "crf") and boosted.class_vectors == "oob"
    tuned = build_mddf_tuned(PAPER)
    assert adapt_to_small_classes(tuned, 2) == ["estimator__n_folds=2"]
    images = BuildContext(seed=0, n_jobs=1, profile="quick", n_features=64, n_classes=2, image_shape=(8, 8))
    scanning = build_gcforest_scanning(images)
    assert set(adapt_to_small_classes(scanning, 2)) == {"n_folds=2", "scan_n_folds=2"}
    assert adapt_to_small_classes(registry.get("RF").build(PAPER), 1) == []  # no folds to lower
    assert adapt_to_small_classes(mddf, None) == []  # a regression target has no classes


def test_the_practitioner_methods_build_a_classifier_or_a_regressor_as_the_task_says():
    from mddf.experiments.early_stopped import EarlyStopped

    registry = default_registry()
    names = [s.name for s in registry.select(None, protocol="practitioner")]
    assert names == ["mdDF", "Baseline", "HGB-es", "LightGBM-es", "XGBoost-es", "CatBoost-es", "RF-400"]
    regression = BuildContext(seed=0, n_jobs=1, profile="paper", n_features=4, n_classes=0, task="regression")
    built = {
        name: (registry.get(name).build(PAPER), registry.get(name).build(regression))
        for name in names
        if unavailable_reason(registry.get(name)) is None
    }
    assert type(built["mdDF"][0]).__name__ == "MDDFClassifier"
    assert type(built["mdDF"][1]).__name__ == "CascadeForestRegressor"
    assert built["Baseline"][0].strategy == "prior" and built["Baseline"][1].strategy == "mean"
    for name in ("HGB-es", "XGBoost-es"):
        classifier, regressor = built[name]
        assert isinstance(classifier, EarlyStopped) and classifier.patience == 20
        assert classifier.validation_fraction == 0.1 and classifier.estimator.get_params()["random_state"] == 0
        assert "Classifier" in type(classifier.estimator).__name__
        assert "Regressor" in type(regressor.estimator).__name__
    assert built["HGB-es"][0].estimator.max_iter == 1000
    assert built["XGBoost-es"][0].estimator.n_estimators == 1000
    assert built["RF-400"][0].n_estimators == 400
    if "CatBoost-es" in built:  # an optional peer (the bench extra): at its defaults, 1000 rounds at most
        classifier, regressor = built["CatBoost-es"]
        assert classifier.estimator.get_params()["iterations"] == 1000 and classifier.patience == 20
        assert "Regressor" in type(regressor.estimator).__name__
    # the papers' methods stay classification only
    assert registry.get("RF").tasks == ("classification",) and registry.get("gcForest").tasks == ("classification",)


def test_an_optional_method_without_its_package_names_the_tasks_class_and_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "catboost", None)
    spec = default_registry().get("CatBoost-es")
    for task, cls in (("classification", "CatBoostClassifier"), ("regression", "CatBoostRegressor")):
        reason = unavailable_reason(spec, task)
        assert reason.startswith(f"CatBoost-es is not available: cannot import catboost.{cls} (ModuleNotFoundError")
        assert reason.endswith('; install it with pip install -e ".[bench]"')
    assert unavailable_reason(default_registry().get("RF-400"), "regression") is None
