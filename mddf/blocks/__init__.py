"""One cascade layer: a block of members, each cross-fitted on k folds (or out of bag), so that every training row
gets an out-of-fold output (Algorithm 1 of Lv, Yang and Zhou).

- :mod:`.base`: what both tasks' blocks share: folds, seeds, parallel fits, storage of the fitted models,
  prediction with the fold models, probes;
- :mod:`.classifier`: :class:`~.classifier.ForestBlock`, the classification block (class vectors; D_t by
  resampling or sample weights);
- :mod:`.regressor`: :class:`~.regressor.RegressionForestBlock` (each member's prediction);
- :mod:`.members`: the members that are not mddf's forests (XGBoost, any scikit-learn estimator) and their fold
  models; :mod:`.staged_boosting`: an XGBoost member fitted in stages (layer probes);
- :mod:`.attribution`: each member's output attributed to the block's input columns, averaged over its fold models,
  and the rules that carry attributions through a map (the rescale rule, the softmax).
"""

from .classifier import ForestBlock
from .regressor import RegressionForestBlock

__all__ = ["ForestBlock", "RegressionForestBlock"]
