"""Margins, margin distributions and feature-space compactness used by the figure scripts."""

import numpy as np
import pytest

from mddf.experiments.layers import (
    class_scores,
    layer_check,
    layers_drawn,
    margin_cdf,
    margin_ratio,
    parse_layers,
    pick_layers,
    variance_ratio,
)
from mddf.experiments.studies import UsageError


def test_per_forest_features_are_averaged_into_class_scores():
    per_forest = np.array([[1.0, 0.0, 0.0, 1.0]])  # two forests, two classes
    np.testing.assert_allclose(class_scores(per_forest, 2), [[0.5, 0.5]])
    with pytest.raises(ValueError, match="3 classes"):
        class_scores(per_forest, 3)


def test_margin_ratio_and_cdf():
    m = np.array([0.2, 0.4, 0.6])
    assert margin_ratio(m) == pytest.approx(np.std(m) / 0.4)
    np.testing.assert_allclose(margin_cdf(m, np.array([-1.0, 0.2, 0.5, 1.0])), [0, 1 / 3, 2 / 3, 1])


def test_variance_ratio_is_small_for_tight_separated_classes():
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1], 200)
    centres = np.where(labels[:, None] == 0, -5.0, 5.0)
    tight = centres + 0.1 * rng.standard_normal((400, 2))
    loose = centres + 10.0 * rng.standard_normal((400, 2))  # S_W ~ 800 * 100, S_B = 400 * 50
    assert variance_ratio(tight, labels) < 0.01 < 1 < variance_ratio(loose, labels)
    # exact: two points per class at +-1 around centres -10 and +10 -> S_W = 4, S_B = 400
    pts = np.array([[-11.0], [-9.0], [9.0], [11.0]])
    assert variance_ratio(pts, np.array([0, 0, 1, 1])) == pytest.approx(4 / 400)


def test_layer_choice():
    assert pick_layers(1) == [1]
    assert pick_layers(10) == [1, 4, 7, 10]
    assert parse_layers("1,last", 6) == [1, 6]
    assert parse_layers(None, 3) == [1, 2, 3]
    with pytest.raises(ValueError, match="kept 3 layers"):
        parse_layers("5", 3)


def test_layers_beyond_the_kept_ones_are_left_out_with_a_warning_not_after_the_fit_with_a_traceback():
    said = []
    assert layers_drawn("1,3,5", 3, "--layers", said.append) == [1, 3]
    assert said == ["warning: --layers: layer(s) 5 not drawn: the model kept 3 layer(s) (its growth stopped early); "
                    "drawing 1, 3"]  # fmt: skip
    said.clear()
    assert layers_drawn("7,9", 3, "--layers", said.append) == [3] and "layer(s) 7, 9 not drawn" in said[0]
    said.clear()
    assert layers_drawn("1,last", 3, "--layers", said.append) == [1, 3] and said == []


def test_layers_beyond_those_the_model_grows_are_a_usage_error_before_the_fit():
    from types import SimpleNamespace

    layer_check("1,2,last", "--layers")(SimpleNamespace(max_layers=3))  # none beyond
    with pytest.raises(UsageError) as caught:
        layer_check("1,99", "--layers")(SimpleNamespace(max_layers=20))
    assert str(caught.value) == (
        "--layers 1,99: layer 99 is beyond the 20 layers mdDF grows at most here (--max-layers); give layers from 1 "
        "to 20, or 'last'"
    )


def test_margins_do_not_depend_on_whether_features_are_stored_normalised():
    from types import SimpleNamespace

    from mddf.experiments.layers import oof_layer_margins

    h1 = np.array([[0.7, 0.3], [0.4, 0.6]])
    h2 = np.array([[0.9, 0.1], [0.2, 0.8]])
    alphas = [1.0, 3.0]
    f2 = alphas[0] * h1 + alphas[1] * h2  # additive f_2, rows sum to 4
    y = np.array([0, 0])
    stored_raw = SimpleNamespace(classes_=np.array([0, 1]), oof_features_=[h1, f2])
    stored_normalised = SimpleNamespace(classes_=np.array([0, 1]), oof_features_=[h1, f2 / 4.0])
    a, b = oof_layer_margins(stored_raw, y), oof_layer_margins(stored_normalised, y)
    np.testing.assert_allclose(a[0], [0.4, -0.2])
    np.testing.assert_allclose(a[1], [(0.7 + 2.7 - 0.3 - 0.3) / 4, (0.4 + 0.6 - 0.6 - 2.4) / 4])
    np.testing.assert_allclose(a[1], b[1])
