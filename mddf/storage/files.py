"""The format of ``model_dir``'s files: the folder's marker, each model file's header, the hashes that check them, and
:class:`ModelFileError`."""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct

#: Marker file of a folder written by mddf: the entries :data:`OWNED_ENTRY` names in it are mddf's to replace.
MARKER = "MDDF_MODEL_DIR.json"
#: Names of the entries a fit replaces in a folder that holds :data:`MARKER`.
OWNED_ENTRY = re.compile(r"^(layer|candidate)-\d+$")
#: Bytes before a model file's content: magic, format version, fit identifier (hex), padding.
HEADER_BYTES = 64
_MAGIC = b"MDDFMODL"
#: Version of the model files' format (and of the marker); 2 added the content hash kept by the handle.
FORMAT = 3
ALIGN = 64


class ModelFileError(ValueError):
    """A stored model file that cannot be used: damaged, truncated, of another format or written by another fit.

    Attributes
    ----------
    path : str
        The file.
    """

    def __init__(self, path, problem):
        self.path = path
        super().__init__(f"model file {path}: {problem}")


class InvalidStoredArrays(ValueError):
    """Arrays of a stored model (a forest's trees) that its own check refuses as they are unpickled: the bytes may
    be intact (their digest matches) yet not describe a valid model, written so by other code than mddf's save."""


def header(fit_id):
    head = _MAGIC + struct.pack("<I", FORMAT) + fit_id.encode("ascii")
    return head + b"\0" * (HEADER_BYTES - len(head))


def check_header(head, path, fit_id):
    if len(head) < HEADER_BYTES or head[: len(_MAGIC)] != _MAGIC:
        raise ModelFileError(path, f"not a model file written by mddf (it does not begin with {_MAGIC!r})")
    (version,) = struct.unpack("<I", head[len(_MAGIC) : len(_MAGIC) + 4])
    if version != FORMAT:
        raise ModelFileError(path, f"model file format {version}; this version of mddf reads format {FORMAT}")
    written_by = head[len(_MAGIC) + 4 : len(_MAGIC) + 4 + len(fit_id)].decode("ascii", "replace")
    if written_by != fit_id:
        raise ModelFileError(
            path,
            "written by another fit than this model's (its folder was fitted into again since, or the file is "
            "damaged); refit the model, or load the pickle that goes with the folder's current files",
        )


def missing(path):
    folder = os.path.dirname(os.path.dirname(path))
    return FileNotFoundError(
        f"model file {path} of this fitted model is missing: its model_dir folder {folder} was moved, deleted or "
        "cleaned since the fit. If the folder was moved, point the model at its new place with "
        "relocate_model_dir(new_path); otherwise refit"
    )


#: Path -> (file status, sha256) of the model files whose content this process has checked and not seen change.
VERIFIED = {}


def file_status(f):
    """What changes when a file is rewritten or replaced: device, inode, size, modification and change times."""
    st = os.fstat(f.fileno())
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


class HashingWriter:
    """Writes to a file while hashing (sha256) and counting the bytes written, so the file is never read back."""

    def __init__(self, f):
        self.f = f
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, data):
        self.sha256.update(data)
        self.size += memoryview(data).nbytes
        return self.f.write(data)


def write_marker(path, fit_id, temporary=None):
    """Write the folder's :data:`MARKER`; ``temporary``: the owning process of a temporary folder (pid, host)."""
    content = {"written_by": "mddf", "format": FORMAT, "fit_id": fit_id}
    if temporary is not None:
        content["temporary"] = temporary
    with open(os.path.join(path, MARKER), "w") as f:
        json.dump(content, f)
        f.write("\n")


def read_marker(folder):
    """The content of ``folder``'s :data:`MARKER` (a dict); :class:`ModelFileError` naming it if it is not valid."""
    path = os.path.join(folder, MARKER)
    with open(path, "rb") as f:
        data = f.read()
    try:
        content = json.loads(data)
    except ValueError as exc:  # UnicodeDecodeError included
        raise ModelFileError(path, f"not valid JSON ({exc})") from exc
    if not isinstance(content, dict):
        raise ModelFileError(path, "not a JSON object")
    return content
