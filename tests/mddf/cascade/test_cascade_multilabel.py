"""MDDFClassifier with a multi-label y (a 2-D 0/1 indicator): one block per label a layer, scikit-learn's outputs."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_multilabel_classification
from sklearn.metrics import hamming_loss, make_scorer
from sklearn.model_selection import cross_val_score

import mddf
from mddf import MDDFClassifier
from mddf.cascade.multilabel import UNSUPPORTED, LabelBlocks, LabelwiseCalibration, cells_right, label_margins
from mddf.margin.margins import margins

FAST = dict(n_estimators=8, max_layers=3, forest_types=("rf", "crf"), random_state=0)
N_LABELS = 3


@pytest.fixture(scope="module")
def data():
    X, Y = make_multilabel_classification(
        300, n_features=8, n_classes=N_LABELS, n_labels=2, allow_unlabeled=True, random_state=0
    )
    return X[:200], Y[:200], X[200:], Y[200:]


@pytest.fixture(scope="module")
def fitted(data):
    X, Y, _, _ = data
    return MDDFClassifier(n_tolerant_layers=3, **FAST).fit(X, Y)


def test_outputs_have_scikit_learns_multilabel_shapes(fitted, data):
    _, _, Xt, _ = data
    assert [c.tolist() for c in fitted.classes_] == [[0, 1]] * N_LABELS
    proba = fitted.predict_proba(Xt)
    assert isinstance(proba, list) and len(proba) == N_LABELS
    for p in proba:
        assert p.shape == (100, 2)
        assert p.sum(axis=1) == pytest.approx(np.ones(100))
    predicted = fitted.predict(Xt)
    assert predicted.shape == (100, N_LABELS)
    assert np.array_equal(predicted, np.column_stack([p.argmax(axis=1) for p in proba]))


def test_each_layer_is_one_block_per_label(fitted):
    assert fitted.n_layers_ >= 2
    for t, layer in enumerate(fitted.layers_, start=1):
        assert isinstance(layer, LabelBlocks) and len(layer.blocks) == N_LABELS
        # layer 1 reads x; the later ones [x, every label's class vector]
        assert layer.importances_.shape == ((8,) if t == 1 else (8 + 2 * N_LABELS,))


def test_staged_methods_and_transform_agree_with_predict(fitted, data):
    _, _, Xt, _ = data
    stages = list(fitted.staged_predict_proba(Xt))
    assert len(stages) == fitted.n_layers_
    assert all(isinstance(s, list) and len(s) == N_LABELS for s in stages)
    for a, b in zip(stages[-1], fitted.predict_proba(Xt)):
        assert np.array_equal(a, b)
    labels = list(fitted.staged_predict(Xt))
    assert np.array_equal(labels[-1], fitted.predict(Xt))
    features = fitted.transform(Xt)
    assert features.shape == (100, 2 * N_LABELS) and features.dtype == np.float32
    names = fitted.get_feature_names_out()
    assert names[0] == f"layer{fitted.n_layers_}_label0_class_0" and len(names) == 2 * N_LABELS


def test_learns_every_label_better_than_its_majority(fitted, data):
    X, Y, Xt, Yt = data
    majority = np.tile((Y.mean(axis=0) > 0.5).astype(int), (len(Yt), 1))
    assert hamming_loss(Yt, fitted.predict(Xt)) < hamming_loss(Yt, majority)


def test_calibration_is_per_label_and_keeps_each_labels_argmax(fitted):
    assert isinstance(fitted.calibration_, LabelwiseCalibration)
    assert len(fitted.calibration_.labels) == N_LABELS
    raw = np.random.default_rng(0).dirichlet([1, 1], size=(50, N_LABELS)).reshape(50, -1)
    calibrated = fitted.calibration_.apply(raw)
    assert calibrated.reshape(50, N_LABELS, 2).sum(axis=2) == pytest.approx(np.ones((50, N_LABELS)))
    zeros = np.zeros((50, N_LABELS), dtype=int)
    assert np.array_equal(cells_right(calibrated, zeros), cells_right(raw, zeros))


def test_shared_margin_is_the_mean_of_the_labels_binary_margins():
    rng = np.random.default_rng(0)
    h = rng.dirichlet([1, 1], size=(20, N_LABELS)).reshape(20, -1)
    Y = rng.integers(0, 2, size=(20, N_LABELS))
    expected = np.mean([margins(h[:, 2 * k : 2 * k + 2], Y[:, k]) for k in range(N_LABELS)], axis=0)
    assert label_margins(h, Y) == pytest.approx(expected)


def test_fit_is_reproducible_and_storage_is_transparent(fitted, data):
    X, Y, Xt, _ = data
    again = MDDFClassifier(n_tolerant_layers=3, model_dir="auto", **FAST).fit(X, Y)
    for a, b in zip(again.predict_proba(Xt), fitted.predict_proba(Xt)):
        assert np.array_equal(a, b)


def test_pickle_and_save_load_predict_the_same(fitted, data, tmp_path):
    _, _, Xt, _ = data
    expected = fitted.predict_proba(Xt)
    fitted.save(tmp_path / "m.mddf")
    for model in (pickle.loads(pickle.dumps(fitted)), mddf.load(tmp_path / "m.mddf")):
        assert [c.tolist() for c in model.classes_] == [[0, 1]] * N_LABELS
        for a, b in zip(model.predict_proba(Xt), expected):
            assert np.array_equal(a, b)


@pytest.mark.slow
def test_scikit_learns_multilabel_scorers_work(data):
    X, Y, _, _ = data
    model = MDDFClassifier(n_estimators=4, max_layers=2, forest_types=("rf",), random_state=0)
    for scoring in ("f1_micro", "f1_macro", "accuracy", make_scorer(hamming_loss, greater_is_better=False)):
        scores = cross_val_score(model, X, Y, cv=2, scoring=scoring)
        assert scores.shape == (2,) and np.isfinite(scores).all()


def test_a_constant_label_is_refused(data):
    X, Y, _, _ = data
    Y = Y.copy()
    Y[:, 1] = 1
    with pytest.raises(ValueError, match="label 1 of y is constant"):
        MDDFClassifier(**FAST).fit(X, Y)


def test_a_label_too_rare_for_its_folds_is_refused(data):
    X, Y, _, _ = data
    Y = Y.copy()
    Y[:, 2] = 0
    Y[:2, 2] = 1
    with pytest.raises(ValueError, match="label 2 has 2 training samples of value 1, fewer than n_folds=3"):
        MDDFClassifier(**FAST).fit(X, Y)


REFUSED = {
    "predictor": "hgb",
    "class_vectors": "oob",
    "screening_accuracy": 0.9,
    "pair_features": "auto",
    "probe_trees": 0.5,
    "validation_fraction": 0.2,
    "final_mixture": "selection",
    "member_weights": "loss",
}


def test_every_unsupported_setting_has_a_refusal():
    assert set(REFUSED) == set(UNSUPPORTED)


@pytest.mark.parametrize("param", sorted(REFUSED))
def test_settings_not_supported_yet_are_refused_in_one_line(data, param):
    X, Y, _, _ = data
    with pytest.raises(ValueError, match=f"multi-label y .* not supported with {param}=") as info:
        MDDFClassifier(**{**FAST, param: REFUSED[param]}).fit(X, Y)
    assert "\n" not in str(info.value)


def test_explain_is_refused(fitted, data):
    with pytest.raises(ValueError, match="explain\\(\\) does not support a model fitted on multi-label y"):
        fitted.explain(data[2][:2])


def test_a_label_whose_rows_of_one_value_all_weigh_zero_is_refused(data):
    X, Y, _, _ = data
    weight = np.where(Y[:, 0] == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match="label 0"):
        MDDFClassifier(**FAST).fit(X, Y, sample_weight=weight)


def test_a_1d_y_keeps_the_single_label_model(data):
    X, Y, Xt, _ = data
    model = MDDFClassifier(**FAST).fit(X, Y[:, 0])
    assert isinstance(model.classes_, np.ndarray)
    assert model.predict_proba(Xt).shape == (100, 2)
    assert not isinstance(model.layers_[0], LabelBlocks)


def test_a_2d_y_that_is_not_a_0_1_indicator_is_refused(data):
    X, Y, _, _ = data
    with pytest.raises(ValueError, match="must be a multi-label 0/1 indicator .* got 'multiclass-multioutput'"):
        MDDFClassifier(**FAST).fit(X, Y * np.arange(1, N_LABELS + 1))


def test_nan_in_a_2d_y_is_refused(data):
    X, Y, _, _ = data
    Y = Y.astype(float)
    Y[0, 0] = np.nan
    with pytest.raises(ValueError, match="y contains NaN; every row needs a 0 or 1 for every label"):
        MDDFClassifier(**FAST).fit(X, Y)


def test_per_forest_features_name_every_member_and_label(data, capsys):
    X, Y, Xt, _ = data
    model = MDDFClassifier(**{**FAST, "max_layers": 1}, passed_features="per_forest", verbose=1).fit(X, Y)
    assert "mdDF" in capsys.readouterr().out  # the verbose layer line
    names = model.get_feature_names_out()
    assert model.transform(Xt).shape == (100, 2 * 2 * N_LABELS) == (100, len(names))
    assert names[0] == "layer1_rf0_label0_class_0" and names[-1] == f"layer1_crf1_label{N_LABELS - 1}_class_1"


def test_sample_weights_reach_the_fit(data):
    X, Y, Xt, _ = data
    weight = np.random.default_rng(0).integers(1, 4, size=len(X)).astype(float)
    weighted = MDDFClassifier(**FAST).fit(X, Y, sample_weight=weight)
    assert weighted.predict(Xt).shape == (100, N_LABELS)
    unweighted = MDDFClassifier(**FAST).fit(X, Y)
    assert not all(np.array_equal(a, b) for a, b in zip(weighted.predict_proba(Xt), unweighted.predict_proba(Xt)))


def test_a_list_of_lists_is_a_multilabel_y(data):
    X, Y, Xt, _ = data
    model = MDDFClassifier(**{**FAST, "max_layers": 1}).fit(X, Y.tolist())
    assert model.predict(Xt).shape == (100, N_LABELS)


def test_a_dataframe_of_label_columns_is_a_multilabel_y(data):
    X, Y, Xt, _ = data
    frame = pd.DataFrame(Y.astype(bool), columns=[f"tag{k}" for k in range(N_LABELS)])
    model = MDDFClassifier(**{**FAST, "max_layers": 1}).fit(X, frame)
    assert [c.tolist() for c in model.classes_] == [[False, True]] * N_LABELS
    assert model.predict(Xt).dtype == bool and model.predict(Xt).shape == (100, N_LABELS)
