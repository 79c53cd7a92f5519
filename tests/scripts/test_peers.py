"""Today's peers (LightGBM, HGB, ExtraTrees): opt-in methods of the runner, tabulated in peers.md / peers.csv."""

import sys

import bench_doubles
import numpy as np
import pytest
from provenance_files import read_csv_rows, read_provenance
from sklearn.base import clone

from mddf.experiments.cli import COMMANDS, run_script
from mddf.experiments.methods import default_registry
from mddf.experiments.paper_tables import PEERS_ORDER
from mddf.experiments.registry import BuildContext, unavailable_reason

PEERS = ["LightGBM", "HGB", "ExtraTrees"]
FAST = ["--quick", "--n-jobs", "1", "--quiet", "--isolation", "inline"]


def ctx(**kw):
    return BuildContext(**{"seed": 3, "n_jobs": 1, "profile": "paper", "n_features": 4, "n_classes": 2, **kw})


def test_peers_are_opt_in_and_added_by_peers_after_the_selection():
    registry = default_registry()
    defaults = [s.name for s in registry.select(None)]
    assert not set(PEERS) & set(defaults)
    assert [s.name for s in registry.select(None, peers=True)] == defaults + PEERS
    assert [s.name for s in registry.select(["RF", "mdDF"], peers=True)] == ["mdDF", "RF", *PEERS]
    assert COMMANDS["benchmark"].parser().parse_args(["--peers"]).peers
    assert not COMMANDS["benchmark"].parser().parse_args([]).peers
    assert registry.get("lgbm").name == "LightGBM" and registry.get("extra_trees").name == "ExtraTrees"


def test_lightgbm_builds_with_its_defaults_silenced():
    spec = default_registry().get("LightGBM")
    assert unavailable_reason(spec) is None
    lgbm = spec.build(ctx())
    assert lgbm.get_params()["verbose"] == -1 and lgbm.n_estimators == 100 and lgbm.random_state == 3
    assert spec.build(ctx(profile="quick")).n_estimators == 10
    clone(lgbm)


def test_hgb_and_extra_trees_build_with_their_defaults_and_rfs_tree_budget():
    registry = default_registry()
    hgb = registry.get("HGB").build(ctx(categorical_mask=(False, True, False, True)))
    assert hgb.max_iter == 100 and hgb.random_state == 3
    np.testing.assert_array_equal(hgb.categorical_features, [False, True, False, True])
    assert registry.get("HGB").build(ctx(categorical_mask=(False,) * 4)).categorical_features == "from_dtype"
    # ExtraTrees: the tree budget of RF (400 x k), 400 x 1 without an mdDF result
    spec = registry.get("ExtraTrees")
    assert spec.tree_budget and spec.build(ctx(n_trees=1200)).n_estimators == 1200
    assert spec.build(ctx()).n_estimators == 400 and spec.build(ctx(profile="quick")).n_estimators == 40
    for name in ("HGB", "ExtraTrees"):
        assert unavailable_reason(registry.get(name)) is None
        clone(registry.get(name).build(ctx()))


@pytest.fixture
def no_lightgbm(monkeypatch):
    """lightgbm cannot be imported: None in sys.modules makes ``import lightgbm`` raise ModuleNotFoundError."""
    monkeypatch.setitem(sys.modules, "lightgbm", None)


def test_lightgbm_is_unavailable_with_the_import_error_when_missing(no_lightgbm, tmp_path, capsys):
    registry = default_registry()
    reason = unavailable_reason(registry.get("LightGBM"))
    assert reason.startswith("LightGBM is not available: cannot import lightgbm.LGBMClassifier (ModuleNotFoundError")
    registry.register(bench_doubles.MAJORITY_AS_MDDF, replace=True)
    out = tmp_path / "res"
    code = run_script(
        "benchmark", ["--datasets", "iris", "--methods", "mdDF", "--peers", "--out", str(out), *FAST], registry
    )
    assert code == 0
    assert "left out: LightGBM is not available" in capsys.readouterr().err
    rows = read_csv_rows(out / "peers.csv")
    assert "LightGBM" not in rows[0] and {"mdDF", "HGB", "ExtraTrees"} <= set(rows[0])


@pytest.mark.slow
def test_quick_run_on_the_default_suite_writes_the_peers_table(tmp_path, capsys):
    registry = default_registry()
    registry.register(bench_doubles.MAJORITY_AS_MDDF, replace=True)  # 3 layers: k = 3
    out = tmp_path / "res"
    argv = ["--methods", "mdDF,RF,XGBoost", "--peers", "--seeds", "2", "--out", str(out), *FAST]
    assert run_script("benchmark", argv, registry=registry) == 0
    available = [m for m in PEERS if unavailable_reason(registry.get(m)) is None]
    compared = [m for m in PEERS_ORDER if m in ("mdDF", "RF", "XGBoost", *available)]
    assert compared[:3] == ["mdDF", "RF", "XGBoost"]

    md = (out / "peers.md").read_text()
    assert read_provenance(md)["command"] == "python scripts/run_uci.py " + " ".join(argv)
    assert "### Today's peers" in md
    header = next(line for line in md.splitlines() if line.startswith("| Dataset"))
    assert header.startswith("| Dataset | " + " | ".join(compared) + " | k | mdDF fit s |")
    assert "[paper" not in md  # no published numbers for the peers
    for dataset in ("digits", "breast_cancer", "wine", "iris"):
        row = next(line for line in md.splitlines() if line.startswith(f"| {dataset} |"))
        assert row.count(" ± ") == len(compared)  # mean ± std over the 2 seeds
    assert "| Avg. rank |" in md

    rows = read_csv_rows(out / "peers.csv")
    assert [r["dataset"] for r in rows] == ["digits", "breast_cancer", "wine", "iris", "Avg. rank"]
    for r in rows[:-1]:
        assert all(r[f"{m} n"] == "2" and 50 < float(r[m]) <= 100 for m in compared if m != "mdDF")
        assert all(float(r[f"{m} fit s"]) >= 0 for m in compared) and r["k"] == "3"
    assert sum(float(rows[-1][m]) for m in compared) == pytest.approx(sum(range(1, len(compared) + 1)))
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(out / "peers.csv", comment="#")
    assert list(frame["dataset"]) == [r["dataset"] for r in rows] and "ExtraTrees std" in frame.columns

    # the main table keeps the paper's methods only
    table = (out / "table.md").read_text()
    assert "ExtraTrees" not in table and "HGB" not in table
    assert read_provenance((out / "table.csv").read_text())["command"].endswith("--isolation inline")
