"""The cascades: the engine that grows layers, the two tasks' policies, and the estimators built on them.

- :mod:`.growth`: :class:`~.growth.CascadeGrowth`, the engine: layers one at a time, early stopping, the kept
  prefix; it returns a :class:`~.fitted.FittedCascade`, which the estimator holds; :mod:`.seam`: the types
  between the engine and a policy (the growth specification among them);
- :mod:`.policy`, :mod:`.margin_policy`, :mod:`.residual_policy`: what a task adds to the engine (the classifier's
  class vectors, margins and layer weights, Algorithm 2; the regressor's residuals); they only train;
- :mod:`.fitted`: the fitted cascade; :mod:`.replay`: its one pass through the kept layers and the visitors that
  read it (prediction, the stages, ``transform``); :mod:`.versions`: the version policy of pickled models;
- the steps before and after growth: :mod:`.pair_step` (pair features), :mod:`.final_predictor` (``predictor``),
  :mod:`.probing` (layer probes), :mod:`.screening` (confidence screening);
- the estimators: :mod:`.base` (what both share), :mod:`.classifier` (:class:`~.classifier.MDDFClassifier`),
  :mod:`.regressor` (:class:`~.regressor.CascadeForestRegressor`), :mod:`.search`
  (:class:`~.search.MDDFGridSearch`); :mod:`.layer_features` names the features a layer passes on;
- ``explain()``: :mod:`.attribution` composes the members' attributions through the layers, the mixture, the
  calibration and the predictor, as a visitor of the replay; :mod:`.background` keeps training rows at fit and
  centres the attributions on a background; :mod:`.explanation` explains rows in chunks and returns them.
"""

from .classifier import MDDFClassifier
from .regressor import CascadeForestRegressor
from .search import PAPER_PARAM_GRID, MDDFGridSearch

__all__ = ["PAPER_PARAM_GRID", "CascadeForestRegressor", "MDDFClassifier", "MDDFGridSearch"]
