"""The temporary folders of ``model_dir="auto"``: made per process, removed with their model, at exit, on SIGTERM,
or (left by a killed process) by the next fit."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import warnings
from contextlib import contextmanager

from .files import ModelFileError, read_marker, write_marker

#: Name of a temporary folder (``model_dir="auto"``): ``mddf-<pid of the process that owns it>-<random>``.
_TEMPORARY_NAME = re.compile(r"^mddf-(\d+)-")
#: This process's temporary folders that still exist (path -> pid of the process that made them).
_TEMPORARY = {}


def remove_tree(path, pid):
    """Remove a temporary folder, only in the process that created it (not in a forked child)."""
    if os.getpid() == pid:
        _TEMPORARY.pop(path, None)
        shutil.rmtree(path, ignore_errors=True)


def new_temporary_folder(fit_id):
    """A new temporary folder named after this process, with a marker naming the process and the host.

    Folders that killed processes left behind are removed first (:func:`remove_stale_temporary_folders`).
    """
    remove_stale_temporary_folders()
    pid = os.getpid()
    path = tempfile.mkdtemp(prefix=f"mddf-{pid}-")
    write_marker(path, fit_id, temporary={"pid": pid, "host": socket.gethostname()})
    _TEMPORARY[path] = pid
    return path


def _process_runs(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def _is_stale(folder, pid):
    """Whether ``folder`` is a temporary model folder of this host whose process ``pid`` no longer runs."""
    if pid == os.getpid() or _process_runs(pid):
        return False
    try:
        st = os.lstat(folder)
        marker = read_marker(folder)
    except (OSError, ModelFileError):
        return False
    owner = marker.get("temporary")
    return (
        os.path.isdir(folder)
        and not os.path.islink(folder)
        and st.st_uid == os.getuid()
        and isinstance(owner, dict)
        and owner.get("pid") == pid
        and owner.get("host") == socket.gethostname()
    )


def remove_stale_temporary_folders(parent=None):
    """Remove the temporary model folders (``model_dir="auto"``) whose process was killed before it removed them.

    A folder of ``parent`` (default ``tempfile.gettempdir()``) is removed when its name and its marker
    name a process of this host and this user that no longer runs; a ``UserWarning`` lists the
    folders removed. Returns their paths.
    """
    parent = tempfile.gettempdir() if parent is None else parent
    try:
        entries = os.listdir(parent)
    except OSError:
        return []
    removed = []
    for entry in entries:
        match = _TEMPORARY_NAME.match(entry)
        folder = os.path.join(parent, entry)
        if match and _is_stale(folder, int(match.group(1))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        warnings.warn(
            f"removed {len(removed)} temporary model_dir folder(s) left by processes that were killed before they "
            f"could remove them: {', '.join(removed)}",
            UserWarning,
            stacklevel=2,
        )
    return removed


def remove_temporary_folders():
    """Remove every temporary model folder of this process (the models that use them cannot predict afterwards)."""
    for path, pid in list(_TEMPORARY.items()):
        remove_tree(path, pid)


@contextmanager
def temporary_folders_removed_on_sigterm(model_dir):
    """With ``model_dir="auto"``, within the block a SIGTERM removes this process's temporary folders, then ends it.

    Installed only where SIGTERM has its default action (which would end the process without any
    clean-up) and in the main thread; the process then still ends by the signal, after the folders
    are removed, and the default action is restored on leaving the block. A Python handler of the
    program's own is left alone: it decides whether the process goes on (with its folders) or
    exits, and an exit from Python (``sys.exit``, an exception) removes them as any exit does.
    """
    if (
        not (isinstance(model_dir, str) and model_dir == "auto")
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def on_sigterm(signum, frame):
        remove_temporary_folders()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) is on_sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
