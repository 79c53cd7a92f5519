"""A fitted estimator as one block of bytes checked whole before any of it is rebuilt: the saved model's format.

The same bytes are the file that ``save(path)`` writes and :func:`mddf.load` reads (:mod:`.saved`) and what an
estimator's pickle carries (:func:`sealed_reduce`, its ``__reduce__``: a call of :func:`unseal` on them). Layout,
integers little-endian:

- :data:`MAGIC` (9 bytes; a byte above 127 and a CR LF pair, so that a transfer that strips the high bit or
  rewrites line ends changes it), the format version :data:`SAVED_FORMAT` (uint32);
- three short texts, each a uint8 length and ASCII: the version of mddf that saved it, the name of the digest
  algorithm (``"sha256"``) and the class of the saved estimator (for messages);
- the payload's length (uint64), the digest, the payload: the estimator's pickle (:func:`dumps`).

The digest is taken over every byte before it and the payload, so that a byte changed, lost or added anywhere in
the file is a :class:`ModelFileError` naming the damage before anything is unpickled; a file of another format
version is one too, saying whether it verifies as a newer mddf's. In the payload XGBoost's boosters are kept as
their model bytes (``Booster.save_raw``, UBJSON) and their configuration (``Booster.save_config``), rebuilt by
``Booster.load_model(bytearray)`` and ``load_config`` (:func:`booster_from_raw`): XGBoost's own pickle of a booster
is a snapshot of its memory, its model bytes the format other versions of XGBoost read. Estimators within the
saved one (a grid search's cascades, gcForest's scanner) are pickled plainly inside it: the digest covers them.

A pickle cannot be checked whole: the outer pickle around the bytes (its opcodes, the bytes' length and the name
of :func:`unseal`: at most 64 bytes with the default protocol) is read by Python's ``pickle`` before :func:`unseal`
runs, so a byte changed there is an error of ``pickle`` (``UnpicklingError``, ``OverflowError``,
``ModuleNotFoundError``, ...), or changes nothing. A saved file has no such bytes. Pickles of earlier versions
(:func:`open_sealed`, or the state itself) load as they did.
"""

from __future__ import annotations

import contextvars
import copyreg
import hashlib
import io
import pickle
import struct
import sys

from .files import InvalidStoredArrays, ModelFileError

#: The first bytes of a saved model.
MAGIC = b"\x89MDDF\r\n\x1a\n"
#: The version of the saved models' format this mddf writes and reads.
SAVED_FORMAT = 1
#: Digest algorithm name -> its hashlib constructor.
DIGESTS = {"sha256": hashlib.sha256}
_DIGEST = "sha256"


def _is_booster(obj):
    """Whether ``obj`` is an XGBoost ``Booster`` (never when XGBoost was not imported: then none exists)."""
    xgboost = sys.modules.get("xgboost")
    return xgboost is not None and isinstance(obj, xgboost.Booster)


class _StatePickler(pickle.Pickler):
    """A pickler that writes XGBoost's boosters as their model bytes and configuration (:func:`booster_from_raw`)
    and the estimators that pickle sealed as plain objects (their class and ``__getstate__``)."""

    def reducer_override(self, obj):
        if _is_booster(obj):
            return booster_from_raw, (bytes(obj.save_raw(raw_format="ubj")), obj.save_config())
        if getattr(type(obj), "__reduce__", None) is sealed_reduce:
            return copyreg.__newobj__, (type(obj),), obj.__getstate__()
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


def _mddf_version():
    """The running mddf's version: read from the package, not imported (mddf's top module is above storage)."""
    return sys.modules[__name__.partition(".")[0]].__version__


def _text(value):
    data = value.encode("ascii", "replace")[:255]
    return bytes([len(data)]) + data


def seal(obj):
    """The saved-model bytes of ``obj`` (see the module): header, digest, payload."""
    return b"".join(seal_parts(obj))


def seal_parts(obj):
    """The saved-model bytes of ``obj`` in three parts, ``(header, digest, payload)``, to be written one by one."""
    payload = dumps(obj)
    head = (
        MAGIC
        + struct.pack("<I", SAVED_FORMAT)
        + _text(_mddf_version())
        + _text(_DIGEST)
        + _text(type(obj).__name__)
        + struct.pack("<Q", len(payload))
    )
    digest = DIGESTS[_DIGEST](head)
    digest.update(payload)
    return head, digest.digest(), payload


class _Header:
    """The fields of a saved model's header, read from ``data`` (:class:`ModelFileError` naming ``where`` when
    the bytes end inside it); of another format version only the version, unless ``any_format``."""

    def __init__(self, data, where, any_format=False):
        self.data, self.where, self.at = data, where, len(MAGIC)
        (self.format,) = struct.unpack("<I", self._take(4, "format version"))
        if self.format != SAVED_FORMAT and not any_format:
            return
        self.mddf_version, self.algorithm, self.name = (self._text(what) for what in ("mddf", "digest", "class"))
        if self.algorithm not in DIGESTS:
            raise ModelFileError(
                where,
                f"its digest algorithm {self.algorithm!r} is not one this mddf knows ({', '.join(DIGESTS)}): saved by "
                "a newer mddf, or the file is damaged",
            )
        (self.payload_size,) = struct.unpack("<Q", self._take(8, "payload length"))
        self.head_size = self.at
        self.digest = self._take(DIGESTS[self.algorithm]().digest_size, "digest")
        self.size = self.at + self.payload_size

    def _take(self, n, what):
        if self.at + n > len(self.data):
            raise ModelFileError(self.where, f"truncated: its {len(self.data)} bytes end inside its header ({what})")
        self.at += n
        return self.data[self.at - n : self.at]

    def _text(self, what):
        return self._take(self._take(1, what)[0], what).decode("ascii", "replace")

    def check_digest(self):
        """Raise :class:`ModelFileError` unless the file's size and digest are those its header gives."""
        if len(self.data) != self.size:
            raise ModelFileError(
                self.where,
                f"its header announces {self.size} bytes and it holds {len(self.data)}: the file is truncated or "
                "damaged; nothing of it was loaded",
            )
        view = memoryview(self.data)
        digest = DIGESTS[self.algorithm](view[: self.head_size])
        digest.update(view[self.at :])
        if digest.digest() != self.digest:
            raise ModelFileError(
                self.where,
                f"its {len(self.data)} bytes do not match the {self.algorithm} digest taken when it was saved (found "
                f"{digest.hexdigest()}, expected {self.digest.hex()}): the file is damaged, a byte changed; nothing "
                "of it was loaded",
            )


def check(data, where):
    """The header of the saved-model bytes ``data`` whose size and digest match it; :class:`ModelFileError` naming
    ``where`` (a path, or "the pickled ...") and what is wrong otherwise: not a saved model, truncated, damaged,
    of another format version."""
    if not data:
        raise ModelFileError(where, "empty (0 bytes): not a model saved by mddf")
    if not data.startswith(MAGIC):
        if MAGIC.startswith(data):
            raise ModelFileError(where, f"truncated: it holds the first {len(data)} bytes of a saved model's mark")
        hint = " (it looks like a pickle: load it with pickle.load)" if data[:1] == b"\x80" else ""
        raise ModelFileError(where, f"not a model saved by mddf: it does not begin with mddf's mark {MAGIC!r}{hint}")
    head = _Header(data, where)
    if head.format != SAVED_FORMAT:
        raise ModelFileError(where, _other_format(data, head.format))
    head.check_digest()
    return head


def _other_format(data, version):
    """What to say of a file of format ``version``: a newer mddf's when it verifies as one, else damaged or newer."""
    this = f"this mddf ({_mddf_version()}) reads format {SAVED_FORMAT}"
    if version < SAVED_FORMAT:
        return f"saved in format {version}, which no mddf wrote ({this}): the file is damaged"
    try:  # a newer format that kept this one's header and digest: its own version, as the file says it
        as_this = _Header(data, "", any_format=True)
        as_this.check_digest()
    except ModelFileError:
        return f"saved in format {version}, which {this}: saved by a newer mddf, or the file is damaged"
    return f"saved by mddf {as_this.mddf_version} in format {version}, newer than {this}: load it with a newer mddf"


def unseal(data, where=None):
    """The estimator of the saved-model bytes ``data``, checked by :func:`check` before it is unpickled.

    Raises :class:`ModelFileError` naming ``where`` (default: "the pickled <class>") when the bytes are not a saved
    model, damaged or of another format, before anything is unpickled, and when the intact payload cannot be
    unpickled here (a class or module missing from this environment: the error says which).
    """
    if where is None:
        where = "a pickled mddf model" if not isinstance(data, bytes) else _pickled_name(data)
    if not isinstance(data, bytes):
        raise ModelFileError(where, "its state is not a block of bytes: the pickle is damaged")
    head = check(data, where)
    token = _SAVED_BY.set(head.mddf_version)
    try:
        return _unpickled(memoryview(data)[head.at :], where, "")
    finally:
        _SAVED_BY.reset(token)


def _unpickled(data, where, subject):
    """``pickle.loads(data)`` of bytes their digest has checked: what fails is a :class:`ModelFileError` naming
    ``where`` and ``subject`` (``"its state is "`` or ``""``), an invalid model (:class:`InvalidStoredArrays`) or
    this environment (a class, a module missing: Python's error)."""
    try:
        return pickle.loads(data)
    except ModelFileError:
        raise
    except InvalidStoredArrays as exc:  # the bytes are the ones saved, but they do not describe a valid model
        raise ModelFileError(where, f"{subject}intact (its digest matches) but not a valid model: {exc}") from exc
    except Exception as exc:
        raise ModelFileError(where, f"{subject}intact but cannot be loaded here: {type(exc).__name__}: {exc}") from exc


def _pickled_name(data):
    """ "the pickled <class>", the class as the header of ``data`` names it, for the messages of a pickle."""
    try:
        head = _Header(data, "")
        return f"the pickled {head.name}" if head.format == SAVED_FORMAT else "a pickled mddf model"
    except ModelFileError:
        return "a pickled mddf model"


#: The version of mddf that saved the bytes being unpickled (None outside :func:`unseal`).
_SAVED_BY = contextvars.ContextVar("saved_by", default=None)


def saved_by():
    """The version of mddf that saved the model being loaded, as the header of its bytes says (None when no saved
    model's bytes are being unpickled: a pickle of an earlier version, or no load at all)."""
    return _SAVED_BY.get()


def unpickling_checked_bytes():
    """Whether the objects being rebuilt come from a saved model's payload that :func:`unseal` checked whole against
    its digest (a file's, or an estimator's pickle's): they are the bytes that were saved, and need not be checked
    against a digest of their own."""
    return _SAVED_BY.get() is not None


def sealed_reduce(obj):
    """``obj.__reduce__()`` of an estimator that pickles sealed: :func:`unseal` of its :func:`seal` bytes."""
    return unseal, (seal(obj),)


def _sha256(block, name):
    """The SHA-256 of a pickle of the previous version (:func:`open_sealed`): of its class name, then its block."""
    return hashlib.sha256(name + b"\0" + block).digest()


def open_sealed(block, name, sha256):
    """The object of a pickle written by the previous version of mddf (0.2.0.dev0 before saved models): ``block``
    checked against ``sha256`` (with ``name``, the class name of the messages), then unpickled into an instance of
    the class it names, through the class's ``__setstate__``.

    Raises :class:`ModelFileError` (its ``path`` "the pickled <name>") when the block or the name does not match
    the hash, before anything is unpickled, and when the intact block cannot be unpickled here.
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
    cls, state = _unpickled(block, what, "its state is ")
    obj = cls.__new__(cls)
    obj.__setstate__(state)
    return obj
