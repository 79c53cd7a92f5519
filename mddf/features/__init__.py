"""Features appended to x before the first layer: transformers, and steps of the cascades.

- :mod:`.pairs`: :class:`~.pairs.PairFeatures`, log-ratios, products (and differences) of the numeric column pairs
  that probe trees read better than the two columns, found by :mod:`.pair_search`;
- :mod:`.rotation`: :class:`~.rotation.PCAFeatures`, principal directions of the numeric columns;
- :mod:`.appended`: what the two transformers share (input checks, the numeric columns, signed logs).
"""

from .pairs import PairFeatures
from .rotation import PCAFeatures

__all__ = ["PCAFeatures", "PairFeatures"]
