"""A table whose label is a ratio of two of its columns: the loans the pair features' tests read."""

import numpy as np
import pandas as pd


def loan_table(n, seed=0):
    """``(X, rate)``: ``amount``, ``colour`` (a category), ``noise`` and ``instalment = amount * rate``, the rate
    uniform in [0.02, 0.06]: the label is the ratio instalment / amount, which neither column carries alone."""
    rng = np.random.default_rng(seed)
    amount = np.exp(rng.uniform(np.log(1_000), np.log(40_000), n))
    rate = rng.uniform(0.02, 0.06, n)
    X = pd.DataFrame(
        {
            "amount": amount,
            "colour": pd.Categorical(rng.choice(["red", "green"], size=n)),
            "noise": rng.standard_normal(n),
            "instalment": amount * rate,
        }
    )
    return X, rate
