"""What the single-fit subcommands (export-features, plot-layers, plot-tsne) fit: the benchmark's mdDF row."""

import numpy as np
import pandas as pd
import pytest

from mddf.datasets.user_data import load_source, seeded_split, source_for
from mddf.experiments import cli
from mddf.experiments.methods import default_registry
from mddf.experiments.registry import BuildContext
from mddf.experiments.studies import mddf_model


def _args(command, *options):
    return cli.COMMANDS[command].parser().parse_args(["--dataset", "iris", *options])


def _benchmarks_mddf(ds, task, seed=0, n_jobs=-1, profile="paper"):
    """The mdDF row of mddf benchmark (practitioner protocol) on ``ds``, as its runs build it."""
    shape = dict(n_features=ds.X_train.shape[1], n_classes=0 if task == "regression" else ds.n_classes)
    mask = tuple(bool(c) for c in ds.categorical_mask)
    ctx = BuildContext(seed, n_jobs, profile, **shape, categorical_mask=mask, task=task, protocol="practitioner")
    return default_registry().get("mdDF").build(ctx)


def _same(a, b):
    pa, pb = a.get_params(), b.get_params()
    assert type(a) is type(b) and pa.keys() == pb.keys()
    for key in pa:
        assert np.array_equal(pa[key], pb[key]) if isinstance(pa[key], np.ndarray) else pa[key] == pb[key], key


@pytest.mark.parametrize("command", ["export-features", "plot-layers", "plot-tsne"])
def test_the_single_fit_subcommands_fit_the_benchmarks_mddf_row(user_csv, command):
    ds = seeded_split(load_source(source_for(user_csv, "y")), 0)
    _same(mddf_model(ds, _args(command)), _benchmarks_mddf(ds, "classification"))
    _same(
        mddf_model(ds, _args(command, "--quick", "--seed", "3")), _benchmarks_mddf(ds, "classification", 3, -1, "quick")
    )
    model = mddf_model(ds, _args(command, "--n-estimators", "7", "--max-layers", "4", "--n-jobs", "1"))
    assert (model.n_estimators, model.max_layers, model.n_jobs) == (7, 4, 1)
    assert model.categorical_features.tolist() == [False, False, True, False]


def test_a_regression_target_fits_the_benchmarks_regressor(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=60), "colour": rng.choice(["r", "g"], 60)})
    frame["price"] = frame["x"] * 2.5
    frame.to_csv(tmp_path / "prices.csv", index=False)
    ds = seeded_split(load_source(source_for(tmp_path / "prices.csv", "price")), 0)
    model = mddf_model(ds, _args("export-features"))
    assert type(model).__name__ == "CascadeForestRegressor"
    _same(model, _benchmarks_mddf(ds, "regression"))
