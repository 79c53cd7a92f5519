"""The predictor-inputs study: the variants after one cascade, boosting from its class vectors, the summary."""

import numpy as np
import pytest
from study_helpers import read_records

from benchmarks import predictor_inputs
from benchmarks.data import load_frames


def test_the_starting_margin_is_the_logit_for_two_classes_and_the_logs_for_more():
    two = predictor_inputs.start_margin(np.array([[0.25, 0.75], [1.0, 0.0]]))
    assert two.shape == (2,) and two[0] == pytest.approx(np.log(3.0))
    assert np.isfinite(two[1]) and two[1] < -13  # a share of 0 is clipped, not -inf
    three = predictor_inputs.start_margin(np.array([[0.2, 0.3, 0.5]]))
    assert np.allclose(three, np.log([[0.2, 0.3, 0.5]]))


def test_boosting_starts_from_the_margin_it_is_given():
    # noise features and a confident, correct starting margin: early stopping keeps the margin's answer
    rng = np.random.RandomState(0)
    y = rng.randint(0, 3, 600)
    shares = np.full((600, 3), 0.01)
    shares[np.arange(600), y] = 0.98
    Z = rng.rand(600, 4).astype(np.float32)
    margin = predictor_inputs.start_margin(shares)
    predicted, rounds = predictor_inputs.boost_from_margin(
        Z[:400], y[:400], margin[:400], Z[400:], margin[400:], None, 0
    )
    assert np.array_equal(predicted, y[400:])
    assert 1 <= rounds <= predictor_inputs.MARGIN_BOOSTING["n_estimators"]


def test_every_variant_is_scored_on_the_held_out_rows_of_one_cascade():
    X, y, _, _ = load_frames("mixed_categories", quick=True)
    y = np.asarray(y)
    result = predictor_inputs.score_variants(X.iloc[:200], y[:200], X.iloc[200:], y[200:], 0, 1, {}, quick=True)
    assert set(result["accuracy"]) == set(predictor_inputs.VARIANTS)
    assert all(0.0 <= a <= 1.0 for a in result["accuracy"].values())
    assert set(result["rounds"]) == {"xgb-margin[x]", "xgb-margin[x,f]"} and result["layers"] >= 1


def test_the_summary_averages_folds_then_seeds_and_ranks_the_variants():
    def record(dataset, seed, fold, best):
        accuracy = {v: 0.5 for v in predictor_inputs.VARIANTS}
        accuracy[best] = 0.5 + 0.1 * (fold + 1)
        return {"dataset": dataset, "seed": seed, "fold": fold, "accuracy": accuracy}

    records = [record("a", s, f, "hgb[x]") for s in (0, 1) for f in (0, 1)]
    records += [record("b", 0, f, "cascade") for f in (0, 1)]
    rows, ranks = predictor_inputs.summary(records)
    assert rows[0]["seeds"] == 2 and rows[0]["hgb[x]"] == pytest.approx((65.0, 0.0))
    assert rows[1]["seeds"] == 1 and np.isnan(rows[1]["cascade"][1])
    assert ranks["hgb[x]"] == pytest.approx((1 + 4) / 2)  # 1 on a; on b tied with four others for ranks 2-6
    assert ranks["cascade"] == pytest.approx((4 + 1) / 2)
    assert "| mean rank |" in predictor_inputs.markdown(rows, ranks)


@pytest.mark.slow
def test_the_command_writes_its_table_and_resumes(tmp_path):
    argv = ["--quick", "--n-jobs", "1", "--out", str(tmp_path)]
    assert predictor_inputs.main(argv) == 0
    records = read_records(tmp_path)
    assert [(r["dataset"], r["repeat"], r["fold"]) for r in records] == [
        ("mixed_categories", 0, 0),
        ("mixed_categories", 0, 1),
    ]
    assert "| mixed_categories | 1 |" in (tmp_path / "predictor_inputs.md").read_text()
    assert predictor_inputs.main(argv) == 0  # a rerun finds every fold done and fits nothing
    assert len(read_records(tmp_path)) == 2
