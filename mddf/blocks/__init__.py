"""One cascade layer: a block of members, each cross-fitted on k folds (or out of bag), so that every training row
gets an out-of-fold output (Algorithm 1 of Lv, Yang and Zhou).

- :mod:`.base`: what both tasks' blocks share: folds, seeds, parallel fits, storage of the fitted models,
  prediction with the fold models, probes;
- :mod:`.classifier`: :class:`~.classifier.ForestBlock`, the classification block (class vectors; D_t by
  resampling or sample weights);
- :mod:`.regressor`: :class:`~.regressor.RegressionForestBlock` (each member's prediction);
- :mod:`.member`: the member protocol, what a block asks of each member (its fit on a fold's rows, its prediction,
  attributions, importances, storage), and the registry of the member kinds, one class each:
  :mod:`.forest_member` (the forests the block grows), :mod:`.members` (any scikit-learn estimator, and its fold
  models), :mod:`.boosted_member` (XGBoost; :mod:`.staged_boosting`: fitted in stages for layer probes),
  :mod:`.lgbm_member` (LightGBM), :mod:`.catboost_member` (CatBoost);
- :mod:`.attribution`: each member's output attributed to the block's input columns, averaged over its fold models,
  and the rules that carry attributions through a map (the rescale rule, the softmax).
"""

# the built-in member kinds register themselves, in this order (mddf.blocks.member)
from . import forest_member, members, boosted_member, lgbm_member, catboost_member  # noqa: F401, I001  isort: skip
from .classifier import ForestBlock
from .regressor import RegressionForestBlock

__all__ = ["ForestBlock", "RegressionForestBlock"]
