"""The DeepBoost paper's protocol (Cortes, Mohri and Syed 2014, Section 4; its folds:
:func:`~mddf.experiments.protocols.deepboost_folds`): its grids (:func:`paper_grid`) and the algorithms of its
Tables 1-3."""

from __future__ import annotations

#: Boosting rounds in every experiment of the paper.
PAPER_N_ITER = 100

#: Table 1 grids: beta in {2^-i : i = 6..0}; lambda in {0.0001, 0.005, 0.01, 0.05, 0.1, 0.5}.
STUMP_BETAS = tuple(2.0**-i for i in range(6, -1, -1))
STUMP_LAMBDAS = (0.0001, 0.005, 0.01, 0.05, 0.1, 0.5)
#: Tables 2-3 grids: K in 1..6; beta and lambda in {10^-i : i = 3..7}.
TREE_DEPTHS = tuple(range(1, 7))
TREE_PENALTIES = tuple(10.0**-i for i in range(3, 8))

#: Algorithms of each table, in the paper's column order.
TABLE_ALGORITHMS = {
    1: ("AdaBoost H1", "AdaBoost H2", "AdaBoost-L1", "DeepBoost"),
    2: ("AdaBoost", "AdaBoost-L1", "DeepBoost"),
    3: ("LogReg", "LogReg-L1", "DeepBoost"),
}


def paper_grid(table, algorithm, *, depths=TREE_DEPTHS, penalties=TREE_PENALTIES, stump_betas=STUMP_BETAS,
               stump_lambdas=STUMP_LAMBDAS):  # fmt: skip
    """The :class:`~mddf.baselines.DeepBoostClassifier` settings searched for ``algorithm`` (of
    ``TABLE_ALGORITHMS[table]``) in Table ``table`` of the paper: 1, boosted stumps; 2, trees with the exponential loss;
    3, with the logistic loss. The grids default to the paper's."""
    if table not in TABLE_ALGORITHMS:
        raise ValueError(f"table must be 1, 2 or 3, got {table!r}")
    if algorithm not in TABLE_ALGORITHMS[table]:
        raise ValueError(f"unknown algorithm {algorithm!r} for table {table}; known: {TABLE_ALGORITHMS[table]}")
    if table == 1:
        base = {"base": "stumps", "loss": "exponential"}
        if algorithm == "AdaBoost H1":
            return [{"base": "trees", "max_depth": 1, "loss": "exponential", "lam": 0.0, "beta": 0.0}]
        if algorithm == "AdaBoost H2":
            return [{**base, "lam": 0.0, "beta": 0.0}]
        if algorithm == "AdaBoost-L1":
            return [{**base, "lam": 0.0, "beta": b} for b in stump_betas]
        return [{**base, "lam": lam, "beta": b} for b in stump_betas for lam in stump_lambdas]
    loss = "exponential" if table == 2 else "logistic"
    base = {"base": "trees", "loss": loss}
    if algorithm in ("AdaBoost", "LogReg"):
        return [{**base, "max_depth": k, "lam": 0.0, "beta": 0.0} for k in depths]
    if algorithm in ("AdaBoost-L1", "LogReg-L1"):
        return [{**base, "max_depth": k, "lam": 0.0, "beta": b} for k in depths for b in penalties]
    return [{**base, "max_depth": k, "lam": lam, "beta": b} for k in depths for b in penalties for lam in penalties]
