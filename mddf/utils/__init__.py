"""What the estimators of mddf and of :mod:`mddf.baselines` share, for estimators of your own too.

- input checks: :func:`check_sample_weight`, :func:`check_label_types` and
  :func:`check_weighted_classes`, on top of scikit-learn's own, with errors
  that name the estimator;
- tabular input: :func:`validate_tabular`, scikit-learn's ``validate_data``
  with categorical columns (pandas categories, strings, or the columns
  ``categorical_features`` names) encoded as ordinal codes, and
  :data:`CATEGORICAL_FEATURES_CONSTRAINT`, the ``_parameter_constraints`` entry
  of that parameter, and :data:`N_JOBS_CONSTRAINT`, that of ``n_jobs`` (0 and absurd counts refused);
  :func:`check_columns`, its check of the columns no estimator reads (dates, times
  and durations, of a DataFrame or an array; a DataFrame's duplicate names and lists),
  for input that is not tabular; :func:`is_dataframe` and :func:`mask_from_spec`, the columns a
  ``categorical_features`` mask, indices or names declare; :func:`column_kind`, how a DataFrame's column is read
  (numbers, categories, strings), and :func:`is_missing_value`;
- sample weights: :func:`rescaled_weights`, validated weights at a scale near 1, their ratios kept;
- layer outputs: :class:`LayerOutputMixin`, ``get_feature_names_out`` and
  ``set_output`` for a transformer whose ``transform`` returns the features of
  one of its layers;
- saved models: :class:`SaveMixin`, the ``save(path)`` method that :func:`mddf.load` reads back, and a pickle
  checked whole before it is rebuilt;
- layer growth: :class:`EarlyStopping`, the rule by which the cascades stop
  adding layers, to replay it on recorded scores, with the scores it monitors (:data:`ACCURACY`, from
  :func:`weighted_accuracy`, and :data:`NEGATIVE_MSE`, from :func:`squared_errors`);
- threads: :func:`thread_limits`, threadpoolctl's ``threadpool_limits`` without
  searching the process's libraries at every call;
- the installation: :func:`compiled_tree_code`, whether the tree code runs
  built ahead of time or is compiled by numba on first use.

It belongs to the lowest layer of mddf, with the paper's equations and the
model files (whose saved-model format it uses), and imports nothing from the layers above (see :mod:`mddf`).
"""

from .._runtime.dispatch import state as _state
from .._runtime.threads import thread_limits
from ._layer_output import LayerOutputMixin
from ._saving import SaveMixin
from ._stopping import ACCURACY, NEGATIVE_MSE, EarlyStopping, squared_errors, weighted_accuracy
from ._tabular import (
    CATEGORICAL_FEATURES_CONSTRAINT,
    check_columns,
    column_kind,
    decoded_rows,
    is_dataframe,
    is_missing_value,
    mask_from_spec,
    validate_tabular,
)
from ._validation import (
    N_JOBS_CONSTRAINT,
    check_label_types,
    check_sample_weight,
    check_weighted_classes,
    rescaled_weights,
)


def compiled_tree_code() -> str:
    """How this installation runs the tree code: ``"built ahead of time"`` (a wheel built with ``MDDF_AOT=1``, or
    ``python -m mddf._ahead_of_time.build`` after installing), or ``"numba's JIT (...)"`` with the reason (no
    module built, one built from other sources, or ``MDDF_AHEAD_OF_TIME=0``): numba then compiles each kind of
    input's code on its first fit, once, and caches it."""
    return _state()


__all__ = [
    "ACCURACY",
    "CATEGORICAL_FEATURES_CONSTRAINT",
    "EarlyStopping",
    "LayerOutputMixin",
    "NEGATIVE_MSE",
    "N_JOBS_CONSTRAINT",
    "SaveMixin",
    "check_columns",
    "check_label_types",
    "check_sample_weight",
    "column_kind",
    "decoded_rows",
    "check_weighted_classes",
    "compiled_tree_code",
    "is_dataframe",
    "is_missing_value",
    "mask_from_spec",
    "rescaled_weights",
    "squared_errors",
    "thread_limits",
    "validate_tabular",
    "weighted_accuracy",
]
