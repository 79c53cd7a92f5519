"""The ``save`` method of every estimator of mddf, and its pickle: the same bytes, checked whole before use."""

from __future__ import annotations

from ..storage import filled_in
from ..storage.saved import save
from ..storage.sealed import sealed_reduce


class SaveMixin:
    """``save(path)``: the estimator in one file that :func:`mddf.load` checks whole before it rebuilds anything.

    The file holds a header (a mark, the format version, the version of mddf, the digest algorithm), a SHA-256
    digest of the whole file and the estimator's pickle; a file that fails the checks is a
    :class:`mddf.ModelFileError` naming it and what is wrong. The estimator's pickle (``pickle.dumps``,
    ``copy.deepcopy``, joblib's workers) carries the same bytes and checks them when it is unpickled.
    """

    __reduce__ = sealed_reduce
    #: The kind of :data:`mddf.storage.EARLIER_LAYOUTS` whose attributes a fitted estimator of an earlier version
    #: lacks, beside a tabular estimator's (None: none).
    _layout_kind = None

    def __setstate__(self, state):
        """The state of a pickle; a fitted estimator of tabular input (one with a ``categorical_features`` parameter)
        of an earlier version gets what it lacks (:mod:`mddf.storage.layouts`), and what its ``_layout_kind`` lacks."""
        if "n_features_in_" in state and "categorical_features" in self._get_param_names():
            state = filled_in("tabular estimator", dict(state))
        if "n_features_in_" in state and self._layout_kind is not None:
            state = filled_in(self._layout_kind, dict(state))
        super().__setstate__(state)

    def save(self, path):
        """Write the estimator to the file ``path`` (a str or path), to be read back by :func:`mddf.load`.

        The file is written beside ``path`` under a temporary name and renamed, so an interrupted save leaves the
        earlier file (or none). An earlier model saved at ``path`` is replaced; any other file there is not
        (FileExistsError). Loading unpickles the file once its digest is checked: load only files you trust.
        """
        save(self, path)
