"""The figure and feature scripts run end to end on tiny configurations and write their files."""

import json

import numpy as np
import pytest
from provenance_files import read_csv_rows, read_provenance

from mddf import MDDFClassifier
from mddf.datasets import load_dataset
from mddf.experiments.cli import run_script
from mddf.experiments.feature_export import layer_features
from mddf.experiments.layers import margin_ratio, oof_layer_margins, staged_accuracy

TINY = ["--quick", "--n-jobs", "1", "--quiet"]


def rows(path):
    return read_csv_rows(path)  # skips the leading '# key: value' provenance lines


@pytest.fixture(scope="module")
def tiny_model():
    ds = load_dataset("digits")
    model = MDDFClassifier(n_estimators=8, max_layers=3, n_tolerant_layers=3, random_state=0, n_jobs=1)
    return ds, model.fit(ds.X_train, ds.y_train)


def test_vote_margins_from_out_of_fold_features_agree_with_the_estimators_history(tiny_model):
    ds, model = tiny_model
    margins = oof_layer_margins(model, ds.y_train)
    assert len(margins) == model.n_layers_
    for m, h in zip(margins, model.train_history_):
        assert np.all((m >= -1 - 1e-9) & (m <= 1 + 1e-9))
        # a positive margin is a correct out-of-fold prediction, a negative one a wrong
        # one; a margin of 0 is a tie, which argmax may break either way
        assert np.mean(m > 0) - 1e-9 <= h["oof_accuracy"] <= np.mean(m >= 0) + 1e-9
    # with one layer the vote margin is the estimator's cumulative margin (Algorithm 2, line 6)
    assert margin_ratio(margins[0]) == pytest.approx(model.train_history_[0]["margin_ratio"], rel=1e-6)


def test_staged_accuracy_ends_with_the_models_accuracy(tiny_model):
    ds, model = tiny_model
    acc = staged_accuracy(model, ds.X_test, ds.y_test)
    assert len(acc) == model.n_layers_
    assert acc[-1] == pytest.approx(model.score(ds.X_test, ds.y_test))


@pytest.mark.slow
def test_plot_layers_writes_figures_8_and_9_with_their_numbers(tmp_path):
    assert run_script("plot-layers", ["--dataset", "iris", "--out", str(tmp_path), *TINY]) == 0
    for stem in ("layers_iris", "margins_iris"):
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / f"{stem}.{ext}").stat().st_size > 0
    layers = rows(tmp_path / "layers_iris.csv")
    assert [int(r["layer"]) for r in layers] == list(range(1, len(layers) + 1))
    kept = [r for r in layers if r["kept"] == "True"]
    assert kept and all(r["test_accuracy"] and r["train_oof_accuracy"] and r["margin_ratio"] for r in kept)
    cdf = rows(tmp_path / "margins_iris.csv")
    assert float(cdf[0]["margin"]) == -1.0 and float(cdf[-1]["margin"]) == 1.0
    curves = [k for k in cdf[0] if k.startswith("cdf_layer_")]
    assert curves and all(float(cdf[-1][k]) == 1.0 for k in curves)
    assert all(float(a[k]) <= float(b[k]) for a, b in zip(cdf, cdf[1:]) for k in curves)
    # every file says how to regenerate it
    for name in ("layers_iris.csv", "margins_iris.csv"):
        prov = read_provenance((tmp_path / name).read_text())
        assert prov["command"].startswith("python scripts/plot_layers.py --dataset iris --out ")
        assert set(prov) == {"command", "commit", "machine", "date"}
    png = png_text(tmp_path / "layers_iris.png")
    assert png["Command"].startswith("python scripts/plot_layers.py --dataset iris")
    assert png["Commit"] and png["Machine"] and png["Creation Time"].endswith("Z")


@pytest.mark.slow
def test_plot_tsne_writes_panels_and_variance_ratios(tmp_path):
    assert run_script("plot-tsne", ["--dataset", "iris", "--max-points", "60", "--out", str(tmp_path), *TINY]) == 0
    for ext in ("png", "pdf"):
        assert (tmp_path / f"tsne_iris.{ext}").stat().st_size > 0
    ratios = rows(tmp_path / "tsne_iris_ratios.csv")
    splits = {r["split"] for r in ratios}
    assert splits == {"train", "test"}
    assert all(float(r["intra_over_inter_variance"]) > 0 for r in ratios)
    points = rows(tmp_path / "tsne_iris.csv")
    assert len(points) == sum(int(r["n_points"]) for r in ratios)
    assert {p["class"] for p in points} == {"setosa", "versicolor", "virginica"}
    for name in ("tsne_iris.csv", "tsne_iris_ratios.csv"):
        assert read_provenance((tmp_path / name).read_text())["command"].startswith("python scripts/plot_tsne.py")
    assert png_text(tmp_path / "tsne_iris.png")["Command"].startswith("python scripts/plot_tsne.py --dataset iris")


def png_text(path):
    """The text chunks of a PNG (Pillow, a matplotlib dependency, reads them)."""
    from PIL import Image

    with Image.open(path) as image:
        return dict(image.text)


def test_export_features_layout_and_a_downstream_model(tmp_path):
    out = tmp_path / "feat.npz"
    assert run_script("export-features", ["--dataset", "wine", "--out", str(out), "--include-raw", *TINY]) == 0
    z = np.load(out)
    meta = json.loads(str(z["meta"]))
    T = meta["n_layers"]
    assert z["train_features"].shape == (T, 124, 3) and z["train_features"].dtype == np.float32
    assert z["test_features"].shape == (T, 54, 3)
    assert list(z["layers"]) == list(range(1, T + 1)) and z["alphas"].shape == (T,)
    assert z["X_train"].shape == (124, 13) and list(z["classes"]) == ["class_0", "class_1", "class_2"]
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(max_iter=1000).fit(z["train_features"][-1], z["y_train"])
    assert clf.score(z["test_features"][-1], z["y_test"]) > 0.8


def test_exported_features_are_the_models_out_of_fold_and_transformed_features(tiny_model):
    ds, model = tiny_model
    train, test = layer_features(model, ds)
    for t in range(model.n_layers_):
        np.testing.assert_array_equal(train[t], model.oof_features_[t])
        np.testing.assert_array_equal(test[t], model.transform(ds.X_test, layer=t + 1))
