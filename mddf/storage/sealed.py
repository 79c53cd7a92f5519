"""Pickles of fitted estimators whose whole state is checked before any of it is rebuilt.

A cascade estimator pickles as a call of :func:`open_sealed` on three blocks of bytes (:func:`sealed_reduce`, its
``__reduce__``): the pickle of its class and its state (``__getstate__``), its class's name (for messages) and the
SHA-256 of the two. Unpickling checks the hash before it unpickles the state, so that a byte changed anywhere in the
three is a :class:`ModelFileError` naming the damage, and no damaged array, tree or booster ever reaches numpy, the
compiled tree code or XGBoost.

Inside the state, XGBoost's boosters are kept as their model bytes (``Booster.save_raw``, UBJSON) and their
configuration (``Booster.save_config``), and rebuilt by ``Booster.load_model(bytearray)`` and ``load_config``
(:func:`dumps`): XGBoost's own pickle of a booster is a snapshot of its memory, its model bytes the format other
versions of XGBoost read. The members a ``model_dir`` folder holds are pickled so too (their files are hashed by
the records of :mod:`.records`).

What the hash cannot cover is the outer pickle around the three blocks: its opcodes, the lengths they read and the
name of :func:`open_sealed`, 75 bytes whatever the model's size. A byte changed there is an error of Python's
``pickle`` module (``UnpicklingError``, ``UnicodeDecodeError``, ``ValueError``, ``OverflowError``, ...) or of the
name it looks up (``ModuleNotFoundError``, ``AttributeError``), not a ``ModelFileError``; in the few bytes that
nothing reads (a frame's length, the protocol number 4 read as 5) it changes nothing, and the model loads intact.
``tests/mddf/storage/test_sealed.py`` flips each of those bytes. Keep a checksum of the whole file to catch those
too. The pickle costs the memory of the state twice while it is written and read.

Pickles of earlier versions hold the state itself and load as they did, the forests checking their own arrays
(:class:`mddf.forests.StoredForest`).
"""

from __future__ import annotations

import hashlib
import io
import pickle
import sys

from .files import ModelFileError


def _is_booster(obj):
    """Whether ``obj`` is an XGBoost ``Booster`` (never when XGBoost was not imported: then none exists)."""
    xgboost = sys.modules.get("xgboost")
    return xgboost is not None and isinstance(obj, xgboost.Booster)


class _StatePickler(pickle.Pickler):
    """A pickler that writes XGBoost's boosters as their model bytes and configuration (:func:`booster_from_raw`)."""

    def reducer_override(self, obj):
        if _is_booster(obj):
            return booster_from_raw, (bytes(obj.save_raw(raw_format="ubj")), obj.save_config())
        return NotImplemented


def dumps(obj):
    """The pickle of ``obj`` (highest protocol), its XGBoost boosters as model bytes and configuration."""
    buffer = io.BytesIO()
    _StatePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def booster_from_raw(model, config):
    """An XGBoost ``Booster`` from its model bytes (UBJSON, ``save_raw``) and its configuration (``save_config``)."""
    from xgboost import Booster

    booster = Booster()
    booster.load_model(bytearray(model))
    booster.load_config(config)
    return booster


def sealed_reduce(obj):
    """``obj.__reduce__()`` of a sealed pickle: :func:`open_sealed` and its arguments (see the module)."""
    block, name = dumps((type(obj), obj.__getstate__())), type(obj).__name__.encode()
    return open_sealed, (block, name, _sha256(block, name))


def _sha256(block, name):
    """The SHA-256 of a sealed pickle (32 bytes): of the class name of its messages, then of its block."""
    return hashlib.sha256(name + b"\0" + block).digest()


def open_sealed(block, name, sha256):
    """The object of a sealed pickle: ``block`` checked against ``sha256`` (with ``name``, the class name of the
    messages; all three bytes), then unpickled into an instance of the class it names, through the class's
    ``__setstate__``.

    Raises :class:`ModelFileError` (its ``path`` "the pickled <name>") when the block or the name does not match
    the hash, before anything is unpickled, and when the intact block cannot be unpickled here (a class or module
    missing from this environment: the error says which).
    """
    if not all(isinstance(value, bytes) for value in (block, name, sha256)):
        raise ModelFileError("a pickled mddf model", "its state is not three blocks of bytes: the pickle is damaged")
    what = f"the pickled {name.decode('ascii', 'replace')}"
    found = _sha256(block, name)
    if found != sha256:
        raise ModelFileError(
            what,
            f"its state ({len(block)} bytes) does not match the SHA-256 taken when it was pickled (found "
            f"{found.hex()}, expected {sha256.hex()}): the pickle is damaged, a byte changed, lost or added; "
            "nothing of it was loaded",
        )
    try:
        cls, state = pickle.loads(block)
    except ModelFileError:
        raise
    except Exception as exc:  # the bytes are the ones pickled: what fails is this environment (a class, a module)
        problem = f"its state is intact but cannot be loaded here: {type(exc).__name__}: {exc}"
        raise ModelFileError(what, problem) from exc
    obj = cls.__new__(cls)
    obj.__setstate__(state)
    return obj
