"""The DeepBoost paper's grids and tables (Section 4): what the runner's deepboost suite and the boosting study use."""

import pytest

from mddf.experiments.protocols.deepboost import PAPER_N_ITER, TABLE_ALGORITHMS, paper_grid


def test_paper_grids_have_the_papers_sizes_and_values():
    assert PAPER_N_ITER == 100
    # Table 1: AdaBoost over H1 and H2 stumps, AdaBoost-L1 over 7 betas, DeepBoost over 7 x 6.
    assert [len(paper_grid(1, a)) for a in TABLE_ALGORITHMS[1]] == [1, 1, 7, 42]
    assert sorted({p["beta"] for p in paper_grid(1, "AdaBoost-L1")}) == [2.0**-i for i in range(6, -1, -1)]
    assert sorted({p["lam"] for p in paper_grid(1, "DeepBoost")}) == [0.0001, 0.005, 0.01, 0.05, 0.1, 0.5]
    assert all(p["base"] == "stumps" for p in paper_grid(1, "DeepBoost"))
    # Tables 2-3: K in 1..6; beta, lambda in 10^-3..10^-7.
    for table, names in ((2, ("AdaBoost", "AdaBoost-L1", "DeepBoost")), (3, ("LogReg", "LogReg-L1", "DeepBoost"))):
        assert TABLE_ALGORITHMS[table] == names
        grids = [paper_grid(table, a) for a in names]
        assert [len(g) for g in grids] == [6, 30, 150]
        loss = "exponential" if table == 2 else "logistic"
        assert all(p["loss"] == loss for g in grids for p in g)
        assert all(p["lam"] == p["beta"] == 0.0 for p in grids[0])
        assert all(p["lam"] == 0.0 < p["beta"] for p in grids[1])
        assert sorted({p["lam"] for p in grids[2]}) == [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]
        assert sorted({p["max_depth"] for p in grids[2]}) == [1, 2, 3, 4, 5, 6]


def test_unknown_table_or_algorithm_is_rejected():
    with pytest.raises(ValueError, match="table"):
        paper_grid(4, "DeepBoost")
    with pytest.raises(ValueError, match="unknown algorithm 'LogReg'"):
        paper_grid(2, "LogReg")
