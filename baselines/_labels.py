"""How the baselines show class labels in their messages."""

import numpy as np


def plain_label(label):
    """A class label as Python prints it (``0``, ``'a'``), not as NumPy's repr (``np.int64(0)``)."""
    return label.item() if isinstance(label, np.generic) else label
