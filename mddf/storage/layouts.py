"""The one table of earlier layouts: what objects that earlier versions of mddf pickled or wrote lack, and the value
with which each acts as it did then.

An object read back (unpickled, or loaded from a ``model_dir`` file) fills in what :data:`EARLIER_LAYOUTS` lists for
its kind and its state lacks, through :func:`filled_in`, in one place per kind: a block's and a fold model's
``__setstate__`` (:mod:`mddf.blocks`), a stored forest's ``__setstate__`` and :class:`~mddf.storage.StoredRecord`'s
load (:mod:`mddf.forests`), a fitted estimator of tabular input's ``__setstate__`` (:class:`mddf.utils.SaveMixin`)
and the cascade estimators' upgrade (:mod:`mddf.cascade.versions`, which names this table as part of the version
policy). The code that reads these attributes then reads them as they are.
"""

from __future__ import annotations

#: Kind of object -> the attributes an earlier layout of it may lack, and the value that acts as that version did.
EARLIER_LAYOUTS = {
    # a fitted estimator whose X may have categorical columns (it has a categorical_features parameter), fitted
    # before categorical columns: none, no encoder
    "tabular estimator": {"is_categorical_": None, "categories_": None, "_category_encoder": None},
    # the parameters of the cascade estimators pickled before them (up to commit b7a5885 and the pickles of
    # tests/mddf/data): no background kept, no probe, no calibration, no pair features, no target statistics, no
    # monotone constraints, as many trees in every layer, the members' equal mean
    "MDDFClassifier": {
        "background_rows": 100,
        "probe_trees": None,
        "calibration": None,
        "pair_features": None,
        "target_statistics": None,
        "monotonic_cst": None,
        "later_layer_trees": None,
        "member_weights": "equal",
        "final_mixture": "cascade",  # the cascade's own output
        "first_layer_members": (),
    },
    "CascadeForestRegressor": {
        "background_rows": 100,
        "probe_trees": None,
        "pair_features": None,
        "target_statistics": None,
        "monotonic_cst": None,
        "later_layer_trees": None,
        "member_weights": "equal",
        "target": "y",  # its layers fitted y
        "final_mixture": "cascade",  # the last layer's mean
        "first_layer_members": (),
    },
    # a fitted regressor pickled before target="y" fitted y less its mean: nothing to add back to its outputs
    "fitted CascadeForestRegressor": {"target_offset_": 0.0},
    # a fitted PCAFeatures or PairFeatures pickled before the kinds of its columns were kept: none checked
    "appended features": {"_fit_kinds": None},
    # a fitted cascade (mddf.cascade.fitted.FittedCascade) of layout 1 pickled before final_mixture: the cascade's
    # own output
    "fitted cascade, layout 1": {"selection_weights": None},
    # a block (mddf.blocks.base.BlockBase) pickled before fold_trees, the probe, target statistics and member weights
    "block": {
        "fold_trees": "all",
        "probe_trees": None,
        "probe_": None,
        "_waiting": None,
        "target_statistics": None,
        "statistics_": None,
        "member_weights_": None,  # the members' equal mean
    },
    # a fitted member other than a forest (mddf.blocks.members.FoldModel) pickled before its place and its importance
    # scale were recorded
    "fold model": {"where": None, "importance_scale": 1.0},
    # a forest (mddf.forests.StoredForest) fitted before its splits' training-weight shares were stored: it predicts,
    # and explain() says that it cannot explain it
    "stored forest": {"left_shares": None},
}


def filled_in(kind, state):
    """``state`` (a dict of an object of ``kind``, a key of :data:`EARLIER_LAYOUTS`), with each attribute that the
    table lists for ``kind`` and the state lacks set to its value; changed in place and returned."""
    for name, value in EARLIER_LAYOUTS[kind].items():
        state.setdefault(name, value)
    return state
