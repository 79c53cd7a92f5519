"""Per-layer outputs of a transformer whose ``transform`` takes a ``layer``: column names and ``set_output``."""

import functools
import inspect

import numpy as np
from sklearn.utils._set_output import ADAPTERS_MANAGER, _get_output_config, _SetOutputMixin
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted


def _layer_output(method):
    """Wrap ``transform``/``fit_transform`` into the container ``set_output`` asks for, named for its layer.

    scikit-learn's own wrapper names the columns with ``get_feature_names_out()``,
    i.e. always those of the last kept layer; here they are those of the layer
    the call asked for.
    """
    signature = inspect.signature(method)

    @functools.wraps(method)
    def wrapped(self, X, *args, **kwargs):
        data = method(self, X, *args, **kwargs)
        dense = _get_output_config("transform", self)["dense"]
        if dense == "default":
            return data
        layer = signature.bind(self, X, *args, **kwargs).arguments.get("layer")
        # the out-of-fold rows of fit_transform are fewer than X's with validation_fraction: no row index then
        original = X if len(data) == len(X) else None
        return ADAPTERS_MANAGER.adapters[dense].create_container(
            data, original, columns=lambda: self.get_feature_names_out(layer=layer)
        )

    return wrapped


class LayerOutputMixin:
    """``get_feature_names_out`` and ``set_output`` for a transformer whose ``transform`` takes a ``layer``.

    The subclass implements ``_layer_feature_names(layer)`` (``layer`` 1-based or
    None for the last kept layer) and has ``transform(X, layer=None)`` and
    ``fit_transform(X, y, layer=None, ...)``; both return a DataFrame named after
    the layer asked for under ``set_output(transform="pandas")`` (or
    ``"polars"``). Put it before scikit-learn's ``TransformerMixin`` in the bases.
    """

    def __init_subclass__(cls, **kwargs):
        if issubclass(cls, _SetOutputMixin):
            # scikit-learn's wrapper would name every layer's columns after the last one: wrap here instead
            kwargs.setdefault("auto_wrap_output_keys", None)
            super().__init_subclass__(**kwargs)
            cls._sklearn_auto_wrap_output_keys = {"transform"}  # set_output stays available
        else:  # a mixin
            super().__init_subclass__(**kwargs)
        for name in ("transform", "fit_transform"):
            if name in cls.__dict__:
                setattr(cls, name, _layer_output(cls.__dict__[name]))

    def get_feature_names_out(self, input_features=None, *, layer=None):
        """Names of the columns :meth:`transform` returns for a kept layer.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Checked against ``feature_names_in_`` (or ``n_features_in_``) as
            scikit-learn does; the names do not depend on it.
        layer : int or None, default=None
            1-based kept layer; None is the last one (what ``transform(X)`` and
            ``fit_transform(X, y)`` return, and so what a ``Pipeline`` passes on).

        Returns
        -------
        ndarray of str objects
            One name per column, starting with ``layer<t>_`` (see the class's
            ``oof_features_`` for the scheme).
        """
        check_is_fitted(self)
        _check_feature_names_in(self, input_features, generate_names=False)
        return np.asarray(self._layer_feature_names(layer), dtype=object)
