"""A user's table as the command line receives it: a CSV with a category column, empty cells and text labels."""

import numpy as np
import pandas as pd


def write_user_csv(path, n_rows=300, seed=0, labels=("no", "maybe", "yes")):
    """``x1, x2, colour, size, y``: 10% of each feature's cells empty, ``colour`` text, ``y`` text labels."""

    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n_rows)
    x1, x2 = rng.normal(size=n_rows), rng.normal(size=n_rows)
    score = x1 + 1.5 * (colour == "red") - 0.5 * x2
    y = np.where(score > 0.5, labels[2], np.where(score > -0.5, labels[1], labels[0]))
    frame = pd.DataFrame({"x1": x1, "x2": x2, "colour": colour, "size": rng.integers(0, 5, n_rows), "y": y})
    for column in ("x1", "x2", "colour", "size"):
        frame[column] = frame[column].astype(object)
        frame.loc[rng.random(n_rows) < 0.1, column] = None
    frame.to_csv(path, index=False)
    return path
