"""The profile study: a fit's seconds split into phases that add up to the fit, and the prediction's."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from study_helpers import read_records

from benchmarks import _internals, profile


def test_the_phases_add_up_to_the_fit_and_the_timers_are_removed_afterwards():
    X, y = make_classification(300, 8, n_informative=5, n_classes=3, random_state=0)
    phases = [(owner, name, getattr(owner, name)) for owner, name, _ in _internals.fit_phases()]
    seconds = profile.profile_fit(X.astype(np.float32), y, {"n_estimators": 4, "max_layers": 2, "random_state": 0})
    assert set(profile.PHASES) <= set(seconds) and seconds["layers grown"] == 2
    assert sum(seconds[p] for p in profile.PHASES) == pytest.approx(seconds["fit"], rel=1e-6)
    assert seconds["tree growth"] > 0 and seconds["out-of-fold prediction"] > 0 and seconds["binning"] > 0
    assert all(getattr(owner, name) is original for owner, name, original in phases)  # unpatched


def test_the_tables_give_each_phase_its_share(tmp_path, monkeypatch):
    rows = [
        {"dataset": "d", "rows": 10, "seconds": {**dict.fromkeys(profile.PHASES, 1.0), "fit": 8.0, "layers grown": 2}}
    ]
    text = profile.markdown(rows)
    assert "### d (10 training rows, 2 layers grown)" in text and "| tree growth | 1.00 | 12.5% |" in text


def test_the_prediction_profile_splits_predict_time_and_compares_the_reference_binning():
    from mddf.trees import FeatureBinner

    X, y = make_classification(300, 8, n_informative=5, n_classes=3, random_state=0)
    X = X.astype(np.float32)
    X[::7, 2] = np.nan
    _, model = profile.fit_profiled(X[:200], y[:200], {"n_estimators": 4, "max_layers": 2, "random_state": 0})
    transform = FeatureBinner.transform
    result = profile.profile_predict(model, X[200:], rounds=2)
    assert result["binning"] > 0 and result["routing"] > 0 and result["layers kept"] == model.n_layers_
    assert sum(result[p] for p in profile.PREDICT_PHASES) == pytest.approx(result["predict"], rel=1e-6)
    assert result["reference predict"] > 0 and result["ratio"] > 0
    assert FeatureBinner.transform is transform  # unpatched


def test_the_reference_binning_gives_the_compiled_kernels_codes():
    from mddf.trees import FeatureBinner

    rng = np.random.RandomState(0)
    X = np.column_stack([rng.standard_normal(500), rng.randint(0, 4, 500)]).astype(np.float32)
    X[rng.rand(*X.shape) < 0.1] = np.nan
    binner = FeatureBinner().fit(X[:300])
    assert np.array_equal(profile.reference_transform(binner, X), binner.transform(X))


def test_the_command_profiles_each_dataset_and_writes_its_tables(tmp_path):
    assert profile.main(["--quick", "--predict-rounds", "2", "--out", str(tmp_path)]) == 0
    (record,) = read_records(tmp_path)
    assert record["dataset"] == "iris" and record["seconds"]["fit"] == record["fit_s"] > 0
    assert record["predict"]["rounds"] == 2 and record["predict"]["ratio"] > 0
    text = (tmp_path / "profile.md").read_text()
    assert "### iris (105 training rows" in text and "With the reference binning:" in text
