"""Several regression targets in one cascade: what a 2-D ``y`` (n_samples, n_outputs) needs of the regressor.

A multi-output fit is the regression cascade with a vector where a one-target fit has a number
(:class:`mddf.cascade.residual_policy.ResidualPolicy` reads the shape of ``y``): the forests grow multi-output trees
(the squared error summed over the outputs, :mod:`mddf.trees.squared_error_multi`), XGBoost members fit the 2-D
target (one tree per target a round, its ``multi_strategy="one_output_per_tree"``), LightGBM members are one
regressor a target (:class:`mddf.blocks.lgbm_member.PerTargetLightGBM`), each member passes on its prediction of
every output (``n_members * n_outputs`` columns, member by member), and early stopping reads each row's squared error
averaged over the outputs (the layers' MSE and R^2 are averaged over the outputs too). This module checks the
parameters and members a multi-output fit does not support yet, and the shape of ``y``.
"""

from __future__ import annotations

import numpy as np

from ..blocks.member import as_member
from .multilabel import check_unsupported

#: The parameters a multi-output fit refuses, and the value it needs of each.
UNSUPPORTED = {
    "predictor": None,
    "target_statistics": None,
    "monotonic_cst": None,
    "member_weights": "equal",
}


def check_target_shape(y, name):
    """``y``'s shape; a one-line ``ValueError`` for a ``y`` of more than 2 dimensions or a 2-D ``y`` of one column or
    of none."""
    shape = np.asarray(y).shape  # through __array__: y may be any array-like
    if len(shape) > 2:
        raise ValueError(f"{name}: y has shape {shape}; expected (n_samples,) or (n_samples, n_outputs)")
    if len(shape) == 2 and shape[1] == 0:  # scikit-learn's check would call it "0 feature(s)"
        raise ValueError(
            f"{name}: y has shape {shape}, a 2-D y with no column: no target to fit; pass one target as a 1-D y, "
            "or several as columns"
        )
    if len(shape) == 2 and shape[1] == 1:
        raise ValueError(
            f"{name}: y has shape {shape}, a 2-D y with a single column; pass y.ravel() for one target, or "
            "several columns for several targets"
        )
    return shape


def check_multioutput_params(params, name):
    """Raise a one-line ``ValueError`` naming the first parameter or member a multi-output fit does not support:
    those of :data:`UNSUPPORTED`, a :class:`mddf.PairFeatures` instance (the named searches are not run with several
    targets) and a member whose kind does not declare several targets (:class:`mddf.blocks.member.Capabilities`; a
    regressor instance's are its ``target_tags.multi_output``)."""
    what = "a 2-D y (several targets)"
    check_unsupported(params, name, UNSUPPORTED, what)
    if params["pair_features"] is not None and not isinstance(params["pair_features"], str):
        raise ValueError(f"{name}: {what} is not supported with a PairFeatures search yet; set pair_features=None")
    named = [(f"forest_types[{j}]", kind) for j, kind in enumerate(params["forest_types"])]
    named += [(f"first_layer_members[{j}]", kind) for j, kind in enumerate(params["first_layer_members"])]
    for where, kind in named:
        if as_member(kind, "regression").capabilities().several_targets:
            continue
        if isinstance(kind, str):
            raise ValueError(f"{name}: {where} ({kind!r}) does not fit several targets; use members that do")
        raise ValueError(
            f"{name}: {where} ({type(kind).__name__}) does not fit several targets (its "
            "target_tags.multi_output is False); wrap it in sklearn.multioutput.MultiOutputRegressor"
        )
