"""The one version policy of fitted cascades: the layouts it knows are upgraded here, the others refused in one line.

A fitted estimator's pickle holds its parameters, what its validation learned of the columns and its
:class:`~mddf.cascade.fitted.FittedCascade` (``fitted_cascade_``). Two layouts are known:

- layout 2 (:data:`LAYOUT`), this one: the fitted cascade holds its task's head and its steps after the layers;
- layout 1, the fitted cascade of before them (its fields: ``classes``, ``shares``, ``alphas``, ``thresholds``,
  ``passed_features``, ``residual``, ``calibration``, ``predictor_model``, ``predictor``, ``predictor_input``,
  ``predictor_weight``, ``selection_weights``), upgraded when it is unpickled (:meth:`mddf.cascade.fitted.
  FittedCascade.__setstate__` gives the upgrade);
- the loose layout of mddf 0.2.0.dev0 before the fitted cascade (up to commit b7a5885 and the pickles of
  ``tests/mddf/data``): the fitted attributes directly on the estimator (``layers_``, ``layer_shares_``, ...),
  some absent from the earliest pickles. :func:`upgraded_estimator_state` builds the fitted cascade from them,
  with what those versions did where an attribute is missing (no calibration, no pair features, no screening,
  the predictor's weight 1, the models in memory, no background, a regressor fitting y).

A fitted cascade of a layout this mddf does not know (a newer mddf's) is refused when it is unpickled, by a
``ValueError`` of one line that names the version of mddf that saved it (its own record, else the saved file's
header: :func:`mddf.storage.saved_by`), as scikit-learn's ``InconsistentVersionWarning`` names the version of a
pickle.

The policy has three parts; no other code falls back on an attribute's absence (tests/test_attribute_fallbacks.py):

- this module: the fitted cascade's layout, checked, and the loose layout upgraded to it;
- the one table of what objects of earlier versions lack and the value that acts as they did,
  :data:`mddf.storage.EARLIER_LAYOUTS`: the estimators' parameters (filled in here), the columns' encoding of a
  fitted estimator (:class:`mddf.utils.SaveMixin`), and the objects below the cascade, each filling in its own
  entry when it is read back, through :func:`mddf.storage.filled_in` (a block's and a fold model's
  ``__setstate__``, a stored forest's ``__setstate__`` and a ``model_dir`` file's load); they are filled in
  wherever the object comes from (an estimator's pickle, a ``model_dir`` file, a pickle of its own), and the
  lower packages need not import this one;
- :mod:`mddf._pickle_compat`: the modules whose classes moved, answered for the unpickler (which needs them before
  any object exists)."""

from __future__ import annotations

import sys

from ..storage import MemoryStore, filled_in, saved_by
from .replay import LayerRoute
from .seam import Columns

#: The layout of a fitted cascade (:class:`mddf.cascade.fitted.FittedCascade`) this mddf writes and reads.
LAYOUT = 2


def running_version():
    """The running mddf's version (read from the package: mddf's top module is above this one)."""
    return sys.modules[__name__.partition(".")[0]].__version__


def checked_layout(state, upgrades):
    """The state of a pickled :class:`~mddf.cascade.fitted.FittedCascade`, checked: of this layout, or of an earlier
    one that ``upgrades`` (layout -> the function that returns its state in this layout) upgrades, what it lacks
    filled in first (:data:`mddf.storage.EARLIER_LAYOUTS`); else a ``ValueError`` naming the version of mddf that
    saved it."""
    layout = state.get("layout")
    if layout != LAYOUT and layout not in upgrades:
        version = state.get("mddf_version") or saved_by() or "unknown"
        raise ValueError(
            f"this model was saved by mddf {version} (fitted-cascade layout {layout!r}), which mddf "
            f"{running_version()} cannot read (it reads layout {LAYOUT}): load it with mddf {version}, or fit it again"
        )
    if state.get("store") is None:  # pickled when in-memory models had no store
        state["store"] = MemoryStore()
    if layout in upgrades:
        return upgrades[layout](filled_in(f"fitted cascade, layout {layout}", state))
    return state


def upgraded_estimator_state(state, classification, name, fitted_cascade):
    """A cascade estimator's unpickled ``state`` (its ``__dict__``, changed in place and returned) in this layout: the
    parameters an earlier version lacks filled in (:data:`mddf.storage.EARLIER_LAYOUTS`, under the task's estimator),
    and a loose layout's fitted attributes gathered into a ``fitted_cascade_`` by ``fitted_cascade``
    (:meth:`mddf.cascade.fitted.FittedCascade.of`; see the module); an unfitted estimator's, or this layout's, as it
    is."""
    filled_in("MDDFClassifier" if classification else "CascadeForestRegressor", state)
    if not classification and ("layers_" in state or "fitted_cascade_" in state):
        filled_in("fitted CascadeForestRegressor", state)
    if "layers_" not in state or "fitted_cascade_" in state:
        return state
    fitted = fitted_cascade(
        state,
        name=name,
        columns=Columns.of(_Namespace(state)),
        route=LayerRoute(state.get("input_features", "preconc")),
        classes=state.get("classes_") if classification else None,
        passed_features=state.get("passed_features", "mean"),
        residual=state.get("target") == "residual",
        version=saved_by() or "0.2.0.dev0",
    )
    state.pop("_model_store", None)
    state.pop("_predictor_model", None)
    state["fitted_cascade_"] = fitted
    return state


class _Namespace:
    """The attributes of a pickled state, for :meth:`mddf.cascade.seam.Columns.of`."""

    def __init__(self, state):
        self.__dict__.update(state)
