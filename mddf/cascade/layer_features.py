"""What the cascades share as transformers: their kept layers' augmented features and the names of their columns."""

from numbers import Integral

from ..utils import LayerOutputMixin


def member_name(kind):
    """The name of a block member in feature names: its kind (``"rf"``, ``"crf"``, ...) or its class, lower case."""
    return kind if isinstance(kind, str) else type(kind).__name__.lower()


def checked_layer(layer, n_layers):
    """The 1-based kept layer ``layer`` names (None: the last, ``n_layers``), as an int; a ValueError otherwise."""
    if layer is None:
        return n_layers
    if not isinstance(layer, Integral) or not 1 <= layer <= n_layers:
        raise ValueError(f"layer must be an integer in [1, {n_layers}] (the kept layers), got {layer!r}")
    return int(layer)


class LayerFeaturesMixin(LayerOutputMixin):
    """``fit_transform`` returning out-of-fold layer features, the ``layer`` check, and the tags.

    For a cascade with ``n_layers_`` and ``oof_features_`` (the augmented features of the
    training rows per kept layer, each from models that never saw the row). Put it before
    scikit-learn's ``TransformerMixin`` in the bases so that its ``fit_transform`` is used.
    """

    def _check_layer(self, layer):
        return checked_layer(layer, self.n_layers_)

    def fit_transform(self, X, y, layer=None, sample_weight=None):
        """Fit, then return the out-of-fold augmented features of a kept layer (no leakage).

        Unlike ``fit(X, y).transform(X)``, every row's features come from models
        that never saw that row, so they are safe to train a downstream model on.
        ``layer`` is 1-based (None: the last kept layer); ``sample_weight`` is passed
        to ``fit``; rows of weight 0 get features too. The columns are named by
        ``get_feature_names_out(layer=layer)``.
        """
        self.fit(X, y, sample_weight=sample_weight)
        return self.oof_features_[self._check_layer(layer) - 1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = ["float32"]  # features are float32 whatever the input
        return tags
